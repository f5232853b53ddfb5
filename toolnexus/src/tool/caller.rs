//! What a tool says back while it runs: the [`LogLevel`] of its log lines, and the
//! [`Sampling`] requests it sends to its caller's model with their replies. They travel
//! through the [`Caller`](crate::tool::Caller) in the tool's
//! [`Context`](crate::Context), which holds it (both are in `context.rs`).
//!
//! This layer defines only the channel. The loop implements it (progress and log lines
//! become run events and `tracing` events; sampling asks the client's own model), and so
//! does the MCP server (`notifications/progress`, `notifications/message`,
//! `sampling/createMessage`). A tool called with no caller pays one branch per report.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The severity of a log line: the eight levels of syslog (RFC 5424), which MCP uses, from
/// least to most severe (`LogLevel::Debug < LogLevel::Emergency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name as MCP writes it (`"debug"`, …, `"emergency"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LogLevel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LogLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown log level `{s}`: expected one of debug, info, notice, warning, error, critical, alert, emergency"
                )
            })
    }
}

/// Who wrote a [`SamplingMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SamplingRole {
    /// The user (the tool, speaking for it).
    User,
    /// The model.
    Assistant,
}

/// One message of a [`Sampling`] request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who wrote it.
    pub role: SamplingRole,
    /// Its text.
    pub text: String,
}

impl SamplingMessage {
    /// A message of `role` saying `text`.
    pub fn new(role: SamplingRole, text: impl Into<String>) -> Self {
        SamplingMessage {
            role,
            text: text.into(),
        }
    }
}

/// The default for [`Sampling::max_tokens`].
pub const DEFAULT_SAMPLING_MAX_TOKENS: u32 = 1024;

/// A request to the caller's model: what [`Context::sample`](crate::Context::sample) sends.
///
/// ```
/// use toolnexus::tool::Sampling;
///
/// let ask = Sampling::new("Summarize: …").with_system("Be brief.").with_max_tokens(100);
/// assert_eq!(ask.messages[0].text, "Summarize: …");
/// assert_eq!(ask.max_tokens, 100);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Sampling {
    /// The conversation, oldest first; the last message is usually the user's.
    pub messages: Vec<SamplingMessage>,
    /// A system prompt the caller may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The most tokens the reply may take.
    pub max_tokens: u32,
    /// A sampling temperature, if the tool cares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
}

impl Sampling {
    /// One user message, [`DEFAULT_SAMPLING_MAX_TOKENS`], no system prompt.
    pub fn new(prompt: impl Into<String>) -> Self {
        Sampling {
            messages: vec![SamplingMessage::new(SamplingRole::User, prompt)],
            system: None,
            max_tokens: DEFAULT_SAMPLING_MAX_TOKENS,
            temperature: None,
        }
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// Sets the most tokens the reply may take.
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Sets the temperature.
    #[must_use]
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a message at the end of the conversation.
    #[must_use]
    pub fn with_message(mut self, role: SamplingRole, text: impl Into<String>) -> Self {
        self.messages.push(SamplingMessage::new(role, text));
        self
    }
}

impl From<&str> for Sampling {
    fn from(prompt: &str) -> Self {
        Sampling::new(prompt)
    }
}

impl From<String> for Sampling {
    fn from(prompt: String) -> Self {
        Sampling::new(prompt)
    }
}

/// The caller model's reply to a [`Sampling`] request.
///
/// ```
/// use toolnexus::tool::Sampled;
///
/// let reply = Sampled::new("Brief.").with_model("gpt-4.1-mini").with_stop_reason("endTurn");
/// assert_eq!(reply.text, "Brief.");
/// assert_eq!(reply.model.as_deref(), Some("gpt-4.1-mini"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Sampled {
    /// The reply's text.
    pub text: String,
    /// The model that wrote it, when the caller says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why it stopped (`"endTurn"`, `"maxTokens"`, …), when the caller says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// A reply saying `text`, with no model or stop reason.
    pub fn new(text: impl Into<String>) -> Self {
        Sampled {
            text: text.into(),
            model: None,
            stop_reason: None,
        }
    }

    /// The reply, naming the model that wrote it.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The reply, saying why it stopped.
    #[must_use]
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }
}

/// Why a [`Context::sample`](crate::Context::sample) request got no reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SamplingError {
    /// Nobody who called the tool can sample: no caller, an MCP client that did not
    /// declare `sampling`, or a protocol version without it (2026-07-28 deprecates it).
    #[error("sampling is not available: {0}")]
    Unsupported(String),
    /// The caller tried and failed (the user declined, the model errored, the
    /// connection closed).
    #[error("sampling failed: {0}")]
    Failed(String),
}

/// An MCP Apps view to show beside a call (the `io.modelcontextprotocol/ui` extension):
/// the page of the `ui://` resource the called tool names, with the call's input and
/// result, as a host needs them to render it. A remote tool with a view reports one
/// through [`Context::view`](crate::Context::view) when its call returns; a run carries
/// it as [`Event::View`](crate::Event::View).
///
/// Its JSON form (snake_case) is `{"uri", "server", "tool", "html", "ui", "input", "result"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolView {
    /// The view's `ui://` URI (the tool's `_meta.ui.resourceUri`).
    pub uri: String,
    /// The name of the MCP server the tool and its view come from (its `serverInfo.name`):
    /// the only server the view's own tool calls may go to.
    pub server: String,
    /// The name of the tool on that server (without any prefix the client added).
    pub tool: String,
    /// The view's HTML page.
    pub html: String,
    /// The resource's `_meta.ui`, as the server sent it (`csp`, `permissions`,
    /// `prefersBorder`, …); `null` when it sent none.
    #[serde(default)]
    pub ui: serde_json::Value,
    /// The call's arguments.
    #[serde(default)]
    pub input: serde_json::Value,
    /// The call's result in MCP's `CallToolResult` form (`content`, `structuredContent`,
    /// `isError`, `_meta`), as the view reads it.
    #[serde(default)]
    pub result: serde_json::Value,
}

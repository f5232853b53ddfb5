//! Talking back while a tool runs: progress, log lines and sampling requests from a tool
//! to whoever called it, through a [`Caller`] in its [`Context`](crate::Context).
//!
//! This layer defines only the channel. The loop implements it (progress and log lines
//! become run events and `tracing` events; sampling asks the client's own model), and so
//! does the MCP server (`notifications/progress`, `notifications/message`,
//! `sampling/createMessage`). A tool called with no caller pays one branch per report.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::tool::call::BoxFuture;
use crate::tool::context::Context;

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
pub enum SamplingRole {
    /// The user (the tool, speaking for it).
    User,
    /// The model.
    Assistant,
}

/// One message of a [`Sampling`] request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who wrote it.
    pub role: SamplingRole,
    /// Its text.
    pub text: String,
}

/// The default for [`Sampling::max_tokens`].
pub const DEFAULT_SAMPLING_MAX_TOKENS: u32 = 1024;

/// A request to the caller's model: what [`Context::sample`] sends.
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
            messages: vec![SamplingMessage {
                role: SamplingRole::User,
                text: prompt.into(),
            }],
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
        self.messages.push(SamplingMessage {
            role,
            text: text.into(),
        });
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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

/// Why a [`Context::sample`] request got no reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SamplingError {
    /// Nobody who called the tool can sample: no caller, an MCP client that did not
    /// declare `sampling`, or a protocol version without it (2026-07-28 deprecates it).
    Unsupported(String),
    /// The caller tried and failed (the user declined, the model errored, the
    /// connection closed).
    Failed(String),
}

impl fmt::Display for SamplingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SamplingError::Unsupported(why) => write!(f, "sampling is not available: {why}"),
            SamplingError::Failed(why) => write!(f, "sampling failed: {why}"),
        }
    }
}

impl std::error::Error for SamplingError {}

/// Whoever called a tool, as the tool sees it while it runs: where
/// [`Context::progress`], [`Context::log`] and [`Context::sample`] go.
///
/// Implemented by the loop (run events, `tracing`, the client's own model) and by the MCP
/// server (notifications and `sampling/createMessage` to the client); implement it to
/// receive a tool's reports when calling it directly. Reports are synchronous and must
/// not block: queue or send them on. `ctx` is the context of the call reporting (its call
/// id, say).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolnexus::tool::{Caller, LogLevel};
/// use toolnexus::{Context};
///
/// #[derive(Default)]
/// struct Recorder(Mutex<Vec<String>>);
///
/// impl Caller for Recorder {
///     fn progress(&self, _: &Context, done: f64, total: Option<f64>, _: Option<&str>) {
///         self.0.lock().unwrap().push(format!("{done}/{}", total.unwrap_or(0.0)));
///     }
///     fn log(&self, _: &Context, level: LogLevel, message: &str) {
///         self.0.lock().unwrap().push(format!("{level}: {message}"));
///     }
/// }
///
/// let recorder = Arc::new(Recorder::default());
/// let ctx = Context::new().with_caller(recorder.clone());
/// ctx.progress(1, 2.0, "half");
/// ctx.log(LogLevel::Info, "done");
/// assert_eq!(*recorder.0.lock().unwrap(), ["1/2", "info: done"]);
/// ```
pub trait Caller: Send + Sync + 'static {
    /// The call has done `done` of `total` (when known), with an optional message.
    fn progress(&self, ctx: &Context, done: f64, total: Option<f64>, message: Option<&str>);

    /// A log line at `level`.
    fn log(&self, ctx: &Context, level: LogLevel, message: &str);

    /// Asks the caller's model; by default, [`SamplingError::Unsupported`].
    fn sample<'a>(
        &'a self,
        ctx: &'a Context,
        request: Sampling,
    ) -> BoxFuture<'a, Result<Sampled, SamplingError>> {
        let _ = (ctx, request);
        Box::pin(std::future::ready(Err(SamplingError::Unsupported(
            "this caller does not sample".to_owned(),
        ))))
    }
}

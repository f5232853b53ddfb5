//! [`TranslateRequest`]: what one translation sends.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::agent::hooks::Hooks;
use crate::model::settings::ModelSettings;
use crate::tool::kit::Toolkit;

/// What one [`translate`](super::translate) call sends: OpenAI's `messages`, `tools` and
/// `tool_choice` as the caller has them, and optionally a toolkit to list, a system prompt,
/// a token cap, settings and hooks.
///
/// How the OpenAI shapes are read:
///
/// - **messages**: roles `system` and `developer` (instructions: the provider's system
///   field, where it has one), `user`, `assistant` (its `content` and `tool_calls`, each
///   `{"id", "type": "function", "function": {"name", "arguments"}}` with `arguments` a
///   JSON string or an object) and `tool` (`tool_call_id` and `content`, answering a call
///   of an earlier assistant message). A `content` is a string, `null`, or an array of
///   parts whose text parts are joined; a tool message's parts may also be the contract's
///   media parts (`{"type": "image" | "file" | "audio", "mimeType", "data": <base64>}`),
///   which travel in the provider's native form. An empty user message, and an assistant
///   message with neither text nor calls, carry nothing and are left out. Other keys of a
///   message (`name`, `refusal`) are not read.
/// - **tools**: `{"type": "function", "function": {"name", "description", "parameters"}}`
///   (and Anthropic's `{"name", "description", "input_schema"}`), listed after the
///   toolkit's tools, in the order given, in each provider's shape.
/// - **tool_choice**: `"auto"`, `"none"`, `"required"` (or `"any"`), or
///   `{"type": "function", "function": {"name"}}`, as a [`ToolChoice`](crate::ToolChoice).
///
/// Anything else (a message that is not an object, an unknown role, an image in a user
/// message, a tool call without an id, a tool that is not a function) is refused with a
/// [`TranslateError::Request`](super::TranslateError::Request) naming its place, before
/// anything is sent.
///
/// ```
/// use serde_json::json;
/// use toolnexus::translate::TranslateRequest;
///
/// let request = TranslateRequest::new([json!({"role": "user", "content": "hi"})])
///     .tool_choice(json!("required"))
///     .max_tokens(512);
/// assert_eq!(request.messages().len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct TranslateRequest {
    pub(super) messages: Vec<Value>,
    pub(super) tools: Vec<Value>,
    pub(super) toolkit: Option<Toolkit>,
    pub(super) tool_choice: Option<Value>,
    pub(super) system: Option<String>,
    pub(super) max_tokens: Option<u32>,
    pub(super) settings: ModelSettings,
    pub(super) hooks: Vec<Arc<dyn Hooks>>,
}

impl TranslateRequest {
    /// A request with these OpenAI `messages`.
    pub fn new(messages: impl IntoIterator<Item = Value>) -> Self {
        TranslateRequest {
            messages: messages.into_iter().collect(),
            ..TranslateRequest::default()
        }
    }

    /// Sets OpenAI's `tools` array, listed after the toolkit's tools.
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = Value>) -> Self {
        self.tools = tools.into_iter().collect();
        self
    }

    /// Lists these tools to the model too, first; they never run.
    #[must_use]
    pub fn toolkit(mut self, toolkit: Toolkit) -> Self {
        self.toolkit = Some(toolkit);
        self
    }

    /// Sets OpenAI's `tool_choice` (over a tool choice in [`settings`](Self::settings)).
    #[must_use]
    pub fn tool_choice(mut self, choice: Value) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// Sets the system prompt, in place of every `system` and `developer` message.
    #[must_use]
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// Caps the turn's tokens (over [`settings`](Self::settings)); 0 leaves the
    /// provider's default.
    #[must_use]
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets how the model is asked ([`ModelSettings`]: sampling, stop sequences,
    /// reasoning, provider fields), merged over the model's own settings. The request's
    /// [`tool_choice`](Self::tool_choice) and [`max_tokens`](Self::max_tokens) win over
    /// these.
    #[must_use]
    pub fn settings(mut self, settings: ModelSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Adds hooks that see the turn: `before_turn` and `after_turn` once each, in the
    /// order the hooks were added. Tool hooks never fire (no tool runs).
    #[must_use]
    pub fn hooks(mut self, hooks: impl Hooks + 'static) -> Self {
        self.hooks.push(Arc::new(hooks));
        self
    }

    /// The OpenAI messages, as given.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }
}

impl fmt::Debug for TranslateRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TranslateRequest")
            .field("messages", &self.messages.len())
            .field("tools", &self.tools.len())
            .field("toolkit", &self.toolkit.as_ref().map(Toolkit::len))
            .field("tool_choice", &self.tool_choice)
            .field("system", &self.system.is_some())
            .field("max_tokens", &self.max_tokens)
            .field("settings", &self.settings)
            .field("hooks", &self.hooks.len())
            .finish()
    }
}

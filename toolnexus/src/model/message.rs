//! [`Message`] and [`ToolCall`]: the transcript of a run, in OpenAI's chat shape.
//!
//! The shape is documented on [`Message`], where it renders.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::tool::content::ContentPart;
use crate::tool::request::Request;
use crate::tool::result::ToolResult;

/// One message of a transcript. Serialized with a `role` tag, as OpenAI's Chat
/// Completions API expects (`"system"`, `"user"`, `"assistant"`, `"tool"`).
///
/// A transcript is a `Vec<Message>`: an optional system message, then user turns,
/// assistant turns (text and/or tool calls), and one tool message per tool call, keyed by
/// the call's id. It serializes to the JSON a Chat Completions request carries, with two
/// additions on tool messages: `is_error` (omitted when `false`) and the result's `parts`;
/// and one on a call parked by a suspension: `pending`, the [`Request`] it waits on.
///
/// ```
/// use toolnexus::{Message, ToolCall, ToolResult};
///
/// let call = ToolCall::new("call_1", "add", r#"{"a":2,"b":3}"#);
/// let transcript = vec![
///     Message::user("What is 2 + 3?"),
///     Message::tool_calls(None, vec![call.clone()]),
///     Message::tool_result(&call.id, &ToolResult::ok("5")),
///     Message::assistant("5"),
/// ];
/// let json = serde_json::to_value(&transcript).unwrap();
/// assert_eq!(json[1]["tool_calls"][0]["function"]["arguments"], r#"{"a":2,"b":3}"#);
/// assert_eq!(json[2], serde_json::json!({"role": "tool", "tool_call_id": "call_1", "content": "5"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Message {
    /// Instructions for the model, first in the transcript.
    System {
        /// The instructions.
        content: String,
    },
    /// What the user said: text, or a list of parts (an image and a question).
    User {
        /// The user's text or parts.
        content: UserContent,
    },
    /// One model reply: text, tool calls, or both.
    Assistant {
        /// The reply's text, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// The tools the model asked to run, in its order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// The provider's own form of the turn, when it holds blocks this shape has no room
        /// for (see [`NativeTurn`]); `None` for every other turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        native: Option<Box<NativeTurn>>,
    },
    /// The result of one tool call.
    Tool {
        /// The id of the [`ToolCall`] this answers.
        tool_call_id: String,
        /// The result's text ([`ToolResult::output`]).
        content: String,
        /// Whether the call failed ([`ToolResult::is_error`]).
        #[serde(default, skip_serializing_if = "is_false")]
        is_error: bool,
        /// The result's non-text output ([`ToolResult::parts`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parts: Option<Vec<ContentPart>>,
        /// The tool's name, written (as the other ports write it) on a message that
        /// carries parts, so a provider that moves the parts elsewhere can say whose
        /// they are.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Set while the call is parked on a suspension: the [`Request`] it waits on.
        /// A run that halted leaves such a message; resuming replaces it with the result.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending: Option<Box<Request>>,
    },
}

/// What a user message holds, and what [`Client::run`](crate::Client::run) and its
/// siblings take as the prompt: text, or a list of [`ContentPart`]s in the order the
/// model should read them (an image, then the question about it).
///
/// Text serializes as a JSON string, parts as an array of the contract's parts, so a
/// text-only transcript reads as it always did.
///
/// ```
/// use toolnexus::{ContentPart, Message, UserContent};
///
/// let text: UserContent = "What is 2 + 3?".into();
/// assert_eq!(text, "What is 2 + 3?");
///
/// let photo = ContentPart::image_bytes(b"GIF89a".to_vec(), "image/gif").unwrap();
/// let asked = Message::user(vec![photo, ContentPart::text("What is in this picture?")]);
/// let json = serde_json::to_value(&asked).unwrap();
/// assert_eq!(json["content"][1], serde_json::json!({"type": "text", "text": "What is in this picture?"}));
/// assert_eq!(asked.text(), Some("What is in this picture?"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum UserContent {
    /// Plain text.
    Text(String),
    /// Parts, in order.
    Parts(Vec<ContentPart>),
}

impl UserContent {
    /// All the text: the text itself, or the text parts joined by newlines (other parts
    /// are left out).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            UserContent::Text(text) => text.as_str().into(),
            UserContent::Parts(parts) => {
                let mut texts = parts.iter().filter_map(ContentPart::as_text);
                match (texts.next(), texts.next()) {
                    (None, _) => "".into(),
                    (Some(one), None) => one.into(),
                    (Some(first), Some(second)) => {
                        let mut all = vec![first, second];
                        all.extend(texts);
                        all.join("\n").into()
                    }
                }
            }
        }
    }

    /// The text, when this is plain text (not parts).
    pub fn as_text(&self) -> Option<&str> {
        match self {
            UserContent::Text(text) => Some(text),
            UserContent::Parts(_) => None,
        }
    }

    /// The parts; empty for plain text.
    pub fn parts(&self) -> &[ContentPart] {
        match self {
            UserContent::Text(_) => &[],
            UserContent::Parts(parts) => parts,
        }
    }

    /// The text, or the first text part's.
    pub fn first_text(&self) -> Option<&str> {
        match self {
            UserContent::Text(text) => Some(text),
            UserContent::Parts(parts) => parts.iter().find_map(ContentPart::as_text),
        }
    }

    /// Replaces the text, keeping the other parts: plain text becomes `text`; in parts,
    /// the first text part takes `text` and the other text parts go.
    pub(crate) fn replace_text(&mut self, text: String) {
        match self {
            UserContent::Text(old) => *old = text,
            UserContent::Parts(parts) => {
                let mut text = Some(text);
                parts.retain_mut(|part| match part.as_text() {
                    None => true,
                    Some(_) => match text.take() {
                        Some(text) => {
                            *part = ContentPart::text(text);
                            true
                        }
                        None => false,
                    },
                });
                if let Some(text) = text {
                    parts.push(ContentPart::text(text));
                }
            }
        }
    }

    /// Each part in order, text included as a text part (plain text is one).
    pub fn to_parts(&self) -> Vec<ContentPart> {
        match self {
            UserContent::Text(text) => vec![ContentPart::text(text.as_str())],
            UserContent::Parts(parts) => parts.clone(),
        }
    }
}

impl<'de> Deserialize<'de> for UserContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = UserContent;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a user message's content: a string or an array of content parts")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<UserContent, E> {
                Ok(UserContent::Text(text.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<UserContent, E> {
                Ok(UserContent::Text(text))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<UserContent, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(part) = seq.next_element()? {
                    parts.push(part);
                }
                Ok(UserContent::Parts(parts))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

impl Default for UserContent {
    fn default() -> Self {
        UserContent::Text(String::new())
    }
}

impl std::fmt::Display for UserContent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

impl From<&str> for UserContent {
    fn from(text: &str) -> Self {
        UserContent::Text(text.to_owned())
    }
}

impl From<&String> for UserContent {
    fn from(text: &String) -> Self {
        UserContent::Text(text.clone())
    }
}

impl From<String> for UserContent {
    fn from(text: String) -> Self {
        UserContent::Text(text)
    }
}

impl From<std::borrow::Cow<'_, str>> for UserContent {
    fn from(text: std::borrow::Cow<'_, str>) -> Self {
        UserContent::Text(text.into_owned())
    }
}

impl From<Vec<ContentPart>> for UserContent {
    fn from(parts: Vec<ContentPart>) -> Self {
        UserContent::Parts(parts)
    }
}

impl<const N: usize> From<[ContentPart; N]> for UserContent {
    fn from(parts: [ContentPart; N]) -> Self {
        UserContent::Parts(parts.into())
    }
}

impl From<ContentPart> for UserContent {
    fn from(part: ContentPart) -> Self {
        UserContent::Parts(vec![part])
    }
}

impl PartialEq<str> for UserContent {
    fn eq(&self, other: &str) -> bool {
        self.as_text() == Some(other)
    }
}

impl PartialEq<&str> for UserContent {
    fn eq(&self, other: &&str) -> bool {
        self.as_text() == Some(*other)
    }
}

impl PartialEq<String> for UserContent {
    fn eq(&self, other: &String) -> bool {
        self.as_text() == Some(other.as_str())
    }
}

/// An assistant turn as the provider wrote it, kept in the transcript when it holds what
/// the shared shape has no room for and the next request must carry back: the model's
/// reasoning (OpenAI Responses' `reasoning` items with their encrypted content, Anthropic's
/// `thinking` and `redacted_thinking` blocks with their signatures, Gemini's parts with
/// their `thoughtSignature`s), and Anthropic's `server_tool_use` and
/// `tool_search_tool_result` blocks (with their `tool_reference`s), for the tools they
/// loaded to stay callable. The provider that wrote it sends it back in place of the
/// turn's text and calls (whose ids it keeps in step); other providers read only the text
/// and calls. It is plain JSON, so a serialized transcript keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NativeTurn {
    /// The wire format that wrote it: `"anthropic"`, `"gcp.gemini"`, `"openai.responses"`.
    pub provider: String,
    /// The turn's content in the provider's own JSON (Anthropic: the `content` array;
    /// Gemini: the `parts`; OpenAI Responses: the `output` items).
    pub content: serde_json::Value,
    /// The model that wrote it, as `provider/model`, when a model made of others
    /// ([`FallbackModel`](crate::model::FallbackModel), [`Router`](crate::model::Router))
    /// said so. Those send a turn's native form back only to the model that wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl NativeTurn {
    /// A turn in `provider`'s own JSON.
    pub fn new(provider: impl Into<String>, content: serde_json::Value) -> Self {
        NativeTurn {
            provider: provider.into(),
            content,
            model: None,
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::System {
            content: content.into(),
        }
    }

    /// A user message: text (`&str`, `String`) or parts (`Vec<ContentPart>`).
    pub fn user(content: impl Into<UserContent>) -> Self {
        Message::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant {
            content: Some(content.into()),
            tool_calls: Vec::new(),
            native: None,
        }
    }

    /// An assistant message asking for tool calls, with optional text beside them.
    pub fn tool_calls(content: Option<String>, tool_calls: Vec<ToolCall>) -> Self {
        Message::Assistant {
            content,
            tool_calls,
            native: None,
        }
    }

    /// The tool message carrying `result` back for the call `tool_call_id`: its output,
    /// error flag and parts travel; its metadata stays out of the transcript, except a
    /// suspension's [`Request`], kept in `pending`.
    pub fn tool_result(tool_call_id: impl Into<String>, result: &ToolResult) -> Self {
        Message::answer(tool_call_id, result, result.pending_request().as_ref())
    }

    /// The loop's tool message for `call`: [`Message::tool_result`] with the suspension
    /// already read (once, when the call settled), naming the tool when it carries parts.
    pub(crate) fn tool_message(
        call: &ToolCall,
        result: &ToolResult,
        pending: Option<&Request>,
    ) -> Self {
        let mut message = Message::answer(&call.id, result, pending);
        if let Message::Tool {
            parts: Some(parts),
            name,
            ..
        } = &mut message
            && !parts.is_empty()
        {
            *name = Some(call.name.clone());
        }
        message
    }

    fn answer(
        tool_call_id: impl Into<String>,
        result: &ToolResult,
        pending: Option<&Request>,
    ) -> Self {
        Message::Tool {
            tool_call_id: tool_call_id.into(),
            content: result.output.clone(),
            is_error: result.is_error,
            parts: result.parts.clone(),
            name: None,
            pending: pending.cloned().map(Box::new),
        }
    }

    /// The role, as serialized: `"system"`, `"user"`, `"assistant"` or `"tool"`.
    pub fn role(&self) -> &'static str {
        match self {
            Message::System { .. } => "system",
            Message::User { .. } => "user",
            Message::Assistant { .. } => "assistant",
            Message::Tool { .. } => "tool",
        }
    }

    /// The text of the message (`None` for an assistant message with no text; for a
    /// user message made of parts, its first text part, see [`UserContent::text`] for
    /// all of them).
    pub fn text(&self) -> Option<&str> {
        match self {
            Message::User { content } => content.first_text(),
            Message::System { content } | Message::Tool { content, .. } => Some(content),
            Message::Assistant { content, .. } => content.as_deref(),
        }
    }

    /// The tool calls of an assistant message; empty for every other message.
    pub fn calls(&self) -> &[ToolCall] {
        match self {
            Message::Assistant { tool_calls, .. } => tool_calls,
            _ => &[],
        }
    }

    /// For a tool message, the id of the call it answers.
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            Message::Tool { tool_call_id, .. } => Some(tool_call_id),
            _ => None,
        }
    }

    /// For a tool message parked on a suspension, the [`Request`] it waits on.
    pub fn pending(&self) -> Option<&Request> {
        match self {
            Message::Tool { pending, .. } => pending.as_deref(),
            _ => None,
        }
    }

    /// A tool message's fields, borrowed; `None` for every other message. (The providers
    /// read tool messages through it.)
    #[cfg_attr(
        not(any(
            feature = "openai",
            feature = "anthropic",
            feature = "gemini",
            feature = "bedrock"
        )),
        allow(dead_code)
    )]
    pub(crate) fn as_tool(&self) -> Option<ToolReply<'_>> {
        match self {
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                parts,
                pending,
                ..
            } => Some(ToolReply {
                tool_call_id,
                content,
                is_error: *is_error,
                parts: parts.as_deref().unwrap_or_default(),
                pending: pending.as_deref(),
            }),
            _ => None,
        }
    }
}

/// The fields of a [`Message::Tool`], borrowed ([`Message::as_tool`]); no parts is an
/// empty slice.
#[cfg_attr(
    not(any(
        feature = "openai",
        feature = "anthropic",
        feature = "gemini",
        feature = "bedrock"
    )),
    allow(dead_code)
)]
pub(crate) struct ToolReply<'a> {
    pub(crate) tool_call_id: &'a str,
    pub(crate) content: &'a str,
    pub(crate) is_error: bool,
    pub(crate) parts: &'a [ContentPart],
    pub(crate) pending: Option<&'a Request>,
}

/// One tool call the model asked for: an id, a tool name and the arguments as the raw
/// JSON text the model wrote.
///
/// The arguments stay text on purpose: the transcript records exactly what the model
/// sent (even when it is not valid JSON), and the toolkit parses it straight into the
/// tool's argument type ([`Toolkit::execute_json`](crate::Toolkit::execute_json)).
///
/// Serialized in OpenAI's shape: `{"id", "type": "function", "function": {"name", "arguments"}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The id the model gave the call; its tool message carries the same one.
    pub id: String,
    /// The name of the tool to run.
    pub name: String,
    /// The arguments, as raw JSON text.
    pub arguments: String,
}

impl ToolCall {
    /// A call with raw JSON text arguments.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// A call whose arguments are a JSON value, written out as text.
    pub fn json(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: &serde_json::Value,
    ) -> Self {
        ToolCall::new(id, name, arguments.to_string())
    }
}

#[derive(Serialize)]
struct WireCallRef<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionRef<'a>,
}

#[derive(Serialize)]
struct WireFunctionRef<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Deserialize)]
struct WireCall {
    id: String,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    /// Some providers omit the arguments of a parameterless call.
    #[serde(default)]
    arguments: String,
}

impl Serialize for ToolCall {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WireCallRef {
            id: &self.id,
            kind: "function",
            function: WireFunctionRef {
                name: &self.name,
                arguments: &self.arguments,
            },
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = WireCall::deserialize(deserializer)?;
        Ok(ToolCall {
            id: wire.id,
            name: wire.function.name,
            arguments: wire.function.arguments,
        })
    }
}

//! Pieces of the transcript conversion and of streamed-turn assembly that the providers
//! share.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::model::message::{ToolCall, ToolReply, UserContent};
use crate::model::{Delta, DeltaSink, FinishReason, Reply, Usage};
use crate::tool::content::ContentPart;
use crate::tool::request::Request;

/// A tool message's text for a provider with no error flag: failures say so in words, and
/// a call still parked on a suspension is described instead of leaking its request.
pub(crate) fn tool_text<'a>(tool: &ToolReply<'a>) -> Cow<'a, str> {
    match tool.pending {
        Some(request) => Cow::Owned(pending_text(request)),
        None if tool.is_error => Cow::Owned(format!("Error: {}", tool.content)),
        None => Cow::Borrowed(tool.content),
    }
}

/// A tool message's text for a provider that flags failures itself: a call still parked
/// on a suspension is described instead of leaking its request; otherwise the result's
/// own text, when it has any.
pub(crate) fn result_text<'a>(tool: &ToolReply<'a>) -> Option<Cow<'a, str>> {
    match tool.pending {
        Some(request) => Some(Cow::Owned(pending_text(request))),
        None if !tool.content.is_empty() => Some(Cow::Borrowed(tool.content)),
        None => None,
    }
}

/// A user message's blocks: one `text` block for plain text, else a `part` block for each
/// part.
pub(crate) fn user_blocks<'a, B>(
    content: &'a UserContent,
    text: impl FnOnce(&'a str) -> B,
    part: impl FnMut(&'a ContentPart) -> B,
) -> Vec<B> {
    match content.as_text() {
        Some(content) => vec![text(content)],
        None => content.parts().iter().map(part).collect(),
    }
}

/// The blocks of an assistant turn not kept in the provider's own form: a `text` block
/// for its text (when there is any), then a `call` block for each tool call.
pub(crate) fn turn_blocks<'a, B>(
    content: Option<&'a str>,
    tool_calls: &'a [ToolCall],
    text: impl FnOnce(&'a str) -> B,
    call: impl FnMut(&'a ToolCall) -> B,
) -> Vec<B> {
    let mut blocks = Vec::with_capacity(tool_calls.len() + 1);
    if let Some(content) = content.filter(|c| !c.is_empty()) {
        blocks.push(text(content));
    }
    blocks.extend(tool_calls.iter().map(call));
    blocks
}

/// Adds a system message's `content` to the system prompt so far: the system messages
/// of a transcript make one prompt, a blank line between each.
pub(crate) fn join_system<'a>(system: &mut Option<Cow<'a, str>>, content: &'a str) {
    *system = Some(match system.take() {
        None => Cow::Borrowed(content),
        Some(before) => Cow::Owned(format!("{before}\n\n{content}")),
    });
}

/// What the model reads for a call that is waiting on a human.
pub(crate) fn pending_text(request: &Request) -> String {
    format!(
        "No result yet: the call is waiting on the user ({}: {}).",
        request.kind, request.prompt
    )
}

/// The text standing in for a part the provider cannot take where it is (a kind it has
/// no block for, or a part linked by URL where it takes only bytes).
pub(crate) fn omitted(part: &ContentPart, provider: &str) -> String {
    match part.url() {
        Some(url) => format!(
            "[{} at {url} omitted: {provider} does not accept this kind of content by URL here]",
            part.summary()
        ),
        None => format!(
            "[{} omitted: {provider} does not accept this kind of content here]",
            part.summary()
        ),
    }
}

/// A `data:` URL of the part's bytes, or the part's own URL when it links its payload.
pub(crate) fn data_url(part: &ContentPart) -> String {
    match (part.url(), part.base64()) {
        (Some(url), _) => url.to_owned(),
        (None, data) => format!(
            "data:{};base64,{}",
            part.mime_type(),
            data.unwrap_or_default()
        ),
    }
}

/// A call's arguments as the JSON object a provider that wants an object (not text)
/// expects: the model's own text when it is a JSON object, else `{}` (the model wrote
/// something else; the tool already got an error result saying so).
pub(crate) fn arguments_object(arguments: &str) -> &RawValue {
    const EMPTY: &str = "{}";
    match serde_json::from_str::<&RawValue>(arguments) {
        Ok(raw) if raw.get().trim_start().starts_with('{') => raw,
        _ => serde_json::from_str::<&RawValue>(EMPTY).unwrap_or(RawValue::NULL),
    }
}

/// One tool call being assembled from streamed pieces.
#[derive(Default)]
pub(crate) struct PartialCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
}

/// A streamed turn being assembled, passing each piece on to the caller's sink.
pub(crate) struct Assembly<'s> {
    sink: Option<DeltaSink<'s>>,
    text: String,
    pub(crate) calls: Vec<PartialCall>,
    pub(crate) usage: Usage,
    pub(crate) finish: Option<FinishReason>,
}

impl<'s> Assembly<'s> {
    pub(crate) fn new(sink: Option<DeltaSink<'s>>) -> Self {
        Assembly {
            sink,
            text: String::new(),
            calls: Vec::new(),
            usage: Usage::default(),
            finish: None,
        }
    }

    pub(crate) fn text(&mut self, piece: &str) {
        if piece.is_empty() {
            return;
        }
        self.text.push_str(piece);
        if let Some(sink) = self.sink {
            sink(Delta::Text(piece.to_owned()));
        }
    }

    /// More of the model's reasoning (a thought summary): to the sink only, not the text.
    pub(crate) fn reasoning(&mut self, piece: &str) {
        if let Some(sink) = self.sink
            && !piece.is_empty()
        {
            sink(Delta::Reasoning(piece.to_owned()));
        }
    }

    /// More of call `index` (its position in the turn); `id` and `name` when they come.
    pub(crate) fn call(
        &mut self,
        index: usize,
        id: Option<&str>,
        name: Option<&str>,
        arguments: &str,
    ) {
        while self.calls.len() <= index {
            self.calls.push(PartialCall::default());
        }
        let call = &mut self.calls[index];
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            call.id = id.to_owned();
        }
        if let Some(name) = name.filter(|name| !name.is_empty()) {
            call.name.push_str(name);
        }
        call.arguments.push_str(arguments);
        if let Some(sink) = self.sink {
            sink(Delta::ToolCall {
                index,
                id: id.map(str::to_owned),
                name: name.map(str::to_owned),
                arguments: arguments.to_owned(),
            });
        }
    }

    pub(crate) fn finish(self) -> Reply {
        let tool_calls: Vec<ToolCall> = self
            .calls
            .into_iter()
            .filter(|call| !call.name.is_empty())
            .map(|call| {
                let arguments = if call.arguments.trim().is_empty() {
                    "{}".to_owned()
                } else {
                    call.arguments
                };
                ToolCall::new(call.id, call.name, arguments)
            })
            .collect();
        let raw = serde_json::json!({"streamed": true, "usage": self.usage});
        Reply {
            content: (!self.text.is_empty()).then_some(self.text),
            tool_calls,
            usage: self.usage,
            finish_reason: self.finish,
            native: None,
            model: None,
            raw: Some(Box::new(raw)),
        }
    }
}

/// One message of the APIs whose messages are a role and a list of content blocks
/// (Anthropic's Messages, Bedrock's Converse).
#[derive(Serialize)]
pub(crate) struct RoleMessage<B> {
    pub(crate) role: &'static str,
    pub(crate) content: Vec<B>,
}

/// Adds a message's blocks. Consecutive messages of one role (the results of parallel
/// calls, a user prompt after them) make one message: these APIs want the roles to
/// alternate.
pub(crate) fn push<B>(out: &mut Vec<RoleMessage<B>>, role: &'static str, blocks: Vec<B>) {
    if blocks.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.role == role => last.content.extend(blocks),
        _ => out.push(RoleMessage {
            role,
            content: blocks,
        }),
    }
}

/// Puts the moving cache breakpoints on the conversation, each with `mark`: at the end of
/// the last message (what this turn writes to the cache) and at the end of the user
/// message before the last assistant turn (where the previous turn's breakpoint was,
/// which this turn reads back).
pub(crate) fn mark_tail<B>(messages: &mut [RoleMessage<B>], mark: impl Fn(&mut Vec<B>)) {
    let Some(last) = messages.len().checked_sub(1) else {
        return;
    };
    mark(&mut messages[last].content);
    let before = messages[..last]
        .iter()
        .rposition(|m| m.role == "assistant")
        .and_then(|a| a.checked_sub(1))
        .filter(|&u| messages[u].role == "user");
    if let Some(previous) = before {
        mark(&mut messages[previous].content);
    }
}

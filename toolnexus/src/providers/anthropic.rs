//! [`Anthropic`]: Anthropic's Messages API.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::agent::message::{Message, NativeTurn, ToolCall};
use crate::agent::model::{DeltaSink, FinishReason, ModelError, Reply, Usage};
use crate::providers::anthropic_search::{
    DeferLoading, NATIVE, Replayed, Streamed, is_native, replay,
};
use crate::providers::http::{Auth, Transport, describe_error};
use crate::providers::skeleton::{
    Protocol, encode, listing, max_tokens_setting, provider_spec, strict_setting,
};
use crate::providers::sse::{Events, parse_body};
use crate::providers::wire::{Assembly, arguments_object, omitted, pending_text};
use crate::providers::{http_settings, turn_model};
use crate::schema::profile::Profile;
use crate::tool::content::{ContentPart, PartKind};
use crate::tool::toolkit::Toolkit;

const PROVIDER: &str = "Anthropic";
provider_spec!(Anthropic {
    provider: PROVIDER,
    key_var: "ANTHROPIC_API_KEY",
    base_var: "ANTHROPIC_BASE_URL",
    default_base: "https://api.anthropic.com",
    auth: Auth::Header("x-api-key"),
    headers: &[("anthropic-version", "2023-06-01")],
});

/// Anthropic's Messages API (`POST {base}/v1/messages`, `anthropic-version: 2023-06-01`).
///
/// ```no_run
/// use toolnexus::providers::Anthropic;
///
/// # fn demo() -> Result<(), toolnexus::ModelError> {
/// let claude = Anthropic::from_env("claude-sonnet-4-5")?.with_max_tokens(8192);
/// # Ok(()) }
/// ```
///
/// The system messages become the top-level `system` field; tool results go back as
/// `tool_result` blocks of a user message, with `is_error` set on failures and their images
/// (`image` blocks) and PDFs (`document` blocks) inside them. The Messages API takes no
/// audio: an audio part is described in words.
#[derive(Clone, Debug)]
pub struct Anthropic {
    http: Transport,
    model: String,
    strict: bool,
    max_tokens: Option<u32>,
    defer: Option<DeferLoading>,
}

http_settings!(Anthropic);
strict_setting!(
    Anthropic,
    Profile::Anthropic,
    Profile::AnthropicStrict,
    "Lists the tools for strict tool use ([`Profile::AnthropicStrict`])."
);
max_tokens_setting!(
    Anthropic,
    "Caps the tokens of each turn (`max_tokens`, default [`Anthropic::DEFAULT_MAX_TOKENS`])."
);
turn_model!(Anthropic, "anthropic");

impl Anthropic {
    /// The default [`Anthropic::with_max_tokens`]: the Messages API requires a cap.
    pub const DEFAULT_MAX_TOKENS: u32 = 4096;

    fn over(http: Transport, model: String) -> Self {
        Anthropic {
            http,
            model,
            strict: false,
            max_tokens: None,
            defer: None,
        }
    }

    /// Lets Anthropic search the toolkit itself: the tools are listed with
    /// `defer_loading: true` next to the tool-search server tool (see [`DeferLoading`]).
    /// The turns that searched keep their `server_tool_use` and `tool_search_tool_result`
    /// blocks in the transcript ([`NativeTurn`](crate::NativeTurn)), and later requests
    /// send them back.
    #[must_use]
    pub fn with_defer_loading(mut self, defer: DeferLoading) -> Self {
        self.defer = Some(defer);
        self
    }

    /// The JSON body of the request for one turn.
    #[doc(hidden)]
    pub fn request_body(
        &self,
        transcript: &[Message],
        toolkit: &Toolkit,
        stream: bool,
    ) -> Result<Vec<u8>, ModelError> {
        let profile = self.profile();
        let listing = listing(toolkit, profile);
        let deferred = match (&self.defer, &listing) {
            (Some(defer), Some(_)) => Some(
                serde_json::value::to_raw_value(&defer.listing(toolkit, profile)).map_err(|e| {
                    ModelError::with_source(format!("{PROVIDER}: could not write the tools"), e)
                })?,
            ),
            _ => None,
        };
        let tools = match &deferred {
            Some(raw) => Some(&**raw),
            None => listing.as_ref().map(|l| l.raw()),
        };
        let (system, messages) = messages(transcript);
        let body = Body {
            model: &self.model,
            max_tokens: self.max_tokens.unwrap_or(Anthropic::DEFAULT_MAX_TOKENS),
            system,
            messages,
            tools,
            stream,
        };
        encode(PROVIDER, &body)
    }

    /// The turn in a (non-streamed) response body.
    #[doc(hidden)]
    pub fn parse_response(body: &[u8]) -> Result<Reply, ModelError> {
        let response: Response = parse_body(PROVIDER, body)?;
        if let Some(error) = response.error {
            return Err(ModelError::new(format!(
                "{PROVIDER}: the response is an error: {}",
                describe_error(&error)
            )));
        }
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        let mut native = false;
        let mut blocks = Vec::with_capacity(response.content.len());
        for raw in &response.content {
            let block: Block = parse_body(PROVIDER, raw.get().as_bytes())?;
            native |= is_native(&block.kind);
            blocks.push(block);
        }
        let native = match native {
            true => Some(Box::new(NativeTurn::new(
                NATIVE,
                serde_json::Value::Array(
                    response
                        .content
                        .iter()
                        .map(|raw| parse_body(PROVIDER, raw.get().as_bytes()))
                        .collect::<Result<_, _>>()?,
                ),
            ))),
            false => None,
        };
        for block in blocks {
            match block.kind.as_str() {
                "text" => text.push_str(block.text.as_deref().unwrap_or_default()),
                "tool_use" => {
                    let input = block.input.as_deref().map_or("{}", RawValue::get);
                    tool_calls.push(ToolCall::new(
                        block.id.unwrap_or_default(),
                        block.name.unwrap_or_default(),
                        input,
                    ));
                }
                _ => {}
            }
        }
        Ok(Reply {
            content: (!text.is_empty()).then_some(text),
            tool_calls,
            usage: response.usage.map(Usage::from).unwrap_or_default(),
            finish_reason: response.stop_reason.as_deref().map(finish_reason),
            native,
        })
    }
}

impl Protocol for Anthropic {
    fn url(&self, _stream: bool) -> String {
        format!("{}/v1/messages", self.http.base_url)
    }

    fn body(
        &self,
        transcript: &[Message],
        toolkit: &Toolkit,
        stream: bool,
    ) -> Result<Vec<u8>, ModelError> {
        self.request_body(transcript, toolkit, stream)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
        Anthropic::parse_response(body)
    }

    async fn stream(&self, mut events: Events, sink: DeltaSink<'_>) -> Result<Reply, ModelError> {
        let mut turn = Assembly::new(Some(sink));
        // Content block index -> position of its call in the turn.
        let mut calls: Vec<(usize, usize)> = Vec::new();
        let mut blocks = Streamed::default();
        let mut input_tokens = 0;
        while let Some(event) = events.next().await? {
            match event.json::<StreamEvent>(PROVIDER)? {
                StreamEvent::MessageStart { message } => {
                    if let Some(usage) = message.usage {
                        input_tokens = Usage::from(usage).prompt_tokens;
                    }
                }
                StreamEvent::ContentBlockStart {
                    index,
                    content_block: raw,
                } => {
                    let content_block = StartBlock::deserialize(&raw).map_err(|e| {
                        ModelError::with_source(
                            format!("{PROVIDER}: a streamed content block is not as expected"),
                            e,
                        )
                    })?;
                    let mut call = None;
                    match content_block.kind.as_str() {
                        "text" => turn.text(content_block.text.as_deref().unwrap_or_default()),
                        "tool_use" => {
                            let position = calls.len();
                            calls.push((index, position));
                            call = Some(position);
                            // The input comes in `input_json_delta`s.
                            let id = content_block.id.as_deref();
                            turn.call(position, id, content_block.name.as_deref(), "");
                        }
                        _ => {}
                    }
                    blocks.start(index, &raw, call);
                }
                StreamEvent::ContentBlockDelta { index, delta } => match delta {
                    BlockDelta::TextDelta { text } => {
                        blocks.text(index, &text);
                        turn.text(&text);
                    }
                    BlockDelta::InputJsonDelta { partial_json } => {
                        blocks.input(index, &partial_json);
                        if let Some(&(_, position)) = calls.iter().find(|(i, _)| *i == index) {
                            turn.call(position, None, None, &partial_json);
                        }
                    }
                    BlockDelta::Other => {}
                },
                StreamEvent::MessageDelta { delta, usage } => {
                    if let Some(reason) = delta.stop_reason {
                        turn.finish = Some(finish_reason(&reason));
                    }
                    if let Some(usage) = usage {
                        turn.usage = Usage::new(input_tokens, usage.output_tokens);
                    }
                }
                StreamEvent::MessageStop => break,
                StreamEvent::Error { error } => {
                    return Err(ModelError::new(format!(
                        "{PROVIDER}: the stream ended with an error: {}",
                        describe_error(&error)
                    )));
                }
                StreamEvent::Other => {}
            }
        }
        let native = blocks.finish(&turn.calls);
        Ok(Reply {
            native,
            ..turn.finish()
        })
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::Refusal,
        other => FinishReason::Other(other.to_owned()),
    }
}

// ---------------------------------------------------------------- request

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<Cow<'a, str>>,
    messages: Vec<Wire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

#[derive(Serialize)]
struct Wire<'a> {
    role: &'static str,
    content: Vec<WireBlock<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlock<'a> {
    Text {
        text: Cow<'a, str>,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a RawValue,
    },
    ToolResult {
        tool_use_id: &'a str,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        content: Vec<WireBlock<'a>>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    Image {
        source: Source<'a>,
    },
    Document {
        source: Source<'a>,
    },
    /// A block of a kept [`NativeTurn`], as it came.
    #[serde(untagged)]
    Native(&'a serde_json::Value),
}

#[derive(Serialize)]
struct Source<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'a str,
    data: String,
}

/// The `system` text and the alternating user/assistant messages.
fn messages(transcript: &[Message]) -> (Option<Cow<'_, str>>, Vec<Wire<'_>>) {
    let mut system: Option<Cow<'_, str>> = None;
    let mut out: Vec<Wire<'_>> = Vec::with_capacity(transcript.len());
    for message in transcript {
        let (role, blocks) = match message {
            Message::System { content } => {
                system = Some(match system {
                    None => Cow::Borrowed(content.as_str()),
                    Some(before) => Cow::Owned(format!("{before}\n\n{content}")),
                });
                continue;
            }
            Message::User { content } => ("user", vec![text(content)]),
            Message::Assistant {
                content,
                tool_calls,
                native,
            } => {
                if let Some(blocks) = replay(native.as_deref(), tool_calls) {
                    let blocks = blocks.into_iter().map(|block| match block {
                        Replayed::Block(block) => WireBlock::Native(block),
                        Replayed::Call(call) => tool_use(call),
                    });
                    push(&mut out, "assistant", blocks.collect());
                    continue;
                }
                let mut blocks = Vec::with_capacity(tool_calls.len() + 1);
                if let Some(content) = content.as_deref().filter(|c| !c.is_empty()) {
                    blocks.push(text(content));
                }
                blocks.extend(tool_calls.iter().map(tool_use));
                ("assistant", blocks)
            }
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                parts,
                pending,
            } => {
                let mut inner = Vec::new();
                match pending {
                    Some(request) => inner.push(WireBlock::Text {
                        text: Cow::Owned(pending_text(request)),
                    }),
                    None if !content.is_empty() => inner.push(text(content)),
                    None => {}
                }
                inner.extend(parts.iter().flatten().map(block));
                let block = WireBlock::ToolResult {
                    tool_use_id: tool_call_id,
                    content: inner,
                    is_error: *is_error && pending.is_none(),
                };
                ("user", vec![block])
            }
        };
        push(&mut out, role, blocks);
    }
    (system, out)
}

/// Adds a message's blocks. Consecutive messages of one role (the results of parallel
/// calls, a user prompt after them) make one message: the API wants the roles to alternate.
fn push<'a>(out: &mut Vec<Wire<'a>>, role: &'static str, blocks: Vec<WireBlock<'a>>) {
    if blocks.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.role == role => last.content.extend(blocks),
        _ => out.push(Wire {
            role,
            content: blocks,
        }),
    }
}

fn tool_use(call: &ToolCall) -> WireBlock<'_> {
    WireBlock::ToolUse {
        id: &call.id,
        name: &call.name,
        input: arguments_object(&call.arguments),
    }
}

fn text(content: &str) -> WireBlock<'_> {
    WireBlock::Text {
        text: Cow::Borrowed(content),
    }
}

fn block(part: &ContentPart) -> WireBlock<'_> {
    let source = || Source {
        kind: "base64",
        media_type: part.mime_type(),
        data: part.base64(),
    };
    match part.kind() {
        PartKind::Image => WireBlock::Image { source: source() },
        PartKind::Document => WireBlock::Document { source: source() },
        PartKind::Audio => WireBlock::Text {
            text: Cow::Owned(omitted(part, PROVIDER)),
        },
    }
}

// ---------------------------------------------------------------- response

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    content: Vec<Box<RawValue>>,
    stop_reason: Option<String>,
    usage: Option<WireUsage>,
    error: Option<serde_json::Value>,
}

/// A content block. A struct, not a tagged enum: serde buffers a tagged enum's fields,
/// which a `RawValue` (the input, kept as the model wrote it) cannot go through.
#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    id: Option<String>,
    name: Option<String>,
    input: Option<Box<RawValue>>,
}

/// The start of a streamed content block (its input, always `{}`, is not read).
#[derive(Deserialize)]
struct StartBlock {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    id: Option<String>,
    name: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(usage: WireUsage) -> Usage {
        let cached = usage.cache_creation_input_tokens.unwrap_or(0)
            + usage.cache_read_input_tokens.unwrap_or(0);
        Usage::new(usage.input_tokens + cached, usage.output_tokens)
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StreamEvent {
    MessageStart {
        message: StartMessage,
    },
    ContentBlockStart {
        index: usize,
        content_block: serde_json::Value,
    },
    ContentBlockDelta {
        index: usize,
        delta: BlockDelta,
    },
    MessageDelta {
        delta: MessageDelta,
        usage: Option<DeltaUsage>,
    },
    MessageStop,
    Error {
        error: serde_json::Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct StartMessage {
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct MessageDelta {
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct DeltaUsage {
    #[serde(default)]
    output_tokens: u64,
}

//! The response side of [`Anthropic`](crate::providers::Anthropic): a Messages API
//! response as a [`Reply`], and the streamed events.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::message::{NativeTurn, ToolCall};
use crate::model::{Delta, DeltaSink, FinishReason, ModelError, Reply, Usage};
use crate::providers::anthropic::request::PROVIDER;
use crate::providers::anthropic::search::{NATIVE, Streamed, is_native};
use crate::providers::common::http::describe_error;
use crate::providers::common::sse::{Events, parse_body};
use crate::providers::common::wire::Assembly;

/// The turn in a (non-streamed) response body.
pub(super) fn parse(body: &[u8]) -> Result<Reply, ModelError> {
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
        model: None,
        raw: None,
    })
}

/// The turn read from a streamed response, each piece passed to `sink`; `provider`
/// names the API in errors (Anthropic, or Vertex AI for Claude there).
pub(super) async fn stream(
    response: reqwest::Response,
    provider: &'static str,
    sink: DeltaSink<'_>,
) -> Result<Reply, ModelError> {
    let mut events = Events::new(response, provider);
    let mut turn = Assembly::new(Some(sink));
    // Content block index -> position of its call in the turn.
    let mut calls: Vec<(usize, usize)> = Vec::new();
    let mut blocks = Streamed::default();
    let mut started = Usage::default();
    while let Some(event) = events.next().await? {
        match event.json::<StreamEvent>(PROVIDER)? {
            StreamEvent::MessageStart { message } => {
                if let Some(usage) = message.usage {
                    started = usage.into();
                    turn.usage = started;
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
                BlockDelta::ThinkingDelta { thinking } => {
                    blocks.thinking(index, &thinking);
                    if !thinking.is_empty() {
                        sink(Delta::Reasoning(thinking));
                    }
                }
                BlockDelta::SignatureDelta { signature } => {
                    blocks.signature(index, &signature);
                }
                BlockDelta::Other => {}
            },
            StreamEvent::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.stop_reason {
                    turn.finish = Some(finish_reason(&reason));
                }
                if let Some(usage) = usage {
                    turn.usage = usage.over(started);
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

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::Refusal,
        other => FinishReason::Other(other.to_owned()),
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

/// `usage`: `input_tokens` counts only what follows the last cache breakpoint, so the
/// prompt is its sum with the cache's reads and writes.
#[derive(Deserialize, Default)]
#[serde(default)]
struct WireUsage {
    input_tokens: u64,
    output_tokens: u64,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct OutputDetails {
    thinking_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(usage: WireUsage) -> Usage {
        let written = usage.cache_creation_input_tokens.unwrap_or(0);
        let read = usage.cache_read_input_tokens.unwrap_or(0);
        let thinking = usage.output_tokens_details.map_or(0, |d| d.thinking_tokens);
        Usage::new(usage.input_tokens + written + read, usage.output_tokens)
            .with_cache(read, written)
            .with_reasoning(thinking)
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
    ThinkingDelta {
        thinking: String,
    },
    SignatureDelta {
        signature: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct MessageDelta {
    stop_reason: Option<String>,
}

/// `message_delta`'s usage: the output so far, and (from some servers) the input again.
#[derive(Deserialize)]
struct DeltaUsage {
    #[serde(default)]
    output_tokens: u64,
    input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    output_tokens_details: Option<OutputDetails>,
}

impl DeltaUsage {
    /// The turn's usage: this delta's figures over those of `message_start`.
    fn over(self, started: Usage) -> Usage {
        let input = WireUsage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens,
            cache_creation_input_tokens: self.cache_creation_input_tokens,
            cache_read_input_tokens: self.cache_read_input_tokens,
            output_tokens_details: self.output_tokens_details,
        };
        let has_input = input.input_tokens > 0
            || input.cache_creation_input_tokens.is_some()
            || input.cache_read_input_tokens.is_some();
        let usage = Usage::from(input);
        match has_input {
            true => usage,
            false => Usage {
                completion_tokens: usage.completion_tokens,
                reasoning_tokens: usage.reasoning_tokens,
                ..started
            },
        }
    }
}

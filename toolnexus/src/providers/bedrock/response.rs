//! The response side of [`Bedrock`](crate::providers::Bedrock): a Converse response body,
//! and a ConverseStream response, whose AWS event-stream frames `aws-smithy-eventstream`
//! decodes.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::model::message::{NativeTurn, ToolCall};
use crate::model::{DeltaSink, FinishReason, ModelError, Reply, Usage};
use crate::providers::bedrock::auth::PROVIDER;
use crate::providers::bedrock::request::NATIVE;
use crate::providers::common::sse::parse_body;
use crate::providers::common::wire::Assembly;

/// The largest frame read (the event-stream format's own limit is 16 MiB).
const MAX_BUFFER: usize = 24 << 20;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    output: Option<Output>,
    stop_reason: Option<String>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Output {
    message: Option<OutputMessage>,
}

#[derive(Deserialize)]
struct OutputMessage {
    #[serde(default)]
    content: Vec<Value>,
}

/// `usage`: `inputTokens` counts what was neither read from nor written to the cache.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct WireUsage {
    input_tokens: u64,
    output_tokens: u64,
    cache_read_input_tokens: u64,
    cache_write_input_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(usage: WireUsage) -> Usage {
        let read = usage.cache_read_input_tokens;
        let written = usage.cache_write_input_tokens;
        Usage::new(usage.input_tokens + read + written, usage.output_tokens)
            .with_cache(read, written)
    }
}

pub(crate) fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "guardrail_intervened" | "content_filtered" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// The turn in a Converse response body. A turn with reasoning keeps its blocks (with
/// their signatures) as a [`NativeTurn`], to be sent back with its tool calls.
pub(crate) fn parse(body: &[u8]) -> Result<Reply, ModelError> {
    let response: Response = parse_body(PROVIDER, body)?;
    let content = response
        .output
        .and_then(|o| o.message)
        .map(|m| m.content)
        .unwrap_or_default();
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    let mut reasoned = false;
    for block in &content {
        if let Some(piece) = block.get("text").and_then(Value::as_str) {
            text.push_str(piece);
        } else if let Some(call) = block.get("toolUse") {
            let arguments = match call.get("input") {
                Some(input @ Value::Object(_)) => input.to_string(),
                _ => "{}".to_owned(),
            };
            let field = |key: &str| call.get(key).and_then(Value::as_str).unwrap_or_default();
            tool_calls.push(ToolCall::new(field("toolUseId"), field("name"), arguments));
        } else if block.get("reasoningContent").is_some() {
            reasoned = true;
        }
    }
    Ok(Reply {
        content: (!text.is_empty()).then_some(text),
        tool_calls,
        usage: response.usage.map(Usage::from).unwrap_or_default(),
        finish_reason: response.stop_reason.as_deref().map(finish_reason),
        native: reasoned.then(|| Box::new(NativeTurn::new(NATIVE, Value::Array(content)))),
        model: None,
        raw: None,
    })
}

/// One block of a streamed turn, kept to rebuild the turn's native form.
enum Piece {
    Text(String),
    Call {
        position: usize,
        input: String,
    },
    Reasoning {
        text: String,
        signature: String,
        redacted: Option<String>,
    },
}

/// The turn read from a ConverseStream response, each piece passed to `sink`.
pub(crate) async fn stream(
    mut response: reqwest::Response,
    sink: DeltaSink<'_>,
) -> Result<Reply, ModelError> {
    use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};

    let mut turn = Assembly::new(Some(sink));
    let mut pieces: Vec<(u64, Piece)> = Vec::new();
    let mut decoder = MessageFrameDecoder::new();
    let mut buffer: Vec<u8> = Vec::new();
    let mut stopped = false;
    let broke = |error: &dyn std::fmt::Display| {
        ModelError::new(format!(
            "{PROVIDER}: the response stream broke off: {error}"
        ))
    };
    loop {
        // Every whole frame in the buffer, then more bytes.
        loop {
            let mut rest: &[u8] = &buffer;
            let frame = decoder.decode_frame(&mut rest).map_err(|e| broke(&e))?;
            let consumed = buffer.len() - rest.len();
            buffer.drain(..consumed);
            let DecodedFrame::Complete(message) = frame else {
                break;
            };
            let header = |name: &str| {
                message
                    .headers()
                    .iter()
                    .find(|h| h.name().as_str() == name)
                    .and_then(|h| h.value().as_string().ok())
                    .map(|s| s.as_str().to_owned())
            };
            let payload: Value = serde_json::from_slice(message.payload()).unwrap_or(Value::Null);
            match header(":message-type").as_deref() {
                Some("event") => {}
                Some("exception") => {
                    let kind = header(":exception-type").unwrap_or_default();
                    let text = payload["message"].as_str().unwrap_or_default();
                    return Err(ModelError::new(format!(
                        "{PROVIDER}: the stream ended with an error: {kind}: {text}"
                    )));
                }
                _ => {
                    let code = header(":error-code").unwrap_or_default();
                    let text = header(":error-message").unwrap_or_default();
                    return Err(ModelError::new(format!(
                        "{PROVIDER}: the stream ended with an error: {code}: {text}"
                    )));
                }
            }
            let index = payload["contentBlockIndex"].as_u64().unwrap_or(0);
            match header(":event-type").as_deref() {
                Some("contentBlockStart") => {
                    if let Some(call) = payload["start"].get("toolUse") {
                        let position = turn.calls.len();
                        turn.call(
                            position,
                            call["toolUseId"].as_str(),
                            call["name"].as_str(),
                            "",
                        );
                        pieces.push((
                            index,
                            Piece::Call {
                                position,
                                input: String::new(),
                            },
                        ));
                    }
                }
                Some("contentBlockDelta") => {
                    delta(&mut turn, &mut pieces, index, &payload["delta"])
                }
                Some("messageStop") => {
                    if let Some(reason) = payload["stopReason"].as_str() {
                        turn.finish = Some(finish_reason(reason));
                    }
                    stopped = true;
                }
                Some("metadata") => {
                    if let Ok(usage) = WireUsage::deserialize(&payload["usage"]) {
                        turn.usage = usage.into();
                    }
                }
                _ => {}
            }
        }
        match response.chunk().await {
            Ok(Some(chunk)) => {
                buffer.extend_from_slice(&chunk);
                if buffer.len() > MAX_BUFFER {
                    return Err(broke(&"a frame is larger than 24 MiB"));
                }
            }
            Ok(None) => break,
            Err(error) => return Err(broke(&error)),
        }
    }
    if !stopped {
        return Err(broke(&"it ended before its messageStop event"));
    }
    let native = native(&pieces, &turn);
    Ok(Reply {
        native,
        ..turn.finish()
    })
}

/// One `contentBlockDelta`: text, a call's input, reasoning text, its signature, or
/// redacted reasoning.
fn delta(turn: &mut Assembly<'_>, pieces: &mut Vec<(u64, Piece)>, index: u64, delta: &Value) {
    let at = pieces.iter().position(|(i, _)| *i == index);
    if let Some(text) = delta.get("text").and_then(Value::as_str) {
        turn.text(text);
        match at.map(|at| &mut pieces[at].1) {
            Some(Piece::Text(kept)) => kept.push_str(text),
            _ => pieces.push((index, Piece::Text(text.to_owned()))),
        }
    } else if let Some(input) = delta["toolUse"].get("input").and_then(Value::as_str) {
        if let Some(Piece::Call {
            position,
            input: kept,
        }) = at.map(|at| &mut pieces[at].1)
        {
            kept.push_str(input);
            let position = *position;
            turn.call(position, None, None, input);
        }
    } else if let Some(reasoning) = delta.get("reasoningContent") {
        if at.is_none() {
            let empty = Piece::Reasoning {
                text: String::new(),
                signature: String::new(),
                redacted: None,
            };
            pieces.push((index, empty));
        }
        let Some((
            _,
            Piece::Reasoning {
                text,
                signature,
                redacted,
            },
        )) = pieces.iter_mut().find(|(i, _)| *i == index)
        else {
            return;
        };
        if let Some(piece) = reasoning.get("text").and_then(Value::as_str) {
            text.push_str(piece);
            turn.reasoning(piece);
        }
        if let Some(piece) = reasoning.get("signature").and_then(Value::as_str) {
            signature.push_str(piece);
        }
        if let Some(piece) = reasoning.get("redactedContent").and_then(Value::as_str) {
            redacted.get_or_insert_with(String::new).push_str(piece);
        }
    }
}

/// A streamed turn with reasoning in Converse's own blocks (as a whole response would
/// have them), for the next request to send back; `None` without reasoning.
fn native(pieces: &[(u64, Piece)], turn: &Assembly<'_>) -> Option<Box<NativeTurn>> {
    if !pieces
        .iter()
        .any(|(_, p)| matches!(p, Piece::Reasoning { .. }))
    {
        return None;
    }
    let mut ordered: Vec<&(u64, Piece)> = pieces.iter().collect();
    ordered.sort_by_key(|(index, _)| *index);
    let blocks = ordered
        .into_iter()
        .map(|(_, piece)| match piece {
            Piece::Text(text) => json!({"text": text}),
            Piece::Call { position, input } => {
                let call = &turn.calls[*position];
                let input = match serde_json::from_str::<Value>(input) {
                    Ok(value @ Value::Object(_)) => value,
                    _ => json!({}),
                };
                json!({"toolUse": {"toolUseId": call.id, "name": call.name, "input": input}})
            }
            Piece::Reasoning {
                redacted: Some(redacted),
                ..
            } => json!({"reasoningContent": {"redactedContent": redacted}}),
            Piece::Reasoning {
                text, signature, ..
            } => {
                let mut reasoning = json!({"text": text});
                if !signature.is_empty() {
                    reasoning["signature"] = json!(signature);
                }
                json!({"reasoningContent": {"reasoningText": reasoning}})
            }
        })
        .collect();
    Some(Box::new(NativeTurn::new(NATIVE, Value::Array(blocks))))
}

//! The response side of [`OpenAiResponses`](crate::providers::OpenAiResponses): a
//! response's `output` items as a [`Reply`], and the streamed events.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::message::{NativeTurn, ToolCall};
use crate::model::{FinishReason, ModelError, Reply, Usage};
use crate::providers::common::http::describe_error;
use crate::providers::common::sse::parse_body;
use crate::providers::openai::responses::request::{NATIVE, PROVIDER};

/// A response object (the body of `POST /responses`, and of a stream's
/// `response.completed`).
#[derive(Deserialize)]
pub(crate) struct Response {
    pub(crate) status: Option<String>,
    #[serde(default)]
    pub(crate) output: Vec<Box<RawValue>>,
    usage: Option<WireUsage>,
    incomplete_details: Option<Incomplete>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Incomplete {
    reason: Option<String>,
}

/// One output item: what the reply needs of it.
#[derive(Deserialize)]
struct ItemIn {
    #[serde(rename = "type")]
    kind: String,
    call_id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
    #[serde(default)]
    content: Vec<ContentIn>,
}

#[derive(Deserialize)]
struct ContentIn {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    refusal: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireUsage {
    input_tokens: u64,
    output_tokens: u64,
    input_tokens_details: Option<InputDetails>,
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct InputDetails {
    cached_tokens: u64,
    cache_write_tokens: u64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct OutputDetails {
    reasoning_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(usage: WireUsage) -> Usage {
        let input = usage.input_tokens_details;
        Usage::new(usage.input_tokens, usage.output_tokens)
            .with_cache(
                input.as_ref().map_or(0, |d| d.cached_tokens),
                input.as_ref().map_or(0, |d| d.cache_write_tokens),
            )
            .with_reasoning(
                usage
                    .output_tokens_details
                    .map_or(0, |d| d.reasoning_tokens),
            )
    }
}

/// The reply of a whole response: its text, calls, usage and finish reason, and its
/// items kept when one is a reasoning item (they must go back with the calls).
pub(crate) fn reply(response: Response) -> Result<Reply, ModelError> {
    if let Some(error) = response.error.filter(|e| !e.is_null()) {
        return Err(ModelError::new(format!(
            "{PROVIDER}: the response is an error: {}",
            describe_error(&error)
        )));
    }
    if response.status.as_deref() == Some("failed") {
        return Err(ModelError::new(format!(
            "{PROVIDER}: the response failed, with no error given"
        )));
    }
    let mut text = String::new();
    let mut refusal = String::new();
    let mut tool_calls = Vec::new();
    let mut reasoning = false;
    for raw in &response.output {
        let item: ItemIn = parse_body(PROVIDER, raw.get().as_bytes())?;
        match item.kind.as_str() {
            "message" => {
                for content in item.content {
                    match content.kind.as_str() {
                        "output_text" => text.push_str(content.text.as_deref().unwrap_or("")),
                        "refusal" => refusal.push_str(content.refusal.as_deref().unwrap_or("")),
                        _ => {}
                    }
                }
            }
            "function_call" => {
                let arguments = item.arguments.filter(|a| !a.trim().is_empty());
                tool_calls.push(ToolCall::new(
                    item.call_id.unwrap_or_default(),
                    item.name.unwrap_or_default(),
                    arguments.unwrap_or_else(|| "{}".to_owned()),
                ));
            }
            "reasoning" => reasoning = true,
            _ => {}
        }
    }
    let incomplete = response.incomplete_details.and_then(|d| d.reason);
    let finish = match (response.status.as_deref(), incomplete.as_deref()) {
        _ if !refusal.is_empty() => FinishReason::Refusal,
        (Some("incomplete"), Some("max_output_tokens")) => FinishReason::Length,
        (Some("incomplete"), Some("content_filter")) => FinishReason::ContentFilter,
        (Some("incomplete"), Some(other)) => FinishReason::Other(other.to_owned()),
        _ if !tool_calls.is_empty() => FinishReason::ToolCalls,
        _ => FinishReason::Stop,
    };
    let native = match reasoning {
        true => {
            let items = response
                .output
                .iter()
                .map(|raw| parse_body(PROVIDER, raw.get().as_bytes()))
                .collect::<Result<Vec<Value>, _>>()?;
            Some(Box::new(NativeTurn::new(NATIVE, Value::Array(items))))
        }
        false => None,
    };
    let content = match refusal.is_empty() {
        true => (!text.is_empty()).then_some(text),
        false => Some(refusal),
    };
    Ok(Reply {
        content,
        tool_calls,
        usage: response.usage.map(Usage::from).unwrap_or_default(),
        finish_reason: Some(finish),
        native,
        model: None,
        raw: None,
    })
}

/// One streamed event: what the stream reads of it.
#[derive(Deserialize)]
pub(crate) struct StreamEvent {
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) output_index: Option<usize>,
    pub(crate) item: Option<Box<RawValue>>,
    pub(crate) delta: Option<String>,
    pub(crate) response: Option<Box<RawValue>>,
    pub(crate) code: Option<String>,
    pub(crate) message: Option<String>,
}

/// A streamed item's kind, and its call id and name when it is a function call.
#[derive(Deserialize)]
pub(crate) struct ItemHead {
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) call_id: Option<String>,
    pub(crate) name: Option<String>,
}

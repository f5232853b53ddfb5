//! The response side of [`Gemini`](crate::providers::Gemini): a `generateContent`
//! response (or each streamed chunk of one) as a [`Reply`], with the parts of a turn that
//! carry thoughts or signatures kept for the next request.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::message::NativeTurn;
use crate::model::{DeltaSink, FinishReason, ModelError, Reply, Usage};
use crate::providers::common::http::{ProviderHttp, describe_error};
use crate::providers::common::sse::{Events, parse_body};
use crate::providers::common::wire::Assembly;
use crate::providers::gemini::request::{LOCAL_ID, NATIVE, PROVIDER};

/// The turn in a (non-streamed) response body; `http` redacts errors.
pub(super) fn parse(http: &ProviderHttp, body: &[u8]) -> Result<Reply, ModelError> {
    let response: Response = parse_body(PROVIDER, body)?;
    let mut turn = Assembly::new(None);
    let mut kept = Kept::default();
    absorb(http, response, &mut turn, &mut kept)?;
    Ok(Reply {
        native: kept.finish(),
        ..turn.finish()
    })
}

/// The turn read from a streamed response, each piece passed to `sink`.
pub(super) async fn stream(
    http: &ProviderHttp,
    response: reqwest::Response,
    sink: DeltaSink<'_>,
) -> Result<Reply, ModelError> {
    let mut events = Events::new(response, http.provider);
    let mut turn = Assembly::new(Some(sink));
    let mut kept = Kept::default();
    while let Some(event) = events.next().await? {
        absorb(http, event.json(PROVIDER)?, &mut turn, &mut kept)?;
    }
    Ok(Reply {
        native: kept.finish(),
        ..turn.finish()
    })
}

/// Adds one response (the whole turn, or one streamed chunk of it) to `turn`, and
/// its parts to `kept`.
fn absorb(
    http: &ProviderHttp,
    response: Response,
    turn: &mut Assembly<'_>,
    kept: &mut Kept,
) -> Result<(), ModelError> {
    if let Some(error) = response.error {
        return Err(ModelError::new(format!(
            "{PROVIDER}: the response is an error: {}",
            http.redact(&describe_error(&error))
        )));
    }
    if let Some(usage) = response.usage_metadata {
        turn.usage = usage.into();
    }
    let Some(candidate) = response.candidates.into_iter().next() else {
        if let Some(reason) = response.prompt_feedback.and_then(|f| f.block_reason) {
            return Err(ModelError::new(format!(
                "{PROVIDER}: the prompt was blocked ({reason}); rephrase it or relax \
                 the safety settings"
            )));
        }
        return Ok(());
    };
    for raw in candidate.content.map(|c| c.parts).unwrap_or_default() {
        let part: ResponsePartIn = parse_body(PROVIDER, raw.get().as_bytes())?;
        if let Some(call) = &part.function_call {
            let index = turn.calls.len();
            let id = call
                .id
                .clone()
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| format!("{LOCAL_ID}{}", uuid::Uuid::new_v4().simple()));
            let arguments = call.args.as_deref().map_or("{}", RawValue::get);
            turn.call(index, Some(&id), Some(&call.name), arguments);
        } else if let Some(text) = &part.text {
            match part.thought {
                true => turn.reasoning(text),
                false => turn.text(text),
            }
        }
        kept.push(&raw, &part)?;
    }
    if let Some(reason) = candidate.finish_reason {
        turn.finish = Some(match reason.as_str() {
            "STOP" if !turn.calls.is_empty() => FinishReason::ToolCalls,
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::Length,
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
            | "IMAGE_SAFETY" => FinishReason::ContentFilter,
            _ => FinishReason::Other(reason),
        });
    }
    Ok(())
}

/// The parts of a turn, kept as they came when one is a thought or carries a signature:
/// streamed text pieces joined, every other part whole.
#[derive(Default)]
struct Kept {
    parts: Vec<Value>,
    native: bool,
}

impl Kept {
    fn push(&mut self, raw: &RawValue, part: &ResponsePartIn) -> Result<(), ModelError> {
        self.native |= part.thought || part.thought_signature.is_some();
        let plain = part.function_call.is_none() && part.thought_signature.is_none();
        if plain
            && let Some(text) = &part.text
            && let Some(Value::Object(last)) = self.parts.last_mut()
            && last.keys().all(|k| k == "text" || k == "thought")
            && last
                .get("thought")
                .and_then(Value::as_bool)
                .unwrap_or(false)
                == part.thought
            && let Some(Value::String(before)) = last.get_mut("text")
        {
            before.push_str(text);
            return Ok(());
        }
        let mut value: Value = parse_body(PROVIDER, raw.get().as_bytes())?;
        if plain && let Some(object) = value.as_object_mut() {
            // Only the text and thought flag of a plain part; nothing else is replayed.
            object.retain(|k, _| k == "text" || k == "thought");
        }
        self.parts.push(value);
        Ok(())
    }

    fn finish(self) -> Option<Box<NativeTurn>> {
        self.native
            .then(|| Box::new(NativeTurn::new(NATIVE, Value::Array(self.parts))))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    #[serde(default)]
    candidates: Vec<Candidate>,
    usage_metadata: Option<UsageMetadata>,
    prompt_feedback: Option<PromptFeedback>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    content: Option<ResponseContent>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ResponseContent {
    /// Each part as it came: kept whole when the turn has thoughts or signatures.
    #[serde(default)]
    parts: Vec<Box<RawValue>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResponsePartIn {
    text: Option<String>,
    #[serde(default)]
    thought: bool,
    function_call: Option<FunctionCallIn>,
    thought_signature: Option<String>,
}

#[derive(Deserialize)]
struct FunctionCallIn {
    id: Option<String>,
    name: String,
    args: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    block_reason: Option<String>,
}

/// `usageMetadata`: the prompt count includes the cached content; thoughts are output
/// tokens of their own, added to the candidates'.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    thoughts_token_count: u64,
    #[serde(default)]
    cached_content_token_count: u64,
}

impl From<UsageMetadata> for Usage {
    fn from(usage: UsageMetadata) -> Usage {
        Usage::new(
            usage.prompt_token_count,
            usage.candidates_token_count + usage.thoughts_token_count,
        )
        .with_cache(usage.cached_content_token_count, 0)
        .with_reasoning(usage.thoughts_token_count)
    }
}

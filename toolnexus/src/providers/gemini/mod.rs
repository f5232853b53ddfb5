//! [`Gemini`]: Google's Gemini API (`generateContent`).

mod request;
#[cfg(feature = "vertex")]
pub(crate) mod vertex;

#[cfg(feature = "vertex")]
pub use vertex::Vertex;

use std::fmt;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::message::{Message, NativeTurn};
use crate::model::settings::ModelSettings;
use crate::model::{DeltaSink, FinishReason, ModelError, Reply, Usage};
use crate::providers::common::http::{Auth, Transport, describe_error};
use crate::providers::common::skeleton::{
    Protocol, encode, listing, model_settings, provider_spec,
};
use crate::providers::common::sse::{Events, parse_body};
use crate::providers::common::wire::Assembly;
use crate::providers::gemini::request::{
    Body, Content, LOCAL_ID, NATIVE, PROVIDER, Part, config, contents,
};
use crate::providers::{http_settings, turn_model};
use crate::schema::profile::Profile;
use crate::tool::kit::Toolkit;

provider_spec!(Gemini {
    provider: PROVIDER,
    key_var: "GEMINI_API_KEY",
    base_var: "GEMINI_BASE_URL",
    default_base: "https://generativelanguage.googleapis.com",
    auth: Auth::Header("x-goog-api-key"),
    headers: &[],
});

/// Google's Gemini API: `POST {base}/v1beta/models/{model}:generateContent` (and
/// `:streamGenerateContent?alt=sse` when streaming), key in `x-goog-api-key`.
///
/// ```no_run
/// use toolnexus::providers::Gemini;
///
/// # fn demo() -> Result<(), toolnexus::ModelError> {
/// let gemini = Gemini::from_env("gemini-2.5-flash")?;
/// # Ok(()) }
/// ```
///
/// System messages become `systemInstruction`; tool results go back as `functionResponse`
/// parts, `{"output": text}` on success and `{"error": text}` on failure (the keys Gemini
/// documents), with images and PDFs as the response's own `inlineData` parts; audio
/// follows as an `inlineData` part of the same user turn.
///
/// Gemini signs the turns of thinking models (`thoughtSignature`, on the first function
/// call of each step) and wants each signature back on the part that carried it. A turn
/// with signatures or thoughts keeps its parts in the transcript
/// ([`NativeTurn`](crate::model::NativeTurn)), and later requests send them back as they came,
/// the calls with the ids the loop gave them; a run serialized while halted keeps them.
#[derive(Clone)]
pub struct Gemini {
    http: Transport,
    model: String,
    settings: ModelSettings,
}

http_settings!(Gemini);
model_settings!(
    Gemini,
    "Caps the tokens of each turn (`generationConfig.maxOutputTokens`); the same as [`ModelSettings::max_tokens`]."
);
turn_model!(Gemini, "gcp.gemini");

impl Gemini {
    pub(crate) fn over(http: Transport, model: String) -> Self {
        Gemini {
            http,
            model: model.strip_prefix("models/").unwrap_or(&model).to_owned(),
            settings: ModelSettings::default(),
        }
    }

    /// Adds one response (the whole turn, or one streamed chunk of it) to `turn`, and
    /// its parts to `kept`.
    fn absorb(
        &self,
        response: Response,
        turn: &mut Assembly<'_>,
        kept: &mut Kept,
    ) -> Result<(), ModelError> {
        if let Some(error) = response.error {
            return Err(ModelError::new(format!(
                "{PROVIDER}: the response is an error: {}",
                self.http.redact(&describe_error(&error))
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

impl Protocol for Gemini {
    const OUTPUT: Option<crate::providers::common::output::Dialect> =
        Some(crate::providers::common::output::Dialect::Gemini);

    fn url(&self, stream: bool) -> String {
        let (base, model) = (&self.http.base_url, &self.model);
        match stream {
            false => format!("{base}/v1beta/models/{model}:generateContent"),
            true => format!("{base}/v1beta/models/{model}:streamGenerateContent?alt=sse"),
        }
    }

    fn body(
        &self,
        transcript: &[Message],
        toolkit: &Toolkit,
        settings: &ModelSettings,
        _stream: bool,
    ) -> Result<Vec<u8>, ModelError> {
        let listing = listing(toolkit, Profile::Gemini);
        let (generation_config, tool_config) = config(settings, toolkit, listing.is_some())?;
        let (system, contents) = contents(transcript);
        let body = Body {
            system_instruction: system.map(|text| Content {
                role: None,
                parts: vec![Part::text(text)],
            }),
            contents,
            tools: listing.as_ref().map(|l| l.raw()),
            tool_config,
            generation_config,
        };
        encode(PROVIDER, &body)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
        let response: Response = parse_body(PROVIDER, body)?;
        let mut turn = Assembly::new(None);
        let mut kept = Kept::default();
        self.absorb(response, &mut turn, &mut kept)?;
        Ok(Reply {
            native: kept.finish(),
            ..turn.finish()
        })
    }

    async fn stream(
        &self,
        response: reqwest::Response,
        sink: DeltaSink<'_>,
    ) -> Result<Reply, ModelError> {
        let mut events = Events::new(response, self.http.provider);
        let mut turn = Assembly::new(Some(sink));
        let mut kept = Kept::default();
        while let Some(event) = events.next().await? {
            self.absorb(event.json(PROVIDER)?, &mut turn, &mut kept)?;
        }
        Ok(Reply {
            native: kept.finish(),
            ..turn.finish()
        })
    }
}

impl fmt::Debug for Gemini {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gemini")
            .field("model", &self.model)
            .field("http", &self.http)
            .field("settings", &self.settings)
            .finish()
    }
}

// ---------------------------------------------------------------- response

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

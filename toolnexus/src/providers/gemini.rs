//! [`Gemini`]: Google's Gemini API (`generateContent`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::agent::message::{Message, ToolCall};
use crate::agent::model::{DeltaSink, FinishReason, ModelError, Reply, Usage};
use crate::providers::http::{Auth, Transport, describe_error};
use crate::providers::skeleton::{Protocol, encode, listing, max_tokens_setting, provider_spec};
use crate::providers::sse::{Events, parse_body};
use crate::providers::wire::{Assembly, arguments_object, pending_text};
use crate::providers::{http_settings, turn_model};
use crate::schema::profile::Profile;
use crate::tool::content::{ContentPart, PartKind};
use crate::tool::toolkit::Toolkit;

const PROVIDER: &str = "Gemini";
provider_spec!(Gemini {
    provider: PROVIDER,
    key_var: "GEMINI_API_KEY",
    base_var: "GEMINI_BASE_URL",
    default_base: "https://generativelanguage.googleapis.com",
    auth: Auth::Header("x-goog-api-key"),
    headers: &[],
});
/// Ids toolnexus gives calls that came without one; they are not sent back.
const LOCAL_ID: &str = "gemini_call_";
/// How many thought signatures are kept (the oldest are dropped past it).
const SIGNATURES: usize = 4096;

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
/// Gemini signs the function calls of thinking models (`thoughtSignature`) and wants the
/// signature back with the call. The transcript has no room for it, so the model keeps the
/// signatures of the calls it received (in memory, shared by clones) and sends them back
/// with those calls.
#[derive(Clone)]
pub struct Gemini {
    http: Transport,
    model: String,
    max_tokens: Option<u32>,
    signatures: Arc<Mutex<Signatures>>,
}

#[derive(Default)]
struct Signatures {
    by_call: HashMap<String, String>,
    order: std::collections::VecDeque<String>,
}

http_settings!(Gemini);
max_tokens_setting!(
    Gemini,
    "Caps the tokens of each turn (`generationConfig.maxOutputTokens`)."
);
turn_model!(Gemini, "gcp.gemini");

impl Gemini {
    fn over(http: Transport, model: String) -> Self {
        Gemini {
            http,
            model: model.strip_prefix("models/").unwrap_or(&model).to_owned(),
            max_tokens: None,
            signatures: Arc::default(),
        }
    }

    /// The JSON body of the request for one turn.
    #[doc(hidden)]
    pub fn request_body(
        &self,
        transcript: &[Message],
        toolkit: &Toolkit,
    ) -> Result<Vec<u8>, ModelError> {
        let listing = listing(toolkit, Profile::Gemini);
        let signatures = self
            .signatures
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (system, contents) = contents(transcript, &signatures.by_call);
        let body = Body {
            system_instruction: system.map(|text| Content {
                role: None,
                parts: vec![Part::text(text)],
            }),
            contents,
            tools: listing.as_ref().map(|l| l.raw()),
            generation_config: self.max_tokens.map(|max| GenerationConfig {
                max_output_tokens: max,
            }),
        };
        encode(PROVIDER, &body)
    }

    /// The turn in a (non-streamed) response body.
    #[doc(hidden)]
    pub fn parse_response(&self, body: &[u8]) -> Result<Reply, ModelError> {
        let response: Response = parse_body(PROVIDER, body)?;
        let mut turn = Assembly::new(None);
        self.absorb(response, &mut turn)?;
        Ok(turn.finish())
    }

    /// Adds one response (the whole turn, or one streamed chunk of it) to `turn`.
    fn absorb(&self, response: Response, turn: &mut Assembly<'_>) -> Result<(), ModelError> {
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
        for part in candidate.content.map(|c| c.parts).unwrap_or_default() {
            if let Some(call) = part.function_call {
                let index = turn.calls.len();
                let id = call
                    .id
                    .filter(|id| !id.is_empty())
                    .unwrap_or_else(|| format!("{LOCAL_ID}{}", uuid::Uuid::new_v4().simple()));
                if let Some(signature) = part.thought_signature {
                    self.remember(&id, signature);
                }
                let arguments = call.args.as_deref().map_or("{}", RawValue::get);
                turn.call(index, Some(&id), Some(&call.name), arguments);
            } else if let Some(text) = part.text
                && !part.thought
            {
                turn.text(&text);
            }
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

    fn remember(&self, id: &str, signature: String) {
        let mut signatures = self
            .signatures
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if signatures
            .by_call
            .insert(id.to_owned(), signature)
            .is_none()
        {
            signatures.order.push_back(id.to_owned());
        }
        while signatures.order.len() > SIGNATURES {
            if let Some(old) = signatures.order.pop_front() {
                signatures.by_call.remove(&old);
            }
        }
    }
}

impl Protocol for Gemini {
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
        _stream: bool,
    ) -> Result<Vec<u8>, ModelError> {
        self.request_body(transcript, toolkit)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
        self.parse_response(body)
    }

    async fn stream(&self, mut events: Events, sink: DeltaSink<'_>) -> Result<Reply, ModelError> {
        let mut turn = Assembly::new(Some(sink));
        while let Some(event) = events.next().await? {
            self.absorb(event.json(PROVIDER)?, &mut turn)?;
        }
        Ok(turn.finish())
    }
}

impl fmt::Debug for Gemini {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gemini")
            .field("model", &self.model)
            .field("http", &self.http)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

// ---------------------------------------------------------------- request

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<Content<'a>>,
    contents: Vec<Content<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generation_config: Option<GenerationConfig>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerationConfig {
    max_output_tokens: u32,
}

#[derive(Serialize)]
struct Content<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    parts: Vec<Part<'a>>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Part<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_call: Option<FunctionCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_response: Option<FunctionResponse<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inline_data: Option<Blob<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought_signature: Option<&'a str>,
}

impl<'a> Part<'a> {
    fn text(text: impl Into<Cow<'a, str>>) -> Self {
        Part {
            text: Some(text.into()),
            ..Part::default()
        }
    }
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    name: &'a str,
    args: &'a RawValue,
}

#[derive(Serialize)]
struct FunctionResponse<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    name: &'a str,
    response: ResponseValue<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parts: Vec<ResponsePart<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum ResponseValue<'a> {
    Output(Cow<'a, str>),
    Error(Cow<'a, str>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResponsePart<'a> {
    inline_data: Blob<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Blob<'a> {
    mime_type: &'a str,
    data: String,
}

fn blob(part: &ContentPart) -> Blob<'_> {
    Blob {
        mime_type: part.mime_type(),
        data: part.base64(),
    }
}

fn wire_id(id: &str) -> Option<&str> {
    (!id.starts_with(LOCAL_ID)).then_some(id)
}

/// The system instruction and the user/model contents.
fn contents<'a>(
    transcript: &'a [Message],
    signatures: &'a HashMap<String, String>,
) -> (Option<Cow<'a, str>>, Vec<Content<'a>>) {
    let mut system: Option<Cow<'a, str>> = None;
    let mut out: Vec<Content<'a>> = Vec::with_capacity(transcript.len());
    // Call id -> tool name: a function response names its function.
    let mut names: HashMap<&'a str, &'a str> = HashMap::new();
    // Audio from the tool results since the last model turn, sent after all of them.
    let mut audio: Vec<Part<'a>> = Vec::new();
    for message in transcript {
        if !matches!(message, Message::Tool { .. })
            && !audio.is_empty()
            && let Some(last) = out.last_mut()
        {
            last.parts.append(&mut audio);
        }
        let (role, parts) = match message {
            Message::System { content } => {
                system = Some(match system {
                    None => Cow::Borrowed(content.as_str()),
                    Some(before) => Cow::Owned(format!("{before}\n\n{content}")),
                });
                continue;
            }
            Message::User { content } => ("user", vec![Part::text(content.as_str())]),
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                let mut parts = Vec::with_capacity(tool_calls.len() + 1);
                if let Some(content) = content.as_deref().filter(|c| !c.is_empty()) {
                    parts.push(Part::text(content));
                }
                for call in tool_calls {
                    names.insert(&call.id, &call.name);
                    parts.push(call_part(call, signatures));
                }
                ("model", parts)
            }
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                parts,
                pending,
            } => {
                let name = names.get(tool_call_id.as_str()).copied().unwrap_or("");
                let response = match pending {
                    Some(request) => ResponseValue::Output(Cow::Owned(pending_text(request))),
                    None if *is_error => ResponseValue::Error(Cow::Borrowed(content)),
                    None => ResponseValue::Output(Cow::Borrowed(content)),
                };
                let parts = parts.as_deref().unwrap_or_default();
                let inline = parts
                    .iter()
                    .filter(|p| p.kind() != PartKind::Audio)
                    .map(|p| ResponsePart {
                        inline_data: blob(p),
                    })
                    .collect();
                audio.extend(
                    parts
                        .iter()
                        .filter(|p| p.kind() == PartKind::Audio)
                        .map(|p| Part {
                            inline_data: Some(blob(p)),
                            ..Part::default()
                        }),
                );
                let part = Part {
                    function_response: Some(FunctionResponse {
                        id: wire_id(tool_call_id),
                        name,
                        response,
                        parts: inline,
                    }),
                    ..Part::default()
                };
                ("user", vec![part])
            }
        };
        if parts.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == Some(role) => last.parts.extend(parts),
            _ => out.push(Content {
                role: Some(role),
                parts,
            }),
        }
    }
    if let Some(last) = out.last_mut() {
        last.parts.append(&mut audio);
    }
    (system, out)
}

fn call_part<'a>(call: &'a ToolCall, signatures: &'a HashMap<String, String>) -> Part<'a> {
    Part {
        function_call: Some(FunctionCall {
            id: wire_id(&call.id),
            name: &call.name,
            args: arguments_object(&call.arguments),
        }),
        thought_signature: signatures.get(&call.id).map(String::as_str),
        ..Part::default()
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
    #[serde(default)]
    parts: Vec<ResponsePartIn>,
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    thoughts_token_count: u64,
}

impl From<UsageMetadata> for Usage {
    fn from(usage: UsageMetadata) -> Usage {
        Usage::new(
            usage.prompt_token_count,
            usage.candidates_token_count + usage.thoughts_token_count,
        )
    }
}

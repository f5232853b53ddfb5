//! [`OpenAiResponses`]: OpenAI's Responses API, and every server that speaks it.

mod request;
mod response;

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::model::settings::{ModelSettings, ToolChoice};
use crate::model::{DeltaSink, ModelError, Reply};
use crate::providers::common::http::{ProviderHttp, describe_error};
use crate::providers::common::output::Dialect;
use crate::providers::common::settings::{refuse, refuse_set};
use crate::providers::common::skeleton::{Asked, Protocol, encode, model_settings};
use crate::providers::common::sse::{Events, parse_body};
use crate::providers::common::wire::Assembly;
use crate::providers::openai::family::{check, is_reasoning_model, mode, openai_spec};
use crate::providers::openai::responses::request::{Item, PROVIDER, input};
use crate::providers::openai::responses::response::{ItemHead, Response, StreamEvent, reply};
use crate::providers::{http_settings, turn_model};

openai_spec!(OpenAiResponses, PROVIDER);

/// What the request asks to have back so that no state stays on the server.
const ENCRYPTED_REASONING: [&str; 1] = ["reasoning.encrypted_content"];

/// OpenAI's Responses API (`POST {base}/responses`), the one OpenAI's reasoning models
/// are built around, and any server that speaks it.
///
/// ```no_run
/// use toolnexus::providers::OpenAiResponses;
/// use toolnexus::{ModelSettings, Reasoning, ToolChoice};
///
/// # fn demo() -> Result<(), toolnexus::ModelError> {
/// let gpt = OpenAiResponses::from_env("gpt-5.1")? // OPENAI_API_KEY, OPENAI_BASE_URL
///     .with_settings(
///         ModelSettings::new()
///             .max_tokens(2_000)
///             .tool_choice(ToolChoice::Required)
///             .parallel_tool_calls(false)
///             .reasoning(Reasoning::effort("high").with_summary("auto")),
///     );
/// let local = OpenAiResponses::compatible("http://localhost:8000/v1", "gpt-oss-20b");
/// # Ok(()) }
/// ```
///
/// **No state on the server.** Requests go with `store: false`, and, for reasoning models
/// (the o-series, GPT-5; or any model asked for reasoning), with `include:
/// ["reasoning.encrypted_content"]`: each turn's reasoning items come back encrypted,
/// are kept in the transcript ([`NativeTurn`](crate::model::NativeTurn)), and go back in the
/// next request's `input` before the function calls they led to, as the API requires. A
/// halted run serialized with its transcript resumes in any process.
/// [`OpenAiResponses::store`] turns storage on.
///
/// The system messages become `instructions`; tool results are `function_call_output`
/// items whose images (`input_image`) and PDFs (`input_file`) travel inside them; a failed
/// result's text starts with `Error: `. Refusals, `incomplete` responses (the token cap:
/// [`FinishReason::Length`](crate::model::FinishReason::Length)), errors and rate limits map as
/// for [`OpenAi`](crate::providers::OpenAi).
#[derive(Clone, Debug)]
pub struct OpenAiResponses {
    /// The transport requests go through (Azure OpenAI sets its own URL and auth).
    pub(super) http: ProviderHttp,
    model: String,
    strict: bool,
    store: bool,
    settings: ModelSettings,
}

http_settings!(OpenAiResponses);
model_settings!(
    OpenAiResponses,
    "Caps the tokens of each turn, reasoning included (`max_output_tokens`); the same as [`ModelSettings::max_tokens`]."
);
turn_model!(OpenAiResponses, "openai");

impl OpenAiResponses {
    /// Any server that speaks the Responses API at `base_url` (the URL `/responses` is
    /// appended to), with no API key; add one with [`OpenAiResponses::api_key`].
    pub fn compatible(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiResponses::over(SPEC.transport(base_url, None), model.into())
    }

    pub(crate) fn over(http: ProviderHttp, model: String) -> Self {
        OpenAiResponses {
            http,
            model,
            strict: false,
            store: false,
            settings: ModelSettings::default(),
        }
    }

    /// Lists the tools in strict mode (`"strict": true`, the schemas of
    /// [`Profile::OpenAiStrict`](crate::schema::profile::Profile::OpenAiStrict)); off, every tool
    /// says `"strict": false`, since the Responses API makes a function strict when it
    /// is left out.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Lets OpenAI store the responses (`store: true`; default off). Stored, the
    /// reasoning items are kept on the server too, and the encrypted copies are not
    /// asked for.
    #[must_use]
    pub fn store(mut self, store: bool) -> Self {
        self.store = store;
        self
    }
}

impl Protocol for OpenAiResponses {
    const OUTPUT: Option<Dialect> = Some(Dialect::OpenAiResponses);

    fn url(&self, _stream: bool) -> String {
        format!("{}/responses", self.http.base_url)
    }

    fn body(&self, asking: Asked<'_>) -> Result<Vec<u8>, ModelError> {
        let settings = asking.settings;
        check(PROVIDER, &self.model, settings, asking.toolkit)?;
        refuse_set(
            PROVIDER,
            &[
                ("stop", settings.stop.is_some()),
                ("seed", settings.seed.is_some()),
            ],
            "the Responses API has no such field (Chat Completions has: use OpenAi)",
        )?;
        let reasoning = settings.reasoning.as_ref();
        let summary = match reasoning.and_then(|r| r.summary.as_deref()) {
            None | Some("none") => None,
            Some(summary @ ("auto" | "concise" | "detailed")) => Some(summary),
            Some(other) => {
                return Err(refuse(
                    PROVIDER,
                    "reasoning",
                    format!("no summary `{other}` (auto, concise, detailed or none)"),
                ));
            }
        };
        let effort = reasoning.and_then(|r| r.effort.as_deref());
        let thinks = is_reasoning_model(&self.model) || effort.is_some_and(|e| e != "none");
        let listing =
            (!asking.toolkit.is_empty()).then(|| asking.toolkit.responses_listing(self.strict));
        let tools = listing.is_some();
        let (instructions, input) = input(asking.transcript);
        let body = Body {
            model: &self.model,
            instructions,
            input,
            tools: listing.as_ref().map(|l| l.raw()),
            tool_choice: settings
                .tool_choice
                .as_ref()
                .filter(|_| tools)
                .map(tool_choice),
            parallel_tool_calls: settings.parallel_tool_calls.filter(|_| tools),
            max_output_tokens: settings.max_tokens,
            temperature: settings.temperature,
            top_p: settings.top_p,
            reasoning: (effort.is_some() || summary.is_some())
                .then_some(ReasoningParam { effort, summary }),
            store: self.store,
            include: (!self.store && thinks).then_some(ENCRYPTED_REASONING),
            stream: asking.stream,
        };
        encode(PROVIDER, &body)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
        let response: Response = parse_body(PROVIDER, body)?;
        reply(response)
    }

    async fn stream(
        &self,
        response: reqwest::Response,
        sink: DeltaSink<'_>,
    ) -> Result<Reply, ModelError> {
        let mut events = Events::new(response, self.http.provider);
        let mut turn = Assembly::new(Some(sink));
        // Output index -> position of its call in the turn.
        let mut calls: Vec<(usize, usize)> = Vec::new();
        let mut done: Vec<Box<RawValue>> = Vec::new();
        let mut last: Option<Box<RawValue>> = None;
        while let Some(event) = events.next().await? {
            let event: StreamEvent = event.json(PROVIDER)?;
            let index = event.output_index.unwrap_or(0);
            match event.kind.as_str() {
                "response.output_item.added" => {
                    let Some(item) = event.item else { continue };
                    let head: ItemHead = parse_body(PROVIDER, item.get().as_bytes())?;
                    if head.kind == "function_call" {
                        let position = calls.len();
                        calls.push((index, position));
                        turn.call(position, head.call_id.as_deref(), head.name.as_deref(), "");
                    }
                }
                "response.output_text.delta" => turn.text(event.delta.as_deref().unwrap_or("")),
                "response.function_call_arguments.delta" => {
                    if let Some(&(_, position)) = calls.iter().find(|(i, _)| *i == index) {
                        turn.call(position, None, None, event.delta.as_deref().unwrap_or(""));
                    }
                }
                "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                    turn.reasoning(event.delta.as_deref().unwrap_or(""));
                }
                "response.output_item.done" => done.extend(event.item),
                "response.completed" | "response.incomplete" => last = event.response,
                "response.failed" => {
                    let error = event
                        .response
                        .and_then(|r| serde_json::from_str::<serde_json::Value>(r.get()).ok())
                        .and_then(|r| r.get("error").cloned())
                        .unwrap_or_default();
                    return Err(ModelError::new(format!(
                        "{PROVIDER}: the response failed: {}",
                        self.http.redact(&describe_error(&error))
                    )));
                }
                "error" => {
                    let code = event.code.as_deref().unwrap_or("error");
                    let message = event.message.as_deref().unwrap_or("");
                    return Err(ModelError::new(format!(
                        "{PROVIDER}: the stream ended with an error: {}",
                        self.http.redact(&format!("{code}: {message}"))
                    )));
                }
                _ => {}
            }
        }
        let Some(last) = last else {
            return Err(ModelError::new(format!(
                "{PROVIDER}: the stream ended before the response was complete"
            )));
        };
        let mut response: Response = parse_body(PROVIDER, last.get().as_bytes())?;
        if response.output.is_empty() {
            response.output = done;
        }
        reply(response)
    }
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<Cow<'a, str>>,
    input: Vec<Item<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ResponsesToolChoice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<ReasoningParam<'a>>,
    store: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    include: Option<[&'static str; 1]>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

#[derive(Serialize)]
struct ReasoningParam<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    effort: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
}

/// `tool_choice`: a mode, or `{"type": "function", "name"}`.
#[derive(Serialize)]
#[serde(untagged)]
enum ResponsesToolChoice<'a> {
    Mode(&'static str),
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        name: &'a str,
    },
}

fn tool_choice(choice: &ToolChoice) -> ResponsesToolChoice<'_> {
    match (mode(choice), choice) {
        (Some(mode), _) => ResponsesToolChoice::Mode(mode),
        (None, ToolChoice::Tool(name)) => ResponsesToolChoice::Function {
            kind: "function",
            name,
        },
        (None, _) => ResponsesToolChoice::Mode("auto"),
    }
}

//! [`OpenAi`]: OpenAI's Chat Completions API, and every server that speaks it.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::model::message::{Message, ToolCall};
use crate::model::settings::{ModelSettings, ToolChoice};
use crate::model::{DeltaSink, FinishReason, ModelError, Reply, Usage};
use crate::providers::common::http::{ProviderHttp, describe_error};
use crate::providers::common::output::Dialect;
use crate::providers::common::settings::refuse;
use crate::providers::common::skeleton::{
    Asked, Protocol, encode, listing, model_settings, strict_setting,
};
use crate::providers::common::sse::{Events, parse_body};
use crate::providers::common::wire::{Assembly, data_url, omitted, tool_text};
use crate::providers::openai::chunk::{Chunk, WireUsage};
use crate::providers::openai::family::{check, mode, openai_spec};
use crate::providers::{http_settings, turn_model};
use crate::schema::profile::Profile;
use crate::tool::content::{ContentPart, PartBody, PartKind};

const PROVIDER: &str = "OpenAI";
openai_spec!(OpenAi, PROVIDER);

/// OpenAI's Chat Completions API (`POST {base}/chat/completions`), and any server that
/// speaks it: Ollama, vLLM, llama.cpp's server, LM Studio, hosted compatible APIs.
///
/// ```no_run
/// use std::time::Duration;
/// use toolnexus::providers::{OpenAi, Retry};
///
/// # fn demo() -> Result<(), toolnexus::ModelError> {
/// let openai = OpenAi::from_env("gpt-4.1-mini")?         // OPENAI_API_KEY, OPENAI_BASE_URL
///     .timeout(Duration::from_secs(120))
///     .retry(Retry::default().max_retries(5));
/// let local = OpenAi::compatible("http://localhost:11434/v1", "qwen3"); // no key
/// # Ok(()) }
/// ```
///
/// Tool results that carry images, PDFs or audio: Chat Completions takes only text in a
/// tool message, so the parts go in a user message right after the turn's tool messages
/// (`image_url`, `file` and `input_audio` parts), introduced by the call id they belong to.
/// Audio other than WAV and MP3 is described in words.
#[derive(Clone, Debug)]
pub struct OpenAi {
    /// The transport requests go through (Azure OpenAI sets its own URL and auth).
    pub(super) http: ProviderHttp,
    model: String,
    strict: bool,
    settings: ModelSettings,
}

http_settings!(OpenAi);
strict_setting!(
    OpenAi,
    Profile::OpenAi,
    Profile::OpenAiStrict,
    "Lists the tools for strict mode ([`Profile::OpenAiStrict`]): the model's arguments are then guaranteed to fit the schemas."
);
model_settings!(
    OpenAi,
    "Caps the tokens of each turn (`max_completion_tokens`); the same as [`ModelSettings::max_tokens`]."
);
turn_model!(OpenAi, "openai");

impl OpenAi {
    /// Any OpenAI-compatible server at `base_url` (the URL that `/chat/completions` is
    /// appended to, e.g. `http://localhost:11434/v1` for Ollama), with no API key; add one
    /// with [`OpenAi::api_key`] if the server wants it.
    pub fn compatible(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAi::over(SPEC.transport(base_url, None), model.into())
    }

    pub(crate) fn over(http: ProviderHttp, model: String) -> Self {
        OpenAi {
            http,
            model,
            strict: false,
            settings: ModelSettings::default(),
        }
    }
}

impl Protocol for OpenAi {
    const OUTPUT: Option<Dialect> = Some(Dialect::OpenAiChat);

    fn url(&self, _stream: bool) -> String {
        format!("{}/chat/completions", self.http.base_url)
    }

    fn body(&self, asking: Asked<'_>) -> Result<Vec<u8>, ModelError> {
        let settings = asking.settings;
        check(PROVIDER, &self.model, settings, asking.toolkit)?;
        let reasoning = settings.reasoning.as_ref();
        if let Some(summary) = reasoning.and_then(|r| r.summary.as_deref()) {
            return Err(refuse(
                PROVIDER,
                "reasoning",
                format!(
                    "Chat Completions returns no reasoning summaries (`{summary}` asked); use \
                     OpenAiResponses for them"
                ),
            ));
        }
        if let Some(stop) = &settings.stop
            && stop.len() > 4
        {
            return Err(refuse(
                PROVIDER,
                "stop",
                format!(
                    "Chat Completions takes at most 4 stop sequences ({} given)",
                    stop.len()
                ),
            ));
        }
        let profile = self.profile();
        let listing = listing(asking.toolkit, profile);
        let tools = listing.is_some();
        let body = Body {
            model: &self.model,
            messages: messages(asking.transcript),
            tools: listing.as_ref().map(|l| l.raw()),
            tool_choice: settings
                .tool_choice
                .as_ref()
                .filter(|_| tools)
                .map(chat_tool_choice),
            parallel_tool_calls: settings.parallel_tool_calls.filter(|_| tools),
            max_completion_tokens: settings.max_tokens,
            temperature: settings.temperature,
            top_p: settings.top_p,
            reasoning_effort: reasoning.and_then(|r| r.effort.as_deref()),
            stop: settings.stop.as_deref(),
            seed: settings.seed,
            stream: asking.stream,
            stream_options: asking.stream.then_some(StreamOptions {
                include_usage: true,
            }),
        };
        encode(PROVIDER, &body)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
        let completion: Completion = parse_body(PROVIDER, body)?;
        if let Some(error) = completion.error {
            return Err(ModelError::new(format!(
                "{PROVIDER}: the response is an error: {}",
                describe_error(&error)
            )));
        }
        let choice =
            completion.choices.into_iter().next().ok_or_else(|| {
                ModelError::new(format!("{PROVIDER}: the response has no choices"))
            })?;
        let message = choice.message;
        let mut finish = choice.finish_reason.as_deref().map(finish_reason);
        let content = match message.refusal {
            Some(refusal) if !refusal.is_empty() => {
                finish = Some(FinishReason::Refusal);
                Some(refusal)
            }
            _ => message.content.filter(|c| !c.is_empty()),
        };
        let mut tool_calls = message.tool_calls.unwrap_or_default();
        for call in &mut tool_calls {
            // Some compatible servers leave out the arguments of a parameterless call.
            if call.arguments.trim().is_empty() {
                call.arguments = "{}".to_owned();
            }
        }
        Ok(Reply {
            content,
            tool_calls,
            usage: completion.usage.map(Usage::from).unwrap_or_default(),
            finish_reason: finish,
            native: None,
            model: None,
            raw: serde_json::from_slice(body).ok().map(Box::new),
        })
    }

    async fn stream(
        &self,
        response: reqwest::Response,
        sink: DeltaSink<'_>,
    ) -> Result<Reply, ModelError> {
        let mut events = Events::new(response, self.http.provider);
        let mut turn = Assembly::new(Some(sink));
        let mut refusal = String::new();
        while let Some(event) = events.next().await? {
            if event.data.trim() == "[DONE]" {
                break;
            }
            let chunk: Chunk = event.json(PROVIDER)?;
            if let Some(error) = chunk.error {
                return Err(ModelError::new(format!(
                    "{PROVIDER}: the stream ended with an error: {}",
                    self.http.redact(&describe_error(&error))
                )));
            }
            if let Some(usage) = chunk.usage {
                turn.usage = usage.into();
            }
            for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
                let delta = choice.delta;
                if let Some(text) = delta.content {
                    turn.text(&text);
                }
                if let Some(piece) = delta.refusal {
                    refusal.push_str(&piece);
                }
                for call in delta.tool_calls.into_iter().flatten() {
                    let function = call.function.unwrap_or_default();
                    turn.call(
                        call.index,
                        call.id.as_deref(),
                        function.name.as_deref(),
                        function.arguments.as_deref().unwrap_or(""),
                    );
                }
                if let Some(reason) = choice.finish_reason {
                    turn.finish = Some(finish_reason(&reason));
                }
            }
        }
        let mut reply = turn.finish();
        if !refusal.is_empty() {
            reply.content = Some(refusal);
            reply.finish_reason = Some(FinishReason::Refusal);
        }
        Ok(reply)
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

// ---------------------------------------------------------------- request

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<Wire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ChatToolChoice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<i64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

/// `tool_choice`: a mode, or `{"type": "function", "function": {"name"}}`.
#[derive(Serialize)]
#[serde(untagged)]
enum ChatToolChoice<'a> {
    Mode(&'static str),
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        function: Named<'a>,
    },
}

#[derive(Serialize)]
struct Named<'a> {
    name: &'a str,
}

fn chat_tool_choice(choice: &ToolChoice) -> ChatToolChoice<'_> {
    match (mode(choice), choice) {
        (Some(mode), _) => ChatToolChoice::Mode(mode),
        (None, ToolChoice::Tool(name)) => ChatToolChoice::Function {
            kind: "function",
            function: Named { name },
        },
        (None, _) => ChatToolChoice::Mode("auto"),
    }
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum Wire<'a> {
    System {
        content: &'a str,
    },
    User {
        content: UserContent<'a>,
    },
    Assistant {
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        tool_calls: &'a [ToolCall],
    },
    Tool {
        tool_call_id: &'a str,
        content: Cow<'a, str>,
    },
}

#[derive(Serialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(&'a str),
    Parts(Vec<UserPart>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum UserPart {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
    File { file: File },
    InputAudio { input_audio: InputAudio },
}

#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Serialize)]
struct File {
    file_data: String,
    filename: String,
}

#[derive(Serialize)]
struct InputAudio {
    data: String,
    format: &'static str,
}

fn messages(transcript: &[Message]) -> Vec<Wire<'_>> {
    let mut out = Vec::with_capacity(transcript.len() + 1);
    // Parts of the tool messages since the last assistant turn, sent once they are over.
    let mut attachments: Vec<UserPart> = Vec::new();
    for message in transcript {
        if !matches!(message, Message::Tool { .. }) && !attachments.is_empty() {
            out.push(attachment_message(&mut attachments));
        }
        out.push(match message {
            Message::System { content } => Wire::System { content },
            Message::User { content } => Wire::User {
                content: match content.as_text() {
                    Some(text) => UserContent::Text(text),
                    None => UserContent::Parts(content.parts().iter().map(user_part).collect()),
                },
            },
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => Wire::Assistant {
                content: content.as_deref(),
                tool_calls,
            },
            Message::Tool { .. } => {
                let Some(tool) = message.as_tool() else {
                    continue;
                };
                if !tool.parts.is_empty() {
                    attachments.push(UserPart::Text {
                        text: format!("The result of tool call {} comes with:", tool.tool_call_id),
                    });
                    attachments.extend(tool.parts.iter().map(user_part));
                }
                Wire::Tool {
                    tool_call_id: tool.tool_call_id,
                    content: tool_text(&tool),
                }
            }
        });
    }
    if !attachments.is_empty() {
        out.push(attachment_message(&mut attachments));
    }
    out
}

fn attachment_message<'a>(attachments: &mut Vec<UserPart>) -> Wire<'a> {
    Wire::User {
        content: UserContent::Parts(std::mem::take(attachments)),
    }
}

/// A part as a Chat Completions content part; a linked file or clip (only an image goes
/// by URL) is sent as a text line saying it was left out.
fn user_part(part: &ContentPart) -> UserPart {
    let omit = || UserPart::Text {
        text: omitted(part, PROVIDER),
    };
    match (part.kind(), part.body()) {
        (_, PartBody::Text(text)) => UserPart::Text {
            text: text.to_owned(),
        },
        // Its bytes as a data: URL, or its own URL.
        (PartKind::Image, _) => UserPart::ImageUrl {
            image_url: ImageUrl {
                url: data_url(part),
            },
        },
        (_, PartBody::Url(_)) => omit(),
        (PartKind::Audio, _) => {
            let format = match part.mime_type() {
                "audio/wav" | "audio/x-wav" | "audio/wave" => Some("wav"),
                "audio/mpeg" | "audio/mp3" => Some("mp3"),
                _ => None,
            };
            match (format, part.base64()) {
                (Some(format), Some(data)) => UserPart::InputAudio {
                    input_audio: InputAudio { data, format },
                },
                _ => omit(),
            }
        }
        _ => UserPart::File {
            file: File {
                file_data: data_url(part),
                filename: part.name().unwrap_or("file").to_owned(),
            },
        },
    }
}

// ---------------------------------------------------------------- response

#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice {
    message: ResponseMessage,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ResponseMessage {
    content: Option<String>,
    refusal: Option<String>,
    tool_calls: Option<Vec<ToolCall>>,
}

//! [`Anthropic`]: Anthropic's Messages API.

mod request;
mod search;
#[cfg(feature = "vertex")]
mod vertex;

pub use search::DeferLoading;
#[cfg(feature = "vertex")]
pub use vertex::VertexAnthropic;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::message::{Message, NativeTurn, ToolCall};
use crate::model::settings::ModelSettings;
use crate::model::{Delta, DeltaSink, FinishReason, ModelError, Reply, Usage};
use crate::providers::anthropic::request::{
    Body, DEFAULT_MAX_TOKENS, PROVIDER, asked, cache_deferred, cached_tools, mark, messages,
};
use crate::providers::anthropic::search::{NATIVE, Streamed, is_native};
use crate::providers::common::http::{Auth, Transport, describe_error};
use crate::providers::common::skeleton::{
    Protocol, encode, listing, model_settings, provider_spec, strict_setting,
};
use crate::providers::common::sse::{Events, parse_body};
use crate::providers::common::wire::{Assembly, mark_tail};
use crate::providers::{http_settings, turn_model};
use crate::schema::profile::Profile;
use crate::tool::kit::Toolkit;
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
///
/// **Extended thinking** (`Reasoning::budget(n)`, or an effort with adaptive thinking):
/// the turn's `thinking` and `redacted_thinking` blocks, with their signatures, are kept
/// in the transcript ([`NativeTurn`]) and sent back unchanged before the turn's tool
/// calls, as the API requires; a run serialized while halted keeps them.
///
/// **Prompt caching** is on by default: a breakpoint at the end of the system prompt (or
/// of the tools, without one) caches the tools and the instructions; a second one at the
/// end of the conversation writes each turn to the cache, and a third, where the previous
/// turn's was, reads it back. Three of the API's four. A cache write costs 1.25 times
/// the input price and a read 0.1 times, so from the second turn of a loop on, the
/// repeated prefix costs a tenth. Turn it off with [`Anthropic::with_prompt_caching`].
#[derive(Clone, Debug)]
pub struct Anthropic {
    http: Transport,
    model: String,
    strict: bool,
    settings: ModelSettings,
    defer: Option<DeferLoading>,
    caching: bool,
}

http_settings!(Anthropic);
strict_setting!(
    Anthropic,
    Profile::Anthropic,
    Profile::AnthropicStrict,
    "Lists the tools for strict tool use ([`Profile::AnthropicStrict`])."
);
model_settings!(
    Anthropic,
    "Caps the tokens of each turn (`max_tokens`, default [`Anthropic::DEFAULT_MAX_TOKENS`], or the thinking budget plus that); the same as [`ModelSettings::max_tokens`]."
);
turn_model!(Anthropic, "anthropic");

impl Anthropic {
    /// The default [`Anthropic::with_max_tokens`]: the Messages API requires a cap.
    pub const DEFAULT_MAX_TOKENS: u32 = DEFAULT_MAX_TOKENS;

    pub(super) fn over(http: Transport, model: String) -> Self {
        Anthropic {
            http,
            model,
            strict: false,
            settings: ModelSettings::default(),
            defer: None,
            caching: true,
        }
    }

    /// Turns prompt caching on (the default) or off. Off, no request carries a
    /// `cache_control` breakpoint, and every turn pays the full input price for the tools,
    /// the system prompt and the conversation so far.
    #[must_use]
    pub fn with_prompt_caching(mut self, on: bool) -> Self {
        self.caching = on;
        self
    }

    /// Lets Anthropic search the toolkit itself: the tools are listed with
    /// `defer_loading: true` next to the tool-search server tool (see [`DeferLoading`]).
    /// The turns that searched keep their `server_tool_use` and `tool_search_tool_result`
    /// blocks in the transcript ([`NativeTurn`](crate::model::NativeTurn)), and later requests
    /// send them back.
    #[must_use]
    pub fn with_defer_loading(mut self, defer: DeferLoading) -> Self {
        self.defer = Some(defer);
        self
    }
}

impl Protocol for Anthropic {
    const OUTPUT: Option<crate::providers::common::output::Dialect> =
        Some(crate::providers::common::output::Dialect::Anthropic);

    fn url(&self, _stream: bool) -> String {
        format!("{}/v1/messages", self.http.base_url)
    }

    fn body(
        &self,
        transcript: &[Message],
        toolkit: &Toolkit,
        settings: &ModelSettings,
        stream: bool,
    ) -> Result<Vec<u8>, ModelError> {
        let profile = self.profile();
        let listing = listing(toolkit, profile);
        let asked = asked(settings, toolkit, listing.is_some())?;
        let (system, mut messages) = messages(transcript);
        let cache = self.caching;
        // The tools' breakpoint goes on the system prompt when there is one (the prefix
        // runs tools, then system), else on the last tool.
        let tools_breakpoint = cache && system.is_none();
        let written =
            |e| ModelError::with_source(format!("{PROVIDER}: could not write the tools"), e);
        let owned: Option<Box<RawValue>> = match (&self.defer, &listing) {
            (Some(defer), Some(_)) => {
                let mut tools = defer.listing(toolkit, profile);
                if tools_breakpoint {
                    cache_deferred(&mut tools);
                }
                Some(serde_json::value::to_raw_value(&tools).map_err(written)?)
            }
            (None, Some(listing)) if tools_breakpoint => cached_tools(listing.raw()),
            _ => None,
        };
        let tools = match &owned {
            Some(raw) => Some(&**raw),
            None => listing.as_ref().map(|l| l.raw()),
        };
        if cache {
            mark_tail(&mut messages, mark);
        }
        let body = Body {
            model: &self.model,
            max_tokens: asked.max_tokens,
            system: system.map(|text| request::system(text, cache)),
            messages,
            tools,
            tool_choice: asked.tool_choice,
            thinking: asked.thinking,
            output_config: asked.output_config,
            stop_sequences: asked.stop_sequences,
            stream,
        };
        encode(PROVIDER, &body)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
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

    async fn stream(
        &self,
        response: reqwest::Response,
        sink: DeltaSink<'_>,
    ) -> Result<Reply, ModelError> {
        let mut events = Events::new(response, self.http.provider);
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
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize)]
struct OutputDetails {
    #[serde(default)]
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

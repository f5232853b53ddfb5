//! [`Anthropic`]: Anthropic's Messages API.

mod request;
mod response;
mod search;
#[cfg(feature = "vertex")]
mod vertex;

pub use search::DeferLoading;
#[cfg(feature = "vertex")]
pub use vertex::VertexAnthropic;

use serde_json::value::RawValue;

use crate::model::settings::ModelSettings;
use crate::model::{DeltaSink, ModelError, Reply};
use crate::providers::anthropic::request::{
    Body, DEFAULT_MAX_TOKENS, PROVIDER, asked, cache_deferred, cached_tools, mark, messages,
};
use crate::providers::common::http::{Auth, ProviderHttp};
use crate::providers::common::output::Dialect;
use crate::providers::common::skeleton::{
    Asked, Protocol, encode, listing, model_settings, provider_spec, strict_setting,
};
use crate::providers::common::wire::mark_tail;
use crate::providers::{http_settings, turn_model};
use crate::schema::profile::Profile;
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
/// let claude = Anthropic::from_env("claude-sonnet-4-5")?.max_tokens(8192);
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
/// in the transcript ([`NativeTurn`](crate::model::NativeTurn)) and sent back unchanged
/// before the turn's tool calls, as the API requires; a run serialized while halted keeps
/// them.
///
/// **Prompt caching** is on by default: a breakpoint at the end of the system prompt (or
/// of the tools, without one) caches the tools and the instructions; a second one at the
/// end of the conversation writes each turn to the cache, and a third, where the previous
/// turn's was, reads it back. Three of the API's four. A cache write costs 1.25 times
/// the input price and a read 0.1 times, so from the second turn of a loop on, the
/// repeated prefix costs a tenth. Turn it off with [`Anthropic::prompt_caching`].
#[derive(Clone, Debug)]
pub struct Anthropic {
    http: ProviderHttp,
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
    /// The default [`Anthropic::max_tokens`]: the Messages API requires a cap.
    pub const DEFAULT_MAX_TOKENS: u32 = DEFAULT_MAX_TOKENS;

    pub(super) fn over(http: ProviderHttp, model: String) -> Self {
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
    pub fn prompt_caching(mut self, on: bool) -> Self {
        self.caching = on;
        self
    }

    /// Lets Anthropic search the toolkit itself: the tools are listed with
    /// `defer_loading: true` next to the tool-search server tool (see [`DeferLoading`]).
    /// The turns that searched keep their `server_tool_use` and `tool_search_tool_result`
    /// blocks in the transcript ([`NativeTurn`](crate::model::NativeTurn)), and later requests
    /// send them back.
    #[must_use]
    pub fn defer_loading(mut self, defer: DeferLoading) -> Self {
        self.defer = Some(defer);
        self
    }
}

impl Protocol for Anthropic {
    const OUTPUT: Option<Dialect> = Some(Dialect::Anthropic);

    fn url(&self, _stream: bool) -> String {
        format!("{}/v1/messages", self.http.base_url)
    }

    fn body(&self, asking: Asked<'_>) -> Result<Vec<u8>, ModelError> {
        let profile = self.profile();
        let listing = listing(asking.toolkit, profile);
        let asked = asked(asking.settings, asking.toolkit, listing.is_some())?;
        let (system, mut messages) = messages(asking.transcript);
        let cache = self.caching;
        // The tools' breakpoint goes on the system prompt when there is one (the prefix
        // runs tools, then system), else on the last tool.
        let tools_breakpoint = cache && system.is_none();
        let written =
            |e| ModelError::with_source(format!("{PROVIDER}: could not write the tools"), e);
        let owned: Option<Box<RawValue>> = match (&self.defer, &listing) {
            (Some(defer), Some(_)) => {
                let mut tools = defer.listing(asking.toolkit, profile);
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
            stream: asking.stream,
        };
        encode(PROVIDER, &body)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
        response::parse(body)
    }

    async fn stream(
        &self,
        response: reqwest::Response,
        sink: DeltaSink<'_>,
    ) -> Result<Reply, ModelError> {
        response::stream(response, self.http.provider, sink).await
    }
}

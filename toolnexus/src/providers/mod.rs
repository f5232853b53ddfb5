//! Real models over HTTP: [`OpenAi`] (Chat Completions, and every OpenAI-compatible
//! server), [`OpenAiResponses`] (the Responses API), [`Anthropic`] and [`Gemini`], each
//! behind the [`Model`](crate::Model) trait and a cargo feature (`openai` for both OpenAI
//! APIs, `anthropic`, `gemini`).
//!
//! ```no_run
//! # #[cfg(feature = "openai")]
//! # async fn demo(toolkit: toolnexus::Toolkit) -> Result<(), toolnexus::ModelError> {
//! use toolnexus::Client;
//! use toolnexus::providers::OpenAi;
//!
//! let model = OpenAi::from_env("gpt-4.1-mini")?; // reads OPENAI_API_KEY
//! let run = Client::new(model).run("What is 2 + 3?", &toolkit).await;
//! println!("{}", run.text);
//!
//! // A local server that speaks OpenAI's API (Ollama, vLLM, llama.cpp, LM Studio):
//! let local = OpenAi::compatible("http://localhost:11434/v1", "qwen3");
//! # Ok(()) }
//! ```
//!
//! # What every provider does
//!
//! - **The transcript, in the provider's own shape.** The system prompt goes where the
//!   provider wants it; an assistant turn keeps its parallel tool calls; each tool result
//!   goes back keyed by its call id. A failed result is flagged natively where the provider
//!   has a flag (Anthropic's `is_error`, Gemini's `error` response key) and spelled out in
//!   the text where it has none (OpenAI: `Error: …`). Images, PDFs and audio travel in the
//!   provider's native form; where a provider cannot take a part inside a tool result
//!   (OpenAI), it goes in a user message right after the results, which is what the
//!   provider documents. A call still waiting on a suspension is described in words; no
//!   toolnexus-only key (`pending`, `parts`, `is_error` on OpenAI) reaches the wire.
//! - **The tool list** is the toolkit's shared [`listing`](crate::Toolkit::listing) for
//!   the provider's profile (strict where the model is built `.strict(true)`), embedded in
//!   the request as JSON text that is serialized once per toolkit, not once per turn.
//! - **Settings** ([`ModelSettings`](crate::ModelSettings)): each provider's
//!   `with_settings`, with a client's [`settings`](crate::Client::settings) merged over
//!   them field by field. A setting the provider cannot honour (a temperature on a
//!   reasoning-only model, a `seed` the API has no field for, a named tool choice not in
//!   the toolkit, an effort and a budget together) fails the turn before anything is
//!   sent, with an error naming the provider and the setting.
//! - **Reasoning across tool calls**: OpenAI's reasoning items (encrypted, as nothing is
//!   stored on the server), Anthropic's thinking blocks with their signatures and
//!   Gemini's thought signatures are kept in the transcript
//!   ([`NativeTurn`](crate::model::NativeTurn)) and sent back as the provider requires, also
//!   after a halted run was serialized and resumed elsewhere.
//! - **Responses**: text, any number of tool calls, token usage (with cache reads and
//!   writes and reasoning tokens) and the [`FinishReason`](crate::model::FinishReason) (length
//!   cut-offs and refusals included).
//! - **Errors** say what happened and what to do: a missing key names its variable, a
//!   refused key, an unknown model, a transcript too long for the context window, a rate
//!   limit, with the provider's own message. API keys are never printed, in `Debug` or in
//!   errors.
//! - **Retries** on `429`, `500`, `502`, `503`, `504`, `529` and network errors, with
//!   exponential backoff and jitter, honouring
//!   `Retry-After`; never on `400`/`401`/`403`/`404` (see [`Retry`]). Timeouts for the
//!   whole request and for connecting.
//! - **Streaming** through [`ModelRequest::on_delta`](crate::model::ModelRequest::on_delta):
//!   text and tool-call argument pieces go to the callback as they arrive, and the
//!   [`Reply`](crate::Reply) at the end is the same as the non-streamed one.
//! - **Cancellation**: dropping the future (a `select!`, a timeout, an aborted task) drops
//!   the request and closes its connection.
//!
//! TLS is rustls (no OpenSSL needed), through reqwest.

// One provider alone leaves some shared helpers unused.
#![cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code, unused_imports, unused_macros)
)]

#[cfg(feature = "acp")]
mod acp;
#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(feature = "bedrock")]
mod bedrock;
mod common;
mod config;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(feature = "openai")]
mod openai;

#[cfg(feature = "acp")]
pub use acp::{Acp, SUPERSEDES_MARKER};
#[cfg(all(feature = "vertex", feature = "anthropic"))]
pub use anthropic::VertexAnthropic;
#[cfg(feature = "anthropic")]
pub use anthropic::{Anthropic, DeferLoading};
#[cfg(feature = "bedrock")]
pub use bedrock::Bedrock;
pub use common::retry::{ErrorInfo, ErrorTier, Retry};
#[doc(hidden)]
pub use common::skeleton::Wire;
pub use config::{CONFIG_ENV_PREFIX, ModelConfig, Style};
#[cfg(feature = "gemini")]
pub use gemini::Gemini;
#[cfg(feature = "vertex")]
pub use gemini::Vertex;
#[cfg(feature = "openai")]
pub use openai::{AzureOpenAi, OpenAi, OpenAiResponses};

/// The builder methods every provider has: key, base URL, timeouts, retries.
macro_rules! http_settings {
    ($ty:ident) => {
        impl $ty {
            /// Sets the API key (replacing one read from the environment).
            #[must_use]
            pub fn api_key(mut self, key: impl Into<String>) -> Self {
                self.http.key = Some($crate::providers::common::http::ApiKey::new(key));
                self
            }

            /// Sets the base URL the API paths are appended to (a proxy, a gateway, a
            /// local test server).
            #[must_use]
            pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
                self.http.set_base_url(base_url.into());
                self
            }

            /// Adds a header sent with every request (a gateway's token, a tenant id),
            /// replacing one of the same name added before. Its value is never printed
            /// and is scrubbed from errors; a name or value that is not a valid HTTP
            /// header fails the turn before anything is sent.
            #[must_use]
            pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
                self.http.add_custom(name, value);
                self
            }

            /// Limits each request, from sending it to the last byte of a streamed
            /// response (default 10 minutes).
            #[must_use]
            pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
                self.http.timeout = timeout;
                self
            }

            /// Limits opening a connection (default 10 seconds).
            #[must_use]
            pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
                self.http.set_connect_timeout(timeout);
                self
            }

            /// Sets how failed requests are retried (see [`Retry`](crate::providers::Retry)).
            #[must_use]
            pub fn retry(mut self, retry: $crate::providers::common::retry::Retry) -> Self {
                self.http.retry = retry;
                self
            }

            /// Sets how many times a failed request is tried again (default 2; 0 turns
            /// retries off), keeping the rest of the [`Retry`](crate::providers::Retry)
            /// policy.
            #[must_use]
            pub fn max_retries(mut self, max_retries: u32) -> Self {
                self.http.retry.max_retries = max_retries;
                self
            }

            /// Decides, for each failed attempt of a request, whether to try again (the
            /// contract's `on_error`): `f` gets the attempt's [`ErrorInfo`](crate::providers::ErrorInfo)
            /// (its status or error, its number, and whether the default policy would
            /// retry it) and answers [`ErrorTier::Retry`](crate::providers::ErrorTier::Retry)
            /// or [`Fail`](crate::providers::ErrorTier::Fail). A retry stays within
            /// [`Retry::max_retries`](crate::providers::Retry::max_retries); a deadline or a
            /// cancellation is never asked about.
            #[must_use]
            pub fn on_error<F>(mut self, f: F) -> Self
            where
                F: Fn(&$crate::providers::ErrorInfo) -> $crate::providers::ErrorTier
                    + Send
                    + Sync
                    + 'static,
            {
                self.http.on_error = Some(std::sync::Arc::new(f));
                self
            }

            /// Rewrites every request body just before it is sent (the contract's
            /// `body_transform`): `f` gets the whole JSON body as this provider built it
            /// (settings merged) and returns the body to send. Signing, when the provider
            /// signs, covers the rewritten body.
            #[must_use]
            pub fn body_transform<F>(mut self, f: F) -> Self
            where
                F: Fn(serde_json::Value) -> serde_json::Value + Send + Sync + 'static,
            {
                self.http.body_transform = Some(std::sync::Arc::new(f));
                self
            }

            /// Sends this provider's requests through `client` (the contract's injectable
            /// HTTP transport: a proxy, mTLS, a recording middleware), retries included.
            /// The client's own settings apply; [`connect_timeout`](Self::connect_timeout)
            /// does not.
            #[must_use]
            pub fn http_client(mut self, client: reqwest::Client) -> Self {
                self.http.set_client(client);
                self
            }

            /// The model's name, as sent to the provider.
            pub fn model(&self) -> &str {
                &self.model
            }

            /// The base URL requests go to.
            pub fn base_url(&self) -> &str {
                &self.http.base_url
            }

            /// Whether an API key is set (the key itself is never shown).
            pub fn has_api_key(&self) -> bool {
                self.http.key.is_some()
            }
        }
    };
}
pub(crate) use http_settings;

/// [`Model`](crate::Model) for a provider: `complete` runs the skeleton's
/// [`Turn`](skeleton::Turn) over its [`Protocol`](skeleton::Protocol), with the request's
/// delta sink when the turn is streamed.
macro_rules! turn_model {
    ($ty:ident, $provider:literal) => {
        impl $ty {
            fn skeleton(&self) -> $crate::providers::common::skeleton::Turn<'_, Self> {
                $crate::providers::common::skeleton::Turn {
                    provider: self,
                    http: &self.http,
                    model: &self.model,
                    settings: &self.settings,
                }
            }
        }

        impl $crate::model::Model for $ty {
            fn complete<'a>(
                &'a self,
                request: $crate::model::ModelRequest<'a>,
            ) -> $crate::model::ModelFuture<'a> {
                Box::pin(self.skeleton().run(
                    request.transcript,
                    request.toolkit,
                    Some(request.settings),
                    request.on_delta,
                ))
            }

            fn describe(&self) -> $crate::model::ModelInfo<'_> {
                $crate::model::ModelInfo::default()
                    .with_name(&self.model)
                    .with_provider($provider)
                    .with_settings(&self.settings)
                    .with_native_output(
                        <Self as $crate::providers::common::skeleton::Protocol>::OUTPUT.is_some(),
                    )
            }
        }
    };
}
pub(crate) use turn_model;

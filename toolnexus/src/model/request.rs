//! What the loop hands a [`Model`](crate::Model) for one turn ([`ModelRequest`]), the
//! pieces a streaming model sends back as the turn arrives ([`Delta`]), and what a model
//! says about itself ([`ModelInfo`]).

use std::sync::LazyLock;

use crate::model::error::ModelError;
use crate::model::message::Message;
use crate::model::settings::ModelSettings;
use crate::tool::kit::Toolkit;

/// Where a streaming [`Model`](crate::Model) sends the pieces of a turn as they arrive.
pub type DeltaSink<'a> = &'a (dyn Fn(Delta) + Send + Sync);

/// A piece of an assistant turn as it streams in (see [`ModelRequest::on_delta`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Delta {
    /// More of the turn's text.
    Text(String),
    /// More of one tool call's arguments. `index` is the call's position in the turn;
    /// `id` and `name` come with the call's first delta.
    ToolCall {
        /// The call's position in the turn.
        index: usize,
        /// The call's id, on its first delta.
        id: Option<String>,
        /// The tool's name, on the call's first delta.
        name: Option<String>,
        /// The next piece of the arguments' JSON text.
        arguments: String,
    },
    /// More of the model's reasoning, where the provider shows it (Anthropic's thinking,
    /// OpenAI's and Gemini's reasoning summaries). It is not part of the reply's text.
    Reasoning(String),
}

static NO_SETTINGS: LazyLock<ModelSettings> = LazyLock::new(ModelSettings::default);

/// One turn as the loop asks a [`Model`](crate::Model) for it: the transcript so far,
/// the toolkit on offer, the turn's settings and, for a streamed turn, where its pieces
/// go.
///
/// A new need of the loop (an output schema, a cancellation signal) becomes a field
/// here, not a method of the trait; the struct is `#[non_exhaustive]`, so a request is
/// made with [`ModelRequest::new`] and the `with_*` setters.
///
/// ```
/// use toolnexus::model::ModelRequest;
/// use toolnexus::{Message, ModelSettings, Toolkit};
///
/// let transcript = [Message::user("hi")];
/// let toolkit = Toolkit::new();
/// let settings = ModelSettings::new().temperature(0.2);
/// let request = ModelRequest::new(&transcript, &toolkit).with_settings(&settings);
/// assert_eq!(request.settings.temperature, Some(0.2));
/// assert!(request.on_delta.is_none());
/// ```
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct ModelRequest<'a> {
    /// The transcript so far; the model answers its last message.
    pub transcript: &'a [Message],
    /// The tools the model may call this turn.
    pub toolkit: &'a Toolkit,
    /// The client's settings for the turn ([`Client::settings`](crate::Client::settings)),
    /// to be merged over the model's own (a provider's `with_settings`). Empty when the
    /// client set none.
    pub settings: &'a ModelSettings,
    /// Where each piece of the turn goes as it arrives, for a streamed turn; `None` asks
    /// for the whole turn at once. A model that does not stream sends nothing here.
    pub on_delta: Option<DeltaSink<'a>>,
}

impl<'a> ModelRequest<'a> {
    /// A turn for `transcript` with `toolkit` on offer: no settings, not streamed.
    pub fn new(transcript: &'a [Message], toolkit: &'a Toolkit) -> Self {
        ModelRequest {
            transcript,
            toolkit,
            settings: &NO_SETTINGS,
            on_delta: None,
        }
    }

    /// The turn with `settings` (see [`ModelRequest::settings`]).
    #[must_use]
    pub fn with_settings(mut self, settings: &'a ModelSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The turn streamed: each piece goes to `on_delta` as it arrives.
    #[must_use]
    pub fn with_on_delta(mut self, on_delta: DeltaSink<'a>) -> Self {
        self.on_delta = Some(on_delta);
        self
    }

    /// The turn streamed or not, as `on_delta` says.
    #[must_use]
    pub fn with_delta_sink(mut self, on_delta: Option<DeltaSink<'a>>) -> Self {
        self.on_delta = on_delta;
        self
    }

    /// The turn for another transcript, everything else the same (a model made of
    /// others that shows them a trimmed or rewritten transcript).
    #[must_use]
    pub fn with_transcript(mut self, transcript: &'a [Message]) -> Self {
        self.transcript = transcript;
        self
    }

    /// Sends `delta` where the turn's pieces go, if the turn is streamed.
    pub fn send(&self, delta: Delta) {
        if let Some(on_delta) = self.on_delta {
            on_delta(delta);
        }
    }

    /// For a model that takes no settings: `Ok` when the request has none, else an error
    /// that names them, so that nothing the client set is silently dropped.
    pub fn refuse_settings(&self) -> Result<(), ModelError> {
        if self.settings.is_empty() {
            return Ok(());
        }
        Err(ModelError::new(format!(
            "this model takes no settings, and the client has some ({}); take them from \
             ModelRequest::settings in the model's Model::complete, or leave \
             Client::settings unset (nothing was sent)",
            serde_json::to_string(self.settings).unwrap_or_default()
        )))
    }
}

impl std::fmt::Debug for ModelRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRequest")
            .field("transcript", &self.transcript.len())
            .field("toolkit", &self.toolkit.len())
            .field("settings", self.settings)
            .field("streamed", &self.on_delta.is_some())
            .finish()
    }
}

/// What a [`Model`](crate::Model) says about itself ([`Model::describe`](crate::Model::describe)).
///
/// ```
/// use toolnexus::model::ModelInfo;
///
/// let info = ModelInfo::default().with_name("gpt-4.1-mini").with_provider("openai");
/// assert_eq!(info.name, Some("gpt-4.1-mini"));
/// assert!(!info.native_output);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct ModelInfo<'a> {
    /// The model's name as the provider knows it (`gpt-4.1-mini`), for the spans
    /// (`chat {model}`, `gen_ai.request.model`).
    pub name: Option<&'a str>,
    /// The provider, as the OpenTelemetry GenAI conventions name it (`openai`,
    /// `anthropic`, `gcp.gemini`), for the spans (`gen_ai.provider.name`).
    pub provider: Option<&'a str>,
    /// The settings the model itself was given (a provider's `with_settings`), for the
    /// spans' `gen_ai.request.*` attributes.
    pub settings: Option<&'a ModelSettings>,
    /// Whether the model holds its final answer to a JSON schema itself
    /// ([`ModelSettings::output`]), which [`RunRequest::typed`](crate::agent::RunRequest::typed)
    /// then uses; else a typed run ends with an output tool. The OpenAI, Anthropic and
    /// Gemini providers say `true`.
    pub native_output: bool,
}

impl<'a> ModelInfo<'a> {
    /// With the model's name.
    #[must_use]
    pub fn with_name(mut self, name: &'a str) -> Self {
        self.name = Some(name);
        self
    }

    /// With the provider's name.
    #[must_use]
    pub fn with_provider(mut self, provider: &'a str) -> Self {
        self.provider = Some(provider);
        self
    }

    /// With the settings the model was given.
    #[must_use]
    pub fn with_settings(mut self, settings: &'a ModelSettings) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Saying whether the model holds typed output itself.
    #[must_use]
    pub fn with_native_output(mut self, native: bool) -> Self {
        self.native_output = native;
        self
    }
}

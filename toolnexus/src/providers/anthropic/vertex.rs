//! [`VertexAnthropic`]: Anthropic's Claude models through Google Cloud's Vertex AI.

use serde_json::Value;

use crate::model::ModelError;
use crate::model::settings::ModelSettings;
use crate::providers::anthropic::Anthropic;
use crate::providers::common::http::ProviderHttp;
use crate::providers::common::skeleton::{Asked, Protocol, model_settings};
use crate::providers::gemini::vertex::{Site, vertex_model};

/// The `anthropic_version` Vertex AI's Anthropic endpoint takes in the body.
const VERTEX_ANTHROPIC_VERSION: &str = "vertex-2023-10-16";

/// Anthropic's Claude models through Google Cloud's Vertex AI: `POST {base}/v1/projects/
/// {project}/locations/{location}/publishers/anthropic/models/{model}:rawPredict` (and
/// `:streamRawPredict` when streamed), with an OAuth access token from Google Cloud
/// credentials, as [`Vertex`](crate::providers::Vertex) gets them (a service-account key,
/// or the application default credentials).
///
/// The body is the [`Anthropic`](crate::providers::Anthropic) provider's Messages request,
/// built by the same code, without `model` (it is in the URL) and with
/// `"anthropic_version": "vertex-2023-10-16"`; the response and the streamed events are
/// Anthropic's. So the settings, extended thinking (its blocks kept across tool calls)
/// and prompt caching are the Anthropic provider's. The base URL is
/// `https://{location}-aiplatform.googleapis.com` (`https://aiplatform.googleapis.com` for
/// the `global` location) unless set.
///
/// ```no_run
/// # async fn demo() -> Result<(), toolnexus::ModelError> {
/// use toolnexus::providers::VertexAnthropic;
///
/// let key = std::fs::read_to_string("service-account.json").unwrap();
/// let model = VertexAnthropic::new("my-project", "us-east5", "claude-sonnet-4-5")
///     .service_account_key(&key)?;
/// # let _ = model; Ok(()) }
/// ```
#[derive(Clone)]
pub struct VertexAnthropic {
    http: ProviderHttp,
    model: String,
    settings: ModelSettings,
    site: Site,
    anthropic: Anthropic,
}

model_settings!(
    VertexAnthropic,
    "Caps the tokens of each turn (`max_tokens`, default [`Anthropic::DEFAULT_MAX_TOKENS`], or the thinking budget plus that); the same as [`ModelSettings::max_tokens`]."
);
vertex_model!(VertexAnthropic {
    provider: anthropic: Anthropic,
    publisher: "anthropic",
    methods: ["rawPredict", "streamRawPredict"],
    output: Anthropic,
    new: "Anthropic's `model` (`claude-sonnet-4-5`, …) in Google Cloud project `project` at \
          `location` (`us-east5`, `europe-west1`, `global`, …), with the application default \
          credentials.",
});

impl VertexAnthropic {
    /// Turns prompt caching on (the default) or off, as
    /// [`Anthropic::prompt_caching`] does.
    #[must_use]
    pub fn prompt_caching(mut self, on: bool) -> Self {
        self.anthropic = self.anthropic.prompt_caching(on);
        self
    }

    /// The body of one turn: the Anthropic provider's, without `model` (it is in the URL)
    /// and with Vertex AI's `anthropic_version`.
    fn vertex_body(&self, asking: Asked<'_>) -> Result<Vec<u8>, ModelError> {
        let body = self.anthropic.body(asking)?;
        let mut body: serde_json::Map<String, Value> = serde_json::from_slice(&body)
            .map_err(|e| ModelError::with_source("Vertex AI: the Anthropic body is not JSON", e))?;
        body.remove("model");
        body.insert(
            "anthropic_version".to_owned(),
            Value::from(VERTEX_ANTHROPIC_VERSION),
        );
        serde_json::to_vec(&body)
            .map_err(|e| ModelError::with_source("Vertex AI: the body could not be written", e))
    }
}

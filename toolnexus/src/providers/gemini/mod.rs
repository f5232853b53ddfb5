//! [`Gemini`]: Google's Gemini API (`generateContent`).

mod request;
mod response;
#[cfg(feature = "vertex")]
pub(crate) mod vertex;

#[cfg(feature = "vertex")]
pub use vertex::Vertex;

use std::fmt;

use crate::model::settings::ModelSettings;
use crate::model::{DeltaSink, ModelError, Reply};
use crate::providers::common::http::{Auth, ProviderHttp};
use crate::providers::common::output::Dialect;
use crate::providers::common::skeleton::{
    Asked, Protocol, encode, listing, model_settings, provider_spec,
};
use crate::providers::gemini::request::{Body, Content, PROVIDER, Part, config, contents};
use crate::providers::{http_settings, turn_model};
use crate::schema::profile::Profile;

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
    http: ProviderHttp,
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
    pub(crate) fn over(http: ProviderHttp, model: String) -> Self {
        Gemini {
            http,
            model: model.strip_prefix("models/").unwrap_or(&model).to_owned(),
            settings: ModelSettings::default(),
        }
    }
}

impl Protocol for Gemini {
    const OUTPUT: Option<Dialect> = Some(Dialect::Gemini);

    fn url(&self, stream: bool) -> String {
        let (base, model) = (&self.http.base_url, &self.model);
        match stream {
            false => format!("{base}/v1beta/models/{model}:generateContent"),
            true => format!("{base}/v1beta/models/{model}:streamGenerateContent?alt=sse"),
        }
    }

    fn body(&self, asking: Asked<'_>) -> Result<Vec<u8>, ModelError> {
        let listing = listing(asking.toolkit, Profile::Gemini);
        let (generation_config, tool_config) =
            config(asking.settings, asking.toolkit, listing.is_some())?;
        let (system, contents) = contents(asking.transcript);
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
        response::parse(&self.http, body)
    }

    async fn stream(
        &self,
        response: reqwest::Response,
        sink: DeltaSink<'_>,
    ) -> Result<Reply, ModelError> {
        response::stream(&self.http, response, sink).await
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

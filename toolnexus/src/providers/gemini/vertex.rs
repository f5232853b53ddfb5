//! [`Vertex`]: Gemini through Google Cloud's Vertex AI, with Google Cloud credentials.

use std::fmt;
use std::sync::Arc;

use gcp_auth::TokenProvider;
use tokio::sync::OnceCell;

use crate::model::settings::ModelSettings;
use crate::model::{DeltaSink, ModelError, ModelErrorKind, Reply};
use crate::providers::common::http::{Auth, Sign, Transport};
use crate::providers::common::skeleton::{Asked, Protocol, model_settings};
use crate::providers::gemini::Gemini;
use crate::providers::{http_settings, turn_model};

/// The OAuth scope Vertex AI takes.
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// Gemini through Google Cloud's Vertex AI: `POST {base}/v1/projects/{project}/locations/
/// {location}/publishers/google/models/{model}:generateContent` (and
/// `:streamGenerateContent?alt=sse`), with an OAuth access token from Google Cloud
/// credentials, through [`gcp_auth`], the crate Google Cloud's Rust users rely on: a
/// service-account key ([`with_service_account_key`](Vertex::with_service_account_key)),
/// or by default the application default credentials (`GOOGLE_APPLICATION_CREDENTIALS`,
/// the metadata server of a Google Cloud machine, `gcloud`'s login). The token is fetched
/// before each turn's first attempt (gcp_auth caches and refreshes it).
///
/// The request and response are Gemini's, so the settings, reasoning (thought
/// signatures kept across tool calls) and structured output are the
/// [`Gemini`](crate::providers::Gemini) provider's. The base URL is
/// `https://{location}-aiplatform.googleapis.com` (`https://aiplatform.googleapis.com` for
/// the `global` location) unless set.
///
/// Anthropic's Claude models on Vertex AI are [`VertexAnthropic`](crate::providers::VertexAnthropic)
/// (features `vertex` and `anthropic`).
///
/// ```no_run
/// # async fn demo() -> Result<(), toolnexus::ModelError> {
/// use toolnexus::providers::Vertex;
///
/// let key = std::fs::read_to_string("service-account.json").unwrap();
/// let model = Vertex::new("my-project", "us-central1", "gemini-2.5-flash")
///     .with_service_account_key(&key)?;
/// # let _ = model; Ok(()) }
/// ```
#[derive(Clone)]
pub struct Vertex {
    http: Transport,
    model: String,
    settings: ModelSettings,
    site: Site,
    gemini: Gemini,
}

http_settings!(Vertex);
model_settings!(
    Vertex,
    "Caps the tokens of each turn (`generationConfig.maxOutputTokens`); the same as [`ModelSettings::max_tokens`]."
);
turn_model!(Vertex, "gcp.vertex_ai");
vertex_credentials!(Vertex);

impl Vertex {
    /// `model` in Google Cloud project `project` at `location` (`us-central1`,
    /// `europe-west4`, `global`, …), with the application default credentials.
    pub fn new(
        project: impl Into<String>,
        location: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        let site = Site::new(project.into(), location.into());
        let model = model.into();
        Vertex {
            http: transport(&site.location),
            gemini: Gemini::over(
                Transport::new("Vertex AI", "", "", None, Auth::Bearer),
                model.clone(),
            ),
            model,
            settings: ModelSettings::default(),
            site,
        }
    }
}

/// The credentials a Vertex AI model signs in with: set once, or the application default
/// credentials found on first use.
pub(crate) type Credentials = Arc<OnceCell<Arc<dyn TokenProvider>>>;

/// The transport to Vertex AI at `location`: `https://{location}-aiplatform.googleapis.com`
/// (`https://aiplatform.googleapis.com` for `global`), bearer tokens.
pub(crate) fn transport(location: &str) -> Transport {
    let base = match location {
        "global" => "https://aiplatform.googleapis.com".to_owned(),
        region => format!("https://{region}-aiplatform.googleapis.com"),
    };
    let mut http = Transport::new(
        "Vertex AI",
        "GOOGLE_APPLICATION_CREDENTIALS",
        base,
        None,
        Auth::Bearer,
    );
    http.auth_hint = Some(
        "the access token was refused; check the service account's key and its roles \
         (Vertex AI User) on the project",
    );
    http
}

/// The credentials of a service-account key (the JSON file Google Cloud gives).
pub(crate) fn service_account(key_json: &str) -> Result<Credentials, ModelError> {
    let account = gcp_auth::CustomServiceAccount::from_json(key_json).map_err(|e| {
        ModelError::with_source("Vertex AI: the service-account key is not valid", e)
            .with_kind(ModelErrorKind::Auth)
    })?;
    let provider: Arc<dyn TokenProvider> = Arc::new(account);
    Ok(Arc::new(OnceCell::new_with(Some(provider))))
}

/// An access token for Vertex AI's scope (gcp_auth caches and refreshes it).
async fn access_token(credentials: &Credentials) -> Result<String, ModelError> {
    let auth = |e: gcp_auth::Error| {
        ModelError::with_source("Vertex AI: could not get an access token", e)
            .with_kind(ModelErrorKind::Auth)
    };
    let provider = credentials
        .get_or_try_init(|| async { gcp_auth::provider().await.map_err(auth) })
        .await?;
    let token = provider.token(&[SCOPE]).await.map_err(auth)?;
    Ok(token.as_str().to_owned())
}

/// Where a Vertex AI model runs and how it signs in: its project, its location and its
/// credentials.
#[derive(Clone)]
pub(crate) struct Site {
    pub(crate) project: String,
    pub(crate) location: String,
    pub(crate) credentials: Credentials,
}

impl Site {
    /// The site at `location` in `project`, with the application default credentials.
    pub(crate) fn new(project: String, location: String) -> Self {
        Site {
            project,
            location,
            credentials: Arc::default(),
        }
    }

    /// The URL of `publisher`'s (`google`, `anthropic`) `model` here, with `method`
    /// (`generateContent`, `rawPredict`, …).
    pub(crate) fn url(
        &self,
        http: &Transport,
        publisher: &str,
        model: &str,
        method: &str,
    ) -> String {
        let (base, project, location) = (&http.base_url, &self.project, &self.location);
        format!(
            "{base}/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/\
             {model}:{method}"
        )
    }

    /// What signs a turn's requests: the access token, or nothing when an API key given
    /// with `with_api_key` goes as it is in its place.
    pub(crate) async fn signer(
        &self,
        http: &Transport,
    ) -> Result<Option<Box<dyn Sign>>, ModelError> {
        if http.key.is_some() {
            return Ok(None);
        }
        Ok(Some(Box::new(Bearer(
            access_token(&self.credentials).await?,
        ))))
    }

    /// A Vertex AI model's `Debug`: its type's name, the site, the model and the transport
    /// (which hides the key).
    pub(crate) fn debug(
        &self,
        f: &mut fmt::Formatter<'_>,
        name: &str,
        model: &str,
        http: &Transport,
    ) -> fmt::Result {
        f.debug_struct(name)
            .field("project", &self.project)
            .field("location", &self.location)
            .field("model", &model)
            .field("http", http)
            .finish_non_exhaustive()
    }
}

/// The credentials builders of a Vertex AI model, over its `site: Site` field.
macro_rules! vertex_credentials {
    ($ty:ident) => {
        impl $ty {
            /// Authenticates as the service account of this key (the JSON file Google Cloud
            /// gives), signing its token requests with the key.
            pub fn with_service_account_key(
                mut self,
                key_json: &str,
            ) -> Result<Self, $crate::model::ModelError> {
                self.site.credentials =
                    $crate::providers::gemini::vertex::service_account(key_json)?;
                Ok(self)
            }

            /// Authenticates with this token provider (any of gcp_auth's).
            #[must_use]
            pub fn with_token_provider(
                mut self,
                provider: std::sync::Arc<dyn gcp_auth::TokenProvider>,
            ) -> Self {
                self.site.credentials =
                    std::sync::Arc::new(tokio::sync::OnceCell::new_with(Some(provider)));
                self
            }
        }
    };
}
pub(crate) use vertex_credentials;

/// Adds the access token to each attempt.
struct Bearer(String);

impl Sign for Bearer {
    fn sign(
        &self,
        _: &str,
        _: &[(&str, &str)],
        _: &[u8],
    ) -> Result<Vec<(String, String)>, ModelError> {
        Ok(vec![(
            "authorization".to_owned(),
            format!("Bearer {}", self.0),
        )])
    }
}

impl Protocol for Vertex {
    const OUTPUT: Option<crate::providers::common::output::Dialect> =
        Some(crate::providers::common::output::Dialect::Gemini);

    fn url(&self, stream: bool) -> String {
        let method = match stream {
            false => "generateContent",
            true => "streamGenerateContent?alt=sse",
        };
        self.site.url(&self.http, "google", &self.model, method)
    }

    fn body(&self, asking: Asked<'_>) -> Result<Vec<u8>, ModelError> {
        self.gemini.body(asking)
    }

    fn parse(&self, body: &[u8]) -> Result<Reply, ModelError> {
        self.gemini.parse(body)
    }

    async fn stream(
        &self,
        response: reqwest::Response,
        sink: DeltaSink<'_>,
    ) -> Result<Reply, ModelError> {
        self.gemini.stream(response, sink).await
    }

    async fn signer(&self) -> Result<Option<Box<dyn Sign>>, ModelError> {
        self.site.signer(&self.http).await
    }
}

impl fmt::Debug for Vertex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.site.debug(f, "Vertex", &self.model, &self.http)
    }
}

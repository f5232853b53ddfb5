//! [`Vertex`]: Gemini through Google Cloud's Vertex AI, with Google Cloud credentials.

use std::fmt;
use std::sync::Arc;

use gcp_auth::TokenProvider;
use tokio::sync::OnceCell;

use crate::model::settings::ModelSettings;
use crate::model::{ModelError, ModelErrorKind};
use crate::providers::common::http::{Auth, ProviderHttp, Sign};
use crate::providers::common::skeleton::{Asked, Protocol, model_settings};
use crate::providers::gemini::Gemini;

/// The OAuth scope Vertex AI takes.
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// Gemini through Google Cloud's Vertex AI: `POST {base}/v1/projects/{project}/locations/
/// {location}/publishers/google/models/{model}:generateContent` (and
/// `:streamGenerateContent?alt=sse`), with an OAuth access token from Google Cloud
/// credentials, through [`gcp_auth`], the crate Google Cloud's Rust users rely on: a
/// service-account key ([`service_account_key`](Vertex::service_account_key)),
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
///     .service_account_key(&key)?;
/// # let _ = model; Ok(()) }
/// ```
#[derive(Clone)]
pub struct Vertex {
    http: ProviderHttp,
    model: String,
    settings: ModelSettings,
    site: Site,
    gemini: Gemini,
}

model_settings!(
    Vertex,
    "Caps the tokens of each turn (`generationConfig.maxOutputTokens`); the same as [`ModelSettings::max_tokens`]."
);

vertex_model!(Vertex {
    provider: gemini: Gemini,
    publisher: "google",
    methods: ["generateContent", "streamGenerateContent?alt=sse"],
    output: Gemini,
    new: "`model` in Google Cloud project `project` at `location` (`us-central1`, \
          `europe-west4`, `global`, …), with the application default credentials.",
});

impl Vertex {
    /// The body of one turn: Gemini's, as it is.
    fn vertex_body(&self, asking: Asked<'_>) -> Result<Vec<u8>, ModelError> {
        self.gemini.body(asking)
    }
}

/// The credentials a Vertex AI model signs in with: set once, or the application default
/// credentials found on first use.
pub(crate) type Credentials = Arc<OnceCell<Arc<dyn TokenProvider>>>;

/// The transport to Vertex AI at `location`: `https://{location}-aiplatform.googleapis.com`
/// (`https://aiplatform.googleapis.com` for `global`), bearer tokens.
pub(crate) fn transport(location: &str) -> ProviderHttp {
    let base = match location {
        "global" => "https://aiplatform.googleapis.com".to_owned(),
        region => format!("https://{region}-aiplatform.googleapis.com"),
    };
    let mut http = ProviderHttp::new(
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
        http: &ProviderHttp,
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
    /// with `api_key` goes as it is in its place.
    pub(crate) async fn signer(
        &self,
        http: &ProviderHttp,
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
        http: &ProviderHttp,
    ) -> fmt::Result {
        f.debug_struct(name)
            .field("project", &self.project)
            .field("location", &self.location)
            .field("model", &model)
            .field("http", http)
            .finish_non_exhaustive()
    }
}

/// A Vertex AI model's constructor, HTTP settings, credentials builders, [`Protocol`],
/// [`Model`](crate::model::Model) and `Debug`, over its fields `http` (the transport to
/// Vertex AI), `model`, `settings`, `site: Site` and
/// the publisher's own provider (`provider: field: Type`), built with that provider's
/// `over` and writing and reading the wire for it. The type writes its body in
/// `vertex_body`; the URL is `publisher`'s `model` with the whole or streamed method.
macro_rules! vertex_model {
    ($ty:ident {
        provider: $inner:ident: $provider:ident,
        publisher: $publisher:literal,
        methods: [$whole:literal, $streamed:literal],
        output: $dialect:ident,
        new: $new:literal $(,)?
    }) => {
        $crate::providers::http_settings!($ty);
        $crate::providers::turn_model!($ty, "gcp.vertex_ai");

        impl $ty {
            #[doc = $new]
            pub fn new(
                project: impl Into<String>,
                location: impl Into<String>,
                model: impl Into<String>,
            ) -> Self {
                let site =
                    $crate::providers::gemini::vertex::Site::new(project.into(), location.into());
                let model = model.into();
                $ty {
                    http: $crate::providers::gemini::vertex::transport(&site.location),
                    $inner: $provider::over(
                        $crate::providers::common::http::ProviderHttp::new(
                            "Vertex AI",
                            "",
                            "",
                            None,
                            $crate::providers::common::http::Auth::Bearer,
                        ),
                        model.clone(),
                    ),
                    model,
                    settings: $crate::model::settings::ModelSettings::default(),
                    site,
                }
            }

            /// Authenticates as the service account of this key (the JSON file Google Cloud
            /// gives), signing its token requests with the key.
            pub fn service_account_key(
                mut self,
                key_json: &str,
            ) -> Result<Self, $crate::model::ModelError> {
                self.site.credentials =
                    $crate::providers::gemini::vertex::service_account(key_json)?;
                Ok(self)
            }

            /// Authenticates with this token provider (any of gcp_auth's).
            #[must_use]
            pub fn token_provider(
                mut self,
                provider: std::sync::Arc<dyn gcp_auth::TokenProvider>,
            ) -> Self {
                self.site.credentials =
                    std::sync::Arc::new(tokio::sync::OnceCell::new_with(Some(provider)));
                self
            }
        }

        impl $crate::providers::common::skeleton::Protocol for $ty {
            const OUTPUT: Option<$crate::providers::common::output::Dialect> =
                Some($crate::providers::common::output::Dialect::$dialect);

            fn url(&self, stream: bool) -> String {
                let method = if stream { $streamed } else { $whole };
                self.site.url(&self.http, $publisher, &self.model, method)
            }

            fn body(
                &self,
                asking: $crate::providers::common::skeleton::Asked<'_>,
            ) -> Result<Vec<u8>, $crate::model::ModelError> {
                self.vertex_body(asking)
            }

            fn parse(
                &self,
                body: &[u8],
            ) -> Result<$crate::model::Reply, $crate::model::ModelError> {
                self.$inner.parse(body)
            }

            async fn stream(
                &self,
                response: reqwest::Response,
                sink: $crate::model::DeltaSink<'_>,
            ) -> Result<$crate::model::Reply, $crate::model::ModelError> {
                self.$inner.stream(response, sink).await
            }

            async fn signer(
                &self,
            ) -> Result<
                Option<Box<dyn $crate::providers::common::http::Sign>>,
                $crate::model::ModelError,
            > {
                self.site.signer(&self.http).await
            }
        }

        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.site.debug(f, stringify!($ty), &self.model, &self.http)
            }
        }
    };
}
pub(crate) use vertex_model;

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

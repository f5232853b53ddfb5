//! [`AzureOpenAi`]: OpenAI's models deployed on Azure, through the Chat Completions or
//! the Responses API of an Azure OpenAI resource.

use std::time::Duration;

use crate::model::settings::ModelSettings;
use crate::model::{Model, ModelError, ModelFuture, ModelInfo, ModelRequest};
use crate::providers::common::http::{ApiKey, Auth, ProviderHttp, base_from_env, key_from_env};
use crate::providers::common::retry::Retry;
use crate::providers::{OpenAi, OpenAiResponses};

const PROVIDER: &str = "Azure OpenAI";
/// The latest generally available version of the data-plane inference API (the REST
/// reference's `stable/2024-10-21`), for Chat Completions.
pub(crate) const CHAT_API_VERSION: &str = "2024-10-21";
/// The dated version the Responses API is served under (it has no GA dated version).
pub(crate) const RESPONSES_API_VERSION: &str = "2025-04-01-preview";

/// The API a deployment is asked through, and the model that speaks it.
#[derive(Clone, Debug)]
enum Api {
    Chat(OpenAi),
    Responses(OpenAiResponses),
}

/// How requests are authorized.
#[derive(Clone, Debug)]
enum Credential {
    /// `api-key: KEY` (the resource's key).
    Key(ApiKey, &'static str),
    /// `Authorization: Bearer TOKEN` (a Microsoft Entra ID token).
    Entra(ApiKey, &'static str),
}

/// A model deployed on an Azure OpenAI resource, through the Chat Completions API
/// (`POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…`, the
/// default) or the Responses API (`POST {endpoint}/openai/responses?api-version=…`, the
/// deployment as the body's `model`; [`AzureOpenAi::responses`]). Everything else is
/// [`OpenAi`]'s and [`OpenAiResponses`]'s: the transcript, the settings, streaming,
/// reasoning kept across tool calls, retries.
///
/// ```no_run
/// use toolnexus::providers::AzureOpenAi;
///
/// # fn demo() -> Result<(), toolnexus::ModelError> {
/// // AZURE_OPENAI_ENDPOINT, and AZURE_OPENAI_API_KEY (or an Entra ID token in
/// // AZURE_OPENAI_AD_TOKEN); OPENAI_API_VERSION if set.
/// let chat = AzureOpenAi::from_env("my-deployment")?;
/// let reasoning = AzureOpenAi::from_env("my-gpt-5-deployment")?.responses();
/// let entra = AzureOpenAi::new("https://my-resource.openai.azure.com", "my-deployment")
///     .entra_token("eyJ0eXAi…");
/// # Ok(()) }
/// ```
///
/// The key goes in the `api-key` header, an Entra ID token as `Authorization: Bearer`;
/// the `api-version` query parameter is the REST reference's latest GA version
/// (`2024-10-21`) for Chat Completions and `2025-04-01-preview` for the Responses API,
/// unless set with [`AzureOpenAi::with_api_version`] or `OPENAI_API_VERSION`. Version
/// `v1` asks Azure's v1 API instead (`{endpoint}/openai/v1/…`, no `api-version`, the
/// deployment as `model` for both APIs).
#[derive(Clone, Debug)]
pub struct AzureOpenAi {
    api: Api,
    endpoint: String,
    deployment: String,
    api_version: Option<String>,
    credential: Option<Credential>,
}

/// `$self` with the model of whichever API is in use replaced by `$body`, run with `$m`
/// bound to that model.
macro_rules! map_api {
    ($self:ident, $m:ident => $body:expr) => {
        AzureOpenAi {
            api: match $self.api {
                Api::Chat($m) => Api::Chat($body),
                Api::Responses($m) => Api::Responses($body),
            },
            ..$self
        }
    };
}

impl AzureOpenAi {
    /// The deployment `deployment` of the resource at `endpoint`
    /// (`https://NAME.openai.azure.com`), through Chat Completions, with no credential
    /// yet: add a key ([`AzureOpenAi::api_key`]) or a token
    /// ([`AzureOpenAi::entra_token`]).
    pub fn new(endpoint: impl Into<String>, deployment: impl Into<String>) -> Self {
        let deployment = deployment.into();
        let transport = ProviderHttp::new(PROVIDER, "AZURE_OPENAI_API_KEY", "", None, Auth::Bearer);
        let mut azure = AzureOpenAi {
            api: Api::Chat(OpenAi::over(transport, deployment.clone())),
            endpoint: endpoint.into().trim_end_matches('/').to_owned(),
            deployment,
            api_version: None,
            credential: None,
        };
        azure.apply();
        azure
    }

    /// The deployment from the environment: the resource at `AZURE_OPENAI_ENDPOINT`, an
    /// Entra ID token from `AZURE_OPENAI_AD_TOKEN` or else the key in
    /// `AZURE_OPENAI_API_KEY`, the version in `OPENAI_API_VERSION` when set (the names
    /// the official SDKs read). A missing endpoint or credential is an error naming the
    /// variables.
    pub fn from_env(deployment: impl Into<String>) -> Result<Self, ModelError> {
        let endpoint = base_from_env("AZURE_OPENAI_ENDPOINT").ok_or_else(|| {
            ModelError::new(format!(
                "{PROVIDER}: the environment variable AZURE_OPENAI_ENDPOINT is not set (or is \
                 empty); export AZURE_OPENAI_ENDPOINT=https://<resource>.openai.azure.com, or \
                 use AzureOpenAi::new(endpoint, deployment)"
            ))
        })?;
        let mut azure = AzureOpenAi::new(endpoint, deployment);
        azure.credential = Some(match base_from_env("AZURE_OPENAI_AD_TOKEN") {
            Some(token) => Credential::Entra(ApiKey::new(token.trim()), "AZURE_OPENAI_AD_TOKEN"),
            None => {
                let key = key_from_env("AZURE_OPENAI_API_KEY", PROVIDER, "AzureOpenAi").map_err(
                    |_| {
                        ModelError::new(format!(
                            "{PROVIDER}: neither AZURE_OPENAI_API_KEY nor AZURE_OPENAI_AD_TOKEN \
                             is set; export AZURE_OPENAI_API_KEY=<the resource's key> (or an \
                             Entra ID token in AZURE_OPENAI_AD_TOKEN), or pass one with \
                             .api_key(..) / .entra_token(..)"
                        ))
                    },
                )?;
                Credential::Key(key, "AZURE_OPENAI_API_KEY")
            }
        });
        azure.api_version = base_from_env("OPENAI_API_VERSION").map(|v| v.trim().to_owned());
        azure.apply();
        Ok(azure)
    }

    /// Asks the deployment through the Responses API (its reasoning items kept across
    /// tool calls, as [`OpenAiResponses`] does).
    #[must_use]
    pub fn responses(mut self) -> Self {
        if let Api::Chat(chat) = &self.api {
            let responses = OpenAiResponses::over(chat.http.clone(), self.deployment.clone())
                .with_settings(chat.settings().clone());
            self.api = Api::Responses(responses);
            self.apply();
        }
        self
    }

    /// Sends `key` in the `api-key` header.
    #[must_use]
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.credential = Some(Credential::Key(ApiKey::new(key), "AZURE_OPENAI_API_KEY"));
        self.apply();
        self
    }

    /// Sends a Microsoft Entra ID token as `Authorization: Bearer`.
    #[must_use]
    pub fn entra_token(mut self, token: impl Into<String>) -> Self {
        self.credential = Some(Credential::Entra(
            ApiKey::new(token),
            "AZURE_OPENAI_AD_TOKEN",
        ));
        self.apply();
        self
    }

    /// Sets the `api-version` (`2024-10-21`, `2025-04-01-preview`, …), or `v1` for
    /// Azure's v1 API.
    #[must_use]
    pub fn with_api_version(mut self, version: impl Into<String>) -> Self {
        self.api_version = Some(version.into());
        self.apply();
        self
    }

    /// Sets the endpoint (`https://NAME.openai.azure.com`, or a gateway in front of it).
    #[must_use]
    pub fn with_base_url(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = endpoint.into().trim_end_matches('/').to_owned();
        self.apply();
        self
    }

    /// Sets how the deployment is asked (see [`ModelSettings`]).
    #[must_use]
    pub fn with_settings(self, settings: ModelSettings) -> Self {
        map_api!(self, m => m.with_settings(settings))
    }

    /// Caps the tokens of each turn; the same as [`ModelSettings::max_tokens`].
    #[must_use]
    pub fn max_tokens(self, max_tokens: u32) -> Self {
        self.with_settings(ModelSettings::new().max_tokens(max_tokens))
    }

    /// Lists the tools in strict mode (see [`OpenAi::strict`]).
    #[must_use]
    pub fn strict(self, strict: bool) -> Self {
        map_api!(self, m => m.strict(strict))
    }

    /// Adds a header sent with every request (its value never printed).
    #[must_use]
    pub fn header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        map_api!(self, m => m.header(name, value))
    }

    /// Limits each request (default 10 minutes).
    #[must_use]
    pub fn timeout(self, timeout: Duration) -> Self {
        map_api!(self, m => m.timeout(timeout))
    }

    /// Limits opening a connection (default 10 seconds).
    #[must_use]
    pub fn connect_timeout(self, timeout: Duration) -> Self {
        map_api!(self, m => m.connect_timeout(timeout))
    }

    /// Sets how failed requests are retried.
    #[must_use]
    pub fn retry(self, retry: Retry) -> Self {
        map_api!(self, m => m.retry(retry))
    }

    /// Sets how many times a failed request is tried again (default 2).
    #[must_use]
    pub fn max_retries(self, max_retries: u32) -> Self {
        map_api!(self, m => m.max_retries(max_retries))
    }

    /// Decides, for each failed attempt, whether to try again (the contract's `on_error`;
    /// see [`OpenAi::on_error`](crate::providers::OpenAi::on_error)).
    #[must_use]
    pub fn on_error<F>(self, f: F) -> Self
    where
        F: Fn(&crate::providers::ErrorInfo) -> crate::providers::ErrorTier + Send + Sync + 'static,
    {
        map_api!(self, m => m.on_error(f))
    }

    /// Rewrites every request body just before it is sent (the contract's
    /// `body_transform`).
    #[must_use]
    pub fn body_transform<F>(self, f: F) -> Self
    where
        F: Fn(serde_json::Value) -> serde_json::Value + Send + Sync + 'static,
    {
        map_api!(self, m => m.body_transform(f))
    }

    /// Sends the requests through `client` (the contract's injectable HTTP transport).
    #[must_use]
    pub fn http_client(self, client: reqwest::Client) -> Self {
        map_api!(self, m => m.http_client(client))
    }

    /// The endpoint requests go to, as every provider's `base_url()` gives it.
    pub fn base_url(&self) -> &str {
        &self.endpoint
    }

    /// The settings the deployment is asked with (before a client's are merged over).
    pub fn settings(&self) -> &ModelSettings {
        match &self.api {
            Api::Chat(m) => m.settings(),
            Api::Responses(m) => m.settings(),
        }
    }

    /// The deployment's name.
    pub fn deployment(&self) -> &str {
        &self.deployment
    }

    /// The `api-version` requests carry (`v1` for Azure's v1 API).
    pub fn api_version(&self) -> &str {
        match (&self.api_version, &self.api) {
            (Some(version), _) => version,
            (None, Api::Chat(_)) => CHAT_API_VERSION,
            (None, Api::Responses(_)) => RESPONSES_API_VERSION,
        }
    }

    /// The URL one turn is posted to (its query included).
    pub fn url(&self) -> String {
        let http = self.transport();
        let path = match self.api {
            Api::Chat(_) => "chat/completions",
            Api::Responses(_) => "responses",
        };
        match &http.query {
            Some(query) => format!("{}/{path}?{query}", http.base_url),
            None => format!("{}/{path}", http.base_url),
        }
    }

    /// Whether a key or token is set (neither is ever shown).
    pub fn has_api_key(&self) -> bool {
        self.credential.is_some()
    }

    fn transport(&self) -> &ProviderHttp {
        match &self.api {
            Api::Chat(m) => &m.http,
            Api::Responses(m) => &m.http,
        }
    }

    /// Puts the endpoint, version and credential into the transport.
    fn apply(&mut self) {
        let version = self.api_version().to_owned();
        let v1 = version == "v1";
        let base = match (&self.api, v1) {
            (_, true) => format!("{}/openai/v1", self.endpoint),
            // Deployment names are letters, digits, `-`, `_` and `.`: nothing to escape.
            (Api::Chat(_), false) => {
                format!("{}/openai/deployments/{}", self.endpoint, self.deployment)
            }
            (Api::Responses(_), false) => format!("{}/openai", self.endpoint),
        };
        let credential = self.credential.clone();
        let http = match &mut self.api {
            Api::Chat(m) => &mut m.http,
            Api::Responses(m) => &mut m.http,
        };
        http.set_base_url(base);
        http.query = (!v1).then(|| format!("api-version={version}"));
        (http.key, http.auth, http.key_var) = match credential {
            Some(Credential::Key(key, var)) => (Some(key), Auth::Header("api-key"), var),
            Some(Credential::Entra(token, var)) => (Some(token), Auth::Bearer, var),
            None => (None, Auth::Header("api-key"), "AZURE_OPENAI_API_KEY"),
        };
    }
}

impl Model for AzureOpenAi {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        match &self.api {
            Api::Chat(m) => m.complete(request),
            Api::Responses(m) => m.complete(request),
        }
    }

    fn describe(&self) -> ModelInfo<'_> {
        let settings = match &self.api {
            Api::Chat(m) => m.settings(),
            Api::Responses(m) => m.settings(),
        };
        ModelInfo::default()
            .with_name(&self.deployment)
            .with_provider("azure.ai.openai")
            .with_settings(settings)
            .with_native_output(true)
    }
}

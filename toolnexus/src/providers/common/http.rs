//! What the providers share over HTTP: the API key (never printed), the client and its
//! timeouts, sending with retries, and turning an error response into a [`ModelError`]
//! that says what happened.

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use crate::model::{ModelError, ModelErrorKind};
use crate::providers::common::retry::{ErrorInfo, ErrorTier, OnError, Retry, retry_after};

/// An API key. Its `Debug` never shows it, and error messages never include it.
#[derive(Clone)]
pub(crate) struct ApiKey(Arc<str>);

impl ApiKey {
    pub(crate) fn new(key: impl Into<String>) -> Self {
        ApiKey(Arc::from(key.into()))
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// Headers that authorize one attempt of a request, computed from its URL, headers and
/// body (AWS SigV4: a fresh signature for each attempt, since it carries the time).
pub(crate) trait Sign: Send + Sync {
    /// The headers to add to a `POST` of `body` to `url` that carries `headers`.
    fn sign(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Vec<(String, String)>, ModelError>;
}

/// How a provider sends its key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Auth {
    /// `Authorization: Bearer KEY` (OpenAI).
    Bearer,
    /// A header of its own (`x-api-key`, `x-goog-api-key`).
    Header(&'static str),
}

/// Reads an API key from the environment; a missing or empty variable is an error that
/// names it.
pub(crate) fn key_from_env(var: &str, provider: &str, ty: &str) -> Result<ApiKey, ModelError> {
    match std::env::var(var) {
        Ok(key) if !key.trim().is_empty() => Ok(ApiKey::new(key.trim())),
        _ => Err(ModelError::new(format!(
            "{provider}: the environment variable {var} is not set (or is empty); export \
             {var}=<your key>, or pass the key with {ty}::new(key, model) or .api_key(key)"
        ))),
    }
}

/// The base URL in the environment variable `var`, when it is set and not blank.
pub(crate) fn base_from_env(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|b| !b.trim().is_empty())
}

/// The endpoint, key, timeouts and retry policy of one provider, and its HTTP client
/// (built on first use, shared by clones).
#[derive(Clone)]
pub(crate) struct ProviderHttp {
    pub(crate) provider: &'static str,
    pub(crate) key_var: &'static str,
    pub(crate) base_url: String,
    pub(crate) key: Option<ApiKey>,
    pub(crate) auth: Auth,
    pub(crate) headers: Vec<(&'static str, &'static str)>,
    /// Headers the user added (`header`, a model config's `headers`): their values
    /// may be secrets, so they are never printed and are scrubbed from errors.
    pub(crate) custom: Vec<(String, ApiKey)>,
    /// A query string added to every URL (`api-version=…`), already encoded.
    pub(crate) query: Option<String>,
    /// What a 401 or 403 tells the user to check, when not an API key's variable.
    pub(crate) auth_hint: Option<&'static str>,
    pub(crate) timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) retry: Retry,
    /// The host's classifier of failed attempts (`on_error`); `None`: the default policy.
    pub(crate) on_error: Option<Arc<OnError>>,
    /// The host's last rewrite of each request body (`body_transform`).
    pub(crate) body_transform: Option<Arc<BodyTransform>>,
    client: Arc<OnceLock<Result<reqwest::Client, String>>>,
}

/// A host's rewrite of a request body, just before it is sent.
pub(crate) type BodyTransform = dyn Fn(Value) -> Value + Send + Sync;

/// The default limit on one request, streamed body included.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// The default limit on opening a connection.
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

impl ProviderHttp {
    pub(crate) fn new(
        provider: &'static str,
        key_var: &'static str,
        base_url: impl Into<String>,
        key: Option<ApiKey>,
        auth: Auth,
    ) -> Self {
        ProviderHttp {
            provider,
            key_var,
            base_url: trim_base(base_url.into()),
            key,
            auth,
            headers: Vec::new(),
            custom: Vec::new(),
            query: None,
            auth_hint: None,
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            retry: Retry::default(),
            on_error: None,
            body_transform: None,
            client: Arc::default(),
        }
    }

    /// Sends requests through `client` (a proxy, mTLS, a recording middleware) instead of
    /// one built here; its own settings apply, the connect timeout set here does not.
    pub(crate) fn set_client(&mut self, client: reqwest::Client) {
        self.client = Arc::new(OnceLock::from(Ok(client)));
    }

    /// `body` as the host's `body_transform` rewrites it (unchanged without one).
    fn transformed(&self, body: Vec<u8>) -> Result<Vec<u8>, ModelError> {
        let Some(transform) = &self.body_transform else {
            return Ok(body);
        };
        let value: Value = serde_json::from_slice(&body).map_err(|e| {
            ModelError::new(format!(
                "{}: the request body is not JSON: {e}",
                self.provider
            ))
        })?;
        let rewritten = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| transform(value)))
            .map_err(|_| {
                ModelError::new(format!(
                    "{}: the body transform panicked; nothing was sent",
                    self.provider
                ))
            })?;
        serde_json::to_vec(&rewritten).map_err(|e| {
            ModelError::new(format!(
                "{}: the transformed body does not serialize: {e}",
                self.provider
            ))
        })
    }

    /// Whether to try `failure` (attempt number `attempt`) again: the default policy, or
    /// the host's `on_error` told what it would be.
    fn retries(&self, failure: &Failure, attempt: u32) -> bool {
        let retryable = match failure {
            Failure::Status { status, .. } => self.retry.is_retryable(status.as_u16()),
            // No response: connecting, timing out or a dropped connection may pass the
            // next time; a request that could not be built would not.
            Failure::Network(error) => !error.is_builder(),
        };
        let Some(on_error) = &self.on_error else {
            return retryable;
        };
        let info = ErrorInfo {
            status: match failure {
                Failure::Status { status, .. } => Some(status.as_u16()),
                Failure::Network(_) => None,
            },
            error: match failure {
                Failure::Status { .. } => None,
                Failure::Network(error) => Some(self.redact(&error.to_string())),
            },
            attempt,
            retryable,
        };
        // A classifier that panics leaves the default policy in place.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_error(&info)))
            .map_or(retryable, |tier| tier == ErrorTier::Retry)
    }

    /// Adds a header sent with every request.
    pub(crate) fn with_header(mut self, name: &'static str, value: &'static str) -> Self {
        self.headers.push((name, value));
        self
    }

    /// Adds a header of the user's, sent with every request (its value is kept secret).
    pub(crate) fn add_custom(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let name = name.into();
        self.custom.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
        self.custom.push((name, ApiKey::new(value)));
    }

    /// The user's headers as HTTP headers, or an error naming the one that is not valid
    /// (its value is not shown).
    fn custom_headers(
        &self,
    ) -> Result<Vec<(reqwest::header::HeaderName, reqwest::header::HeaderValue)>, ModelError> {
        self.custom
            .iter()
            .map(|(name, value)| {
                let header = reqwest::header::HeaderName::from_bytes(name.as_bytes()).ok();
                let mut v = reqwest::header::HeaderValue::from_str(value.expose()).ok();
                if let Some(v) = &mut v {
                    v.set_sensitive(true);
                }
                header.zip(v).ok_or_else(|| {
                    ModelError::new(format!(
                        "{}: the header `{name}` is not a valid HTTP header (a name of \
                         token characters, a value of visible ASCII); nothing was sent",
                        self.provider
                    ))
                })
            })
            .collect()
    }

    pub(crate) fn set_base_url(&mut self, base_url: String) {
        self.base_url = trim_base(base_url);
    }

    pub(crate) fn set_connect_timeout(&mut self, timeout: Duration) {
        self.connect_timeout = timeout;
        self.client = Arc::default();
    }

    fn client(&self) -> Result<&reqwest::Client, ModelError> {
        let connect_timeout = self.connect_timeout;
        self.client
            .get_or_init(|| {
                reqwest::Client::builder()
                    .connect_timeout(connect_timeout)
                    .user_agent(concat!("toolnexus/", env!("CARGO_PKG_VERSION")))
                    .build()
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| {
                ModelError::new(format!(
                    "{}: could not set up the HTTP client: {e}",
                    self.provider
                ))
            })
    }

    /// POSTs `body` (JSON) to `url`, retrying as [`Retry`] says, and returns the first
    /// successful response, or an error saying what the last failure was.
    ///
    /// With a `signer`, each attempt is signed anew over the URL, the headers above and
    /// the body.
    pub(crate) async fn post(
        &self,
        url: &str,
        body: Vec<u8>,
        model: &str,
        signer: Option<&dyn Sign>,
    ) -> Result<reqwest::Response, ModelError> {
        let client = self.client()?;
        let custom = self.custom_headers()?;
        let body = self.transformed(body)?;
        let url = match &self.query {
            Some(query) if url.contains('?') => format!("{url}&{query}"),
            Some(query) => format!("{url}?{query}"),
            None => url.to_owned(),
        };
        let url = url.as_str();
        let mut attempt = 0u32;
        loop {
            let mut request = client
                .post(url)
                .timeout(self.timeout)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
            for (name, value) in &self.headers {
                request = request.header(*name, *value);
            }
            for (name, value) in &custom {
                request = request.header(name.clone(), value.clone());
            }
            if let Some(signer) = signer {
                let mut signed: Vec<(&str, &str)> = vec![("content-type", "application/json")];
                signed.extend(self.headers.iter().copied());
                for (name, value) in signer.sign(url, &signed, &body)? {
                    request = request.header(name, value);
                }
            }
            if let Some(key) = &self.key {
                request = match self.auth {
                    Auth::Bearer => request.bearer_auth(key.expose()),
                    Auth::Header(name) => request.header(name, key.expose()),
                };
            }
            let failure = match request.send().await {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status();
                    let wait = retry_after(response.headers());
                    // AWS names the error in a header (`ThrottlingException:…`).
                    let kind = response
                        .headers()
                        .get("x-amzn-errortype")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.split(':').next())
                        .filter(|v| !v.is_empty())
                        .map(str::to_owned);
                    let mut text = read_capped(response).await;
                    if let Some(kind) = kind {
                        text = with_code(&text, &kind);
                    }
                    Failure::Status { status, wait, text }
                }
                Err(error) => Failure::Network(error),
            };
            if !self.retries(&failure, attempt) || attempt >= self.retry.max_retries {
                return Err(self.error(failure, attempt, model));
            }
            let asked = match &failure {
                Failure::Status { wait, .. } => *wait,
                Failure::Network(_) => None,
            };
            let wait = match asked {
                Some(wait) if wait > self.retry.max_retry_after => {
                    let error = self.error(failure, attempt, model);
                    let (kind, status) = (error.kind(), error.status());
                    let error = ModelError::new(format!(
                        "{error} (the server asked to wait {:.0} s before retrying, more than \
                         the {:.0} s allowed by Retry::max_retry_after)",
                        wait.as_secs_f64(),
                        self.retry.max_retry_after.as_secs_f64()
                    ))
                    .with_kind(kind);
                    return Err(match status {
                        Some(status) => error.with_status(status),
                        None => error,
                    });
                }
                Some(wait) => wait,
                None => self.retry.backoff(attempt),
            };
            tracing::debug!(
                provider = self.provider,
                attempt,
                ?wait,
                "retrying a failed model request"
            );
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    fn error(&self, failure: Failure, retries: u32, model: &str) -> ModelError {
        let provider = self.provider;
        let after = match retries {
            0 => String::new(),
            1 => " (after 1 retry)".to_owned(),
            n => format!(" (after {n} retries)"),
        };
        match failure {
            Failure::Network(error) => {
                let what = if error.is_timeout() {
                    format!("timed out after {:.0} s", self.timeout.as_secs_f64())
                } else if error.is_connect() {
                    "could not connect".to_owned()
                } else {
                    "the request failed".to_owned()
                };
                let kind = if error.is_timeout() {
                    ModelErrorKind::Timeout
                } else {
                    ModelErrorKind::Connection
                };
                let error = self.redact(&format!("{error}"));
                ModelError::new(format!(
                    "{provider}: {what} to {}{after}: {error}",
                    self.base_url
                ))
                .with_kind(kind)
            }
            Failure::Status { status, text, .. } => {
                let detail = self.redact(&describe_body(&text));
                let code = status.as_u16();
                let what = match code {
                    401 | 403 if self.key.is_none() && self.auth_hint.is_some() => {
                        self.auth_hint.unwrap_or_default().to_owned()
                    }
                    401 | 403 => match self.key {
                        Some(_) => format!(
                            "the API key was refused; check {} or the key given to .api_key(..)",
                            self.key_var
                        ),
                        None => {
                            "the server wants an API key; give one with .api_key(..)".to_owned()
                        }
                    },
                    // A 404 that names something else than a model (an item of an
                    // earlier response the server does not have) says so in its detail.
                    404 if !names_model(&detail) => {
                        format!("not found (is the base URL {} right?)", self.base_url)
                    }
                    404 => format!(
                        "unknown model `{model}` or endpoint (is the base URL {} right?)",
                        self.base_url
                    ),
                    429 => "rate limited".to_owned(),
                    529 => "the service is overloaded".to_owned(),
                    500..=599 => "the service failed".to_owned(),
                    _ if too_long(&detail) => {
                        "the conversation is too long for the model's context window".to_owned()
                    }
                    _ => "the request was rejected".to_owned(),
                };
                let kind = match ModelErrorKind::of_status(code) {
                    ModelErrorKind::Refused if too_long(&detail) => ModelErrorKind::ContextLength,
                    kind => kind,
                };
                ModelError::new(format!("{provider}: {what} (HTTP {code}){after}: {detail}"))
                    .with_kind(kind)
                    .with_status(code)
            }
        }
    }

    /// Removes the key, and the values of the user's headers, from a text that may echo
    /// them.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut text = text.to_owned();
        let secrets = self.key.iter().chain(self.custom.iter().map(|(_, v)| v));
        for secret in secrets {
            if secret.expose().len() >= 4 {
                text = text.replace(secret.expose(), "[redacted]");
            }
        }
        text
    }
}

impl fmt::Debug for ProviderHttp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderHttp")
            .field("base_url", &self.base_url)
            .field("api_key", &self.key.as_ref().map(|_| "[redacted]"))
            .field(
                "headers",
                &self
                    .custom
                    .iter()
                    .map(|(name, _)| (name.as_str(), "[redacted]"))
                    .collect::<Vec<_>>(),
            )
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("retry", &self.retry)
            .field("on_error", &self.on_error.is_some())
            .field("body_transform", &self.body_transform.is_some())
            .finish()
    }
}

enum Failure {
    Status {
        status: StatusCode,
        wait: Option<Duration>,
        text: String,
    },
    Network(reqwest::Error),
}

fn trim_base(url: String) -> String {
    url.trim_end_matches('/').to_owned()
}

/// At most 64 KiB of an error body: enough for any provider's error object.
async fn read_capped(mut response: reqwest::Response) -> String {
    let mut bytes = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > 64 * 1024 {
            bytes.truncate(64 * 1024);
            break;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The provider's own words from an error body. All three put them in
/// `{"error": {"message", ...}}`, with a code in `code` (OpenAI), `type` (Anthropic) or
/// `status` (Gemini).
pub(crate) fn describe_body(text: &str) -> String {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        let text = text.trim();
        return if text.is_empty() {
            "(empty body)".to_owned()
        } else {
            text.chars().take(500).collect()
        };
    };
    describe_error(&value)
}

/// An error body with `code` put in, when the body does not name one: the JSON object's
/// `code`, or the code before the text.
fn with_code(text: &str, code: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut object)) if !object.contains_key("error") => {
            object
                .entry("code")
                .or_insert_with(|| Value::String(code.to_owned()));
            Value::Object(object).to_string()
        }
        Ok(_) => text.to_owned(),
        Err(_) => format!("{code}: {}", text.trim()),
    }
}

/// The message and code of an `{"error": {...}}` object (or of the error object itself).
pub(crate) fn describe_error(value: &Value) -> String {
    let error = value.get("error").unwrap_or(value);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .unwrap_or("");
    let code = ["code", "type", "status"]
        .iter()
        .find_map(|key| error.get(key).and_then(Value::as_str));
    match (code, message) {
        (Some(code), "") => code.to_owned(),
        (Some(code), message) => format!("{code}: {message}"),
        (None, "") => value.to_string().chars().take(500).collect(),
        (None, message) => message.to_owned(),
    }
}

/// Whether a 404's detail is about the model, or says nothing (a wrong path).
fn names_model(detail: &str) -> bool {
    let detail = detail.to_ascii_lowercase();
    detail.contains("model") || !detail.contains("not found")
}

fn too_long(detail: &str) -> bool {
    let detail = detail.to_ascii_lowercase();
    [
        "context_length",
        "context length",
        "too long",
        "maximum context",
        "token count",
    ]
    .iter()
    .any(|needle| detail.contains(needle))
}

//! [`ModelError`]: a model turn that failed, and [`ModelErrorKind`], what kind of failure
//! it was (for a [`FallbackModel`](crate::model::FallbackModel) to decide whether to try
//! the next model).

use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A model that could not produce a turn: a network failure, a refusal, a malformed
/// response, a script that ran out. Cheap to clone; keeps its cause as the error source,
/// and says what [kind](ModelErrorKind) of failure it was.
///
/// ```
/// use toolnexus::model::ModelErrorKind;
/// use toolnexus::ModelError;
///
/// let error = ModelError::new("openai: rate limited (HTTP 429)")
///     .with_kind(ModelErrorKind::RateLimited)
///     .with_status(429);
/// assert_eq!(error.kind(), ModelErrorKind::RateLimited);
/// assert_eq!(error.status(), Some(429));
/// assert_eq!(ModelError::new("oops").kind(), ModelErrorKind::Other);
/// ```
#[derive(Debug, Clone)]
pub struct ModelError {
    message: String,
    source: Option<Arc<dyn StdError + Send + Sync>>,
    kind: ModelErrorKind,
    status: Option<u16>,
}

/// What kind of failure a [`ModelError`] is. The HTTP providers set it from the response
/// (its status, or the network error); an error made with [`ModelError::new`] is
/// [`Other`](ModelErrorKind::Other) until [`ModelError::with_kind`] says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelErrorKind {
    /// The provider limits the rate of requests (HTTP 429).
    RateLimited,
    /// The service is overloaded (Anthropic's HTTP 529, HTTP 503).
    Overloaded,
    /// The request timed out (the client's timeout, or HTTP 408).
    Timeout,
    /// The service failed (another HTTP 5xx).
    ServerError,
    /// The request was refused as it was (HTTP 400, 413, 422, …): invalid for this
    /// provider or model. The same request to another model may pass.
    Refused,
    /// The transcript is too long for the model's context window.
    ContextLength,
    /// The credentials were refused or missing (HTTP 401, 403).
    Auth,
    /// The model or endpoint does not exist (HTTP 404).
    NotFound,
    /// No connection could be made, or it broke.
    Connection,
    /// Anything else: a malformed response, a model that panicked, a script that ran out.
    Other,
}

impl ModelErrorKind {
    /// The kinds a [`FallbackModel`](crate::model::FallbackModel) moves on after by
    /// default: the ones another provider is likely to answer (rate limit, overload,
    /// timeout, server error, connection).
    pub const TRANSIENT: [ModelErrorKind; 5] = [
        ModelErrorKind::RateLimited,
        ModelErrorKind::Overloaded,
        ModelErrorKind::Timeout,
        ModelErrorKind::ServerError,
        ModelErrorKind::Connection,
    ];

    /// The kind of an HTTP error status.
    pub fn of_status(status: u16) -> ModelErrorKind {
        match status {
            429 => ModelErrorKind::RateLimited,
            529 | 503 => ModelErrorKind::Overloaded,
            408 | 504 => ModelErrorKind::Timeout,
            401 | 403 => ModelErrorKind::Auth,
            404 => ModelErrorKind::NotFound,
            500..=599 => ModelErrorKind::ServerError,
            400..=499 => ModelErrorKind::Refused,
            _ => ModelErrorKind::Other,
        }
    }

    /// The kind's name in snake case (`rate_limited`), as spans and JSON spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelErrorKind::RateLimited => "rate_limited",
            ModelErrorKind::Overloaded => "overloaded",
            ModelErrorKind::Timeout => "timeout",
            ModelErrorKind::ServerError => "server_error",
            ModelErrorKind::Refused => "refused",
            ModelErrorKind::ContextLength => "context_length",
            ModelErrorKind::Auth => "auth",
            ModelErrorKind::NotFound => "not_found",
            ModelErrorKind::Connection => "connection",
            ModelErrorKind::Other => "other",
        }
    }
}

impl fmt::Display for ModelErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ModelError {
    /// An error with this message, of kind [`Other`](ModelErrorKind::Other).
    pub fn new(message: impl Into<String>) -> Self {
        ModelError {
            message: message.into(),
            source: None,
            kind: ModelErrorKind::Other,
            status: None,
        }
    }

    /// An error with this message, caused by `source`.
    pub fn with_source(
        message: impl Into<String>,
        source: impl StdError + Send + Sync + 'static,
    ) -> Self {
        ModelError {
            source: Some(Arc::new(source)),
            ..ModelError::new(message)
        }
    }

    /// Sets what kind of failure it is.
    #[must_use]
    pub fn with_kind(mut self, kind: ModelErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// Sets the HTTP status the provider answered with.
    #[must_use]
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// The message, without the cause.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> ModelErrorKind {
        self.kind
    }

    /// The HTTP status the provider answered with, when it answered.
    pub fn status(&self) -> Option<u16> {
        self.status
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(source) => write!(f, "{}: {source}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl StdError for ModelError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|s| s as &(dyn StdError + 'static))
    }
}

//! The HTTP side of a streamable-HTTP connection: the client its requests go through
//! ([`transport_client`]), and [`Opening`], which lets `connect` return only once the
//! session's standalone stream is open.
//!
//! The SDK's transport opens that stream (a `GET` without `Last-Event-ID`) on a task of
//! its own after the handshake. Left to race, it can reach the server after the first
//! tool call, where a server that answers on the standalone stream (or that expects a
//! resumption `GET` with `Last-Event-ID` after closing a call's stream) takes it for
//! the call's reconnection. Waiting for it keeps the order the protocol means: the
//! session's stream first, then the calls.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use futures_util::stream::BoxStream;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::{Error as SseError, Sse};
use tokio::sync::Notify;

#[cfg(feature = "mcp-auth")]
use super::auth::{Login, with_login};

/// How many redirects one MCP request follows, at most (as the SDK's own client).
const MAX_REDIRECTS: usize = 10;

/// The HTTP client of MCP requests, built as the SDK builds its own transport's: no idle
/// connection pool (a half-read body would stall the next request on TCP's delayed
/// ACK), and only same-origin 307 and 308 redirects followed. Those keep the method and
/// the body; a cross-origin one would replay the session id and the custom headers to
/// another host, so it comes back as the redirect response, and fails.
pub(super) fn transport_client() -> Result<reqwest::Client, String> {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(policy)
        .build()
        .map_err(|e| format!("could not set up the HTTP client: {e}"))
}

/// The streamable-HTTP client of a connection: `C` (reqwest's client, or the SDK's
/// authorizing client over it for a connection with a login), with the login's retries
/// when there is one, and a note of when the session's standalone stream has been
/// answered (opened or refused).
#[derive(Clone)]
pub(super) struct Opening<C> {
    inner: C,
    #[cfg(feature = "mcp-auth")]
    login: Option<Arc<Login>>,
    /// Whether a response named a session: only a session has a standalone stream.
    session: Arc<AtomicBool>,
    opened: Arc<Notify>,
}

impl<C> Opening<C> {
    pub(super) fn new(inner: C) -> Self {
        Opening {
            inner,
            #[cfg(feature = "mcp-auth")]
            login: None,
            session: Arc::default(),
            opened: Arc::default(),
        }
    }

    /// Sends every request with `login`'s token, logging in on a challenge.
    #[cfg(feature = "mcp-auth")]
    pub(super) fn with_login(mut self, login: Arc<Login>) -> Self {
        self.login = Some(login);
        self
    }

    /// What waits for the session's standalone stream.
    pub(super) fn standalone(&self) -> Standalone {
        Standalone {
            session: Arc::clone(&self.session),
            opened: Arc::clone(&self.opened),
        }
    }

    fn saw<E>(&self, response: &Result<StreamableHttpPostResponse, E>) {
        if let Ok(
            StreamableHttpPostResponse::Json(_, Some(_))
            | StreamableHttpPostResponse::Sse(_, Some(_)),
        ) = response
        {
            self.session.store(true, Ordering::SeqCst);
        }
    }

    /// Sends `call` with its auth header: the login's token (logging in again on a
    /// challenge), else `auth_header`, the configured one.
    async fn send<T, F, Fut>(
        &self,
        tool_call: bool,
        auth_header: Option<String>,
        call: F,
    ) -> Result<T, HttpError>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        #[cfg(feature = "mcp-auth")]
        if let Some(login) = &self.login {
            return with_login(login, tool_call, call).await;
        }
        let _ = tool_call;
        call(auth_header).await
    }
}

/// Waits for the standalone stream of an [`Opening`]'s session.
pub(super) struct Standalone {
    session: Arc<AtomicBool>,
    opened: Arc<Notify>,
}

impl Standalone {
    /// Waits, at most `bound`, for the standalone stream of the session to be answered
    /// (opened or refused); at once when the server named no session (it has none).
    pub(super) async fn wait(&self, bound: Duration) {
        if self.session.load(Ordering::SeqCst) {
            let _ = tokio::time::timeout(bound, self.opened.notified()).await;
        }
    }
}

type HttpError = StreamableHttpError<reqwest::Error>;
type Posted = Result<StreamableHttpPostResponse, HttpError>;
type Streamed = Result<BoxStream<'static, Result<Sse, SseError>>, HttpError>;

fn is_tool_call(message: &ClientJsonRpcMessage) -> bool {
    matches!(
        message,
        ClientJsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::CallToolRequest(_))
    )
}

/// The transport sends through `post_message_with_response_limits`,
/// `get_stream_with_max_sse_event_size` and `delete_session`; the other methods come
/// back to those with the SDK's default limits.
impl<C> StreamableHttpClient for Opening<C>
where
    C: StreamableHttpClient<Error = reqwest::Error> + Sync,
{
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Posted {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Posted {
        let tool_call = is_tool_call(&message);
        let posted = self
            .send(tool_call, auth_header, |token| {
                let inner = self.inner.clone();
                let (uri, message, session_id, headers) = (
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    custom_headers.clone(),
                );
                async move {
                    inner
                        .post_message_with_response_limits(
                            uri, message, session_id, token, headers, limits,
                        )
                        .await
                }
            })
            .await;
        self.saw(&posted);
        posted
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        // With the token as it stands: closing never starts a login.
        #[cfg(feature = "mcp-auth")]
        let auth_header = match &self.login {
            Some(login) => login.token().await,
            None => auth_header,
        };
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Streamed {
        let max = StreamableHttpResponseLimits::default().max_sse_event_size;
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Streamed {
        let standalone = last_event_id.is_none();
        let stream = self
            .send(false, auth_header, |token| {
                let inner = self.inner.clone();
                let (uri, session_id, last_event_id, headers) = (
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    custom_headers.clone(),
                );
                async move {
                    inner
                        .get_stream_with_max_sse_event_size(
                            uri,
                            session_id,
                            last_event_id,
                            token,
                            headers,
                            max_sse_event_size,
                        )
                        .await
                }
            })
            .await;
        if standalone {
            self.opened.notify_one();
        }
        stream
    }
}

//! The streamable-HTTP client of a connection with a login: the SDK's authorizing client,
//! which sends the token and refreshes a rejected one, wrapped so that a `401` or a
//! `403 insufficient_scope` logs in (or steps up) and sends the request again.

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue};
use futures_util::stream::BoxStream;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::{Error as SseError, Sse};

use super::flow::Login;

type HttpError = StreamableHttpError<reqwest::Error>;

/// How many logins one request may go through (a login, then step-ups).
const MAX_LOGINS_PER_REQUEST: u32 = 2;

#[derive(Clone)]
pub(crate) struct LoginClient {
    pub(crate) login: Arc<Login>,
}

impl LoginClient {
    /// Sends with the current token; on a challenge, logs in and sends again.
    async fn send<T, F, Fut>(&self, tool_call: bool, call: F) -> Result<T, HttpError>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let login = &self.login;
        let mut logins = 0;
        let mut step_ups = 0;
        loop {
            let token = login.token().await;
            match call(token.clone()).await {
                Err(StreamableHttpError::AuthRequired(challenge))
                    if logins < MAX_LOGINS_PER_REQUEST =>
                {
                    logins += 1;
                    login
                        .authorize(
                            &challenge.www_authenticate_header,
                            token.as_deref(),
                            tool_call,
                        )
                        .await?;
                }
                Err(StreamableHttpError::InsufficientScope(challenge))
                    if step_ups < login.max_step_ups() =>
                {
                    step_ups += 1;
                    login
                        .step_up(
                            &challenge.www_authenticate_header,
                            token.as_deref(),
                            tool_call,
                        )
                        .await?;
                }
                other => return other,
            }
        }
    }
}

fn is_tool_call(message: &ClientJsonRpcMessage) -> bool {
    matches!(
        message,
        ClientJsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::CallToolRequest(_))
    )
}

impl StreamableHttpClient for LoginClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let tool_call = is_tool_call(&message);
        self.send(tool_call, |token| {
            let inner = self.login.client.clone();
            let (uri, message, session_id, headers) = (
                uri.clone(),
                message.clone(),
                session_id.clone(),
                custom_headers.clone(),
            );
            async move {
                inner
                    .post_message(uri, message, session_id, token, headers)
                    .await
            }
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let tool_call = is_tool_call(&message);
        self.send(tool_call, |token| {
            let inner = self.login.client.clone();
            let (uri, message, session_id, headers) = (
                uri.clone(),
                message.clone(),
                session_id.clone(),
                custom_headers.clone(),
            );
            async move {
                inner
                    .post_message_with_max_sse_event_size(
                        uri,
                        message,
                        session_id,
                        token,
                        headers,
                        max_sse_event_size,
                    )
                    .await
            }
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let tool_call = is_tool_call(&message);
        self.send(tool_call, |token| {
            let inner = self.login.client.clone();
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
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        let token = self.login.token().await;
        self.login
            .client
            .delete_session(uri, session_id, token, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.send(false, |token| {
            let inner = self.login.client.clone();
            let (uri, session_id, last_event_id, headers) = (
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                custom_headers.clone(),
            );
            async move {
                inner
                    .get_stream(uri, session_id, last_event_id, token, headers)
                    .await
            }
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.send(false, |token| {
            let inner = self.login.client.clone();
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
        .await
    }
}

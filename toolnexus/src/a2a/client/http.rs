//! JSON-RPC over HTTP to one peer: a request and its response, or a request and its
//! stream of server-sent events. Header values are expanded from the environment on
//! every request and scrubbed from every error.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::{Stream, StreamExt as _};
use serde_json::{Value, json};

use crate::a2a::wire::{Dialect, Endpoint, RpcError, StreamEvent, codes};
use crate::env;

/// The most a response body may hold (a task with its history and artifacts).
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// An A2A operation, named per dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Send,
    Stream,
    Get,
    Cancel,
}

impl Method {
    fn name(self, dialect: Dialect, pascal: bool) -> &'static str {
        match (self, dialect == Dialect::V1 || pascal) {
            (Method::Send, true) => "SendMessage",
            (Method::Stream, true) => "SendStreamingMessage",
            (Method::Get, true) => "GetTask",
            (Method::Cancel, true) => "CancelTask",
            (Method::Send, false) => "message/send",
            (Method::Stream, false) => "message/stream",
            (Method::Get, false) => "tasks/get",
            (Method::Cancel, false) => "tasks/cancel",
        }
    }
}

/// Why a request failed.
#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// The peer answered with a JSON-RPC error.
    Rpc(RpcError),
    /// No usable answer: the connection, the HTTP status, the body.
    Transport(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Rpc(error) => write!(f, "the agent answered: {error}"),
            Failure::Transport(reason) => f.write_str(reason),
        }
    }
}

/// One peer's endpoint, the client to reach it, and the headers to send.
#[derive(Debug)]
pub(crate) struct Peer {
    pub(crate) http: reqwest::Client,
    pub(crate) endpoint: Endpoint,
    /// Headers as configured (`${VAR}` not yet expanded).
    pub(crate) headers: Vec<(String, String)>,
    /// The peer is a 0.3 agent that only knows the PascalCase method names (as the
    /// toolnexus contract's ports do): set when `message/send` is not found.
    pascal: AtomicBool,
}

type Events = Pin<Box<dyn Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Send>>;

/// The events of one streamed response.
pub(crate) struct SseStream {
    inner: Events,
    secrets: Vec<String>,
}

impl SseStream {
    /// The next event; `None` when the stream ends.
    pub(crate) async fn next(&mut self) -> Option<Result<StreamEvent, Failure>> {
        loop {
            match self.inner.next().await? {
                Err(error) => {
                    let reason = format!("the event stream broke off: {error}");
                    return Some(Err(Failure::Transport(env::scrub(&reason, &self.secrets))));
                }
                Ok(sse) => {
                    let Some(data) = sse.data else { continue };
                    let parsed = serde_json::from_str::<Value>(&data)
                        .map_err(|e| Failure::Transport(format!("an event is not JSON: {e}")))
                        .and_then(|v| unwrap(&v))
                        .and_then(|result| {
                            StreamEvent::from_value(&result).map_err(|e| {
                                Failure::Transport(format!("an event is not A2A's: {e}"))
                            })
                        });
                    return Some(parsed);
                }
            }
        }
    }
}

/// The `result` of a JSON-RPC response, or its error.
fn unwrap(response: &Value) -> Result<Value, Failure> {
    if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
        let code = error
            .get("code")
            .and_then(Value::as_i64)
            .unwrap_or(codes::INTERNAL);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| format!("JSON-RPC error {code}"), str::to_owned);
        return Err(Failure::Rpc(RpcError::new(code, message)));
    }
    match response.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(Failure::Transport(format!(
            "not a JSON-RPC response: {}",
            crate::a2a::wire::short(response)
        ))),
    }
}

impl Peer {
    pub(crate) fn new(
        http: reqwest::Client,
        endpoint: Endpoint,
        headers: Vec<(String, String)>,
    ) -> Peer {
        Peer {
            http,
            endpoint,
            headers,
            pascal: AtomicBool::new(false),
        }
    }

    /// The configured headers, expanded; and their values, to scrub from errors.
    pub(crate) fn expanded(&self) -> Result<(reqwest::header::HeaderMap, Vec<String>), String> {
        expand_headers(&self.headers)
    }

    fn request(
        &self,
        method: Method,
        mut params: Value,
        budget: Duration,
        accept: &str,
    ) -> Result<(reqwest::RequestBuilder, Vec<String>), Failure> {
        let (headers, secrets) = self.expanded().map_err(Failure::Transport)?;
        let dialect = self.endpoint.dialect;
        if let (Some(tenant), Value::Object(map)) = (&self.endpoint.tenant, &mut params) {
            map.insert("tenant".into(), tenant.clone().into());
        }
        let body = json!({
            "jsonrpc": "2.0",
            "id": uuid::Uuid::new_v4().to_string(),
            "method": method.name(dialect, self.pascal.load(Ordering::Relaxed)),
            "params": params,
        });
        let mut request = self
            .http
            .post(&self.endpoint.url)
            // The caller bounds the call to `budget` itself (and says so as a timeout);
            // this only stops a request that outlives it.
            .timeout(budget + std::time::Duration::from_secs(1))
            .headers(headers)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, accept)
            .body(body.to_string());
        if dialect == Dialect::V1 {
            request = request.header("A2A-Version", "1.0");
        }
        Ok((request, secrets))
    }

    /// Sends one request and returns its `result`. A 0.3 peer that does not know
    /// `message/send` is asked again with the PascalCase names (the contract's ports).
    pub(crate) async fn call(
        &self,
        method: Method,
        params: Value,
        budget: Duration,
    ) -> Result<Value, Failure> {
        let first = self.call_once(method, params.clone(), budget).await;
        match first {
            Err(Failure::Rpc(error))
                if error.code == codes::METHOD_NOT_FOUND
                    && self.endpoint.dialect == Dialect::V03
                    && !self.pascal.swap(true, Ordering::Relaxed) =>
            {
                self.call_once(method, params, budget).await
            }
            other => other,
        }
    }

    async fn call_once(
        &self,
        method: Method,
        params: Value,
        budget: Duration,
    ) -> Result<Value, Failure> {
        let (response, secrets) = self
            .send(method, params, budget, "application/json")
            .await?;
        let text = body_of(response, &secrets).await?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            let said = format!("the answer is not JSON ({e}): {}", cut(&text));
            Failure::Transport(env::scrub(&said, &secrets))
        })?;
        unwrap(&value)
    }

    /// Sends one request that accepts `accept`: the response, and the secrets its
    /// headers hold (to scrub from whatever is said of it).
    async fn send(
        &self,
        method: Method,
        params: Value,
        budget: Duration,
        accept: &str,
    ) -> Result<(reqwest::Response, Vec<String>), Failure> {
        let (request, secrets) = self.request(method, params, budget, accept)?;
        match request.send().await {
            Ok(response) => Ok((response, secrets)),
            Err(e) => {
                let said = describe(&e, &self.endpoint.url);
                Err(Failure::Transport(env::scrub(&said, &secrets)))
            }
        }
    }

    /// Sends one streaming request and returns its events.
    pub(crate) async fn stream(
        &self,
        method: Method,
        params: Value,
        budget: Duration,
    ) -> Result<SseStream, Failure> {
        let (response, secrets) = self
            .send(method, params, budget, "text/event-stream")
            .await?;
        let is_events = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !response.status().is_success() || !is_events {
            // An error before the stream starts comes as a plain JSON-RPC response.
            let text = body_of(response, &secrets).await?;
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| Failure::Transport(format!("the answer is not JSON ({e})")))?;
            unwrap(&value)?;
            return Err(Failure::Transport(
                "the agent answered a streaming request without a stream".to_owned(),
            ));
        }
        let chunks = futures_util::stream::unfold(response, |mut response| async move {
            match response.chunk().await {
                Ok(Some(chunk)) => Some((Ok(chunk), response)),
                Ok(None) => None,
                Err(error) => Some((Err(error), response)),
            }
        });
        Ok(SseStream {
            inner: Box::pin(sse_stream::SseStream::from_bytes_stream(chunks)),
            secrets,
        })
    }
}

/// The body of `response`, bounded; an error status fails with the status and the body.
/// What a failure says is scrubbed of `secrets`.
async fn body_of(response: reqwest::Response, secrets: &[String]) -> Result<String, Failure> {
    let scrub = |text: String| Failure::Transport(env::scrub(&text, secrets));
    let status = response.status();
    let text = read_capped(response).await.map_err(scrub)?;
    if !status.is_success() {
        return Err(scrub(format!("HTTP {}: {}", status.as_u16(), text.trim())));
    }
    Ok(text)
}

/// `headers` with every `${VAR}` expanded; and the expanded values.
pub(crate) fn expand_headers(
    headers: &[(String, String)],
) -> Result<(reqwest::header::HeaderMap, Vec<String>), String> {
    let mut map = reqwest::header::HeaderMap::new();
    let mut secrets = Vec::new();
    for (name, template) in headers {
        let value = env::expand(template).map_err(|var| {
            format!(
                "the header `{name}` uses ${{{var}}}, and the environment variable {var} is not set"
            )
        })?;
        let header = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is not a valid header name"))?;
        let mut header_value = reqwest::header::HeaderValue::from_str(&value)
            .map_err(|_| format!("the value of the header `{name}` is not valid in a header"))?;
        header_value.set_sensitive(true);
        map.append(header, header_value);
        secrets.push(value);
    }
    Ok((map, secrets))
}

/// A network error, said with the URL (reqwest's own text may omit it).
pub(crate) fn describe(error: &reqwest::Error, url: &str) -> String {
    if error.is_timeout() {
        format!("no answer from {url} in time")
    } else if error.is_connect() {
        format!("could not connect to {url}: {error}")
    } else {
        format!("request to {url} failed: {error}")
    }
}

/// The body, at most [`MAX_RESPONSE_BYTES`] of it (more is an error, not a cut answer).
pub(crate) async fn read_capped(mut response: reqwest::Response) -> Result<String, String> {
    let mut bytes = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > MAX_RESPONSE_BYTES {
                    return Err(format!(
                        "the answer is larger than {MAX_RESPONSE_BYTES} bytes"
                    ));
                }
            }
            Ok(None) => return Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(error) => return Err(format!("the answer broke off: {error}")),
        }
    }
}

fn cut(text: &str) -> String {
    text.chars().take(300).collect()
}

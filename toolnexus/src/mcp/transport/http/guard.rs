//! The layer in front of the SDK's streamable-HTTP service: what the SDK does not check or
//! answers in a way clients do not expect.
//!
//! - a `POST` body is read up to the message bound (`413` past it); malformed JSON gets
//!   `400` with a `-32700` JSON-RPC error, a message that is not JSON-RPC `400` with
//!   `-32600` (`-32602` for params that are not an object), each with the request's `id`
//!   when it can be found. The body is parsed once on the common path: by the SDK, whose
//!   refusal (`415` to a JSON body) is replaced here with that diagnosis. The guard parses
//!   it itself only where it needs the message first: a session-less `POST` to a server
//!   with sessions (an `initialize`, admitted against the session cap) and a body that may
//!   be an `initialize` (for the protocol version it names);
//! - `initialize` past the session cap gets `503` with a JSON-RPC error;
//! - `DELETE` of an unknown session gets `404`, of a known one `200` (the SDK says `202`,
//!   which clients log as a failure);
//! - a session that negotiated a protocol version older than `2025-11-25` gets no priming
//!   events (events with an id and empty data, which those versions' clients cannot
//!   parse);
//! - the checks every HTTP surface shares (`crate::web`): a `Host` or `Origin` not
//!   allowed gets `403` before the SDK sees the request, and a body that has not all
//!   arrived within the body timeout gets `408` and the connection is closed (hyper's
//!   header timeout covers only the head);
//! - the limits of `limits.rs`: replays past a client's limit get `429`, and sessions idle
//!   past the timeout (pings and notifications do not count) are closed.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;
use memchr::memmem;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData};
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use super::events::stream_of;
use super::limits::{Limits, TooManyReplays, holding};
use super::sessions::Sessions;
use crate::mcp::transport::protocol;
use crate::web::{self, WebGuard};

const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
/// The protocol version that introduced priming events (SEP-1699).
const PRIMING_SINCE: &str = "2025-11-25";
/// The version a client that sends no `MCP-Protocol-Version` header speaks.
const UNSTATED_VERSION: &str = "2025-03-26";

#[derive(Clone)]
pub(super) struct Guard(Arc<Inner>);

struct Inner {
    /// `None` in stateless mode.
    sessions: Option<Arc<Sessions>>,
    max_sessions: usize,
    /// `initialize` requests admitted whose session is not yet in the manager's map.
    admitting: AtomicUsize,
    admission: tokio::sync::Mutex<()>,
    /// The `Host` and `Origin` checks, and the body's bound and timeout.
    web: WebGuard,
    limits: Arc<Limits>,
}

impl Guard {
    pub(super) fn new(
        sessions: Option<Arc<Sessions>>,
        options: &super::HttpOptions,
        max_body: usize,
    ) -> Self {
        Guard(Arc::new(Inner {
            sessions,
            max_sessions: options.max_sessions,
            admitting: AtomicUsize::new(0),
            admission: tokio::sync::Mutex::new(()),
            web: options.web.clone().max_body(max_body),
            limits: Limits::new(options.session_idle_timeout, options.max_sessions),
        }))
    }

    /// The number of open sessions.
    async fn open_sessions(&self) -> usize {
        match &self.0.sessions {
            Some(manager) => manager.local.sessions.read().await.len(),
            None => 0,
        }
    }

    async fn has_session(&self, id: &str) -> bool {
        match &self.0.sessions {
            Some(manager) => manager.local.sessions.read().await.contains_key(id),
            None => false,
        }
    }

    /// Closes the sessions idle past the timeout: looked for at most once a second, on a
    /// task of their own; or, `now`, at once and waited for.
    async fn close_idle(&self, now: bool) {
        let Some(manager) = &self.0.sessions else {
            return;
        };
        let idle = self.0.limits.expired(now);
        if idle.is_empty() {
            return;
        }
        let manager = Arc::clone(manager);
        let close = async move {
            for id in idle {
                tracing::debug!(session = %id, "MCP HTTP: closing an idle session");
                if let Err(error) = manager.close_session(&id).await {
                    tracing::debug!(%error, "MCP HTTP: closing an idle session failed");
                }
            }
        };
        if now {
            close.await;
        } else {
            tokio::spawn(close);
        }
    }
}

/// Decrements the admission count when the `initialize` has been answered (its session is
/// in the map by then) or abandoned.
struct Admitted(Guard);

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.0.admitting.fetch_sub(1, Ordering::AcqRel);
    }
}

pub(super) async fn guard(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    if let Some(refused) = guard.0.web.refusal(request.uri(), request.headers()) {
        return refused;
    }
    let stateful = guard.0.sessions.is_some();
    if stateful {
        guard.close_idle(false).await;
    }
    let in_session = request.headers().contains_key(SESSION_HEADER);
    let mut primes = primes(header_str(&request, &VERSION_HEADER).unwrap_or(UNSTATED_VERSION));
    let request = match *request.method() {
        Method::POST if web::is_json(request.headers()) => {
            let (parts, body) = request.into_parts();
            let bytes = match guard.0.web.read(body).await {
                Ok(bytes) => bytes,
                Err(response) => return response,
            };
            let mut admitted = None;
            if (stateful && !in_session) || may_initialize(&bytes) {
                let message = match protocol::parse(&bytes) {
                    Ok(message) => message,
                    Err(rejection) => {
                        return json_response(StatusCode::BAD_REQUEST, &rejection.to_json());
                    }
                };
                if let ClientJsonRpcMessage::Request(request) = &message
                    && let ClientRequest::InitializeRequest(init) = &request.request
                {
                    primes = self::primes(init.params.protocol_version.as_str());
                    if stateful && !in_session {
                        match admit(&guard).await {
                            Ok(ticket) => admitted = Some(ticket),
                            Err((open, max)) => {
                                return too_many_sessions(&request.id, open, max);
                            }
                        }
                    }
                }
            }
            // A request that does something keeps its session alive until answered.
            let hold = match parts.headers.get(SESSION_HEADER) {
                Some(id) if stateful && !is_noop(&bytes) => {
                    id.to_str().ok().and_then(|id| guard.0.limits.active(id))
                }
                _ => None,
            };
            let response = next
                .run(Request::from_parts(parts, Body::from(bytes.clone())))
                .await;
            // The SDK answers `415` to a JSON body it cannot parse (the content type was
            // checked above): say what is wrong with it, with its `id`.
            if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE
                && let Err(rejection) = protocol::parse(&bytes)
            {
                return json_response(StatusCode::BAD_REQUEST, &rejection.to_json());
            }
            if admitted.is_some()
                && let Some(id) = response.headers().get(SESSION_HEADER)
                && let Ok(id) = id.to_str()
            {
                guard.0.limits.opened(Arc::from(id));
            }
            drop(admitted);
            let response = without_old_priming(primes, response);
            return match hold {
                Some(hold) if is_event_stream(&response) => holding(response, hold),
                _ => response,
            };
        }
        Method::GET if stateful && request.headers().contains_key(LAST_EVENT_ID) => {
            let session = header_str(&request, &SESSION_HEADER);
            let stream = header_str(&request, &LAST_EVENT_ID).and_then(stream_of);
            let hold = match guard.0.limits.replay(session, stream) {
                Ok(hold) => hold,
                Err(refused) => return too_many_replays(&refused),
            };
            let response = without_old_priming(primes, next.run(request).await);
            return match hold {
                Some(hold) => holding(response, hold),
                None => response,
            };
        }
        Method::DELETE if stateful => {
            let id = header_str(&request, &SESSION_HEADER).map(str::to_owned);
            if let Some(id) = &id
                && !guard.has_session(id).await
            {
                return text_response(
                    StatusCode::NOT_FOUND,
                    "Not Found: no such session (it was closed, or expired); start a new one with initialize",
                );
            }
            let mut response = next.run(request).await;
            if response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::OK;
            }
            if response.status().is_success()
                && let Some(id) = id
            {
                guard.0.limits.closed(&id);
            }
            return response;
        }
        _ => request,
    };
    let response = next.run(request).await;
    without_old_priming(primes, response)
}

/// Whether a message does nothing that keeps a session alive: a `ping`, or a notification.
/// Only bodies that may be one are parsed (those that name `ping`, or hold no `"id"`); a
/// body taken for a request when it is not one only keeps its session alive, as any
/// request could.
fn is_noop(body: &[u8]) -> bool {
    static PING: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"ping"));
    static ID: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"\"id\""));
    if PING.find(body).is_none() && ID.find(body).is_some() {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct Peek<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        id: Option<IgnoredAny>,
    }
    match serde_json::from_slice::<Peek<'_>>(body) {
        Ok(Peek {
            method: Some(method),
            id,
        }) => id.is_none() || method == "ping",
        _ => false,
    }
}

/// Whether a session of this protocol version gets priming events.
fn primes(version: &str) -> bool {
    version >= PRIMING_SINCE
}

/// Whether a body may be an `initialize` request: it names the method, or holds a
/// `\u` escape that could spell it. Every other message goes to the SDK unparsed here.
fn may_initialize(body: &[u8]) -> bool {
    static METHOD: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"initialize"));
    METHOD.find(body).is_some()
        || memchr::memchr_iter(b'\\', body).any(|at| body.get(at + 1) == Some(&b'u'))
}

/// The response, without priming events for a protocol version that predates them.
fn without_old_priming(primes: bool, response: Response) -> Response {
    if !primes && is_event_stream(&response) {
        without_priming_events(response)
    } else {
        response
    }
}

async fn admit(guard: &Guard) -> Result<Admitted, (usize, usize)> {
    let _turn = guard.0.admission.lock().await;
    let open = || async { guard.open_sessions().await + guard.0.admitting.load(Ordering::Acquire) };
    let mut now_open = open().await;
    if now_open >= guard.0.max_sessions {
        // Idle sessions make way first.
        guard.close_idle(true).await;
        now_open = open().await;
    }
    if now_open >= guard.0.max_sessions {
        return Err((now_open, guard.0.max_sessions));
    }
    guard.0.admitting.fetch_add(1, Ordering::AcqRel);
    Ok(Admitted(guard.clone()))
}

fn too_many_sessions(id: &rmcp::model::RequestId, open: usize, max: usize) -> Response {
    let error = ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        format!(
            "Too many sessions: {open} are open, the server's limit is {max}. Close sessions \
             you no longer use (HTTP DELETE with their Mcp-Session-Id), wait for idle ones to \
             expire, or raise the limit (HttpOptions::max_sessions)"
        ),
        Some(json!({"open": open, "limit": max})),
    );
    let mut response = json_response(
        StatusCode::SERVICE_UNAVAILABLE,
        &json!({"jsonrpc": "2.0", "id": id, "error": error}),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

fn too_many_replays(refused: &TooManyReplays) -> Response {
    let mut response = text_response(
        StatusCode::TOO_MANY_REQUESTS,
        &format!(
            "Too Many Requests: this client already follows {} streams by replay, the \
             server's limit; a new replay of one of them takes its place, or retry once \
             one has ended",
            refused.followed.max(refused.limit)
        ),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

fn header_str<'a>(request: &'a Request, name: &HeaderName) -> Option<&'a str> {
    request.headers().get(name).and_then(|v| v.to_str().ok())
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn text_response(status: StatusCode, text: &str) -> Response {
    let mut response = Response::new(Body::from(text.to_owned()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// The response with its priming events left out. Each body chunk of the SDK's event
/// streams is one event (or a keep-alive comment).
fn without_priming_events(response: Response) -> Response {
    let (parts, body) = response.into_parts();
    let events = body
        .into_data_stream()
        .filter(|chunk| std::future::ready(!matches!(chunk, Ok(bytes) if is_priming(bytes))));
    Response::from_parts(parts, Body::from_stream(events))
}

/// Whether an SSE event has data lines, all empty: a priming event.
fn is_priming(event: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(event) else {
        return false;
    };
    let mut data_lines = 0;
    for line in text.lines() {
        if let Some(data) = line.strip_prefix("data:") {
            if !data.trim().is_empty() {
                return false;
            }
            data_lines += 1;
        }
    }
    data_lines > 0
}

#[cfg(test)]
mod tests {
    use super::{is_noop, is_priming, may_initialize};

    #[test]
    fn pings_and_notifications_do_nothing_requests_do() {
        assert!(is_noop(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#));
        assert!(is_noop(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        ));
        assert!(is_noop(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#
        ));
        assert!(!is_noop(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(!is_noop(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        // A tool named `ping` is a request that does something.
        assert!(!is_noop(
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping"}}"#
        ));
        assert!(!is_noop(b"not json"));
    }

    #[test]
    fn a_body_may_be_an_initialize_when_it_names_it_or_escapes() {
        assert!(may_initialize(br#"{"method":"initialize"}"#));
        assert!(may_initialize(br#"{"method":"\u0069nitialize"}"#));
        assert!(!may_initialize(
            br#"{"method":"tools/call","params":{"a":"\\"}}"#
        ));
        assert!(!may_initialize(br#"{"method":"tools/call"}"#));
        assert!(!may_initialize(b"\\"));
    }

    #[test]
    fn priming_events_are_the_ones_with_only_empty_data() {
        assert!(is_priming(b"id: 0\nretry: 3000\ndata: \n\n"));
        assert!(is_priming(b"data:\nid: 1-0\n\n"));
        assert!(!is_priming(b"data: {\"jsonrpc\":\"2.0\"}\nid: 0\n\n"));
        assert!(!is_priming(b": keep-alive\n\n"));
    }
}

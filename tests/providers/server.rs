//! A local HTTP server for the provider tests: it answers each request with the next
//! response of a script (JSON, or server-sent events cut into small pieces), and records
//! every request it got. Bound to 127.0.0.1, stopped when dropped.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;

/// One scripted response.
#[derive(Clone, Debug)]
pub struct Canned {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    pub sse: bool,
    pub delay: Duration,
    /// A binary body (an AWS event stream), sent in small pieces with its content type.
    pub bytes: Option<(&'static str, Vec<u8>)>,
}

impl Canned {
    /// A 200 with this JSON body.
    pub fn json(body: Value) -> Self {
        Canned::status(200, body)
    }

    /// A response with this status and JSON body.
    pub fn status(status: u16, body: Value) -> Self {
        Canned {
            status,
            headers: Vec::new(),
            body: body.to_string(),
            sse: false,
            delay: Duration::ZERO,
            bytes: None,
        }
    }

    /// A 200 with this binary body and content type, sent in small pieces.
    #[allow(dead_code)]
    pub fn binary(content_type: &'static str, bytes: Vec<u8>) -> Self {
        Canned {
            bytes: Some((content_type, bytes)),
            ..Canned::status(200, Value::Null)
        }
    }

    /// A 200 event stream: `(event name, data)` pairs.
    pub fn sse<'a>(events: impl IntoIterator<Item = (Option<&'a str>, String)>) -> Self {
        let mut body = String::from(": keep-alive comment\n\n");
        for (name, data) in events {
            if let Some(name) = name {
                body.push_str(&format!("event: {name}\n"));
            }
            body.push_str(&format!("data: {data}\n\n"));
        }
        Canned {
            status: 200,
            headers: Vec::new(),
            body,
            sse: true,
            delay: Duration::ZERO,
            bytes: None,
        }
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// One request the server got.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Path and query.
    pub path: String,
    #[allow(dead_code)]
    pub method: String,
    pub headers: HeaderMap,
    pub body: Value,
    /// The body as sent.
    #[allow(dead_code)]
    pub raw: Bytes,
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Canned>>,
    requests: Mutex<Vec<Recorded>>,
}

pub struct Server {
    pub url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    pub async fn start(script: impl IntoIterator<Item = Canned>) -> Server {
        let shared = Arc::new(Shared::default());
        shared.script.lock().unwrap().extend(script);
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Server { url, shared, task }
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The bodies of every request so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).collect()
    }

    /// Appends responses to the script.
    pub fn push(&self, canned: impl IntoIterator<Item = Canned>) {
        self.shared.script.lock().unwrap().extend(canned);
    }

    /// How many scripted responses are left.
    pub fn remaining(&self) -> usize {
        self.shared.script.lock().unwrap().len()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 20)
        .await
        .unwrap_or_default();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    shared.requests.lock().unwrap().push(Recorded {
        path: parts
            .uri
            .path_and_query()
            .map(|p| p.to_string())
            .unwrap_or_default(),
        method: parts.method.to_string(),
        headers: parts.headers,
        body,
        raw: bytes,
    });
    let next = shared.script.lock().unwrap().pop_front();
    let Some(canned) = next else {
        return Response::builder()
            .status(StatusCode::BAD_REQUEST)
            .body(Body::from(
                r#"{"error":{"message":"the test script has no response left","code":"script_over"}}"#,
            ))
            .unwrap();
    };
    if !canned.delay.is_zero() {
        tokio::time::sleep(canned.delay).await;
    }
    let mut response = Response::builder().status(canned.status);
    for (name, value) in &canned.headers {
        response = response.header(*name, value);
    }
    let body = if let Some((content_type, bytes)) = canned.bytes {
        response = response.header("content-type", content_type);
        let pieces: Vec<Result<Bytes, Infallible>> = bytes
            .chunks(11)
            .map(|c| Ok(Bytes::copy_from_slice(c)))
            .collect();
        Body::from_stream(futures_util::stream::iter(pieces))
    } else if canned.sse {
        response = response.header("content-type", "text/event-stream");
        // Small pieces, cut anywhere: the client must reassemble lines and events.
        let pieces: Vec<Result<Bytes, Infallible>> = canned
            .body
            .into_bytes()
            .chunks(13)
            .map(|c| Ok(Bytes::copy_from_slice(c)))
            .collect();
        Body::from_stream(futures_util::stream::iter(pieces))
    } else {
        response = response.header("content-type", "application/json");
        Body::from(canned.body)
    };
    response.body(body).unwrap()
}

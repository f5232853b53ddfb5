//! A local server that behaves like the providers' APIs where reasoning and caching are
//! concerned, and enforces their documented rules on every request it gets:
//!
//! - OpenAI Responses (`POST /v1/responses`): each turn starts with a reasoning item
//!   (encrypted when the request includes `reasoning.encrypted_content`); a function call
//!   sent back without its reasoning item, a reasoning item without the item that followed
//!   it, a reasoning item with no or altered encrypted content, and a function output
//!   without its call are refused with the API's own error bodies.
//! - Anthropic (`POST /v1/messages`): with thinking on, each turn starts with a signed
//!   `thinking` block (and the first with a `redacted_thinking` one); a thinking block
//!   altered (its signature no longer matches) or dropped (the final assistant turn of a
//!   tool loop not starting with thinking), and more than four `cache_control`
//!   breakpoints, are refused with the API's own error bodies. The prompt cache is
//!   simulated: prefixes at breakpoints are cached, later requests read them back, and
//!   the usage says so (`cache_creation_input_tokens`, `cache_read_input_tokens`).
//! - Gemini (`:generateContent`, `:streamGenerateContent`): each function call of a step
//!   carries a thought signature; a call of the current turn sent back without it, or
//!   with another one, is refused with the API's own error bodies.
//!
//! - Bedrock's Converse API (`/model/{id}/converse`, `/converse-stream`): with Claude's
//!   thinking on, each turn starts with signed reasoning; reasoning sent back altered,
//!   or a final assistant turn of a tool loop without it, is refused (see [`bedrock`]).
//!   Streams are AWS event-stream frames.
//!
//! The turns come from a script ([`Step`]); streamed or not as the request asks. Every
//! request, response body and stream event is recorded, for the SDKs to check.

#![allow(dead_code)]

pub mod anthropic;
pub mod bedrock;
#[path = "../eventstream.rs"]
pub mod eventstream;
pub mod gemini;
pub mod openai;

use std::collections::{HashMap, HashSet, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::response::Response;
use serde_json::{Value, json};

/// One scripted model turn.
#[derive(Clone, Debug)]
pub enum Step {
    /// Calls of these tools with these arguments, in one turn.
    Calls(Vec<(&'static str, Value)>),
    /// A final answer.
    Text(&'static str),
    /// A failed request: this status and the API's error body, once the request passed
    /// the provider's rules.
    Fail(u16, Value),
}

/// What a provider's handler answers.
pub enum Out {
    /// A status and a JSON body.
    Json(u16, Value),
    /// A 200 event stream: `(event name, data)` pairs.
    Events(Vec<(Option<String>, Value)>),
    /// An AWS error: a status, the error type (`x-amzn-ErrorType`) and a JSON body.
    Aws(u16, &'static str, Value),
    /// A 200 AWS event stream: `(event type, payload)` frames.
    Frames(Vec<(String, Value)>),
}

/// One turn of the simulated prompt cache (Anthropic).
#[derive(Clone, Copy, Debug, Default)]
pub struct CacheTurn {
    /// The prompt's size, in bytes of canonical JSON.
    pub bytes: usize,
    /// Of it, the bytes read from the cache.
    pub read_bytes: usize,
    /// Of it, the bytes written to the cache.
    pub written_bytes: usize,
    pub input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
}

/// Everything the server knows: the script, what it issued, what it got and sent.
#[derive(Default)]
pub struct Shared {
    pub script: VecDeque<Step>,
    pub requests: Vec<Value>,
    pub responses: Vec<Value>,
    pub events: Vec<Value>,
    /// Every AWS event-stream body it sent: `{"bytes": base64, "events": [...]}`, the
    /// form tests/providers/botocore_judge.py reads back.
    pub frames: Vec<Value>,
    pub errors: Vec<Value>,
    pub counter: usize,
    /// OpenAI: reasoning item id -> (encrypted content, id of the item that followed it).
    pub reasoning: HashMap<String, (Option<String>, String)>,
    /// OpenAI: function call item id -> the id of the reasoning item before it.
    pub call_reasoning: HashMap<String, String>,
    /// Anthropic: thinking text -> its signature.
    pub thinking: HashMap<String, String>,
    /// Gemini: call id -> (function name, signature).
    pub signed: HashMap<String, (String, String)>,
    /// Anthropic: the cached prefixes (hashes), and each turn's reads and writes.
    pub cache: HashSet<u64>,
    pub cache_turns: Vec<CacheTurn>,
}

impl Shared {
    /// A fresh id with this prefix.
    pub fn id(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{:04}", self.counter)
    }

    /// An opaque token, as a provider's signature or encrypted content looks (base64).
    pub fn opaque(&mut self, what: &str) -> String {
        use std::hash::{BuildHasher, RandomState};
        self.counter += 1;
        let noise = RandomState::new().hash_one((what, self.counter));
        base64(format!("{what}:{noise:016x}:{}", self.counter).as_bytes())
    }
}

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The number of tokens the simulation counts for `bytes` of JSON.
pub fn tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

pub struct Rules {
    pub url: String,
    shared: Arc<Mutex<Shared>>,
    task: tokio::task::JoinHandle<()>,
}

impl Rules {
    pub async fn start(script: impl IntoIterator<Item = Step>) -> Rules {
        let shared = Arc::new(Mutex::new(Shared::default()));
        shared.lock().unwrap().script.extend(script);
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Rules { url, shared, task }
    }

    /// Appends turns to the script.
    pub fn push(&self, steps: impl IntoIterator<Item = Step>) {
        self.shared.lock().unwrap().script.extend(steps);
    }

    /// Every request body, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.lock().unwrap().requests.clone()
    }

    /// Every whole (non-streamed) response body it sent.
    pub fn responses(&self) -> Vec<Value> {
        self.shared.lock().unwrap().responses.clone()
    }

    /// Every stream event (or streamed chunk) it sent.
    pub fn events(&self) -> Vec<Value> {
        self.shared.lock().unwrap().events.clone()
    }

    /// Every AWS event-stream body it sent, with the events it carries.
    pub fn frames(&self) -> Vec<Value> {
        self.shared.lock().unwrap().frames.clone()
    }

    /// Every error body it answered with.
    pub fn errors(&self) -> Vec<Value> {
        self.shared.lock().unwrap().errors.clone()
    }

    /// The simulated prompt cache's reads and writes, one per request.
    pub fn cache_turns(&self) -> Vec<CacheTurn> {
        self.shared.lock().unwrap().cache_turns.clone()
    }

    /// How many scripted turns are left.
    pub fn remaining(&self) -> usize {
        self.shared.lock().unwrap().script.len()
    }
}

impl Drop for Rules {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn handle(State(shared): State<Arc<Mutex<Shared>>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let bytes = axum::body::to_bytes(body, 64 << 20)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let mut shared = shared.lock().unwrap();
    shared.requests.push(body.clone());
    let stream = body["stream"] == true;
    let failing = matches!(shared.script.front(), Some(Step::Fail(..)));
    let broken = failing.then(|| check(&path, &shared, &body)).flatten();
    let out = if let Some(broken) = broken {
        broken
    } else if failing && let Some(Step::Fail(status, error)) = shared.script.pop_front() {
        Out::Json(status, error)
    } else if path.ends_with("/responses") {
        openai::turn(&mut shared, &body, stream)
    } else if path.ends_with("/v1/messages") {
        anthropic::turn(&mut shared, &body, stream)
    } else if path.starts_with("/model/") && path.ends_with("/converse") {
        bedrock::turn(&mut shared, &body, false)
    } else if path.starts_with("/model/") && path.ends_with("/converse-stream") {
        bedrock::turn(&mut shared, &body, true)
    } else if path.ends_with(":generateContent") {
        gemini::turn(&mut shared, &body, false)
    } else if path.ends_with(":streamGenerateContent") {
        gemini::turn(&mut shared, &body, true)
    } else {
        Out::Json(
            404,
            json!({"error": {"message": format!("no route {path}")}}),
        )
    };
    let gemini = path.contains(":stream");
    match out {
        Out::Json(status, value) => {
            match status {
                200 => shared.responses.push(value.clone()),
                _ => shared.errors.push(value.clone()),
            }
            Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .body(Body::from(value.to_string()))
                .unwrap()
        }
        Out::Aws(status, kind, value) => {
            shared.errors.push(value.clone());
            Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .header(
                    "x-amzn-errortype",
                    format!("{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
                )
                .body(Body::from(value.to_string()))
                .unwrap()
        }
        Out::Frames(frames) => {
            let events: Vec<Value> = frames
                .iter()
                .map(|(kind, payload)| json!({ kind.as_str(): payload }))
                .collect();
            shared.events.extend(events.iter().cloned());
            let bytes = eventstream::frames(&frames);
            shared
                .frames
                .push(json!({"bytes": base64(&bytes), "events": events}));
            let pieces: Vec<Result<Bytes, Infallible>> = bytes
                .chunks(17)
                .map(|c| Ok(Bytes::copy_from_slice(c)))
                .collect();
            Response::builder()
                .status(200)
                .header("content-type", "application/vnd.amazon.eventstream")
                .body(Body::from_stream(futures_util::stream::iter(pieces)))
                .unwrap()
        }
        Out::Events(events) => {
            let mut text = String::new();
            for (name, data) in events {
                if let Some(name) = name.filter(|_| !gemini) {
                    text.push_str(&format!("event: {name}\n"));
                }
                text.push_str(&format!("data: {data}\n\n"));
                shared.events.push(data);
            }
            // Small pieces, cut anywhere: the client must reassemble lines and events.
            let pieces: Vec<Result<Bytes, Infallible>> = text
                .into_bytes()
                .chunks(17)
                .map(|c| Ok(Bytes::copy_from_slice(c)))
                .collect();
            Response::builder()
                .status(200)
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(futures_util::stream::iter(pieces)))
                .unwrap()
        }
    }
}

/// What the provider's rules say of a request to `path`, when they refuse it.
fn check(path: &str, shared: &Shared, body: &Value) -> Option<Out> {
    if path.ends_with("/responses") {
        openai::check(shared, body)
    } else if path.ends_with("/v1/messages") {
        anthropic::check(shared, body)
    } else if path.starts_with("/model/") {
        bedrock::check(shared, body)
    } else {
        gemini::check(shared, body)
    }
}

/// The error for a request past the end of the script.
pub fn script_over() -> Out {
    Out::Json(
        400,
        json!({"error": {"message": "the test script has no turn left", "code": "script_over"}}),
    )
}

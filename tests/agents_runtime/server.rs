//! The scripted OpenAI-compatible server both runtimes talk to: stateless, each reply a
//! function of the agent (its system prompt), how many assistant turns its transcript
//! holds and its last user message, so the order requests arrive in changes nothing.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::Uri;
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::Notify;

#[derive(Default)]
struct Shared {
    /// `(soul, last user message)` of every model call, in arrival order.
    log: Mutex<Vec<Value>>,
    /// Calls of `agent:slow` held so far.
    hits: Mutex<u64>,
    release: Notify,
}

pub struct Server {
    pub url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub async fn start() -> Server {
    let shared = Arc::new(Shared::default());
    let app = Router::new()
        .route("/v1/chat/completions", post(complete))
        .route("/log", get(log))
        .route("/hits", get(hits))
        .route("/release", get(release))
        .with_state(shared);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Server { url, task }
}

async fn log(State(s): State<Arc<Shared>>, uri: Uri) -> String {
    let mut log = s.log.lock().unwrap();
    let out = Value::Array(log.clone());
    if uri.query().is_some_and(|q| q.contains("reset")) {
        log.clear();
    }
    out.to_string()
}

async fn hits(State(s): State<Arc<Shared>>) -> String {
    json!(*s.hits.lock().unwrap()).to_string()
}

async fn release(State(s): State<Arc<Shared>>) -> String {
    *s.hits.lock().unwrap() = 0;
    s.release.notify_waiters();
    "true".to_owned()
}

type Turn = (Option<String>, Vec<(String, String)>);

fn call(name: &str, args: Value) -> Turn {
    (None, vec![(name.to_owned(), args.to_string())])
}

fn text(t: impl Into<String>) -> Turn {
    (Some(t.into()), Vec::new())
}

async fn complete(
    State(s): State<Arc<Shared>>,
    body: Bytes,
) -> ([(&'static str, &'static str); 1], String) {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let soul = match messages.first() {
        Some(m) if m["role"] == "system" => m["content"].as_str().unwrap_or_default().to_owned(),
        _ => String::new(),
    };
    let n = messages.iter().filter(|m| m["role"] == "assistant").count();
    let user = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    s.log
        .lock()
        .unwrap()
        .push(json!({"soul": soul, "user": user}));
    let task = |agent: &str, prompt: &str| call("task", json!({"agent": agent, "prompt": prompt}));
    let ((content, tools), tokens) = match (soul.as_str(), n) {
        ("agent:fanout", 0) => {
            let calls = ["a", "b", "c"].map(|p| {
                let args = json!({"agent": p, "prompt": p}).to_string();
                ("task".to_owned(), args)
            });
            ((None, calls.to_vec()), 0)
        }
        ("agent:fanout", _) => (text("fanout done"), 0),
        ("agent:lead-budget", 0) => (task("worker", "one"), 0),
        ("agent:lead-budget", 1) => (task("worker", "two"), 0),
        ("agent:lead-budget", _) => (text("lead done"), 0),
        ("agent:worker", _) => (text("one done"), 100),
        ("agent:reader", _) => (text(user.clone()), 1),
        ("agent:w10", _) => (text(format!("{user} done")), 10),
        ("agent:slow", _) => {
            let released = s.release.notified();
            *s.hits.lock().unwrap() += 1;
            released.await;
            (text("late"), 1)
        }
        ("agent:pulse", 0) => (text("HEARTBEAT_OK"), 1),
        ("agent:pulse", _) => (text("disk full"), 1),
        ("agent:lead3", 0) => (task("mid", "ship"), 1),
        ("agent:lead3", _) => (text("lead: shipped"), 1),
        ("agent:mid", 0) => (task("leaf", "ship"), 1),
        ("agent:mid", _) => (text("mid: shipped"), 1),
        ("agent:leaf", 0) => (call("log", json!({})), 1),
        ("agent:leaf", 1) => (call("approve", json!({})), 1),
        ("agent:leaf", _) => (text("shipped"), 1),
        _ => (text(format!("unscripted agent {soul:?}")), 0),
    };
    let mut message = json!({"role": "assistant", "content": content});
    let finish = if tools.is_empty() {
        "stop"
    } else {
        let calls: Vec<Value> = tools
            .into_iter()
            .enumerate()
            .map(|(i, (name, arguments))| {
                json!({
                    "id": format!("call_{n}_{i}"),
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                })
            })
            .collect();
        message["tool_calls"] = Value::Array(calls);
        "tool_calls"
    };
    let reply = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": tokens, "completion_tokens": 0, "total_tokens": tokens},
    });
    ([("content-type", "application/json")], reply.to_string())
}

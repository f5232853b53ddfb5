//! The client options, two ports: the Python port (toolnexus 0.21.0, run as a child
//! process by `tests/wire_client/port.py`) and this crate, answered by one scripted
//! OpenAI-compatible server on 127.0.0.1: the same `on_metric` records and the same
//! `metrics()` text; the same `data.path` on a suspension an agent run as a tool relays.

#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;
#[path = "support/wire_script.rs"]
mod wire_script;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::agent::{AGENT_STATE_KEY, MetricRecord, MetricsRegistry, RunResult};
use toolnexus::providers::{ErrorInfo, ErrorTier, OpenAi, Retry};
use toolnexus::{Client, Request, Tool, ToolResult, Toolkit};

use server::{Canned, Server};
use wire_script::{PROMPT, answers, asks_add, client, completion, python_port};

/// The model asks for `name(arguments)`.
fn asks(name: &str, arguments: &str) -> Canned {
    completion(
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
            "type": "function", "function": {"name": name, "arguments": arguments}}]}),
        "tool_calls",
        (10, 2),
    )
}

/// The model answers `text`.
fn says(text: &str) -> Canned {
    completion(
        json!({"role": "assistant", "content": text}),
        "stop",
        (10, 2),
    )
}

/// The answer, streamed in two pieces.
fn streamed_answer() -> Canned {
    let chunk = |delta: Value, finish: Option<&str>| {
        let chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
            "created": 1, "model": "gpt-wire",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        (None, chunk.to_string())
    };
    Canned::sse([
        chunk(json!({"role": "assistant", "content": "The answer"}), None),
        chunk(json!({"content": " is 5."}), None),
        chunk(json!({}), Some("stop")),
        (None, "[DONE]".to_owned()),
    ])
}

/// A request the provider refuses (not worth a retry).
fn refused() -> Canned {
    Canned::status(400, json!({"error": {"message": "bad request"}}))
}

/// What the server answers one port in `scenario`.
fn script(scenario: &str) -> Vec<Canned> {
    match scenario {
        "metrics" => vec![asks_add(), answers(), refused()],
        // The Python port runs the agent alone; this crate runs it as a tool of another.
        "suspend" => vec![asks("approve", "{}")],
        "transform" => vec![asks_add(), answers()],
        // A 400 the classifier retries, then the answer; a 503 it fails.
        "on_error" => vec![
            refused(),
            answers(),
            Canned::status(503, json!({"error": "busy"})),
        ],
        "on_text" => vec![streamed_answer()],
        // A CDN's 520, which only a widened set retries, then the answer.
        "statuses" => vec![Canned::status(520, json!({"error": "origin"})), answers()],
        "suspend_outer" => vec![
            asks("researcher", r#"{"prompt":"ship"}"#),
            asks("approve", "{}"),
        ],
        _ => Vec::new(),
    }
}

/// `add`, as the Python script defines it.
fn toolkit() -> Toolkit {
    let add = Tool::new_sync(
        "add",
        "Adds two numbers.",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
               "required": ["a", "b"]}),
        move |args, _| match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
            _ => ToolResult::error("add: `a` and `b` must be whole numbers"),
        },
    );
    Toolkit::new().with(add)
}

/// This crate's side of `scenario`, in the shape `port.py` prints.
async fn rust_port(base_url: &str, scenario: &'static str) -> Value {
    let records = Arc::new(Mutex::new(Vec::<MetricRecord>::new()));
    let client = client(base_url).on_metric({
        let records = records.clone();
        move |record: &MetricRecord| records.lock().unwrap().push(record.clone())
    });
    let toolkit = toolkit();
    let mut out = json!({});
    if scenario == "metrics" {
        let first = client.run(PROMPT, &toolkit).await;
        assert!(first.is_done(), "{first:?}");
        let second = client.run(PROMPT, &toolkit).await;
        out["error"] = json!(format!("{:?}", second.status));
        out["records"] = serde_json::to_value(&*records.lock().unwrap()).unwrap();
        out["text"] = json!(client.metrics());
    }
    out
}

/// Runs `scenario` on both ports against one server: this crate first, then the Python
/// port. `None` when the Python port is not installed.
async fn both(scenario: &'static str) -> Option<(Value, Value, Server)> {
    let server = Server::start(script(scenario)).await;
    let base_url = format!("{}/v1", server.url);
    let ours = rust_port(&base_url, scenario).await;
    assert_eq!(server.remaining(), 0, "{scenario}: this crate asked it all");
    server.push(script(scenario));
    let theirs = python_port("wire_client/port.py", &[&base_url, scenario], "").await?;
    assert_eq!(server.remaining(), 0, "{scenario}: the port asked it all");
    Some((ours, theirs, server))
}

/// `records` without their timings.
fn untimed(records: &Value) -> Vec<Value> {
    let records = records.as_array().unwrap();
    records
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("ms");
            // (The run's error text is each port's own.)
            if r.get("error").is_some() {
                r["error"] = json!("<error>");
            }
            r
        })
        .collect()
}

/// Prometheus `text` with the timing-dependent values (bucket counts, sums) masked.
fn untimed_text(text: &str) -> String {
    text.lines()
        .map(|line| match line.rsplit_once(' ') {
            Some((series, _)) if series.contains("_bucket{") || series.contains("_sum") => {
                format!("{series} <t>\n")
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_run_gives_the_same_metric_records_and_text() {
    let Some((ours, theirs, _server)) = both("metrics").await else {
        return;
    };
    let records = untimed(&ours["records"]);
    assert_eq!(records, untimed(&theirs["records"]));
    assert_eq!(
        records,
        [
            json!({"event": "llm", "model": "gpt-wire", "status": "ok",
                   "prompt_tokens": 20, "completion_tokens": 7}),
            json!({"event": "tool", "tool": "add", "source": "custom", "is_error": false}),
            json!({"event": "llm", "model": "gpt-wire", "status": "ok",
                   "prompt_tokens": 30, "completion_tokens": 6}),
            json!({"event": "run", "model": "gpt-wire", "turns": 2, "tool_calls": 1,
                   "total_tokens": 63}),
            json!({"event": "llm", "model": "gpt-wire", "status": "error",
                   "prompt_tokens": 0, "completion_tokens": 0}),
            json!({"event": "run", "model": "gpt-wire", "turns": 1, "tool_calls": 0,
                   "total_tokens": 0, "error": "<error>"}),
        ]
    );
    let (ours_text, theirs_text) = (
        ours["text"].as_str().unwrap(),
        theirs["text"].as_str().unwrap(),
    );
    // Byte for byte, once the timings (each port's own) are masked…
    assert_eq!(untimed_text(ours_text), untimed_text(theirs_text));
    assert!(ours_text.contains("toolnexus_run_errors_total{model=\"gpt-wire\"} 1\n"));
    assert!(ours_text.contains("toolnexus_llm_tokens_total{type=\"prompt\"} 50\n"));
    // …and unmasked: this crate's registry, given the Python port's own records (its
    // timings included), renders the Python port's text exactly.
    let mut registry = MetricsRegistry::default();
    let python_records: Vec<MetricRecord> =
        serde_json::from_value(theirs["records"].clone()).unwrap();
    for record in &python_records {
        registry.record(record);
    }
    assert_eq!(registry.render(), theirs_text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_records_render_the_same_text() {
    // Label values to escape, numbers in every form, series out of order.
    let records = json!([
        {"event": "tool", "tool": "b\"q", "source": "mcp", "is_error": true, "ms": 0.0123},
        {"event": "tool", "tool": "a\\b\nc", "source": "native", "is_error": false,
         "ms": 61000.5, "pending": true},
        {"event": "llm", "model": "m-2", "status": "ok", "ms": 250.0, "prompt_tokens": 7,
         "completion_tokens": 1},
        {"event": "llm", "model": "m-1", "status": "error", "ms": 0.000001,
         "prompt_tokens": 0, "completion_tokens": 0},
        {"event": "llm", "model": "m-1", "status": "ok", "ms": 1e-300,
         "prompt_tokens": 9007199254740993_u64, "completion_tokens": 3},
        {"event": "tool", "tool": "b\"q", "source": "mcp", "is_error": false, "ms": 30000},
        {"event": "run", "model": "m-1", "turns": 1, "tool_calls": 0, "total_tokens": 0,
         "ms": 1, "error": "boom"},
        {"event": "run", "model": "m-2", "turns": 1, "tool_calls": 0, "total_tokens": 0,
         "ms": 1}
    ]);
    let Some(theirs) = python_port(
        "wire_client/port.py",
        &["http://127.0.0.1:9", "registry"],
        &records.to_string(),
    )
    .await
    else {
        return;
    };
    let mut registry = MetricsRegistry::default();
    let empty = registry.render();
    assert!(empty.lines().all(|l| l.starts_with("# ")), "{empty}");
    for record in serde_json::from_value::<Vec<MetricRecord>>(records).unwrap() {
        registry.record(&record);
    }
    let ours = registry.render();
    assert_eq!(ours, theirs["text"].as_str().unwrap());
    assert!(ours.contains("tool=\"a\\\\b\\nc\""), "{ours}");
    assert!(ours.ends_with('\n'));
}

/// `approve`, as the Python script defines it: it suspends until answered.
fn approve() -> Tool {
    Tool::new_sync(
        "approve",
        "Asks for approval.",
        json!({"type": "object", "properties": {}}),
        |_, ctx| match ctx.answer() {
            None => ToolResult::pending(Request::approval("Ship it?").with_id("req-1")),
            Some(answer) if answer.ok => ToolResult::ok("approved"),
            Some(_) => ToolResult::error("declined"),
        },
    )
}

/// `value` without `key` in any object that also holds `beside`.
fn strip(value: &mut Value, key: &str, beside: &str) {
    match value {
        Value::Object(map) => {
            if map.contains_key(beside) {
                map.remove(key);
            }
            map.values_mut().for_each(|v| strip(v, key, beside));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| strip(v, key, beside)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspension_relayed_by_an_agent_tool_carries_the_same_data_path() {
    let server = Server::start(script("suspend_outer")).await;
    let base_url = format!("{}/v1", server.url);
    let researcher =
        client(&base_url).as_tool("researcher", "Researches.", Toolkit::new().with(approve()));
    let toolkit = Toolkit::new().with(researcher);
    let lead = client(&base_url);
    let halted = lead.run("ship", &toolkit).await;
    assert!(halted.is_pending(), "{halted:?}");
    let request = halted.pending.as_ref().unwrap();
    let path = ["root".to_owned(), "researcher.1".to_owned()];
    assert_eq!(request.path(), Some(&path[..]));
    // (In memory `data` is the asking tool's own; on the wire the path is in it.)
    assert_eq!(request.data, None);
    let ours = serde_json::to_value(request).unwrap();
    assert_eq!(ours["data"]["path"], json!(path));
    // The row a host keeps, and the same row as earlier builds wrote it (the halted
    // agent's state in `data["toolnexus.agent"]`, no `path`).
    let row = serde_json::to_value(&halted).unwrap();
    let mut old_row = row.clone();
    strip(&mut old_row, "path", AGENT_STATE_KEY);
    assert_ne!(old_row, row);
    for row in [row, old_row] {
        let halted: RunResult = serde_json::from_value(row).unwrap();
        server.push([says("Shipped."), says("Done.")]);
        let answer = halted.pending.as_ref().unwrap().answer(json!({}));
        let done = lead.resume(&halted, answer, &toolkit).await.unwrap();
        assert!(done.is_done(), "{done:?}");
        assert_eq!(done.text, "Done.");
        assert_eq!(done.tool_calls.last().unwrap().result.output, "Shipped.");
        assert_eq!(server.remaining(), 0);
    }

    server.push(script("suspend"));
    let Some(theirs) = python_port("wire_client/port.py", &[&base_url, "suspend"], "").await else {
        return;
    };
    assert_eq!(theirs["status"], "pending");
    let mut ours = ours;
    ours["data"]
        .as_object_mut()
        .unwrap()
        .remove(AGENT_STATE_KEY);
    let theirs: serde_json::Map<String, Value> = theirs["request"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(ours, Value::Object(theirs));
}

/// This crate's model for `base_url`, for the options set on the provider.
fn openai(base_url: &str) -> OpenAi {
    OpenAi::compatible(base_url, "gpt-wire")
        .api_key("sk-test")
        .retry(Retry::default().initial_backoff(Duration::from_millis(1)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_body_transform_sends_the_same_bodies() {
    let server = Server::start(script("transform")).await;
    let base_url = format!("{}/v1", server.url);
    let model = openai(&base_url).body_transform(|mut body| {
        body["user"] = json!("wire-test");
        body.as_object_mut().unwrap().remove("tool_choice");
        body
    });
    let run = Client::new(model).run(PROMPT, &toolkit()).await;
    assert!(run.is_done(), "{run:?}");
    server.push(script("transform"));
    let Some(theirs) = python_port("wire_client/port.py", &[&base_url, "transform"], "").await
    else {
        return;
    };
    assert_eq!(theirs["result"]["text"], "The answer is 5.");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4);
    for body in &bodies {
        assert_eq!(body["user"], "wire-test", "{body}");
        assert!(body.get("tool_choice").is_none(), "{body}");
    }
    // The same bodies, turn by turn (the Python port sends the reply's `"content": null`
    // back; this crate leaves it out).
    let keys = |body: &Value| -> Vec<String> {
        let mut keys: Vec<String> = body.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(keys(&bodies[0]), keys(&bodies[2]));
    assert_eq!(bodies[0]["messages"], bodies[2]["messages"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_on_error_retries_and_fails_the_same_attempts() {
    let server = Server::start(script("on_error")).await;
    let base_url = format!("{}/v1", server.url);
    let infos = Arc::new(Mutex::new(Vec::<Value>::new()));
    let model = openai(&base_url).on_error({
        let infos = infos.clone();
        move |info: &ErrorInfo| {
            infos.lock().unwrap().push(json!({"status": info.status,
                "attempt": info.attempt, "retryable": info.retryable}));
            if info.status == Some(400) {
                ErrorTier::Retry
            } else {
                ErrorTier::Fail
            }
        }
    });
    let client = Client::new(model);
    let first = client.run(PROMPT, &Toolkit::new()).await;
    assert_eq!(first.text, "The answer is 5.", "{first:?}");
    let second = client.run(PROMPT, &Toolkit::new()).await;
    assert!(!second.is_done(), "{second:?}");
    assert_eq!(server.remaining(), 0);
    assert_eq!(server.requests().len(), 3, "the 503 was not retried");
    server.push(script("on_error"));
    let Some(theirs) = python_port("wire_client/port.py", &[&base_url, "on_error"], "").await
    else {
        return;
    };
    assert_eq!(server.requests().len(), 6);
    assert_eq!(theirs["text"], "The answer is 5.");
    assert_eq!(theirs["errors"].as_array().unwrap().len(), 1);
    let ours = Value::Array(infos.lock().unwrap().clone());
    assert_eq!(ours, theirs["infos"]);
    assert_eq!(
        ours,
        json!([{"status": 400, "attempt": 0, "retryable": false},
               {"status": 503, "attempt": 0, "retryable": true}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_retryable_statuses_retry_the_same_status() {
    let server = Server::start([Canned::status(520, json!({"error": "origin"}))]).await;
    let base_url = format!("{}/v1", server.url);
    // By default a 520 fails at once.
    let plain = Client::new(openai(&base_url))
        .run(PROMPT, &Toolkit::new())
        .await;
    assert!(!plain.is_done(), "{plain:?}");
    assert_eq!((server.requests().len(), server.remaining()), (1, 0));
    server.push(script("statuses"));
    let widened = openai(&base_url).retry(
        Retry::default()
            .initial_backoff(Duration::from_millis(1))
            .retryable_statuses([520]),
    );
    let ours = Client::new(widened).run(PROMPT, &Toolkit::new()).await;
    assert_eq!(ours.text, "The answer is 5.", "{ours:?}");
    assert_eq!((server.requests().len(), server.remaining()), (3, 0));
    server.push(script("statuses"));
    let Some(theirs) = python_port("wire_client/port.py", &[&base_url, "statuses"], "").await
    else {
        return;
    };
    assert_eq!((server.requests().len(), server.remaining()), (5, 0));
    assert_eq!(theirs["text"], ours.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_go_through_the_hosts_http_client() {
    let server = Server::start(script("transform")).await;
    let base_url = format!("{}/v1", server.url);
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-host-client", "yes".parse().unwrap());
    let host = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    let model = openai(&base_url).http_client(host);
    let run = Client::new(model).run(PROMPT, &toolkit()).await;
    assert!(run.is_done(), "{run:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.headers["x-host-client"], "yes");
        // The provider's own headers still go with each request.
        assert_eq!(request.headers["authorization"], "Bearer sk-test");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_gives_on_text_the_same_pieces_and_keeps_the_same_conversation() {
    let server = Server::start(script("on_text")).await;
    let base_url = format!("{}/v1", server.url);
    let client = client(&base_url);
    let deltas = Arc::new(Mutex::new(Vec::<String>::new()));
    let run = client
        .ask_with_text("chat-1", PROMPT, &toolkit(), {
            let deltas = deltas.clone();
            move |text: &str| deltas.lock().unwrap().push(text.to_owned())
        })
        .await
        .unwrap();
    let kept = client.conversation_store().get("chat-1").await.unwrap();
    let ours = json!({"deltas": *deltas.lock().unwrap(), "text": run.text,
                      "kept": kept.map(|m| m.len())});
    assert_eq!(
        ours,
        json!({"deltas": ["The answer", " is 5."], "text": "The answer is 5.", "kept": 2})
    );
    assert_eq!(server.bodies()[0]["stream"], true);
    server.push(script("on_text"));
    let Some(theirs) = python_port("wire_client/port.py", &[&base_url, "on_text"], "").await else {
        return;
    };
    assert_eq!(ours, theirs);
}

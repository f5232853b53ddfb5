//! One run, two ports: the Python port (toolnexus 0.21.0, installed by .ci/test, run as a
//! child process by `tests/wire_run/port.py`) and this crate, answered by one scripted
//! OpenAI-compatible server on 127.0.0.1. The same run gives the same `RunResult` JSON
//! and the same stream events (in the contract's keys; each side's extras and nulls
//! aside); the same hooks rewrite the same turn, answer the same call, abort the same run
//! and see the same raw response.

#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;
#[path = "support/wire_script.rs"]
mod wire_script;

use std::sync::{Arc, Mutex};

use futures_util::StreamExt as _;
use serde_json::{Map, Value, json};
use toolnexus::agent::ToolDecision;
use toolnexus::agent::{TurnDecision, TurnStart};
use toolnexus::providers::ModelConfig;
use toolnexus::{Client, Reply, Tool, ToolCall, ToolResult, Toolkit};

use server::{Canned, Server};
use wire_script::{PROMPT, answers, asks_add, python_port};

fn chunk(delta: Value, finish: Option<&str>) -> (Option<&'static str>, String) {
    let chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "gpt-wire", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    (None, chunk.to_string())
}

fn usage_chunk(prompt: u64, completion: u64) -> (Option<&'static str>, String) {
    let chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "gpt-wire", "choices": [], "usage": {"prompt_tokens": prompt,
        "completion_tokens": completion, "total_tokens": prompt + completion}});
    (None, chunk.to_string())
}

/// The two turns, streamed: the call's arguments in two pieces, the answer in two.
fn streamed() -> [Canned; 2] {
    let call = |args: &str, first: bool| {
        let mut piece = json!({"index": 0, "function": {"arguments": args}});
        if first {
            piece = json!({"index": 0, "id": "call_1", "type": "function",
                           "function": {"name": "add", "arguments": args}});
        }
        chunk(json!({"tool_calls": [piece]}), None)
    };
    [
        Canned::sse([
            chunk(json!({"role": "assistant"}), None),
            call("{\"a\":2,", true),
            call("\"b\":3}", false),
            chunk(json!({}), Some("tool_calls")),
            usage_chunk(20, 7),
            (None, "[DONE]".to_owned()),
        ]),
        Canned::sse([
            chunk(json!({"role": "assistant", "content": "The answer"}), None),
            chunk(json!({"content": " is 5."}), None),
            chunk(json!({}), Some("stop")),
            usage_chunk(30, 6),
            (None, "[DONE]".to_owned()),
        ]),
    ]
}

/// One streamed turn that asks `first` then `second`, then the answer.
fn two_calls() -> [Canned; 2] {
    let call = |index: u64, id: &str, name: &str| {
        chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                    "function": {"name": name, "arguments": "{\"text\":\"hi\"}"}}]}),
            None,
        )
    };
    [
        Canned::sse([
            chunk(json!({"role": "assistant"}), None),
            call(0, "call_1", "first"),
            call(1, "call_2", "second"),
            chunk(json!({}), Some("tool_calls")),
            usage_chunk(20, 7),
            (None, "[DONE]".to_owned()),
        ]),
        Canned::sse([
            chunk(
                json!({"role": "assistant", "content": "Both said hi."}),
                None,
            ),
            chunk(json!({}), Some("stop")),
            usage_chunk(30, 6),
            (None, "[DONE]".to_owned()),
        ]),
    ]
}

/// What the server answers one port in `scenario`.
fn script(scenario: &str) -> Vec<Canned> {
    match scenario {
        "stream" => streamed().into(),
        "concurrent" => two_calls().into(),
        // The second turn is never asked.
        "abort" => vec![asks_add()],
        _ => vec![asks_add(), answers()],
    }
}

fn number(n: f64) -> String {
    if n.fract() == 0.0 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// `add` and `echo`, as the Python script defines them; `runs` counts `add`'s runs.
fn toolkit(runs: &Arc<Mutex<u32>>) -> Toolkit {
    let runs = runs.clone();
    let add = Tool::new_sync(
        "add",
        "Adds two numbers.",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
               "required": ["a", "b"]}),
        move |args, _| {
            *runs.lock().unwrap() += 1;
            match (args["a"].as_f64(), args["b"].as_f64()) {
                (Some(a), Some(b)) => ToolResult::ok(number(a + b)),
                _ => ToolResult::error("add: `a` and `b` must be numbers"),
            }
        },
    );
    let echo = Tool::new_sync(
        "echo",
        "Says the text back.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |args, _| ToolResult::ok(args["text"].as_str().unwrap_or_default()),
    );
    Toolkit::new().with(add).with(echo)
}

/// `first` and `second`, as the Python script defines them: `first` finishes only after
/// `second` has run, so the calls of one turn finish out of call order.
fn gated() -> [Tool; 2] {
    let gate = Arc::new(tokio::sync::Notify::new());
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}},
                        "required": ["text"]});
    let waits = gate.clone();
    let first = Tool::new(
        "first",
        "Waits for second.",
        schema.clone(),
        move |args, _| {
            let waits = waits.clone();
            async move {
                waits.notified().await;
                ToolResult::ok(format!(
                    "first {}",
                    args["text"].as_str().unwrap_or_default()
                ))
            }
        },
    );
    let second = Tool::new_sync("second", "Lets first finish.", schema, move |args, _| {
        gate.notify_one();
        ToolResult::ok(format!(
            "second {}",
            args["text"].as_str().unwrap_or_default()
        ))
    });
    [first, second]
}

/// This crate's run of `scenario`, in the shape `port.py` prints.
async fn rust_port(base_url: &str, scenario: &'static str) -> Value {
    let config = json!({"baseUrl": base_url, "style": "openai", "model": "gpt-wire",
                        "apiKey": "sk-test"});
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let runs = Arc::new(Mutex::new(0));
    let client: Client = ModelConfig::from_json(&config.to_string())
        .unwrap()
        .client("")
        .unwrap();
    let client = client
        .before_turn({
            let seen = seen.clone();
            move |start: TurnStart<'_>| {
                let tools: Vec<&str> = start.tools.tools().iter().map(|t| t.name()).collect();
                seen.lock()
                    .unwrap()
                    .push(json!({"hook": "before", "turn": start.turn - 1,
                    "model": start.model, "messages": start.messages.len(), "tools": tools}));
                let decision = match (scenario, start.turn) {
                    ("rewrite", 1) => {
                        let last = start.messages.last().cloned().into_iter();
                        let mut messages =
                            vec![toolnexus::Message::system("Answer with digits only.")];
                        messages.extend(last);
                        let add = start.tools.tools().iter().find(|t| t.name() == "add");
                        TurnDecision::Replace {
                            messages: Some(messages),
                            tools: Some(Box::new(Toolkit::new().with(add.unwrap().clone()))),
                        }
                    }
                    ("abort", 2) => TurnDecision::abort("budget spent"),
                    _ => TurnDecision::Continue,
                };
                std::future::ready(decision)
            }
        })
        .before_tool({
            let seen = seen.clone();
            move |call: &ToolCall| {
                let args: Value = serde_json::from_str(&call.arguments).unwrap_or_default();
                seen.lock()
                    .unwrap()
                    .push(json!({"hook": "before_tool", "name": call.name,
                    "args": args, "id": call.id}));
                std::future::ready(if scenario == "answer" && call.name == "add" {
                    ToolDecision::answer(ToolResult::ok("cached: 5"))
                } else {
                    ToolDecision::Allow
                })
            }
        })
        .after_turn({
            let seen = seen.clone();
            move |turn: u32, reply: &Reply| {
                if scenario == "raw" {
                    seen.lock()
                        .unwrap()
                        .push(json!({"hook": "after", "turn": turn - 1,
                        "model": "gpt-wire", "response": reply.raw.as_deref()}));
                }
                std::future::ready(())
            }
        });
    let mut toolkit = toolkit(&runs);
    if scenario == "concurrent" {
        let [first, second] = gated();
        toolkit = toolkit.with(first).with(second);
    }
    let mut out = Map::new();
    if matches!(scenario, "stream" | "concurrent") {
        let events: Vec<Value> = client
            .run(PROMPT, &toolkit)
            .stream()
            .map(|event| serde_json::to_value(&event).unwrap())
            .collect()
            .await;
        out.insert("result".into(), events.last().unwrap()["result"].clone());
        out.insert("events".into(), Value::Array(events));
    } else {
        let run = client.run(PROMPT, &toolkit).await;
        out.insert("result".into(), serde_json::to_value(&run).unwrap());
    }
    out.insert("hooks".into(), Value::Array(seen.lock().unwrap().clone()));
    out.insert("runs".into(), json!(*runs.lock().unwrap()));
    Value::Object(out)
}

/// `value` without its nulls (the Python port writes `None` where this crate writes
/// nothing).
fn no_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), no_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(no_nulls).collect()),
        other => other.clone(),
    }
}

/// `value`'s `keys` alone.
fn only(value: &Value, keys: &[&str]) -> Value {
    Value::Object(
        keys.iter()
            .filter_map(|k| Some((k.to_string(), value.get(*k)?.clone())))
            .collect(),
    )
}

/// A `RunResult` in the contract's keys.
fn contract_result(result: &Value) -> Value {
    let mut out = only(
        result,
        &[
            "text",
            "messages",
            "tool_call_count",
            "turns",
            "model",
            "status",
            "limit",
            "pending",
        ],
    );
    let calls = result["tool_calls"].as_array().cloned().unwrap_or_default();
    out["tool_calls"] = calls
        .iter()
        .map(|c| only(c, &["name", "args", "output", "is_error", "metadata"]))
        .collect();
    out["usage"] = only(
        &result["usage"],
        &["prompt_tokens", "completion_tokens", "total_tokens"],
    );
    no_nulls(&out)
}

/// The contract's stream events, in the contract's keys; other events left out.
fn contract_events(events: &Value) -> Vec<Value> {
    let events = events.as_array().unwrap();
    events
        .iter()
        .filter_map(|e| {
            let keys: &[&str] = match e["type"].as_str()? {
                "text" => &["type", "delta"],
                "tool_call" => &["type", "id", "name", "args"],
                "tool_result" => &["type", "id", "name", "output", "is_error"],
                "pending" => &["type", "request"],
                "usage" => {
                    let usage = only(
                        &e["usage"],
                        &["prompt_tokens", "completion_tokens", "total_tokens"],
                    );
                    return Some(json!({"type": "usage", "usage": usage}));
                }
                "done" => {
                    return Some(json!({"type": "done", "result": contract_result(&e["result"])}));
                }
                _ => return None,
            };
            Some(no_nulls(&only(e, keys)))
        })
        .collect()
}

/// Runs `scenario` on both ports against one server: this crate first, then the Python
/// port. `None` when the Python port is not installed.
async fn both(scenario: &'static str) -> Option<(Value, Value, Server)> {
    let server = Server::start(script(scenario)).await;
    let base_url = format!("{}/v1", server.url);
    let ours = rust_port(&base_url, scenario).await;
    assert_eq!(
        server.remaining(),
        0,
        "{scenario}: this crate asked every scripted turn"
    );
    server.push(script(scenario));
    let theirs = python_port("wire_run/port.py", &[&base_url, scenario], "").await?;
    assert_eq!(
        server.remaining(),
        0,
        "{scenario}: the port asked every scripted turn"
    );
    Some((ours, theirs, server))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_run_gives_the_same_run_result() {
    let Some((ours, theirs, server)) = both("run").await else {
        return;
    };
    let (ours, theirs) = (
        contract_result(&ours["result"]),
        contract_result(&theirs["result"]),
    );
    assert_eq!(ours, theirs);
    assert_eq!(ours["status"], "done");
    assert_eq!(ours["text"], "The answer is 5.");
    assert_eq!(ours["tool_calls"][0]["output"], "5");
    assert_eq!(ours["usage"]["total_tokens"], 63);
    // Each port asked twice, the same turns.
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4);
    // (The Python port sends the reply's `"content": null` back; this crate leaves it out.)
    assert_eq!(
        no_nulls(&bodies[1]["messages"]),
        no_nulls(&bodies[3]["messages"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_stream_gives_the_same_events() {
    let Some((ours, theirs, _server)) = both("stream").await else {
        return;
    };
    let (ours, theirs) = (
        contract_events(&ours["events"]),
        contract_events(&theirs["events"]),
    );
    assert_eq!(ours, theirs);
    let types: Vec<&str> = ours.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["tool_call", "tool_result", "text", "text", "usage", "done"]
    );
    assert_eq!(ours[0]["args"], json!({"a": 2, "b": 3}));
    assert_eq!(ours[5]["result"]["text"], "The answer is 5.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_give_their_results_in_call_order() {
    let Some((ours, theirs, _server)) = both("concurrent").await else {
        return;
    };
    let (ours, theirs) = (
        contract_events(&ours["events"]),
        contract_events(&theirs["events"]),
    );
    assert_eq!(ours, theirs);
    let calls: Vec<(&str, &str)> = ours
        .iter()
        .filter(|e| e["type"] == "tool_call" || e["type"] == "tool_result")
        .map(|e| (e["type"].as_str().unwrap(), e["id"].as_str().unwrap()))
        .collect();
    // `second` finished first; its result still comes after `first`'s.
    assert_eq!(
        calls,
        [
            ("tool_call", "call_1"),
            ("tool_call", "call_2"),
            ("tool_result", "call_1"),
            ("tool_result", "call_2")
        ]
    );
    assert_eq!(ours[2]["output"], "first hi");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_before_turn_hook_rewrites_the_same_turn() {
    let Some((ours, theirs, server)) = both("rewrite").await else {
        return;
    };
    assert_eq!(
        ours["hooks"], theirs["hooks"],
        "the hooks saw the same turns"
    );
    let bodies = server.bodies();
    let names = |body: &Value| -> Vec<Value> {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].clone())
            .collect()
    };
    for turn in 0..2 {
        let (ours, theirs) = (&bodies[turn], &bodies[turn + 2]);
        // (The Python port sends the reply's `"content": null` back; this crate leaves
        // it out.)
        assert_eq!(
            no_nulls(&ours["messages"]),
            no_nulls(&theirs["messages"]),
            "turn {turn}: the same messages"
        );
        assert_eq!(names(ours), names(theirs), "turn {turn}: the same tools");
        assert_eq!(names(ours), ["add"]);
    }
    assert_eq!(
        bodies[0]["messages"][0]["content"],
        "Answer with digits only."
    );
    assert_eq!(
        contract_result(&ours["result"]),
        contract_result(&theirs["result"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_before_tool_hook_answers_the_same_call() {
    let Some((ours, theirs, _server)) = both("answer").await else {
        return;
    };
    assert_eq!(
        (&ours["runs"], &theirs["runs"]),
        (&json!(0), &json!(0)),
        "add never ran"
    );
    let (ours_result, theirs_result) = (
        contract_result(&ours["result"]),
        contract_result(&theirs["result"]),
    );
    assert_eq!(ours_result, theirs_result);
    assert_eq!(ours_result["tool_calls"][0]["output"], "cached: 5");
    assert_eq!(ours["hooks"], theirs["hooks"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_before_turn_hook_aborts_the_same_run() {
    let Some((ours, theirs, server)) = both("abort").await else {
        return;
    };
    // Each port asked once: the second turn was never sent.
    assert_eq!(server.requests().len(), 2);
    // The Python port raises what the hook raised; this crate stops the run with it.
    assert_eq!(theirs["error"], "budget spent");
    let result = &ours["result"];
    assert_eq!(result["status"], "incomplete");
    assert_eq!(result["limit"], "aborted");
    assert_eq!(
        result["reason"],
        json!({"kind": "aborted", "reason": "budget spent"})
    );
    assert_eq!((&ours["runs"], &theirs["runs"]), (&json!(1), &json!(1)));
    assert_eq!(ours["hooks"], theirs["hooks"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_after_turn_hook_sees_the_same_raw_response() {
    let Some((ours, theirs, _server)) = both("raw").await else {
        return;
    };
    let after = |out: &Value| -> Vec<Value> {
        out["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["hook"] == "after")
            .cloned()
            .collect()
    };
    assert_eq!(after(&ours), after(&theirs));
    assert_eq!(after(&ours).len(), 2);
    assert_eq!(after(&ours)[1]["response"]["usage"]["total_tokens"], 36);
}

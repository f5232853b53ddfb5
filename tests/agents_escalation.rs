//! A grandchild's suspension reaches a person through every surface the crate serves: an
//! agent tree (`lead` → `child` → `grandchild`, `Agent::into_tool`) is one tool, served
//! on 127.0.0.1 by `toolnexus::ui::ag_ui` (inside a chat client), by `McpServer` and by
//! `A2aServer`. The grandchild's `deploy` waits for an approval, which reaches the client
//! with the grandchild's path: an AG-UI interrupt, MCP `input_required` (judged by the
//! official Python MCP SDK, in both its 2026-07-28 and legacy modes), A2A `input-required`
//! (judged by the official A2A Python SDK). The answer resumes the grandchild alone: it
//! finishes its halted turn (its settled `note` is not run again), each ancestor
//! reattaches, and the client gets the tree's answer.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::a2a::A2aServer;
use toolnexus::agents::{Agent, TASK_TOOL};
use toolnexus::mcp::McpServer;
use toolnexus::model::FnModel;
use toolnexus::{Client, Message, Reply, Tool, ToolResult, Toolkit};

#[path = "support/a2a.rs"]
mod a2a;
#[path = "support/agent_tree.rs"]
mod agent_tree;
#[path = "support/raw_http.rs"]
mod raw_http;

type Log = Arc<Mutex<Vec<String>>>;

/// [`agent_tree::scripted`], its turns logged.
fn model(agent: &'static str, calls: Vec<(&'static str, Value)>, log: Log) -> FnModel {
    agent_tree::scripted(agent, calls, move |line| log.lock().unwrap().push(line))
}

fn effect(name: &'static str, log: Log) -> Tool {
    Tool::new_sync(
        name,
        format!("Does {name}."),
        json!({"type": "object"}),
        move |_, _| {
            log.lock().unwrap().push(name.to_owned());
            ToolResult::ok(format!("{name} ok"))
        },
    )
}

fn tree(log: &Log) -> Agent {
    let task = |agent: &str| json!({"agent": agent, "prompt": format!("over to {agent}")});
    let grandchild = Agent::new("grandchild")
        .does("Notes, then deploys.")
        .tool(effect("note", Arc::clone(log)))
        .tool(effect("deploy", Arc::clone(log)).with_approval())
        .model(model(
            "grandchild",
            vec![("note", json!({})), ("deploy", json!({}))],
            Arc::clone(log),
        ));
    let child = Agent::new("child")
        .does("Delegates to the grandchild.")
        .team([grandchild])
        .model(model(
            "child",
            vec![(TASK_TOOL, task("grandchild"))],
            Arc::clone(log),
        ));
    Agent::new("lead")
        .does("Ships the release.")
        .team([child])
        .model(model(
            "lead",
            vec![(TASK_TOOL, task("child"))],
            Arc::clone(log),
        ))
}

/// The chat's own model: call the `lead` tool, then say what it answered.
fn chat_model() -> FnModel {
    FnModel::new_sync(|transcript, _| {
        Ok(
            match transcript.iter().rev().find_map(|m| match m {
                Message::Tool { .. } => Some(m.text().unwrap_or_default().to_owned()),
                _ => None,
            }) {
                Some(answer) => Reply::text(format!("chat: {answer}")),
                None => Reply::call("chat_call_0", "lead", r#"{"prompt":"ship it"}"#),
            },
        )
    })
}

async fn post(addr: SocketAddr, body: Value) -> Vec<Value> {
    let body = body.to_string();
    let reply = raw_http::exchange(
        addr,
        format!(
            "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: \
             text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
    .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(
        reply
            .head
            .to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{reply:?}"
    );
    reply
        .body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect()
}

fn finished(events: &[Value]) -> &Value {
    events
        .iter()
        .find(|e| e["type"] == "RUN_FINISHED")
        .unwrap_or_else(|| panic!("no RUN_FINISHED in {events:#?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grandchilds_approval_reaches_the_ag_ui_stream_with_its_path_and_resumes_it_alone() {
    let log: Log = Arc::default();
    let router = toolnexus::ui::ag_ui(
        Client::new(chat_model()),
        Toolkit::new().with(tree_tool(&log)),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let input = |run: &str, resume: Value| {
        json!({"threadId": "t1", "runId": run, "state": {}, "tools": [], "context": [],
            "forwardedProps": {}, "resume": resume,
            "messages": [{"id": "m1", "role": "user", "content": "Ship the release."}]})
    };

    let events = post(addr, input("r1", Value::Null)).await;
    let outcome = &finished(&events)["outcome"];
    assert_eq!(outcome["type"], "interrupt", "{outcome}");
    let interrupt = &outcome["interrupts"][0];
    assert_eq!(interrupt["reason"], "approval", "{interrupt}");
    assert_eq!(
        interrupt["metadata"]["request"]["data"]["path"],
        json!(PATH),
        "the person sees which agent asks: {interrupt}"
    );
    assert_eq!(
        interrupt["metadata"]["request"]["data"]["tool"], "deploy",
        "{interrupt}"
    );
    assert_eq!(*log.lock().unwrap(), BEFORE);

    let id = interrupt["id"].as_str().expect("an interrupt id");
    let events = post(
        addr,
        input("r2", json!([{"interruptId": id, "status": "resolved"}])),
    )
    .await;
    assert_eq!(
        finished(&events)["outcome"]["type"],
        "success",
        "{events:#?}"
    );
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .filter_map(|e| e["delta"].as_str())
        .collect();
    assert_eq!(text, "chat: lead done", "{events:#?}");
    assert_resumed_alone(&log);
    server.abort();
}

/// What ran before the approval: each agent's first turn down to the grandchild, whose
/// `note` ran before it asked.
const BEFORE: [&str; 5] = [
    "turn lead 0",
    "turn child 0",
    "turn grandchild 0",
    "note",
    "turn grandchild 1",
];

/// Only the grandchild's halted turn went on below the answer: its note was not run
/// again, the deploy ran once, and no agent started over.
fn assert_resumed_alone(log: &Log) {
    let after = log.lock().unwrap().clone();
    assert_eq!(after[..BEFORE.len()], BEFORE, "{after:?}");
    assert_eq!(
        after[BEFORE.len()..],
        ["deploy", "turn grandchild 2", "turn child 1", "turn lead 1"],
        "{after:?}"
    );
}

/// The tree as one tool (the model `into_tool` takes is the one no agent here uses).
fn tree_tool(log: &Log) -> Tool {
    tree(log).into_tool(FnModel::new_sync(|_, _| Ok(Reply::text("unused"))))
}

const PATH: [&str; 4] = ["root", "lead.1", "child.1", "grandchild.1"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grandchilds_approval_reaches_an_mcp_client_as_input_required_and_resumes_it_alone() {
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/agents_escalation/mcp_client.py");
    for (mode, protocol) in [("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")] {
        let log: Log = Arc::default();
        let http = McpServer::new(Toolkit::new().with(tree_tool(&log)))
            .serve_http("127.0.0.1:0")
            .await
            .unwrap();
        let mut command = std::process::Command::new(&python);
        command.arg(&script).args([mode, &http.url()]);
        let out = tokio::task::spawn_blocking(move || a2a::json_of(command))
            .await
            .unwrap();
        assert_eq!(out["protocol"], protocol, "{out}");
        assert_eq!(
            (out["text"].as_str(), out["isError"].as_bool()),
            (Some("lead done"), Some(false)),
            "{mode}: {out}"
        );
        let asked = out["elicitations"].as_array().unwrap();
        assert_eq!(asked.len(), 1, "one approval, asked once ({mode}): {out}");
        let request = &asked[0]["_meta"]["toolnexus/pending"];
        assert_eq!(request["kind"], "approval", "{mode}: {out}");
        assert_eq!(request["data"]["path"], json!(PATH), "{mode}: {out}");
        assert_eq!(request["data"]["tool"], "deploy", "{mode}: {out}");
        assert_resumed_alone(&log);
        http.shutdown().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grandchilds_approval_reaches_an_a2a_client_as_input_required_and_resumes_it_alone() {
    let log: Log = Arc::default();
    let served = A2aServer::new(
        Client::new(chat_model()),
        Toolkit::new().with(tree_tool(&log)),
    )
    .serve("127.0.0.1:0")
    .await
    .unwrap();
    let mut command = std::process::Command::new(a2a::sdk_python());
    command
        .arg(a2a::root().join("tests/a2a/py_client.py"))
        .args([
            served.url().as_str(),
            "Ship the release.",
            "yes",
            "--polling",
        ]);
    let out = tokio::task::spawn_blocking(move || a2a::json_of(command))
        .await
        .unwrap();
    assert_eq!(out["asked_state"], "TASK_STATE_INPUT_REQUIRED", "{out}");
    let request = &out["asked_request"];
    assert_eq!(request["kind"], "approval", "{out}");
    assert_eq!(request["data"]["path"], json!(PATH), "{out}");
    assert_eq!(request["data"]["tool"], "deploy", "{out}");
    assert_eq!(out["final_state"], "TASK_STATE_COMPLETED", "{out}");
    assert_eq!(out["answer"], "chat: lead done", "{out}");
    assert_resumed_alone(&log);
    served.shutdown().await.unwrap();
}

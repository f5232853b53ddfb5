//! A sub-agent served by `McpServer` (tests/agents/server.rs) and called by the official
//! Python MCP SDK 2.3 client (tests/agents/client.py), over stdio and streamable HTTP: the
//! approval its deepest tool asks reaches the client as the protocol's own suspension,
//! and the answer resumes the agents where they stopped. The servers bind 127.0.0.1 and
//! are killed by their test.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use super::example::{Listening, example};
use super::stack::PROMPT;

/// Hang protection only: no assertion depends on how long anything takes.
const PATIENCE: Duration = Duration::from_secs(60);

const KEY: &str = "sub-agents-share-this-secret-of-40-bytes";

/// A fresh, empty side-effect log for one server.
fn log_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "toolnexus-agents-mcp-{}-{name}.log",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

fn effects(log: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

/// An HTTP server the test owns, killed (SIGKILL) when dropped.
fn serve_http(log: &Path) -> Listening {
    let log = log.to_str().unwrap();
    Listening::start_with(
        "agents_server",
        &["--http", "127.0.0.1:0"],
        &[("AGENTS_LOG", log), ("AGENTS_KEY", KEY)],
    )
}

/// Runs the Python client with `args`, bounded in time, and reads its JSON report.
async fn drive(args: &[&str], log: &Path) -> Value {
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/client.py");
    let mut command = tokio::process::Command::new(python);
    command
        .arg(script)
        .args(args)
        .env("AGENTS_LOG", log)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(PATIENCE, command.output())
        .await
        .expect("the Python client finishes")
        .expect("the Python client runs (TOOLNEXUS_PYTHON with mcp==2.3.0)");
    assert!(
        output.status.success(),
        "the Python client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a JSON report ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The client saw one approval, with the deepest tool's prompt and none of the agents'
/// state; the call finished with `text`.
fn assert_round_trip(report: &Value, protocol: &str, text: &str) {
    assert_eq!(report["protocol"], protocol, "{report:#}");
    assert_eq!(report["result"]["text"], text, "{report:#}");
    let asked = report["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{report:#}");
    assert_eq!(asked[0]["message"], PROMPT);
    assert_eq!(
        asked[0]["requestedSchema"]["properties"],
        serde_json::json!({})
    );
    let pending = &asked[0]["_meta"]["toolnexus/pending"];
    assert_eq!(pending["kind"], "approval", "{report:#}");
    assert_eq!(
        pending.get("data"),
        None,
        "the agents' state stays on the server"
    );
}

const APPROVED: &str = "platform[v2; ops[deployed v2]]";

fn declined() -> String {
    format!("platform[v2; ops[declined/expired: {PROMPT}]]")
}

#[tokio::test]
async fn the_python_sdk_answers_a_sub_agents_approval_over_stdio_in_both_eras() {
    let server = example("agents_server");
    let server = server.to_str().unwrap();
    for (mode, protocol) in [("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")] {
        let log = log_path(&format!("stdio-{mode}"));
        let report = drive(&["complete", mode, "accept", "stdio", server], &log).await;
        assert_round_trip(&report, protocol, APPROVED);
        // Each tool ran once, two agents down, across the call and its retry.
        assert_eq!(effects(&log), ["deploy", "lookup"], "{mode}");
    }
}

#[tokio::test]
async fn the_python_sdk_answers_a_sub_agents_approval_over_streamable_http() {
    let log = log_path("http-accept");
    let served = serve_http(&log);
    let report = drive(
        &["complete", "2026-07-28", "accept", "http", &served.url],
        &log,
    )
    .await;
    assert_round_trip(&report, "2026-07-28", APPROVED);
    assert_eq!(effects(&log), ["deploy", "lookup"]);

    // A decline goes down to the deepest model, which reads it; `deploy` never runs.
    let log = log_path("http-decline");
    let served = serve_http(&log);
    let report = drive(
        &["complete", "2026-07-28", "decline", "http", &served.url],
        &log,
    )
    .await;
    assert_round_trip(&report, "2026-07-28", &declined());
    assert_eq!(effects(&log), ["lookup"]);
}

#[tokio::test]
async fn a_sub_agents_sealed_state_can_be_neither_read_nor_forged() {
    let log = log_path("tamper");
    let served = serve_http(&log);
    let report = drive(&["tamper", &served.url], &log).await;

    // What the client holds says nothing of the agents' runs.
    let request = serde_json::to_string(&report["request"]).unwrap();
    assert!(!request.contains("toolnexus.agent"), "{request}");
    assert!(!request.contains("lookup"), "{request}");
    let state = report["state"].as_str().unwrap();
    assert!(state.starts_with("tn1."), "{state}");
    let sealed = report["stateBytes"].as_str().unwrap();
    for plain in ["lookup", "platform", "transcript", "toolnexus"] {
        assert!(!sealed.contains(plain), "`{plain}` readable in the state");
    }

    // Both refused with the one fixed error (the server's log says which was which).
    for case in ["flipped", "other_arguments"] {
        let error = &report[case]["error"];
        assert_eq!(error["code"], -32602, "{case}: {report:#}");
        assert_eq!(error["data"]["reason"], "invalid_request_state", "{case}");
        assert_eq!(error["data"].get("detail"), None, "{case}");
    }
    // The forged retries ran nothing; the true one resumed both agents, `lookup` not again.
    assert_eq!(report["approved"]["text"], APPROVED, "{report:#}");
    assert_eq!(effects(&log), ["deploy", "lookup"]);
}

/// A client that can take no suspension form gets the pending result: the deepest
/// request, without the agents' state (which stays on the server).
#[tokio::test]
async fn the_fallback_pending_result_shows_no_agent_state() {
    use toolnexus::Toolkit;
    use toolnexus::mcp::{PENDING_META_KEY, call_tool_result};

    let effects = super::stack::Effects::default();
    let platform = super::stack::platform(&effects);
    let result = Toolkit::new()
        .with(platform)
        .execute_json(
            "platform",
            r#"{"prompt": "ship v2"}"#,
            toolnexus::Context::new(),
        )
        .await;
    let carried = result.pending_request().expect("pending");
    // The state rides in the request (in its wire form, inside `data`); its own `data`
    // is the asking tool's (an approval's: none).
    let wire = serde_json::to_value(&carried).unwrap();
    assert!(
        wire["data"].get("toolnexus.agent").is_some(),
        "the loop's request carries the state: {wire}"
    );
    assert_eq!(carried.data, None);
    let mapped = serde_json::to_value(call_tool_result("platform", result)).unwrap();
    let pending = &mapped["_meta"][PENDING_META_KEY];
    assert_eq!(pending["id"], super::stack::APPROVAL, "{mapped:#}");
    assert_eq!(pending["prompt"], PROMPT);
    assert_eq!(pending.get("data"), None, "{mapped:#}");
}

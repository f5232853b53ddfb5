//! A tool talks back while it runs ([`Context::progress`], [`Context::log`],
//! [`Context::sample`]): in the loop its reports become run events, its sampling requests
//! go to the client's own model; from a remote tool (the conformance example, a child
//! process, reached through `McpClient` over streamable HTTP) they reach the local run's
//! events the same way. The official Python SDK (`$TOOLNEXUS_PYTHON`, `mcp==2.3.0`) checks
//! that `logging/setLevel` filters what the server sends and that progress reaches it;
//! the conformance suite (tests/mcp_server_conformance.rs) judges the rest over MCP.

use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use toolnexus::mcp::McpClient;
use toolnexus::tool::{LogLevel, SamplingError};
use toolnexus::{Client, Context, Event, Reply, ScriptedModel, Tool, ToolResult, Toolkit, tool};

#[path = "support/example.rs"]
mod example;
use example::Listening;

/// What a listener saw, as text, in order.
fn recorder() -> (
    Arc<Mutex<Vec<String>>>,
    impl Fn(&Event<'_>) + Send + Sync + 'static,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let listener = move |event: &Event<'_>| {
        let line = match event {
            Event::ToolCallStarted { call, .. } => format!("start {}", call.id),
            Event::ToolCallFinished { call, .. } => format!("finish {}", call.id),
            Event::Progress {
                call_id,
                done,
                total,
                message,
            } => format!(
                "progress {call_id} {done}/{} {}",
                total.unwrap_or(-1.0),
                message.as_deref().unwrap_or("-")
            ),
            Event::Log {
                call_id,
                level,
                message,
            } => format!("log {call_id} {level} {message}"),
            _ => return,
        };
        sink.lock().unwrap().push(line);
    };
    (seen, listener)
}

/// Crunches three chunks, reporting each.
#[tool]
async fn crunch(ctx: &Context) -> Result<&'static str, std::convert::Infallible> {
    for chunk in 1..=3 {
        tokio::task::yield_now().await;
        ctx.progress(chunk, 3.0, "chunk");
    }
    ctx.log(LogLevel::Warning, "crunched");
    Ok("crunched 3")
}

#[tokio::test]
async fn a_local_tools_progress_and_log_lines_are_run_events_between_its_start_and_finish() {
    let (seen, listener) = recorder();
    let model = ScriptedModel::new([Reply::call("c1", "crunch", "{}"), Reply::text("done")]);
    let client = Client::new(model).on_event(listener);
    let run = client
        .run("crunch", &Toolkit::new().with(crunch::tool()))
        .await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "start c1",
            "progress c1 1/3 chunk",
            "progress c1 2/3 chunk",
            "progress c1 3/3 chunk",
            "log c1 warning crunched",
            "finish c1",
        ]
    );
}

/// Asks the caller's model.
#[tool]
async fn ask_model(question: String, ctx: &Context) -> Result<String, SamplingError> {
    let reply = ctx.sample(question).await?;
    Ok(format!("the model says {}", reply.text))
}

#[tokio::test]
async fn sampling_in_the_loop_is_answered_by_the_clients_own_model_without_tools() {
    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "ask_model", r#"{"question": "2 + 2?"}"#),
        Reply::text("4"),
        Reply::text("It is 4."),
    ]));
    let client = Client::new(Arc::clone(&model));
    let run = client
        .run("add", &Toolkit::new().with(ask_model::tool()))
        .await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.tool_calls[0].result.output, "the model says 4");
    assert_eq!(run.text, "It is 4.");
    // The sampling turn saw the tool's question alone, not the run's transcript.
    let asked = &model.transcripts()[1];
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].text(), Some("2 + 2?"));
}

#[tokio::test]
async fn without_a_caller_reports_are_dropped_and_sampling_is_unsupported() {
    let ctx = Context::new();
    ctx.progress(1, None, None);
    ctx.log(LogLevel::Info, "nobody hears this");
    let error = ctx.sample("hello?").await.unwrap_err();
    assert!(matches!(error, SamplingError::Unsupported(_)), "{error}");
    // Through a toolkit, the same: the tool finishes, its reports go nowhere.
    let result = Toolkit::new()
        .with(crunch::tool())
        .execute("crunch", json!({}), Context::new())
        .await;
    assert_eq!(result, ToolResult::ok("crunched 3"));
}

#[tokio::test]
async fn a_hand_written_tool_reports_through_the_same_context() {
    let tool = Tool::new(
        "slow",
        "Reports twice.",
        json!({"type": "object"}),
        |_, ctx| async move {
            ctx.progress(0.5, 1.0, None);
            ctx.progress(1, 1.0, "all");
            ToolResult::ok("ok")
        },
    );
    let (seen, listener) = recorder();
    let model = ScriptedModel::new([Reply::call("h", "slow", "{}"), Reply::text("done")]);
    let run = Client::new(model)
        .on_event(listener)
        .run("go", &Toolkit::new().with(tool))
        .await;
    assert!(run.is_done());
    let seen = seen.lock().unwrap();
    assert_eq!(seen[1..3], ["progress h 0.5/1 -", "progress h 1/1 all"]);
}

#[tokio::test]
async fn a_remote_tools_progress_and_log_lines_reach_the_local_runs_events() {
    let server = Listening::start("conformance_server", &["127.0.0.1:0"]);
    let remote = tokio::time::timeout(Duration::from_secs(20), McpClient::connect(&server.url))
        .await
        .expect("connected in time")
        .expect("connected");
    let toolkit: Toolkit = remote.tools().await.unwrap().into_iter().collect();
    let (seen, listener) = recorder();
    let model = ScriptedModel::new([
        Reply::call("p", "test_tool_with_progress", "{}"),
        Reply::call("l", "test_tool_with_logging", "{}"),
        Reply::text("done"),
    ]);
    let run = tokio::time::timeout(
        Duration::from_secs(30),
        Client::new(model).on_event(listener).run("go", &toolkit),
    )
    .await
    .expect("the run ends in time");
    assert!(run.is_done(), "{run:?}");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "start p",
            "progress p 0/100 starting",
            "progress p 50/100 halfway",
            "progress p 100/100 done",
            "finish p",
            "start l",
            "log l info Tool execution started",
            "log l info Tool processing data",
            "log l info Tool execution completed",
            "finish l",
        ]
    );
    remote.close().await;
}

#[test]
fn the_python_sdk_gets_log_lines_at_the_level_it_set_and_every_progress_report() {
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| {
        panic!(
            "TOOLNEXUS_PYTHON is not set: this test drives the official Python MCP SDK and \
             does not skip; `bash .ci/test` sets it up (target/py-venv, mcp==2.3.0)"
        )
    });
    let server = Listening::start("conformance_server", &["127.0.0.1:0"]);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client/talk_back.py");
    let mut child = Command::new(python)
        .args([script, &server.url])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client runs");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the Python client did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the client failed:\n{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    // This SDK negotiates 2025-11-25, which still has logging.
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_eq!(
        report["logsAtWarning"],
        json!([]),
        "info lines under `warning`: {report}"
    );
    assert_eq!(
        report["logsAtDebug"],
        json!([
            {"level": "info", "data": "Tool execution started"},
            {"level": "info", "data": "Tool processing data"},
            {"level": "info", "data": "Tool execution completed"}
        ]),
        "{report}"
    );
    assert_eq!(
        report["progress"],
        json!([
            [0.0, 100.0, "starting"],
            [50.0, 100.0, "halfway"],
            [100.0, 100.0, "done"]
        ]),
        "{report}"
    );
}

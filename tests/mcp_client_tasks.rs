//! `McpClient` follows tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663):
//! a `tools/call` answered with `resultType: "task"` is polled with `tasks/get` to its
//! end; a task's `input_required` becomes a suspension answered with `tasks/update`; a
//! run that stops following sends `tasks/cancel`; a halted run resumes the same task.
//!
//! Proven against a plain rmcp 3.11 server with its own task support
//! (`tests/task_client/rmcp_server.rs`, nothing of toolnexus), started as a child process on
//! 127.0.0.1 and killed by the test. It journals what it was asked, so every case checks
//! the wire too: how many `tools/call`s, which `tasks/update` and `tasks/cancel`.
//!
//! The official SDKs' servers: the TypeScript SDK 1.32 makes tasks in the 2025-11-25 form
//! only for a call that asks (`tests/task_client/ts_task_server.cjs`); the TypeScript
//! `@modelcontextprotocol/server` 2.4 and the Python SDK 2.3 make none.

#[path = "support/example.rs"]
mod example;
#[path = "support/mcp_peer.rs"]
mod mcp_peer;
#[path = "support/node.rs"]
mod node;

use std::time::Duration;

use example::Listening;
use mcp_peer::{PATIENCE, one_call, root};
use node::node_command;
use serde_json::json;
use toolnexus::dispatch::resume;
use toolnexus::mcp::McpClient;
use toolnexus::tool::CancellationToken;
use toolnexus::{Client, Context, Request, RunStatus, Toolkit};

/// The task server, polled every 20 ms (clamped to the client's 50 ms floor).
fn server() -> Listening {
    Listening::start("rmcp_task_server", &["20"])
}

async fn connect(server: &Listening, timeout: Duration) -> (McpClient, Toolkit) {
    let client = McpClient::http(&server.url)
        .timeout(timeout)
        .connect()
        .await
        .expect("the task server is reachable");
    let toolkit = client
        .tools()
        .await
        .expect("tools/list")
        .into_iter()
        .collect();
    (client, toolkit)
}

async fn call(
    toolkit: &Toolkit,
    name: &str,
    args: serde_json::Value,
    ctx: Context,
) -> toolnexus::ToolResult {
    tokio::time::timeout(PATIENCE, toolkit.execute(name, args, ctx))
        .await
        .expect("the call ends")
}

async fn journal(toolkit: &Toolkit) -> Vec<String> {
    let result = call(toolkit, "journal", json!({}), Context::new()).await;
    result.output.lines().map(str::to_owned).collect()
}

/// The journal once it has a line starting with `prefix` (asked again for a while: a
/// cancel sent as a call's future is dropped arrives a moment later).
async fn journal_with(toolkit: &Toolkit, prefix: &str) -> Vec<String> {
    for _ in 0..100 {
        let lines = journal(toolkit).await;
        if lines.iter().any(|line| line.starts_with(prefix)) {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "the server never heard `{prefix}`: {:?}",
        journal(toolkit).await
    );
}

fn gets(lines: &[String]) -> usize {
    lines
        .iter()
        .find_map(|line| line.strip_prefix("gets ")?.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_task_that_completes_gives_its_result_and_one_that_fails_an_error() {
    let server = server();
    let (_client, toolkit) = connect(&server, Duration::from_secs(30)).await;

    let built = call(&toolkit, "build", json!({"ms": 300}), Context::new()).await;
    assert_eq!(
        (built.output.as_str(), built.is_error),
        ("built in 300ms", false)
    );
    let lines = journal(&toolkit).await;
    assert_eq!(lines[0], "call build -> task-1");
    assert!(gets(&lines) >= 2, "polled until it ended: {lines:?}");

    let failed = call(&toolkit, "explode", json!({}), Context::new()).await;
    assert!(failed.is_error);
    assert!(
        failed.output.contains("task-2")
            && failed
                .output
                .contains("failed: the disk is full (JSON-RPC error -32603)"),
        "{}",
        failed.output
    );
    // Neither ended task was cancelled.
    assert!(
        !journal(&toolkit)
            .await
            .iter()
            .any(|l| l.starts_with("cancel"))
    );
}

#[tokio::test]
async fn cancelling_the_run_and_the_call_timeout_cancel_the_task_on_the_server() {
    let server = server();
    let (_client, toolkit) = connect(&server, Duration::from_millis(700)).await;

    // The call timeout bounds the polling: the task is cancelled, and the model reads why.
    let timed_out = call(&toolkit, "forever", json!({}), Context::new()).await;
    assert!(timed_out.is_error);
    assert!(
        timed_out.output.contains("did not end within 700ms")
            && timed_out.output.contains("cancelled on the server"),
        "{}",
        timed_out.output
    );
    journal_with(&toolkit, "cancel task-1").await;

    // The run's cancellation token, cancelled while the task runs.
    let token = CancellationToken::new();
    let ctx = Context::new().with_cancellation(token.clone());
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel();
    };
    let (cancelled, ()) = tokio::join!(call(&toolkit, "forever", json!({}), ctx), cancel);
    assert!(cancelled.is_error, "{cancelled:?}");
    assert!(
        cancelled.output.contains("cancelled"),
        "{}",
        cancelled.output
    );
    let lines = journal_with(&toolkit, "cancel task-2").await;
    assert_eq!(lines.iter().filter(|l| l.starts_with("call")).count(), 2);
}

#[tokio::test]
async fn input_mid_task_is_a_suspension_answered_with_tasks_update() {
    let server = server();
    let (_client, toolkit) = connect(&server, Duration::from_secs(30)).await;

    let asked = call(&toolkit, "deploy", json!({}), Context::new()).await;
    let request = asked.pending_request().expect("a pending request");
    assert_eq!(
        (request.kind.as_str(), request.prompt.as_str()),
        ("input", "Which environment?")
    );
    let schema = &request.data.as_ref().unwrap()["schema"];
    assert_eq!(schema["properties"]["env"]["type"], "string");

    // The loop, answering as a human would: the answer goes to the same task.
    let human = Client::new(one_call("deploy", json!({})))
        .wait_for(|request| async move { request.answer("prod") });
    let run = tokio::time::timeout(PATIENCE, human.run("go", &toolkit))
        .await
        .expect("the run ends");
    assert_eq!(run.tool_calls[0].result.output, "deployed to prod");
    let lines = journal(&toolkit).await;
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("call deploy"))
            .count(),
        2,
        "one call each, never one again for the answer: {lines:?}"
    );
    assert!(
        lines.contains(&"update task-2 env-1=accept".to_owned()),
        "{lines:?}"
    );

    // A declined answer is sent as `decline`, and the task ends accordingly.
    let declined = call(
        &toolkit,
        "deploy",
        json!({}),
        Context::new().with_answer(request.decline("declined")),
    )
    .await;
    assert_eq!(declined.output, "deploy declined");
    assert!(
        journal(&toolkit)
            .await
            .contains(&"update task-1 env-1=decline".to_owned())
    );
}

#[tokio::test]
async fn a_halted_run_resumed_by_another_client_picks_up_the_same_task() {
    let server = server();
    let (client, toolkit) = connect(&server, Duration::from_secs(30)).await;
    let halted = Client::new(one_call("deploy", json!({})))
        .run("go", &toolkit)
        .await;
    assert_eq!(halted.status, RunStatus::Pending);
    let transcript = serde_json::to_string(&halted.messages).unwrap();
    let request = serde_json::to_string(&halted.pending.clone().unwrap()).unwrap();
    drop((halted, toolkit));
    client.close().await;

    // A new client (a new process would do the same): only the JSON travels.
    let (_again, toolkit) = connect(&server, Duration::from_secs(30)).await;
    let request: Request = serde_json::from_str(&request).unwrap();
    let transcript: Vec<toolnexus::Message> = serde_json::from_str(&transcript).unwrap();
    let resumed = resume(transcript, request.answer("staging"), &toolkit)
        .await
        .unwrap();
    assert_eq!(resumed.calls[0].result.output, "deployed to staging");
    let lines = journal(&toolkit).await;
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("call")).count(),
        1,
        "the tool was not called again: {lines:?}"
    );
    assert!(
        lines.contains(&"update task-1 env-1=accept".to_owned()),
        "{lines:?}"
    );

    // The task id is bound to the server it came from: another server never hears it.
    let other = self::server();
    let (_elsewhere, toolkit) = connect(&other, Duration::from_secs(30)).await;
    let refused = call(
        &toolkit,
        "deploy",
        json!({}),
        Context::new().with_answer(request.answer("prod")),
    )
    .await;
    assert!(refused.is_error);
    assert!(
        refused.output.contains("the answer was not sent"),
        "{}",
        refused.output
    );
    assert!(
        !journal(&toolkit)
            .await
            .iter()
            .any(|l| l.starts_with("update"))
    );
}

#[tokio::test]
async fn a_server_gone_mid_poll_ends_the_call_with_an_error_saying_so() {
    let server = server();
    let (_client, toolkit) = connect(&server, Duration::from_secs(30)).await;
    let gone = call(&toolkit, "crash", json!({}), Context::new()).await;
    assert!(gone.is_error);
    assert!(gone.output.contains("task-1"), "{}", gone.output);
    assert!(
        gone.output
            .contains("closed while its task task-1 was running"),
        "{}",
        gone.output
    );
}

/// The official TypeScript SDK 1.32 makes tasks in the 2025-11-25 form only when a call
/// asks for one (`params.task`), which McpClient does not: a tool whose task is optional
/// is answered synchronously, one whose task is required is refused with a readable error.
#[tokio::test]
async fn a_typescript_sdk_task_tool_answers_synchronously_when_its_task_is_optional() {
    let mut command = node_command(root().join("tests/task_client/ts_task_server.cjs"));
    let program = command.get_program().to_owned();
    let args: Vec<_> = command.get_args().map(|a| a.to_owned()).collect();
    let modules = std::env::var("TOOLNEXUS_NODE_MODULES").unwrap_or_default();
    command.env_clear();
    let client = McpClient::stdio(program, args)
        .env("NODE_PATH", modules)
        .quiet()
        .connect()
        .await
        .expect("the TypeScript server starts");
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let baked = call(&toolkit, "bake", json!({"ms": 100}), Context::new()).await;
    assert_eq!(
        (baked.output.as_str(), baked.is_error),
        ("baked for 100ms", false)
    );
    let strict = call(&toolkit, "bake_strict", json!({"ms": 100}), Context::new()).await;
    assert!(strict.is_error);
    assert!(
        strict.output.contains("requires task augmentation"),
        "{}",
        strict.output
    );
    client.close().await;
}

/// With `latest_protocol()` (MCP 2026-07-28 when the server offers it, where the client's
/// capabilities travel in every request's `_meta`), a task is followed the same way.
#[tokio::test]
async fn on_2026_07_28_the_extension_travels_with_each_request() {
    let server = server();
    let client = McpClient::http(&server.url)
        .latest_protocol()
        .connect()
        .await
        .expect("the task server is reachable");
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let built = call(&toolkit, "build", json!({"ms": 100}), Context::new()).await;
    assert_eq!(
        (built.output.as_str(), built.is_error),
        ("built in 100ms", false)
    );
}

//! A task round trip (create, poll, result) against a plain synchronous call of the same
//! tool, both through rmcp's client to this crate's server, in one run. See
//! `BENCHMARKS.md`.
//!
//! ```text
//! cargo bench --bench tasks -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! - `tasks/sync_call`: `tools/call` of `work` from a client without the tasks
//!   extension: one request, the result in the reply;
//! - `tasks/task_round_trip`: the same call from a client that declares the extension:
//!   `tools/call` answered with a task, then `tasks/get` until it is `completed` (polled
//!   back to back, not at the suggested interval, to measure the protocol's own cost),
//!   its result read from the task.
//!
//! Server and clients share one current-thread Tokio runtime, connected by in-memory
//! pipes (newline-delimited JSON-RPC, as over stdio); the tasks live in memory.

#![allow(missing_docs)]

use std::hint::black_box;

use criterion::Criterion;
use serde_json::json;
use toolnexus::mcp::McpServer;
use toolnexus::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
    Implementation, TaskPayload,
};
use toolnexus::mcp::rmcp::serve_client;
use toolnexus::mcp::rmcp::service::{RoleClient, RunningService};
use toolnexus::{Tool, ToolResult, Toolkit};

fn toolkit() -> Toolkit {
    let work = Tool::new_sync(
        "work",
        "Does a little work.",
        json!({"type": "object"}),
        |args, _| ToolResult::ok(format!("done {}", args["n"])),
    )
    .with_task();
    Toolkit::new().with(work)
}

type Client = RunningService<RoleClient, ClientConfig>;

async fn connect(capabilities: ClientCapabilities) -> Client {
    let (client_side, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    tokio::spawn(McpServer::new(toolkit()).serve_io(server_read, server_write));
    let info = ClientConfig::new(capabilities, Implementation::new("bench", "0"));
    serve_client(info, tokio::io::split(client_side))
        .await
        .expect("the client connects")
}

fn params() -> CallToolRequestParams {
    CallToolRequestParams::new("work")
        .with_arguments(json!({"n": 1}).as_object().cloned().unwrap_or_default())
}

async fn sync_call(client: &Client) -> String {
    match client.call_tool_once(params()).await.expect("tools/call") {
        CallToolResponse::Complete(result) => format!("{:?}", result.content),
        other => panic!("not a plain result: {other:?}"),
    }
}

async fn task_round_trip(client: &Client) -> String {
    let task = match client.call_tool_once(params()).await.expect("tools/call") {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("not a task: {other:?}"),
    };
    loop {
        let got = client
            .get_task(GetTaskParams::new(task.clone()))
            .await
            .expect("tasks/get");
        match got.task.payload {
            TaskPayload::Completed { result } => return format!("{:?}", result["content"]),
            TaskPayload::Working => tokio::task::yield_now().await,
            other => panic!("the task did not complete: {other:?}"),
        }
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let plain = rt.block_on(connect(ClientCapabilities::default()));
    let tasking = rt.block_on(connect(
        ClientCapabilities::builder().enable_tasks().build(),
    ));
    // Both give the same answer before anything is measured.
    let (a, b) = rt.block_on(async { (sync_call(&plain).await, task_round_trip(&tasking).await) });
    assert!(a.contains("done 1") && b.contains("done 1"), "{a} / {b}");

    let mut group = c.benchmark_group("tasks");
    group.bench_function("sync_call", |bench| {
        bench.iter(|| black_box(rt.block_on(sync_call(&plain))))
    });
    group.bench_function("task_round_trip", |bench| {
        bench.iter(|| black_box(rt.block_on(task_round_trip(&tasking))))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}

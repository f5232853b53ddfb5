//! A server whose long-running tools run as MCP tasks, for the task tests
//! (`tests/mcp_tasks.rs`) and the task bench.
//!
//! ```text
//! cargo run -p toolnexus-suite --example task_server -- NAME ADDR STORE [stateless]
//! ```
//!
//! `STORE` is `memory` (tasks in this process), a `postgres://` URL, or the path of a
//! SQLite file (tasks in the run store, shared by every server on the database). Tools, each result naming the server:
//! `build` (task: `built in MS ms by NAME` after `ms` milliseconds), `hang` (task: waits
//! until cancelled), `deploy` (task: asks which environment, then deploys there), `echo`
//! (not a task). `TASK_LEASE_MS` sets the task lease, `TASK_TTL_MS` the tasks' time to
//! live, `TASK_SWEEP_MS` how often expired ones are deleted, `TASK_MAX_PER_CALLER`,
//! `TASK_MAX_ANONYMOUS` and `TASK_MAX_RUNNING` the task limits, `TASK_MAX_FINISHED` and
//! `TASK_MAX_FINISHED_BYTES` the bound on finished tasks; `TASK_PRINCIPAL_HEADER` names a request header
//! that says who the caller is (as a gateway that authenticated it would). The first line
//! on stdout is `listening on URL`; closing stdin stops it.

use std::io::Read as _;
use std::time::Duration;

use serde_json::json;
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::store::RunStore;
use toolnexus::{Context, Request, Tool, ToolResult, Toolkit};

fn toolkit(name: &'static str) -> Toolkit {
    let build = Tool::new(
        "build",
        "Builds, taking `ms` milliseconds.",
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}}),
        move |args, _| async move {
            let ms = args["ms"].as_u64().unwrap_or(100);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            ToolResult::ok(format!("built in {ms} ms by {name}"))
        },
    )
    .with_task();
    let hang = Tool::new(
        "hang",
        "Runs until it is cancelled.",
        json!({"type": "object"}),
        |_, _| async move {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            ToolResult::ok("never")
        },
    )
    .with_task();
    let deploy = Tool::new(
        "deploy",
        "Asks where to deploy, then deploys.",
        json!({"type": "object"}),
        move |_, ctx: Context| async move {
            match ctx.answer() {
                Some(answer) if answer.ok => ToolResult::ok(format!(
                    "deployed to {} by {name}",
                    answer.text().unwrap_or("?")
                )),
                Some(_) => ToolResult::error("deploy: declined"),
                None => ToolResult::pending(Request::input("Which environment?")),
            }
        },
    )
    .with_task();
    let echo = Tool::new_sync(
        "echo",
        "Echoes `text`.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        |args, _| ToolResult::ok(args["text"].as_str().unwrap_or_default()),
    );
    Toolkit::new()
        .with(build)
        .with(hang)
        .with(deploy)
        .with(echo)
}

/// The number in environment variable `name`, if it is set.
fn number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(
        text.parse()
            .unwrap_or_else(|_| panic!("{name} is a number")),
    )
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (name, addr, store, stateless) = match &args[..] {
        [name, addr, store] => (name, addr, store, false),
        [name, addr, store, mode] if mode == "stateless" => (name, addr, store, true),
        _ => {
            eprintln!("usage: task_server NAME ADDR STORE [stateless]");
            std::process::exit(2);
        }
    };
    let name: &'static str = Box::leak(name.clone().into_boxed_str());
    let mut server = McpServer::new(toolkit(name))
        .name(format!("tasks-{name}"))
        .task_poll_interval(Duration::from_millis(50));
    if let Some(ms) = number("TASK_LEASE_MS") {
        server = server.task_lease(Duration::from_millis(ms));
    }
    if let Some(ms) = number("TASK_TTL_MS") {
        server = server.task_ttl(Duration::from_millis(ms));
    }
    if let Some(ms) = number("TASK_SWEEP_MS") {
        server = server.task_sweep_interval(Duration::from_millis(ms));
    }
    if let Some(limit) = number("TASK_MAX_PER_CALLER") {
        server = server.max_tasks_per_caller(limit as usize);
    }
    if let Some(limit) = number("TASK_MAX_RUNNING") {
        server = server.max_running_tasks(limit as usize);
    }
    if let Some(limit) = number("TASK_MAX_ANONYMOUS") {
        server = server.max_anonymous_tasks(limit as usize);
    }
    if let Some(limit) = number("TASK_MAX_FINISHED") {
        server = server.max_finished_tasks(limit as usize);
    }
    if let Some(bytes) = number("TASK_MAX_FINISHED_BYTES") {
        server = server.max_finished_task_bytes(bytes);
    }
    if let Ok(header) = std::env::var("TASK_PRINCIPAL_HEADER") {
        server = server.principal(move |parts| {
            let value = parts.headers.get(header.as_str())?;
            value.to_str().ok().map(str::to_owned)
        });
    }
    if store.starts_with("postgres://") {
        let store = RunStore::postgres(store)
            .await
            .map_err(std::io::Error::other)?;
        server = server.store(&store);
    } else if store != "memory" {
        let store = RunStore::sqlite(store)
            .await
            .map_err(std::io::Error::other)?;
        server = server.store(&store);
    }
    let options = if stateless {
        HttpOptions::new().stateless()
    } else {
        HttpOptions::new()
    };
    let http = server.serve_http_with(addr.as_str(), options).await?;
    println!("listening on {}", http.url());
    let handle = http.shutdown_handle();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        handle.shutdown();
    });
    http.wait().await
}

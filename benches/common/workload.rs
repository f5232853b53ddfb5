//! The durable-run workload the benches share (`durable`, `restate`, `journal_bytes`):
//! ten model turns of three calls to three trivial tools, then an answer; and the
//! temporary SQLite files and one-worker runtime they run it on.

#![allow(dead_code)]

use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::{Message, Reply, Tool, ToolCall, ToolResult, Toolkit};

/// Model turns that call tools before the answer.
pub const TURNS: usize = 10;
/// Calls in each of those turns.
pub const CALLS: usize = 3;

/// `TURNS` turns of three calls (`add`, `upper`, `echo`), then `done`; scripted by the
/// transcript since its last prompt alone, so a conversation's later runs repeat it.
pub fn model() -> FnModel {
    FnModel::new_sync(|transcript, _| {
        let at = transcript
            .iter()
            .rposition(|m| matches!(m, Message::User { .. }))
            .unwrap_or(0);
        let done = transcript[at..]
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .count();
        let turn = done / CALLS;
        Ok(if turn < TURNS {
            Reply::calls([
                ToolCall::new(format!("a{turn}"), "add", r#"{"a":20,"b":22}"#),
                ToolCall::new(format!("u{turn}"), "upper", r#"{"s":"abc"}"#),
                ToolCall::new(format!("e{turn}"), "echo", r#"{"s":"hi"}"#),
            ])
        } else {
            Reply::text("done")
        })
    })
}

/// The three tools `model` calls.
pub fn tools() -> Toolkit {
    let obj = json!({"type": "object"});
    Toolkit::new()
        .with(Tool::new_sync("add", "Adds.", obj.clone(), |a, _| {
            let sum = a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0);
            ToolResult::ok(sum.to_string())
        }))
        .with(Tool::new_sync(
            "upper",
            "Upper-cases.",
            obj.clone(),
            |a, _| ToolResult::ok(a["s"].as_str().unwrap_or("").to_uppercase()),
        ))
        .with(Tool::new_sync("echo", "Echoes.", obj, |a, _| {
            ToolResult::ok(a["s"].as_str().unwrap_or("").to_owned())
        }))
}

/// A SQLite file in the temporary directory, named for this process, with no leftovers
/// of an earlier run.
pub fn temp_db(name: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("toolnexus-bench-{}-{name}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path.display().to_string()
}

/// One worker thread: the store's driver threads get the other core.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

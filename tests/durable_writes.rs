//! What each write of a durable run records, seen from a second connection while the
//! run's tools execute: a turn's calls are all recorded as started (in its checkpoint)
//! before any of them runs, and a worker whose lease was taken over cannot record a
//! call's result, so the run stops and runs nothing more. On a SQLite file and on the real
//! PostgreSQL server of tests/support/postgres.rs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use toolnexus::agent::StopReason;
use toolnexus::agent::ToolDecision;
use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Client, Message, Reply, RunStatus, Tool, ToolCall};
use toolnexus::{ToolResult, Toolkit};

#[path = "support/durable.rs"]
mod durable;
#[path = "support/postgres.rs"]
mod postgres;
#[allow(dead_code)]
#[path = "durable/raw.rs"]
mod raw;

use durable::on_both;
use raw::{Raw, pg, sqlite};

/// Every run of these tests is bounded: a hang fails the test.
const BOUND: Duration = Duration::from_secs(20);

/// A model that makes `turns` turns of `calls` calls of `tool` (ids `t<turn>c<i>`), then
/// answers `"done"`.
fn turns(tool: &'static str, turns: usize, calls: usize) -> FnModel {
    FnModel::new_sync(move |transcript, _| {
        let done = transcript
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .count();
        let turn = done / calls;
        Ok(if turn < turns {
            Reply::calls(
                (0..calls).map(|i| {
                    ToolCall::new(format!("t{turn}c{i}"), tool, json!({"i": i}).to_string())
                }),
            )
        } else {
            Reply::text("done")
        })
    })
}

/// A tool `peek` that runs `sql` on the second connection and records what it read.
fn peek(raw: Arc<Raw>, sql: String, seen: Arc<Mutex<Vec<Option<i64>>>>) -> Tool {
    Tool::new("peek", "Peeks.", json!({"type": "object"}), move |_, _| {
        let (raw, sql, seen) = (Arc::clone(&raw), sql.clone(), Arc::clone(&seen));
        async move {
            let read = raw.int(&sql).await;
            seen.lock().unwrap().push(read);
            ToolResult::ok("peeked")
        }
    })
}

on_both!(
    a_turns_calls_are_started_before_any_of_them_runs,
    started_first
);
async fn started_first((store, raw): (RunStore, Raw)) {
    let raw = Arc::new(raw);
    let seen = Arc::new(Mutex::new(Vec::new()));
    // Before each call runs (its before-tool hook), count the call rows of its turn.
    let sql = "SELECT COUNT(*) FROM toolnexus_calls WHERE run_id = 'first' \
               AND turn_at = (SELECT turn_at FROM toolnexus_runs WHERE id = 'first')";
    let hook = {
        let (raw, seen) = (Arc::clone(&raw), Arc::clone(&seen));
        move |_: &ToolCall| {
            let (raw, seen) = (Arc::clone(&raw), Arc::clone(&seen));
            async move {
                let read = raw.int(sql).await;
                seen.lock().unwrap().push(read);
                ToolDecision::Allow
            }
        }
    };
    let tool = Tool::new_sync("peek", "Peeks.", json!({"type": "object"}), |_, _| {
        ToolResult::ok("peeked")
    });
    let client = Client::new(turns("peek", 2, 3))
        .store(store)
        .run_id("first")
        .before_tool(hook);
    let toolkit = Toolkit::new().with(tool);
    let run = tokio::time::timeout(BOUND, client.run("go", &toolkit))
        .await
        .expect("the run hung");
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.tool_calls.len(), 6);
    // Even before the first call of a turn runs, all three are recorded as started.
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [Some(3); 6],
        "call rows of the turn seen before each call"
    );
}

on_both!(a_lost_lease_stops_the_run_at_the_next_write, lost_lease);
async fn lost_lease((store, raw): (RunStore, Raw)) {
    let raw = Arc::new(raw);
    let seen = Arc::new(Mutex::new(Vec::new()));
    // The first execution hands the run's lease to another worker.
    let sql = "UPDATE toolnexus_runs SET lease_token = 'thief' WHERE id = 'stolen' \
               RETURNING CAST(1 AS BIGINT)"
        .to_owned();
    let toolkit = Toolkit::new().with(peek(Arc::clone(&raw), sql, Arc::clone(&seen)));
    let client = Client::new(turns("peek", 2, 1))
        .store(store)
        .run_id("stolen");
    let run = tokio::time::timeout(BOUND, client.run("go", &toolkit))
        .await
        .expect("the run hung");
    let RunStatus::Incomplete {
        reason: StopReason::Store { message },
    } = &run.status
    else {
        panic!("expected a store failure, the run is {:?}", run.status);
    };
    assert!(
        message.contains("lease on run `stolen` expired and another worker took it over"),
        "{message}"
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "nothing ran after the lost write"
    );
    let settled = raw
        .int("SELECT COUNT(*) FROM toolnexus_calls WHERE run_id = 'stolen' AND message IS NOT NULL")
        .await;
    assert_eq!(settled, Some(0), "no result recorded without the lease");
    let holder = raw
        .text("SELECT lease_token FROM toolnexus_runs WHERE id = 'stolen'")
        .await;
    assert_eq!(
        holder.as_deref(),
        Some("thief"),
        "the new holder's run is untouched"
    );
}

//! The journal appends: a checkpoint writes the messages its turn added, never the whole
//! transcript again (the run row's head stays as the run was created while its turns are
//! appended one row each), and a run row written before appending existed (its whole
//! transcript in the row, no appended messages) still loads and recovers. On a SQLite
//! file and on the real PostgreSQL server of tests/support/postgres.rs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Client, Message, Reply, Tool, ToolCall, ToolResult, Toolkit};

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
const BOUND: Duration = Duration::from_secs(30);

/// A model that calls `tool` once per turn for `turns` turns, then answers `"done"`.
fn turns(tool: &'static str, turns: usize) -> FnModel {
    FnModel::new_sync(move |transcript, _| {
        let done = transcript
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .count();
        Ok(if done < turns {
            Reply::calls([ToolCall::new(format!("c{done}"), tool, "{}")])
        } else {
            Reply::text("done")
        })
    })
}

on_both!(a_checkpoint_appends_its_turns_messages, appends);
async fn appends((store, raw): (RunStore, Raw)) {
    const TURNS: usize = 12;
    let raw = Arc::new(raw);
    // While each call runs: the head's size, and how many messages are appended.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let tool = {
        let (raw, seen) = (Arc::clone(&raw), Arc::clone(&seen));
        Tool::new("peek", "Peeks.", json!({"type": "object"}), move |_, _| {
            let (raw, seen) = (Arc::clone(&raw), Arc::clone(&seen));
            async move {
                let head = raw
                    .int("SELECT CAST(LENGTH(transcript) AS BIGINT) FROM toolnexus_runs")
                    .await;
                let rows = raw
                    .int("SELECT COUNT(*) FROM toolnexus_run_messages WHERE run_id = 'app'")
                    .await;
                seen.lock().unwrap().push((head, rows));
                ToolResult::ok("peeked")
            }
        })
    };
    let client = Client::new(turns("peek", TURNS))
        .store(store)
        .run_id("app")
        .max_turns(TURNS as u32 + 1);
    let toolkit = Toolkit::new().with(tool);
    let run = tokio::time::timeout(BOUND, client.run("go", &toolkit))
        .await
        .expect("the run hung");
    assert!(run.is_done(), "{:?}", run.status);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), TURNS);
    let head = seen[0].0;
    for (turn, (h, rows)) in seen.iter().enumerate() {
        // The head is the created transcript (the prompt), whatever the turn.
        assert_eq!(*h, head, "the head was rewritten at turn {turn}");
        // Turn k's checkpoint appended the tool message of turn k-1 and its own model
        // turn: 2k + 1 messages after the prompt.
        assert_eq!(*rows, Some(2 * turn as i64 + 1), "messages at turn {turn}");
    }
    // The end is recorded whole in the head, the appended rows forgotten.
    assert_eq!(
        raw.int("SELECT COUNT(*) FROM toolnexus_run_messages").await,
        Some(0)
    );
    assert!(
        raw.int("SELECT CAST(LENGTH(transcript) AS BIGINT) FROM toolnexus_runs")
            .await
            > head
    );
}

on_both!(a_run_row_written_before_appending_is_recovered, old_row);
async fn old_row((store, raw): (RunStore, Raw)) {
    // A run as an earlier build checkpointed it: the whole transcript in the row, the
    // turn at 1 asking for `tick` twice, the first call settled, the second in flight;
    // its worker gone (lease expired).
    let transcript = vec![
        Message::user("go"),
        Message::tool_calls(
            None,
            vec![
                ToolCall::new("c0", "tick", "{}"),
                ToolCall::new("c1", "tick", "{}"),
            ],
        ),
    ];
    let quote = |v: String| v.replace('\'', "''");
    let json = quote(serde_json::to_string(&transcript).unwrap());
    let settled = quote(
        serde_json::to_string(&Message::tool_result(
            "c0",
            &ToolResult::ok("ticked before"),
        ))
        .unwrap(),
    );
    raw.exec(&format!(
        "INSERT INTO toolnexus_runs (id, format, status, transcript, turn_at, result, \
         lease_token, lease_until, created_at, updated_at) VALUES ('old', 1, 'running', \
         '{json}', 1, NULL, 'gone', 0, 0, 0)"
    ))
    .await;
    raw.exec(&format!(
        "INSERT INTO toolnexus_calls (run_id, turn_at, call_id, attempts, message) VALUES \
         ('old', 1, 'c0', 1, '{settled}'), ('old', 1, 'c1', 1, NULL)"
    ))
    .await;
    let ticks = Arc::new(AtomicUsize::new(0));
    let tick = {
        let ticks = Arc::clone(&ticks);
        Tool::new_sync("tick", "Ticks.", json!({"type": "object"}), move |_, _| {
            ticks.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok("ticked now")
        })
    };
    // One more turn after the recovered one, so the old row's first checkpoint appends.
    let model = FnModel::new_sync(|transcript, _| {
        let done = transcript
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .count();
        Ok(if done < 3 {
            Reply::calls([ToolCall::new("c2", "tick", "{}")])
        } else {
            Reply::text("done")
        })
    });
    let client = Client::new(model).store(store);
    let toolkit = Toolkit::new().with(tick);
    let recovered = tokio::time::timeout(BOUND, client.recover(&toolkit))
        .await
        .expect("recovery hung")
        .unwrap();
    assert_eq!(recovered.len(), 1);
    let run = &recovered[0];
    assert!(run.is_done(), "{:?}", run.status);
    // The settled call did not run again: c1 and c2 ran, once each.
    assert_eq!(ticks.load(Ordering::SeqCst), 2);
    let texts: Vec<_> = run.messages.iter().map(|m| m.text()).collect();
    assert_eq!(
        texts,
        [
            Some("go"),
            None,
            Some("ticked before"),
            Some("ticked now"),
            None,
            Some("ticked now"),
            Some("done"),
        ]
    );
}

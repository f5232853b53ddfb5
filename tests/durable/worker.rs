//! The crash test's worker (tests/durable_crash.rs): drives one durable run whose model
//! makes 10 tool calls, each appending its idempotency key to a side-effect log, or
//! recovers it after the worker before it was killed.
//!
//! `durable_worker <store> run <run-id> <log>` starts the run; `… recover <run-id> <log>`
//! waits for the dead worker's lease to expire, takes the run over and drives it to its
//! end, then checks the stored result (exit 0 when the run is done with its 10 calls).
//! `… session <session-id> <log>` and `… session-recover <session-id> <log>` do the same
//! with a run of a session (whose id the store names), and check the session instead.
//! `<store>` is a `postgres://` URL or a SQLite file.

use std::io::Write as _;
use std::time::{Duration, Instant};

use serde_json::json;
use toolnexus::store::RunStore;
use toolnexus::{Client, Message, Tool, ToolResult, Toolkit};

#[path = "../support/durable.rs"]
mod durable;

/// The lease of the crash test's runs: short, so that recovery starts soon after a kill.
const LEASE: Duration = Duration::from_millis(100);

fn append(log: &str, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("the side-effect log opens");
    // One write per line: a kill never leaves half a line.
    file.write_all(format!("{line}\n").as_bytes())
        .expect("the side-effect log takes the line");
}

fn appender(log: String) -> Tool {
    Tool::new(
        "append",
        "Appends to the log.",
        json!({"type": "object"}),
        move |_, ctx| {
            let log = log.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(2)).await;
                append(&log, ctx.idempotency_key().unwrap_or("no key"));
                tokio::time::sleep(Duration::from_millis(2)).await;
                ToolResult::ok("appended")
            }
        },
    )
}

async fn drive(store: RunStore, mode: &str, run_id: &str, log: &str) -> i32 {
    // Connected: the test's kill clock starts now.
    println!("ready");
    let toolkit = Toolkit::new().with(appender(log.to_owned()));
    // 10 turns of calls and the answer: 11 model turns.
    let client = Client::new(durable::steps("append", 10))
        .max_turns(11)
        .store(store.clone())
        .lease(LEASE);
    if mode == "session" {
        let run = client
            .ask(run_id, "append ten times", &toolkit)
            .await
            .expect("the session run starts");
        if run.is_done() {
            append(log, &format!("FINISHED {run_id}"));
        }
        return 0;
    }
    if mode == "session-recover" {
        return recover_session(&client, &toolkit, run_id, log).await;
    }
    if mode == "run" {
        let run = client
            .run_id(run_id)
            .run("append ten times", &toolkit)
            .await;
        if run.is_done() {
            append(log, &format!("FINISHED {run_id}"));
        }
        return 0;
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match store.result(run_id).await {
            Ok(Some(run)) => {
                let calls = run
                    .messages
                    .iter()
                    .filter(|m| matches!(m, Message::Tool { .. }))
                    .count();
                return if run.is_done() && calls == 10 { 0 } else { 2 };
            }
            Ok(None) => {}
            // Killed before the run was even recorded: there is nothing to recover.
            Err(toolnexus::store::StoreError::UnknownRun(_)) => return 3,
            Err(e) => panic!("{e}"),
        }
        for run in client.recover(&toolkit).await.expect("recover") {
            if run.is_done() && run.id.as_deref() == Some(run_id) {
                append(log, &format!("FINISHED {run_id}"));
            }
        }
        if Instant::now() > deadline {
            return 4;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Recovers the run of session `id` a killed worker left, if it left one: 0 once the
/// session holds the whole run (10 results and the answer), 3 when nothing was recorded.
async fn recover_session(client: &Client, toolkit: &Toolkit, id: &str, log: &str) -> i32 {
    let session = client.session(id);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(20);
    loop {
        let messages = session.messages().await.expect("the session reads");
        let calls = messages
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .count();
        if messages.last().and_then(Message::text) == Some("done") {
            return if calls == 10 { 0 } else { 2 };
        }
        let mut recovered = 0;
        for run in client.recover(toolkit).await.expect("recover") {
            recovered += 1;
            let ours = run
                .id
                .as_deref()
                .is_some_and(|r| r.starts_with(&format!("session:{id}/")));
            if run.is_done() && ours {
                append(log, &format!("FINISHED {id}"));
            }
        }
        // Past a few leases, a run the dead worker recorded would have been taken over.
        if messages.is_empty() && recovered == 0 && started.elapsed() > LEASE * 4 {
            return 3;
        }
        if Instant::now() > deadline {
            return 4;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, store, mode, run_id, log] = args.as_slice() else {
        eprintln!(
            "usage: durable_worker <store> run|recover <run-id> <log>\n       \
             durable_worker <store> session|session-recover <session-id> <log>"
        );
        std::process::exit(64);
    };
    let code = if store.starts_with("postgres://") {
        let store = RunStore::postgres(store).await.expect("PostgreSQL store");
        drive(store, mode, run_id, log).await
    } else {
        let store = RunStore::sqlite(store).await.expect("SQLite store");
        drive(store, mode, run_id, log).await
    };
    std::process::exit(code);
}

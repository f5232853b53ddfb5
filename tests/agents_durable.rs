//! Durable handles, with real processes: a tree of three agents (`lead` → `child` →
//! `grandchild`, tests/agents_durable/worker.rs) runs on a runtime kept in a run store
//! until the grandchild's `deploy` waits for an approval; the process is killed with
//! SIGKILL while it waits; another process opens the same store, finds the same tree
//! with the same tokens spent and the pending request with the grandchild's path, answers
//! it, and the tree completes. The effects file, which every model turn and every tool
//! appends to, proves that no settled call and no finished model turn ran twice. On
//! SQLite and on PostgreSQL.
//!
//! The same tree is also killed while it runs (the grandchild's second call in flight):
//! the next process takes each handle's stored run over once its lease runs out, the
//! call in flight runs again with the same idempotency key, the settled one does not, the
//! `task` calls reattach, and the tree completes.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/example.rs"]
mod example;
#[path = "support/postgres.rs"]
mod postgres;

use example::example;

/// How long one worker may take before the test gives up on it.
const BOUND: Duration = Duration::from_secs(60);

/// Reads `child`'s stdout lines on a thread of its own.
fn lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn next(rx: &mpsc::Receiver<String>, child: &mut Child, what: &str) -> String {
    match rx.recv_timeout(BOUND) {
        Ok(line) => line,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the worker printed no {what} ({e})");
        }
    }
}

fn json(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

fn ids(handles: &Value) -> Vec<(String, String)> {
    handles
        .as_array()
        .expect("a list of handles")
        .iter()
        .map(|h| {
            (
                h["id"].as_str().unwrap_or_default().to_owned(),
                h["state"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Waits for the `role` worker to exit, and checks it succeeded.
fn exits(child: &mut Child, role: &str) {
    let deadline = Instant::now() + BOUND;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the {role} worker did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "the {role} worker failed: {status}");
}

/// The tree's three handles in `report`, in these states (lead, child, grandchild).
fn assert_states(report: &Value, states: [&str; 3]) {
    let expected: Vec<(String, String)> = [
        "root/lead.1",
        "root/lead.1/child.1",
        "root/lead.1/child.1/grandchild.1",
    ]
    .iter()
    .zip(states)
    .map(|(id, state)| ((*id).to_owned(), state.to_owned()))
    .collect();
    assert_eq!(ids(&report["handles"]), expected, "{report}");
}

/// A fresh directory of the scenario `name` on store `label`, and its effects log.
fn scenario_dir(name: &str, label: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!(
        "toolnexus-agents-{name}-{label}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("effects.log");
    let _ = std::fs::remove_file(&log);
    (dir, log.to_str().unwrap().to_owned())
}

/// The worker on `store` in `mode`, logging its effects to `log`, and its stdout lines.
fn start_worker(store: &str, mode: &str, log: &str) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(example("agents_durable_worker"))
        .args([store, mode, log])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the worker starts");
    let rx = lines(&mut child);
    (child, rx)
}

fn killed_while_waiting_then_answered(store: &str, label: &str) {
    let (dir, log) = scenario_dir("durable", label);
    let log = log.as_str();

    // The first process: the tree runs until it parks on the grandchild's approval.
    let (mut first, rx) = start_worker(store, "start", log);
    let parked = json(&next(&rx, &mut first, "parked result"));
    assert_eq!(next(&rx, &mut first, "`parked`"), "parked");
    assert_eq!(parked["status"], "pending", "{parked}");
    assert_eq!(
        parked["pending"]["data"]["path"],
        serde_json::json!(["root", "lead.1"]),
        "the lead's pending result is the lead's: {parked}"
    );
    let tokens_at_kill = parked["totalTokens"].as_u64().expect("tokens");
    assert_eq!(
        tokens_at_kill, 40,
        "four model turns of 10 tokens: {parked}"
    );
    first.kill().expect("SIGKILL");
    let _ = first.wait();
    let before_kill = std::fs::read_to_string(log).unwrap();

    // Another process: the same tree, the same budget spent, the request with its path.
    let (mut second, rx) = start_worker(store, "answer", log);
    let found = json(&next(&rx, &mut second, "recovered tree"));
    assert_states(&found, ["suspended"; 3]);
    assert_eq!(found["leadTokens"], tokens_at_kill, "{found}");
    let pending = found["pending"].as_array().expect("pending requests");
    assert_eq!(pending.len(), 1, "{found}");
    assert_eq!(pending[0]["kind"], "approval", "{found}");
    assert_eq!(
        pending[0]["data"]["path"],
        serde_json::json!(["root", "lead.1", "child.1", "grandchild.1"]),
        "{found}"
    );
    let after = json(&next(&rx, &mut second, "finished tree"));
    exits(&mut second, "answering");
    assert_eq!(after["result"]["status"], "done", "{after}");
    assert_eq!(after["result"]["text"], "lead done", "{after}");
    // Three more turns of 10 tokens, rolled up to the lead.
    assert_eq!(after["leadTokens"], tokens_at_kill + 30, "{after}");
    // The task calls reattached: no handle was spawned again.
    assert_states(&after, ["idle", "closed", "closed"]);

    // Every model turn and every effect, once: the note settled before the kill is not
    // run again, the approved deploy runs once, and no finished turn asks the model again.
    let effects = std::fs::read_to_string(log).unwrap();
    let shape: Vec<String> = effects
        .lines()
        .map(|l| match l.split_once(' ') {
            Some((tool @ ("note" | "deploy"), _key)) => tool.to_owned(),
            _ => l.to_owned(),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "turn lead 0",
            "turn child 0",
            "turn grandchild 0",
            "note",
            "turn grandchild 1",
            "deploy",
            "turn grandchild 2",
            "turn child 1",
            "turn lead 1",
        ],
        "effects before the kill:\n{before_kill}\nall effects:\n{effects}"
    );
    assert_eq!(before_kill.lines().count(), 5, "{before_kill}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn killed_while_running_then_recovered(store: &str, label: &str) {
    let (dir, log) = scenario_dir("running", label);
    let log = log.as_str();

    let (mut first, rx) = start_worker(store, "start-running", log);
    assert_eq!(next(&rx, &mut first, "`running`"), "running");
    first.kill().expect("SIGKILL");
    let _ = first.wait();

    let (mut second, rx) = start_worker(store, "recover", log);
    let found = json(&next(&rx, &mut second, "recovered tree"));
    assert_states(&found, ["running"; 3]);
    assert_eq!(found["leadTokens"], 40, "four turns of 10 tokens: {found}");
    let after = json(&next(&rx, &mut second, "finished tree"));
    exits(&mut second, "recovering");
    assert_eq!(after["result"]["status"], "done", "{after}");
    assert_eq!(after["result"]["text"], "lead done", "{after}");
    assert_eq!(after["leadTokens"], 70, "{after}");
    assert_states(&after, ["idle", "closed", "closed"]);
    let effects = std::fs::read_to_string(log).unwrap();
    let lines: Vec<&str> = effects.lines().collect();
    let shape: Vec<&str> = lines
        .iter()
        .map(|l| match l.split_once(' ') {
            Some((tool @ ("note" | "hang"), _key)) => tool,
            _ => *l,
        })
        .collect();
    assert_eq!(
        shape,
        [
            "turn lead 0",
            "turn child 0",
            "turn grandchild 0",
            "note",
            "turn grandchild 1",
            "hang",
            "hang",
            "turn grandchild 2",
            "turn child 1",
            "turn lead 1",
        ],
        "{effects}"
    );
    // The call in flight at the kill ran again under the same key; nothing else did.
    assert_eq!(lines[5], lines[6], "{effects}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `scenario` on a fresh SQLite file of its own.
fn on_sqlite(name: &str, scenario: fn(&str, &str)) {
    let dir =
        std::env::temp_dir().join(format!("toolnexus-agents-{name}-db-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("runs.db");
    let _ = std::fs::remove_file(&db);
    scenario(db.to_str().unwrap(), "sqlite");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sqlite_tree_killed_while_running_is_taken_over_by_another_process() {
    on_sqlite("running", killed_while_running_then_recovered);
}

#[test]
fn postgres_tree_killed_while_running_is_taken_over_by_another_process() {
    let url = postgres::server().database("agents_running");
    killed_while_running_then_recovered(&url, "postgres");
}

#[test]
fn sqlite_tree_killed_while_waiting_is_answered_from_another_process() {
    on_sqlite("durable", killed_while_waiting_then_answered);
}

#[test]
fn postgres_tree_killed_while_waiting_is_answered_from_another_process() {
    let url = postgres::server().database("agents_durable");
    killed_while_waiting_then_answered(&url, "postgres");
}

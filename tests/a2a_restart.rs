//! The official A2A SDKs' clients (pinned in `.ci/test`: `a2a-sdk` 1.3, `@a2a-js/sdk`
//! 1.3) against `A2aServer` with its tasks in a SQLite run store: the `a2a` example,
//! `serve --store FILE`, a child process.
//!
//! - Across a SIGKILL: each SDK's client starts a task that asks for approval (both runs
//!   wait on the same approval id, a digest of the same call), the server process is
//!   killed and started again on the same file, and each client's second message on its
//!   task answers it, and it completes.
//! - Two replicas on one database, a SQLite file and a real PostgreSQL (started by the
//!   suite, as for `tests/durable*.rs`; the example built with its `postgres` feature):
//!   replica B answers `GetTask` for a task replica A started and takes its answer, and A
//!   then gives the completed task.

#[path = "support/a2a.rs"]
mod a2a;
#[path = "support/postgres.rs"]
mod postgres;

use std::process::Command;

use a2a::{Served, json_of, sdk_node, sdk_python};
use serde_json::Value;

/// One step of the Python SDK's client (`tests/a2a/py_steps.py`).
fn py(args: &[&str]) -> Value {
    let mut command = Command::new(sdk_python());
    command
        .arg(a2a::root().join("tests/a2a/py_steps.py"))
        .args(args);
    json_of(command)
}

/// One step of the JavaScript SDK's client (`tests/a2a/js_steps.cjs`).
fn js(args: &[&str]) -> Value {
    let mut command = sdk_node(&a2a::root().join("tests/a2a/js_steps.cjs"));
    command.args(args);
    json_of(command)
}

/// A fresh SQLite file for this test; removed (with its WAL) when dropped.
struct Db(String);

impl Db {
    fn new(name: &str) -> Db {
        let path =
            std::env::temp_dir().join(format!("toolnexus-a2a-{}-{name}.db", std::process::id()));
        let db = Db(path.display().to_string());
        db.remove();
        db
    }

    fn remove(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0));
        }
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        self.remove();
    }
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("no `{key}` in {value}"))
}

/// A task the example left asking for its approval.
fn assert_asks(task: &Value, sdk: &str) {
    assert_eq!(task["state"], "TASK_STATE_INPUT_REQUIRED", "{sdk}: {task}");
    assert_eq!(task["status_text"], "Deploy this service?", "{sdk}: {task}");
}

/// The end of an approved deploy, as the answering client saw it.
fn assert_deployed(done: &Value, id: &str, sdk: &str) {
    assert_eq!(done["final_state"], "TASK_STATE_COMPLETED", "{sdk}: {done}");
    let fetched = &done["fetched"];
    assert_eq!(fetched["id"], id, "{sdk}: {done}");
    assert_eq!(fetched["state"], "TASK_STATE_COMPLETED", "{sdk}: {done}");
    assert_eq!(
        fetched["answer"], "Done: deployed the web app.",
        "{sdk}: {done}"
    );
    assert_eq!(
        fetched["history_roles"],
        serde_json::json!(["ROLE_USER", "ROLE_AGENT", "ROLE_USER"]),
        "{sdk}: {done}"
    );
}

#[test]
fn sdk_clients_answer_their_tasks_across_a_sigkill_and_a_restart() {
    let db = Db::new("restart");
    let mut first = Served::example(&["--store", &db.0]);
    let asked_py = py(&["ask", &first.url, "the web app"]);
    assert_asks(&asked_py, "python");
    let asked_js = js(&["ask", &first.url, "the web app"]);
    assert_asks(&asked_js, "javascript");
    assert_ne!(asked_py["id"], asked_js["id"]);

    // SIGKILL (what `Child::kill` sends on Unix): nothing is flushed or shut down.
    first.child.kill().expect("the server is killed");
    let status = first.child.wait().expect("the server's status");
    assert!(!status.success(), "killed, not exited: {status}");
    drop(first);

    let second = Served::example(&["--store", &db.0]);
    let (id_py, id_js) = (str_of(&asked_py, "id"), str_of(&asked_js, "id"));
    assert_asks(
        &py(&["get", &second.url, id_js]),
        "python, after the restart",
    );
    let done = py(&[
        "answer",
        &second.url,
        id_py,
        str_of(&asked_py, "context_id"),
        "yes",
    ]);
    assert_deployed(&done, id_py, "python");
    let done = js(&[
        "answer",
        &second.url,
        id_js,
        str_of(&asked_js, "context_id"),
        "yes",
    ]);
    assert_deployed(&done, id_js, "javascript");
}

#[test]
fn a_replica_answers_for_a_task_another_started_on_sqlite() {
    let db = Db::new("replicas");
    replicas(&db.0);
}

#[test]
fn a_replica_answers_for_a_task_another_started_on_postgres() {
    replicas(&postgres::server().database("a2a_sdk_replicas"));
}

/// Two example servers on the store at `store` (a file or a URL), driven by both SDKs.
fn replicas(store: &str) {
    let a = Served::example(&["--store", store]);
    let b = Served::example(&["--store", store]);
    assert_ne!(a.url, b.url);

    // Python on A, then B answers for it and continues it.
    let asked = py(&["ask", &a.url, "the web app"]);
    assert_asks(&asked, "python on A");
    let id = str_of(&asked, "id");
    assert_asks(&js(&["get", &b.url, id]), "javascript on B");
    let done = py(&["answer", &b.url, id, str_of(&asked, "context_id"), "yes"]);
    assert_deployed(&done, id, "python on B");
    let fetched = js(&["get", &a.url, id]);
    assert_eq!(fetched["state"], "TASK_STATE_COMPLETED", "{fetched}");
    assert_eq!(fetched["answer"], "Done: deployed the web app.");

    // And the other way: JavaScript on B, answered on A.
    let asked = js(&["ask", &b.url, "the web app"]);
    assert_asks(&asked, "javascript on B");
    let id = str_of(&asked, "id");
    let done = js(&["answer", &a.url, id, str_of(&asked, "context_id"), "yes"]);
    assert_deployed(&done, id, "javascript on A");
    assert_eq!(
        py(&["get", &b.url, "no-such-task"])["error"],
        "TaskNotFoundError"
    );
}

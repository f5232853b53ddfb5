//! A script whose third call needs approval, in a durable run on SQLite: the worker
//! (tests/code/worker.rs) parks on the approval and is killed with SIGKILL while it
//! waits; another process answers, and the script finishes with its first two calls run
//! exactly once (each tool appends a line to a file every time it runs).

use std::io::BufRead as _;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

#[path = "support/example.rs"]
mod example;

use example::example;

#[test]
fn a_script_parked_on_an_approval_survives_a_kill_and_is_answered_elsewhere() {
    let dir = std::env::temp_dir().join(format!("toolnexus-code-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("runs.db");
    let effects = dir.join("effects.log");
    let (store, effects) = (store.to_str().unwrap(), effects.to_str().unwrap());
    let worker = example("code_worker");

    let mut child = Command::new(&worker)
        .args([store, "run", "run-code-1", effects])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the worker starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(60));
    // SIGKILL, while it waits for the answer.
    child.kill().expect("the worker is killed");
    let status = child.wait().unwrap();
    let line = line.expect("the worker parks within a minute");
    assert!(line.starts_with("parked approve-"), "{line:?}");
    assert!(!status.success(), "killed, not exited: {status:?}");
    let read = || std::fs::read_to_string(effects).unwrap_or_default();
    assert_eq!(
        read(),
        "count 1\ncount 2\n",
        "the calls before the approval ran"
    );

    let answered = Command::new(&worker)
        .args([store, "answer", "run-code-1", effects])
        .stderr(Stdio::inherit())
        .output()
        .expect("the answering process runs");
    let text = String::from_utf8_lossy(&answered.stdout);
    assert!(answered.status.success(), "{:?}: {text}", answered.status);
    assert_eq!(
        text.trim(),
        r#"done: {"a":1,"b":2,"sent":"sent to ana","c":3}"#
    );
    assert_eq!(
        read(),
        "count 1\ncount 2\nsend ana\ncount 3\n",
        "calls one and two ran once, the approved call once, the last once"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

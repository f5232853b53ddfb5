//! `toolnexus::ui::ag_ui` judged by the AG-UI SDKs: the official client (`@ag-ui/client`
//! 1.0, Node) runs the chat example's endpoint to an interrupt, resumes, declines, and
//! is refused unknown, reused and foreign interrupts, verifying every event it reads; the
//! Python SDK (`ag-ui-protocol` 1.0) parses every event it saw.
//!
//! Needs `TOOLNEXUS_UI_NODE_MODULES` and `TOOLNEXUS_AGUI_PYTHON` (installed by
//! `.ci/test`); the chat example is built by `cargo test --workspace --all-features`.

use std::io::Write as _;
use std::process::{Command, Stdio};

#[path = "support/example.rs"]
mod example;
use example::Listening;

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: this test runs the AG-UI SDKs and does not skip; run it through .ci/test")
    })
}

#[test]
fn the_ag_ui_client_sdk_runs_resumes_and_is_refused_bad_interrupts() {
    judge(&[]);
}

/// The same with the runs in SQLite: threads are sessions, interrupts name stored runs.
#[test]
fn the_same_with_a_run_store() {
    let db = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ui_agui-{}.db", std::process::id()));
    let db = db.to_str().unwrap();
    judge(&["--db", db]);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db}{suffix}"));
    }
}

fn judge(args: &[&str]) {
    let mut all = vec!["127.0.0.1:0"];
    all.extend_from_slice(args);
    let server = Listening::start("chat_ui", &all);
    let repo = env!("CARGO_MANIFEST_DIR");
    let node = std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into());
    let output = Command::new("timeout")
        .args([
            "60",
            &node,
            &format!("{repo}/tests/chat_ui/agui_client.cjs"),
        ])
        .arg(format!("{}agui", server.url))
        .env("NODE_PATH", env("TOOLNEXUS_UI_NODE_MODULES"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the AG-UI client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for check in [
        "approved",
        "answered twice",
        "declined",
        "unknown",
        "other thread",
        "unanswered",
        "all",
    ] {
        assert!(
            stdout.contains(&format!("{{\"check\":\"{check}\"")),
            "no {check}:\n{stdout}"
        );
    }

    // Every event the client saw, through the Python SDK's event models.
    let mut python = Command::new(env("TOOLNEXUS_AGUI_PYTHON"))
        .arg(format!("{repo}/tests/chat_ui/agui_events.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    python
        .stdin
        .take()
        .unwrap()
        .write_all(stdout.as_bytes())
        .unwrap();
    let parsed = python.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&parsed.stdout);
    assert!(
        parsed.status.success(),
        "the Python SDK rejected an event:\n{said}\n{}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let count: usize = said
        .trim()
        .strip_prefix("parsed ")
        .and_then(|n| n.parse().ok())
        .expect("a count");
    assert!(count >= 25, "{said}");
}

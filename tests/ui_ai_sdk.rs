//! `toolnexus::ui::ai_sdk` judged by the AI SDK itself (npm `ai` 7): its chat transport
//! (which checks every chunk against the SDK's chunk schema) and `readUIMessageStream`
//! read the chat example's `/chat` stream through a tool approval round trip, a decline,
//! a reused approval and one answered in another chat (tests/chat_ui/ai_sdk_client.mjs).
//!
//! Needs `TOOLNEXUS_UI_NODE_MODULES` (installed by `.ci/test`).

use std::process::Command;

#[path = "support/example.rs"]
mod example;
use example::Listening;

#[test]
fn the_ai_sdk_reads_the_stream_through_an_approval_round_trip() {
    judge(&[]);
}

/// The same with the runs in SQLite: chats are sessions, approvals name stored runs.
#[test]
fn the_same_with_a_run_store() {
    let db = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ui_ai_sdk-{}.db", std::process::id()));
    let db = db.to_str().unwrap();
    judge(&["--db", db]);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db}{suffix}"));
    }
}

fn judge(args: &[&str]) {
    let modules = std::env::var("TOOLNEXUS_UI_NODE_MODULES").unwrap_or_else(|_| {
        panic!("TOOLNEXUS_UI_NODE_MODULES is not set: this test runs the AI SDK and does not skip; run it through .ci/test")
    });
    let mut all = vec!["127.0.0.1:0"];
    all.extend_from_slice(args);
    let server = Listening::start("chat_ui", &all);
    let repo = env!("CARGO_MANIFEST_DIR");
    let node = std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into());
    let output = Command::new("timeout")
        .args([
            "60",
            &node,
            &format!("{repo}/tests/chat_ui/ai_sdk_client.mjs"),
        ])
        .arg(format!("{}chat", server.url))
        .env("NODE_MODULES", modules)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the AI SDK client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for check in [
        "approved",
        "answered twice",
        "declined",
        "other chat",
        "all",
    ] {
        assert!(
            stdout.contains(&format!("{{\"check\":\"{check}\"")),
            "no {check}:\n{stdout}"
        );
    }
}

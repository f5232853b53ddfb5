//! The chat example in a real browser: Debian's chromium, headless, driven by
//! playwright-core (tests/chat_ui/browser.cjs). Types a prompt, clicks Approve on the
//! approval card, and checks the page shows the tool's result and the final answer; the
//! screenshot is saved as `target/tmp/chat_ui.png`. Again with the runs in SQLite and
//! the server killed and started again between the card showing and the click
//! (`target/tmp/chat_ui_restarted.png`).
//!
//! Needs `TOOLNEXUS_UI_NODE_MODULES` (playwright-core, installed by `.ci/test`) and
//! chromium at `TOOLNEXUS_CHROMIUM` (default `/usr/bin/chromium`).

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

#[path = "common/example.rs"]
mod common_example;
use common_example::Listening;

#[test]
fn a_browser_approves_a_tool_call_on_the_chat_page() {
    let modules = std::env::var("TOOLNEXUS_UI_NODE_MODULES").unwrap_or_else(|_| {
        panic!("TOOLNEXUS_UI_NODE_MODULES is not set: this test drives chromium with playwright-core and does not skip; run it through .ci/test")
    });
    let server = Listening::start("chat_ui", &["127.0.0.1:0"]);
    let repo = env!("CARGO_MANIFEST_DIR");
    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("chat_ui.png");
    let _ = std::fs::remove_file(&screenshot);
    let node = std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into());
    let output = Command::new("timeout")
        .args(["90", &node, &format!("{repo}/tests/chat_ui/browser.cjs")])
        .arg(&server.url)
        .arg(&screenshot)
        .env("NODE_PATH", modules)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the browser run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stdout.trim(), "answered");
    let png = std::fs::read(&screenshot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
}

#[test]
fn an_approval_card_is_answered_by_the_server_started_after_it_showed() {
    let modules = std::env::var("TOOLNEXUS_UI_NODE_MODULES").unwrap_or_else(|_| {
        panic!("TOOLNEXUS_UI_NODE_MODULES is not set: this test drives chromium with playwright-core and does not skip; run it through .ci/test")
    });
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let db = tmp.join(format!("chat_ui-{}.db", std::process::id()));
    let db = db.to_str().unwrap();
    let first = Listening::start("chat_ui", &["127.0.0.1:0", "--db", db]);
    let addr = first
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let screenshot = tmp.join("chat_ui_restarted.png");
    let _ = std::fs::remove_file(&screenshot);
    let node = std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into());
    let mut browser = Command::new("timeout")
        .args([
            "90",
            &node,
            &format!("{}/tests/chat_ui/browser.cjs", env!("CARGO_MANIFEST_DIR")),
        ])
        .arg(&first.url)
        .arg(&screenshot)
        .arg("restart")
        .env("NODE_PATH", modules)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let mut said = BufReader::new(browser.stdout.take().unwrap());
    let mut line = String::new();
    said.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "interrupted", "the card did not show");

    // The server that issued the interrupt goes away; another takes its place.
    drop(first);
    let second = Listening::start("chat_ui", &[&addr, "--db", db]);
    assert_eq!(second.url, format!("http://{addr}/"));
    browser.stdin.take().unwrap().write_all(b"go\n").unwrap();
    line.clear();
    said.read_line(&mut line).unwrap();
    let status = browser.wait().unwrap();
    let mut errors = String::new();
    std::io::Read::read_to_string(&mut browser.stderr.take().unwrap(), &mut errors).unwrap();
    assert!(status.success(), "the browser run failed: {line}\n{errors}");
    assert_eq!(line.trim(), "answered");
    assert!(std::fs::read(&screenshot).unwrap().starts_with(b"\x89PNG"));
    drop(second);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db}{suffix}"));
    }
}

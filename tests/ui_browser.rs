//! The chat example in a real browser: Debian's chromium, headless, driven by
//! playwright-core (tests/chat_ui/browser.cjs). Types a prompt, clicks Approve on the
//! approval card, and checks the page shows the tool's result and the final answer; the
//! screenshot is saved as `target/tmp/chat_ui.png`. Again with the runs in SQLite and
//! the server killed and started again between the card showing and the click
//! (`target/tmp/chat_ui_restarted.png`).
//!
//! Needs `TOOLNEXUS_UI_NODE_MODULES` (playwright-core, installed by `.ci/test`) and
//! chromium at `TOOLNEXUS_CHROMIUM` (default `/usr/bin/chromium`).

#[path = "support/browser.rs"]
mod browser;
#[path = "support/example.rs"]
mod example;
use example::Listening;

#[test]
fn a_browser_approves_a_tool_call_on_the_chat_page() {
    let server = Listening::start("chat_ui", &["127.0.0.1:0"]);
    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("chat_ui.png");
    let _ = std::fs::remove_file(&screenshot);
    let said = browser::run(
        "chat_ui/browser.cjs",
        &[&server.url, screenshot.to_str().unwrap()],
    );
    assert_eq!(said.trim(), "answered");
    let png = std::fs::read(&screenshot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
}

#[test]
fn an_approval_card_is_answered_by_the_server_started_after_it_showed() {
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
    let mut session = browser::Session::start(
        "chat_ui/browser.cjs",
        &[&first.url, screenshot.to_str().unwrap(), "restart"],
    );
    session.expect_line("interrupted");

    // The server that issued the interrupt goes away; another takes its place.
    drop(first);
    let second = Listening::start("chat_ui", &[&addr, "--db", db]);
    assert_eq!(second.url, format!("http://{addr}/"));
    assert_eq!(session.go_on().trim(), "answered");
    assert!(std::fs::read(&screenshot).unwrap().starts_with(b"\x89PNG"));
    drop(second);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db}{suffix}"));
    }
}

//! The chat example in a real browser: Debian's chromium, headless, driven by
//! playwright-core (tests/chat_ui/browser.cjs). Types a prompt, clicks Approve on the
//! approval card, and checks the page shows the tool's result and the final answer; the
//! screenshot is saved as `target/tmp/chat_ui.png`.
//!
//! Needs `TOOLNEXUS_UI_NODE_MODULES` (playwright-core, installed by `.ci/test`) and
//! chromium at `TOOLNEXUS_CHROMIUM` (default `/usr/bin/chromium`).

use std::process::Command;

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

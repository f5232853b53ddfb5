//! The example server over streamable HTTP, driven by an older official Python MCP SDK
//! (1.9, protocol 2025-03-26): it must not be sent priming events, which that protocol
//! does not have (the SDK logs a parse error for each), and closing its session must not
//! be reported as a failure.
//!
//! The SDK runs with `$TOOLNEXUS_PYTHON_MCP19`, a Python with `mcp==1.9.4`; `.ci/test`
//! makes one (target/py-venv-mcp19). Without it the test FAILS, saying how to set it up.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::Value;

#[path = "support/example.rs"]
mod example;
use example::example;

fn python() -> String {
    std::env::var("TOOLNEXUS_PYTHON_MCP19").unwrap_or_else(|_| {
        panic!(
            "TOOLNEXUS_PYTHON_MCP19 is not set: this test drives the MCP Python SDK 1.9 and does \
             not skip. Set it up with:\n  python3 -m venv target/py-venv-mcp19 && \
             target/py-venv-mcp19/bin/pip install mcp==1.9.4 pydantic==2.11.7\n  \
             export TOOLNEXUS_PYTHON_MCP19=$PWD/target/py-venv-mcp19/bin/python"
        )
    })
}

#[test]
fn the_python_sdk_1_9_gets_no_priming_events_and_closes_cleanly() {
    let mut server = Command::new(example("mcp_server"))
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example starts");
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .expect("a URL")
        .to_owned();

    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/mcp_client/old_client.py"
    );
    let output = Command::new(python())
        .args([script, &url])
        .stdin(Stdio::null())
        .output()
        .expect("the client runs");
    drop(server.stdin.take());
    let _ = server.wait();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the client failed:\n{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    assert_eq!(report["add"], "5", "{report}");
    assert!(
        report["protocolVersion"].as_str().unwrap() < "2025-11-25",
        "{report}"
    );
    for complaint in ["Error parsing", "Session termination failed", "Traceback"] {
        assert!(
            !stderr.contains(complaint),
            "the SDK logged {complaint:?}:\n{stderr}"
        );
    }
}

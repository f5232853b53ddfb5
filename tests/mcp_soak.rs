//! The short version of the MCP soak (`tests/soak/mcp_soak.rs`), run by the test suite:
//! the same checks on a few hundred requests. The full soak and its last results are in
//! README.md ("Reliability").

use std::process::Command;

use serde_json::Value;

#[path = "support/example.rs"]
mod example;
use example::example;

#[test]
fn a_short_soak_of_the_mcp_server_ends_with_no_failure() {
    let output = Command::new(example("mcp_soak"))
        .args([
            "--clients",
            "16",
            "--requests",
            "10",
            "--rounds",
            "3",
            "--seed",
            "7",
            "--session-flood",
            "400",
            "--slow-flood",
            "300",
            "--header-timeout-ms",
            "500",
        ])
        .output()
        .expect("the soak runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "the soak prints a JSON report ({e}):\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert!(output.status.success(), "{report:#}");
    assert_eq!(report["failures"], 0, "{report:#}");

    // Every well-formed call got exactly one correct response, and there were some.
    let calls = report["well_formed_calls"].as_u64().unwrap();
    assert!(calls > 100, "{report:#}");
    assert_eq!(report["correct_responses"], calls, "{report:#}");
    // Every kind of fault was injected at least once.
    for (kind, count) in report["errors_injected"].as_object().unwrap() {
        assert!(
            count.as_u64().unwrap() > 0,
            "no {kind} injected: {report:#}"
        );
    }
    let held = &report["held_calls"];
    assert!(held["started"].as_u64().unwrap() > 0, "{report:#}");
    assert_eq!(held["started"], held["stopped_by_the_end"], "{report:#}");
    assert_eq!(report["server_answers_after"], true);
    // The floods: the session cap refused what was past it, every stalled connection was
    // closed, and a complete request was served meanwhile.
    let sessions = &report["floods"]["sessions"];
    assert_eq!(
        sessions["statuses"]["200"], sessions["session_cap"],
        "{report:#}"
    );
    assert_eq!(
        sessions["statuses"]["503"],
        400 - sessions["session_cap"].as_u64().unwrap(),
        "{report:#}"
    );
    let slow = &report["floods"]["slow_headers"];
    assert_eq!(slow["closed_by_the_server"], 300, "{report:#}");
    assert_eq!(
        slow["complete_request_during_the_flood"]["status"], 200,
        "{report:#}"
    );
    assert_eq!(report["shutdown_clean"], true);
}

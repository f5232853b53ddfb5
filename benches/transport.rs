//! MCP transports side by side, in one run: stdio round trips (`McpClient` and a bare rmcp
//! client against toolnexus's and rmcp's servers, and a floor of two processes exchanging
//! JSON lines) and streamable HTTP under `wrk` (toolnexus stateless and stateful, bare
//! rmcp stateless and stateful, an axum + serde_json floor, and optionally the official
//! Python and TypeScript SDK servers). Prints ratio tables against bare rmcp measured in
//! the same run. See `BENCHMARKS.md`.
//!
//! ```text
//! cargo bench -p toolnexus-suite --bench transport
//! ```
//!
//! Settings (environment): `TRANSPORT_CALLS` stdio calls per round (2000),
//! `TRANSPORT_ROUNDS` interleaved rounds (4, every other one in reverse order), `TRANSPORT_SECS` seconds per wrk run at 16
//! connections (10), `TRANSPORT_ONLY=stdio|http`, `TRANSPORT_PY` a Python with `mcp`
//! 2.3 and uvicorn, `TRANSPORT_NODE_MODULES` a `node_modules` with
//! `@modelcontextprotocol/sdk` 1.32 and express (their rows are left out without them).
//! The bench pins itself (the clients, `wrk`) to core 0 and every server to core 1 with
//! `taskset` when it is installed.

#![allow(missing_docs)]

#[path = "transport/http.rs"]
mod http;
#[path = "transport/peers.rs"]
mod peers;
#[path = "transport/stdio.rs"]
mod stdio;

use std::process::Command;

/// Set in the re-executed, pinned bench process.
const PINNED: &str = "TRANSPORT_PINNED";

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

/// The command that starts this binary as the server `mode`, pinned to core 1.
pub(crate) fn server_command(mode: &str) -> Command {
    let exe = std::env::current_exe().expect("the bench binary");
    let mut command = if has("taskset") {
        let mut command = Command::new("taskset");
        command.arg("-c").arg("1").arg(exe);
        command
    } else {
        Command::new(exe)
    };
    command.env(peers::SERVE, mode);
    command
}

/// The order the rows of a round run in: as listed in even rounds, reversed in odd ones.
pub(crate) fn round_order(rows: usize, round: usize) -> Vec<usize> {
    if round.is_multiple_of(2) {
        (0..rows).collect()
    } else {
        (0..rows).rev().collect()
    }
}

/// The median (of an even count, the mean of the middle two).
pub(crate) fn median_of(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let half = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[half - 1] + values[half]) / 2.0
    } else {
        values[half]
    }
}

pub(crate) fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The CPU time, in nanoseconds, every thread of process `pid` ("self" for this one) has
/// run so far (the first field of each thread's `schedstat`).
pub(crate) fn cpu_ns(pid: &str) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn main() {
    if let Ok(mode) = std::env::var(peers::SERVE) {
        assert!(peers::serve(&mode), "unknown {}: {mode}", peers::SERVE);
        return;
    }
    if std::env::args().any(|arg| arg == "--list") {
        // `cargo test --benches` and criterion's listing: nothing to run here.
        return;
    }
    if std::env::var_os(PINNED).is_none() && has("taskset") {
        let exe = std::env::current_exe().expect("the bench binary");
        let status = Command::new("taskset")
            .arg("-c")
            .arg("0")
            .arg(exe)
            .args(std::env::args_os().skip(1))
            .env(PINNED, "1")
            .status()
            .expect("taskset runs");
        std::process::exit(status.code().unwrap_or(1));
    }
    let only = std::env::var("TRANSPORT_ONLY").unwrap_or_default();
    println!(
        "load average at start: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    if only.is_empty() || only == "stdio" {
        stdio::run();
    }
    if only.is_empty() || only == "http" {
        http::run();
    }
    println!(
        "load average at end: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}

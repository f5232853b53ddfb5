//! A stdio peer that writes requests but never reads its output: the server stops serving
//! it once a bounded amount of output waits for it, instead of queueing without end.
//! Probed against `tests/security/server.rs` in a child process (Linux: it reads the
//! child's memory from `/proc`).

#[path = "support/example.rs"]
mod example;

use std::process::Stdio;
use std::time::{Duration, Instant};

use example::example;
use serde_json::json;
use tokio::io::AsyncWriteExt as _;
use tokio::process::Command;

/// The largest resident set the server may reach: its output bound (16 MiB), the answers
/// of the requests it serves at a time (16, about 2 MiB each here, the rest wait unread)
/// and what a process of this size holds besides (about 20 MiB), with room to spare. A server that queued all the
/// output asked for here (256 MiB) would pass it several times over.
const MAX_RSS_KIB: u64 = 96 * 1024;

/// The peak resident set (`VmHWM`) of process `pid`, in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_peer_that_never_reads_stops_being_served() {
    let mut child = Command::new(example("security_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let pid = child.id().expect("a pid");
    let mut input = child.stdin.take().expect("stdin");
    // Held, never read: the pipe fills and every later write of the server waits.
    let _output = child.stdout.take().expect("stdout");

    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    // 256 answers of 1 MiB each.
    lines.extend((1..=256).map(|id| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "blob", "arguments": {"bytes": 1 << 20}}})
    }));
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    // The requests fit in the pipe; a server that stopped reading fails the write later.
    let writer = tokio::spawn(async move {
        let _ = input.write_all(text.as_bytes()).await;
        let _ = input.flush().await;
        // Keep stdin open: the peer is still there, it just does not read.
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(input);
    });

    let started = Instant::now();
    let mut peak = 0;
    let status = loop {
        if let Some(rss) = peak_rss_kib(pid) {
            peak = peak.max(rss);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(20) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    writer.abort();
    eprintln!("the server's peak resident set: {peak} KiB");
    assert!(
        peak <= MAX_RSS_KIB,
        "the server grew to {peak} KiB for a peer that does not read"
    );
    let status = status.unwrap_or_else(|| {
        panic!("the server still serves a peer that has not read for 20 s ({peak} KiB)")
    });
    assert!(!status.success(), "stopping a peer is an error: {status}");
    let mut stderr = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr)
        .await
        .unwrap();
    assert!(stderr.contains("not read"), "the reason is given: {stderr}");
}

//! Scale-out: stateless MCP replicas behind a real load balancer (nginx), driven by the
//! official Python and TypeScript MCP SDKs at the same time.
//!
//! Two replicas (`tests/lb/replica.rs`, stateless mode) and nginx (round robin) run on
//! 127.0.0.1. Each SDK (`tests/lb/client.py`, `tests/lb/client.cjs`) sends half its calls,
//! then both start slow calls at once; the test kills one replica while slow calls from
//! both are in flight on it, then lets the clients send the other half. Every call must be answered exactly
//! once with the right result; the calls in flight on the killed replica must fail cleanly
//! (an error, not a hang) and succeed on their first retry, on the other replica.
//!
//! Needs nginx (`$TOOLNEXUS_NGINX`, else `nginx` on the PATH or `/usr/sbin/nginx`), the
//! Python SDK (`$TOOLNEXUS_PYTHON`) and the TypeScript SDK (`$TOOLNEXUS_NODE_MODULES`):
//! `.ci/test` installs them all. Without them the test FAILS, saying what is missing.
//! `$TOOLNEXUS_LB_CALLS` sets the calls per SDK (default 1000: 2,000 in all).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/example.rs"]
mod example;
use example::example;
#[path = "support/nginx.rs"]
mod nginx;
#[path = "support/node.rs"]
mod node;
use nginx::{free_port, start_nginx};
use node::node_command;

/// Hang protection only.
const PATIENCE: Duration = Duration::from_secs(240);
/// Slow calls each SDK starts before the kill.
const SLOW_CALLS: usize = 16;

/// A child process killed when dropped (a failing test leaves nothing running).
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Replica {
    process: Process,
    port: u16,
    slow_started: Arc<AtomicUsize>,
}

fn start_replica(name: &str) -> Replica {
    let mut child = Command::new(example("mcp_replica"))
        .args([name, "127.0.0.1:0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the replica starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().strip_prefix("listening on ").expect("a URL");
    let port = url
        .trim_end_matches("/mcp")
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port");
    let slow_started = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&slow_started);
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("slow_add started") {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    Replica {
        process: Process(child),
        port,
        slow_started,
    }
}

struct Client {
    process: Process,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

fn start_client(mut command: Command) -> Client {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the client starts");
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Client {
        process: Process(child),
        stdin,
        lines,
    }
}

impl Client {
    fn expect_line(&self, what: &str) -> String {
        self.lines
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|_| panic!("the client did not print {what}"))
    }
}

fn python_client(url: &str, calls: usize) -> Command {
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut command = Command::new(python);
    command.arg(root().join("tests/lb/client.py")).args([
        url,
        &calls.to_string(),
        &SLOW_CALLS.to_string(),
    ]);
    command
}

fn typescript_client(url: &str, calls: usize) -> Command {
    let mut command = node_command(root().join("tests/lb/client.cjs"));
    command.args([url, &calls.to_string(), &SLOW_CALLS.to_string()]);
    command
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn count(map: &Value, key: &str) -> u64 {
    map.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn check_report(report: &Value) {
    let calls = report["calls"].as_u64().unwrap();
    assert_eq!(report["answered"], calls, "{report:#}");
    assert_eq!(
        report["correct"], calls,
        "every result is right: {report:#}"
    );
    assert_eq!(report["duplicates"], 0, "{report:#}");
    assert_eq!(report["hangs"], 0, "every failure is clean: {report:#}");
    assert_eq!(report["lost"], 0, "{report:#}");
    let phases = &report["phases"];
    // Round robin: both replicas served the first half.
    let before = &phases["before"]["replicas"];
    assert!(
        count(before, "A") > 0 && count(before, "B") > 0,
        "{report:#}"
    );
    // After the kill, only the survivor answers, and nothing needed a retry.
    let after = &phases["after"];
    assert_eq!(count(&after["replicas"], "A"), 0, "{report:#}");
    assert_eq!(after["retried"], serde_json::json!({}), "{report:#}");
    // Every failed attempt was a slow call in flight on the killed replica, answered with
    // an error, and its first retry succeeded on the other replica.
    for failure in report["failures"].as_array().unwrap() {
        assert_eq!(failure["phase"], "slow", "{report:#}");
        assert_eq!(failure["attempt"], 1, "{report:#}");
    }
    assert!(report["max_attempts"].as_u64().unwrap() <= 2, "{report:#}");
    let slow = &phases["slow"];
    assert_eq!(count(&slow["retried"], "A"), 0, "{report:#}");
    assert_eq!(
        count(&slow["retried"], "B"),
        report["failed_attempts"].as_u64().unwrap(),
        "{report:#}"
    );
}

#[test]
fn stateless_replicas_behind_nginx_answer_every_call_once_even_when_one_dies() {
    let calls: usize = std::env::var("TOOLNEXUS_LB_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let dir = std::env::temp_dir().join(format!("toolnexus-lb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let mut a = start_replica("A");
    let b = start_replica("B");
    let port = free_port();
    let _nginx = Process(start_nginx(&dir, port, &[a.port, b.port]));
    let url = format!("http://127.0.0.1:{port}/mcp");

    let began = Instant::now();
    let mut clients = [
        start_client(python_client(&url, calls)),
        start_client(typescript_client(&url, calls)),
    ];
    // Both SDKs start their slow calls together…
    for client in &clients {
        assert_eq!(client.expect_line("ready"), "ready");
    }
    for client in &mut clients {
        writeln!(client.stdin, "start the slow calls").unwrap();
    }
    for client in &clients {
        assert_eq!(client.expect_line("slow-calls-sent"), "slow-calls-sent");
    }
    // …and replica A is killed while its share of them (half, by round robin) runs.
    let deadline = Instant::now() + Duration::from_secs(5);
    while a.slow_started.load(Ordering::SeqCst) < SLOW_CALLS && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        a.slow_started.load(Ordering::SeqCst) > 0,
        "no slow call reached replica A"
    );
    a.process.0.kill().unwrap();
    a.process.0.wait().unwrap();
    let in_flight_on_a = a.slow_started.load(Ordering::SeqCst);
    for client in &mut clients {
        writeln!(client.stdin, "go").unwrap();
    }

    let mut failed = 0;
    for client in &mut clients {
        let line = client.expect_line("its report");
        let report: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not a JSON report ({e}): {line}"));
        eprintln!("{}", serde_json::to_string(&report).unwrap());
        check_report(&report);
        let failed_here = report["failed_attempts"].as_u64().unwrap();
        assert!(
            failed_here >= 1,
            "a call in flight on the killed replica failed: {report:#}"
        );
        failed += failed_here;
        let status = client.process.0.wait().unwrap();
        assert!(status.success(), "{status}");
    }
    eprintln!(
        "{} calls through nginx in {:.1}s; {in_flight_on_a} slow calls were on the killed \
         replica, {failed} failed and were retried",
        2 * (calls + SLOW_CALLS),
        began.elapsed().as_secs_f64()
    );
    // The slow calls in flight on A failed (and were retried); none other did.
    assert!(failed >= 1, "a call in flight on the killed replica failed");
    assert!(failed as usize <= 2 * SLOW_CALLS, "{failed}");
    drop(b);
    let _ = std::fs::remove_dir_all(&dir);
}

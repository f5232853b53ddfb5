//! The soak's floods, each against a server of its own with the default limits: a session
//! flood (`initialize` after `initialize`, never closed) and a slow-header flood
//! (connections that send part of their headers and stall). Each reports the resident
//! memory before, at its highest during, and after the flood, and what the server did.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::{Tool, ToolResult, Toolkit};

use crate::memory_kib;

/// Clients sending at once.
const CONCURRENCY: usize = 64;

fn server() -> McpServer {
    let echo = Tool::new_sync("echo", "Echoes.", json!({"type": "object"}), |args, _| {
        ToolResult::ok(args.to_string())
    });
    McpServer::new(Toolkit::new().with(echo)).name("flood")
}

/// Samples the resident memory every 20 ms until dropped; `max()` is the highest seen.
struct Sampler {
    max: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Sampler {
    fn start() -> Sampler {
        let max = Arc::new(AtomicU64::new(memory_kib().0));
        let seen = Arc::clone(&max);
        let task = tokio::spawn(async move {
            loop {
                seen.fetch_max(memory_kib().0, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
        Sampler { max, task }
    }

    fn max(&self) -> u64 {
        self.max.load(Ordering::Relaxed)
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn initialize(addr: SocketAddr, id: u64) -> String {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "flood", "version": "0"}}})
    .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// One request on its own connection; the status, or 0 when there was no answer.
async fn status_of(addr: SocketAddr, request: &str) -> u16 {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.ok()?;
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.ok()?;
        String::from_utf8_lossy(&raw)
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
    };
    tokio::time::timeout(Duration::from_secs(30), exchange)
        .await
        .ok()
        .flatten()
        .unwrap_or(0)
}

/// `count` sessions opened and never closed, against a cap of `cap` sessions (the default
/// unless the soak is told otherwise). Returns the report and its failures.
pub(crate) async fn session_flood(count: u64, cap: usize) -> (Value, Vec<String>) {
    let http = server()
        .serve_http_with("127.0.0.1:0", HttpOptions::new().max_sessions(cap))
        .await
        .expect("binds");
    let addr = http.local_addr();
    let mut failures = Vec::new();
    let (before, _) = memory_kib();
    let sampler = Sampler::start();
    let started = Instant::now();
    let next = Arc::new(AtomicU64::new(0));
    let statuses = Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::new()));
    let workers: Vec<_> = (0..CONCURRENCY)
        .map(|_| {
            let (next, statuses) = (Arc::clone(&next), Arc::clone(&statuses));
            tokio::spawn(async move {
                loop {
                    let id = next.fetch_add(1, Ordering::Relaxed);
                    if id >= count {
                        break;
                    }
                    let status = status_of(addr, &initialize(addr, id)).await;
                    *statuses.lock().unwrap().entry(status).or_insert(0u64) += 1;
                }
            })
        })
        .collect();
    for worker in workers {
        let _ = worker.await;
    }
    let seconds = started.elapsed().as_secs_f64();
    let highest = sampler.max();
    drop(sampler);
    let (after, _) = memory_kib();
    let statuses = statuses.lock().unwrap().clone();
    let accepted = statuses.get(&200).copied().unwrap_or(0);
    let refused = statuses.get(&503).copied().unwrap_or(0);
    let cap = cap as u64;
    if accepted != cap.min(count) || accepted + refused != count {
        failures.push(format!(
            "session flood: {count} initialize gave {statuses:?}, expected {} accepted (the cap) \
             and the rest 503",
            cap.min(count)
        ));
    }
    // Past the cap the server still answers other requests.
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let bad = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{ping}",
        ping.len()
    );
    let answers = status_of(addr, &bad).await;
    if answers == 0 || answers >= 500 {
        failures.push(format!(
            "session flood: the server answered {answers} afterwards"
        ));
    }
    let _ = tokio::time::timeout(Duration::from_secs(30), http.shutdown()).await;
    let report = json!({
        "initialize_sent": count,
        "statuses": statuses.iter().map(|(s, n)| (s.to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
        "session_cap": cap,
        "seconds": (seconds * 10.0).round() / 10.0,
        "rss_kib": {"before": before, "highest": highest, "after": after,
                    "growth": highest.saturating_sub(before)},
        "kib_per_session": highest.saturating_sub(before) / accepted.max(1),
    });
    (report, failures)
}

/// `count` connections that send part of their headers and stall, with a well-behaved
/// client in the middle of them. Returns the report and its failures.
pub(crate) async fn slow_header_flood(count: u64, timeout: Duration) -> (Value, Vec<String>) {
    let options = HttpOptions::new().header_read_timeout(timeout);
    let connections = toolnexus::mcp::DEFAULT_MAX_CONNECTIONS as u64;
    let http = server()
        .serve_http_with("127.0.0.1:0", options)
        .await
        .expect("binds");
    let addr = http.local_addr();
    let mut failures = Vec::new();
    let (before, _) = memory_kib();
    let sampler = Sampler::start();
    let started = Instant::now();
    let stalled: Vec<_> = (0..count)
        .map(|_| {
            tokio::spawn(async move {
                let opened = Instant::now();
                let mut stream = TcpStream::connect(addr).await.ok()?;
                let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: appl");
                stream.write_all(head.as_bytes()).await.ok()?;
                let mut sink = [0u8; 256];
                // Closed by the server: end of stream, or a reset.
                while let Ok(n) = stream.read(&mut sink).await {
                    if n == 0 {
                        break;
                    }
                }
                Some(opened.elapsed())
            })
        })
        .collect();
    // A client with complete requests, while the flood is on.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let asked = Instant::now();
    let legit = status_of(addr, &initialize(addr, 1)).await;
    let legit_ms = asked.elapsed().as_millis() as u64;
    let mut closed = 0u64;
    let mut slowest = Duration::ZERO;
    let limit = timeout * (count.div_ceil(connections) as u32 + 2) + Duration::from_secs(10);
    for task in stalled {
        if let Ok(Ok(Some(after))) = tokio::time::timeout(limit, task).await {
            closed += 1;
            slowest = slowest.max(after);
        }
    }
    let highest = sampler.max();
    drop(sampler);
    let (after, _) = memory_kib();
    if closed != count {
        failures.push(format!(
            "slow-header flood: {} of {count} stalled connections were not closed within {limit:?}",
            count - closed
        ));
    }
    if legit != 200 {
        failures.push(format!(
            "slow-header flood: a complete request got {legit} during the flood"
        ));
    }
    let _ = tokio::time::timeout(Duration::from_secs(30), http.shutdown()).await;
    let report = json!({
        "stalled_connections": count,
        "header_read_timeout_ms": timeout.as_millis() as u64,
        "connection_cap": connections,
        "closed_by_the_server": closed,
        "slowest_close_seconds": (slowest.as_secs_f64() * 10.0).round() / 10.0,
        "complete_request_during_the_flood": {"status": legit, "milliseconds": legit_ms},
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        "rss_kib": {"before": before, "highest": highest, "after": after,
                    "growth": highest.saturating_sub(before)},
    });
    (report, failures)
}

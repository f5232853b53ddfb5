//! A bounded soak test of the MCP server over streamable HTTP, on the loopback interface.
//!
//! ```text
//! cargo run -p toolnexus-suite --release --example mcp_soak                       # the full soak
//! cargo run -p toolnexus-suite --release --example mcp_soak -- --clients 64 --requests 50 --rounds 5
//! cargo run -p toolnexus-suite --release --example mcp_soak -- --rounds 25 --vanishing 0  # no abandoned sessions
//! cargo run -p toolnexus-suite --release --example mcp_soak -- --rounds 0                 # the floods alone
//! ```
//!
//! It starts an [`McpServer`] on `127.0.0.1:0` (nothing else is contacted), then runs
//! `--rounds` rounds of `--clients` concurrent clients, each opening a session and
//! sending `--requests` requests on a kept-alive connection. Mixed in, by a seeded
//! generator (`--seed`): tools that panic, unknown tools, bad arguments, malformed JSON,
//! JSON that is not JSON-RPC, clients that disconnect in the middle of a call or of a
//! request, oversized bodies, and clients that vanish without closing their session.
//!
//! Afterwards it checks that every well-formed call got exactly one response, with the
//! right result; that every call abandoned by a disconnect had its tool cancelled; that
//! the server still answers and shuts down cleanly; and that resident memory did not keep
//! growing from round to round. Then two floods, each against a server with the default
//! limits: `--session-flood` `initialize` requests never closed (the session cap must
//! refuse those past it with 503), and `--slow-flood` connections that send part of their
//! headers and stall (each must be closed after the header-read timeout,
//! `--header-timeout-ms`, while a complete request is still served); each records the
//! resident memory at its highest. It prints a JSON report and exits non-zero on any
//! failure. `tests/mcp_soak.rs` runs a short version of it in the test suite.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use toolnexus::mcp::{HttpOptions, McpServer};

mod floods;
use toolnexus::{Tool, ToolResult, Toolkit};

/// Hang protection for one exchange; no result depends on how long anything takes.
const PATIENCE: Duration = Duration::from_secs(30);

/// The server's bound on one request body; the oversized client sends more.
const MAX_BODY: usize = 256 * 1024;

#[derive(Debug, Clone)]
struct Config {
    clients: u64,
    requests: u64,
    rounds: u64,
    seed: u64,
    /// One client in this many vanishes without closing its session (0: none).
    vanishing: u64,
    /// `initialize` requests of the session flood (0: no flood).
    session_flood: u64,
    /// The session cap of the session flood's server.
    flood_session_cap: u64,
    /// Stalled connections of the slow-header flood (0: no flood).
    slow_flood: u64,
    /// The header-read timeout of the slow-header flood's server.
    header_timeout_ms: u64,
}

impl Config {
    fn from_args() -> Result<Config, String> {
        let mut config = Config {
            clients: 128,
            requests: 40,
            rounds: 5,
            seed: 1,
            vanishing: 8,
            session_flood: 2000,
            flood_session_cap: toolnexus::mcp::DEFAULT_MAX_SESSIONS as u64,
            slow_flood: 1000,
            header_timeout_ms: 2000,
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            let value = args
                .next()
                .ok_or_else(|| format!("{flag} needs a value"))?
                .parse::<u64>()
                .map_err(|e| format!("{flag}: {e}"))?;
            match flag.as_str() {
                "--clients" => config.clients = value.max(1),
                "--requests" => config.requests = value,
                "--rounds" => config.rounds = value,
                "--seed" => config.seed = value,
                "--vanishing" => config.vanishing = value,
                "--session-flood" => config.session_flood = value,
                "--flood-session-cap" => config.flood_session_cap = value.max(1),
                "--slow-flood" => config.slow_flood = value,
                "--header-timeout-ms" => config.header_timeout_ms = value.max(1),
                other => return Err(format!("unknown flag {other}")),
            }
        }
        Ok(config)
    }
}

/// A small seeded generator (splitmix64): the same seed gives the same soak.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Counts of what happened, shared by every client.
#[derive(Default)]
struct Tally {
    requests_sent: AtomicU64,
    well_formed_calls: AtomicU64,
    correct_responses: AtomicU64,
    injected_panics: AtomicU64,
    injected_bad_arguments: AtomicU64,
    injected_unknown_tools: AtomicU64,
    injected_malformed_json: AtomicU64,
    injected_not_jsonrpc: AtomicU64,
    injected_disconnects_mid_call: AtomicU64,
    injected_disconnects_mid_request: AtomicU64,
    injected_oversized_bodies: AtomicU64,
    vanished_sessions: AtomicU64,
    closed_sessions: AtomicU64,
    held_started: AtomicU64,
    held_dropped: AtomicU64,
    held_in_vanished_sessions: AtomicU64,
    explicit_cancels: AtomicU64,
    failures: AtomicU64,
    samples: Mutex<Vec<String>>,
}

impl Tally {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::SeqCst);
    }

    fn fail(&self, what: String) {
        Tally::add(&self.failures);
        let mut samples = self.samples.lock().unwrap();
        if samples.len() < 20 {
            samples.push(what);
        }
    }

    fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::SeqCst)
    }
}

/// Calls held open until their client disconnects: who to tell when one starts.
type Held = Arc<Mutex<HashMap<u64, oneshot::Sender<()>>>>;

struct DropCount(Arc<Tally>);

impl Drop for DropCount {
    fn drop(&mut self) {
        Tally::add(&self.0.held_dropped);
    }
}

fn toolkit(tally: Arc<Tally>, held: Held) -> Toolkit {
    let object = |properties: Value| json!({"type": "object", "properties": properties});
    let add = Tool::new_sync(
        "add",
        "Add two integers.",
        object(json!({"a": {"type": "integer"}, "b": {"type": "integer"}})),
        |args, _| match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok(a.wrapping_add(b).to_string()),
            _ => ToolResult::error("add: `a` and `b` must be integers"),
        },
    );
    let echo = Tool::new(
        "echo",
        "Echo a text after a yield.",
        object(json!({"text": {"type": "string"}})),
        |args, _| async move {
            tokio::task::yield_now().await;
            ToolResult::ok(args["text"].as_str().unwrap_or_default())
        },
    );
    let boom = Tool::new_sync("boom", "Panics.", object(json!({})), |_, _| {
        panic!("injected panic")
    });
    let hold = Tool::new(
        "hold",
        "Waits until its client goes away.",
        object(json!({"key": {"type": "integer"}})),
        move |args, _| {
            let guard = DropCount(tally.clone());
            Tally::add(&tally.held_started);
            let tell = args["key"]
                .as_u64()
                .and_then(|key| held.lock().unwrap().remove(&key));
            async move {
                let _guard = guard;
                if let Some(tell) = tell {
                    let _ = tell.send(());
                }
                std::future::pending::<ToolResult>().await
            }
        },
    );
    Toolkit::new().with(add).with(echo).with(boom).with(hold)
}

/// Resident and peak resident memory of this process, in KiB (Linux; zeros elsewhere).
fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

// ---------------------------------------------------------------------------------------
// The HTTP side of a client
// ---------------------------------------------------------------------------------------

struct Reply {
    status: u16,
    session: Option<String>,
    /// The JSON-RPC messages in the body (one JSON document, or SSE `data:` events).
    messages: Vec<Value>,
}

fn messages(content_type: &str, body: &[u8]) -> Vec<Value> {
    if content_type.starts_with("text/event-stream") {
        String::from_utf8_lossy(body)
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    } else {
        serde_json::from_slice(body).into_iter().collect()
    }
}

/// A kept-alive HTTP/1.1 connection to the server, reopened when the server closed it.
struct Conn {
    addr: SocketAddr,
    sender: Option<SendRequest<Full<Bytes>>>,
}

impl Conn {
    fn new(addr: SocketAddr) -> Conn {
        Conn { addr, sender: None }
    }

    async fn sender(&mut self) -> Result<&mut SendRequest<Full<Bytes>>, String> {
        if let Some(sender) = &mut self.sender
            && sender.ready().await.is_err()
        {
            self.sender = None;
        }
        if self.sender.is_none() {
            let stream = TcpStream::connect(self.addr)
                .await
                .map_err(|e| format!("connect: {e}"))?;
            // Headers and body go out in separate writes: without this, each request
            // waits on the peer's delayed ACK.
            let _ = stream.set_nodelay(true);
            let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|e| format!("handshake: {e}"))?;
            tokio::spawn(connection);
            self.sender = Some(sender);
        }
        Ok(self.sender.as_mut().unwrap())
    }

    async fn send(
        &mut self,
        method: &str,
        body: Vec<u8>,
        session: Option<&str>,
    ) -> Result<Reply, String> {
        let addr = self.addr;
        let exchange = async {
            let mut request = hyper::Request::builder()
                .method(method)
                .uri("/mcp")
                .header("host", addr.to_string())
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream");
            if let Some(id) = session {
                request = request.header("mcp-session-id", id);
            }
            let request = request
                .body(Full::new(Bytes::from(body)))
                .map_err(|e| e.to_string())?;
            let response = self
                .sender()
                .await?
                .send_request(request)
                .await
                .map_err(|e| format!("send: {e}"))?;
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let session = header("mcp-session-id");
            let content_type = header("content-type").unwrap_or_default();
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| format!("body: {e}"))?
                .to_bytes();
            Ok(Reply {
                status,
                session,
                messages: messages(&content_type, &body),
            })
        };
        match tokio::time::timeout(PATIENCE, exchange).await {
            Ok(outcome) => outcome,
            Err(_) => Err(format!("no answer within {PATIENCE:?}")),
        }
    }

    async fn post(&mut self, body: &Value, session: Option<&str>) -> Result<Reply, String> {
        self.send("POST", body.to_string().into_bytes(), session)
            .await
    }
}

/// Writes `head` and `body` on a fresh connection and reads the status line, without
/// caring whether the server reads the whole body first (it may refuse it early).
async fn raw_exchange(addr: SocketAddr, head: String, body: Vec<u8>) -> Result<u16, String> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let (mut read, mut write) = stream.split();
    let send = async move {
        let _ = write.write_all(head.as_bytes()).await;
        let _ = write.write_all(&body).await;
    };
    let mut response = Vec::new();
    let receive = async {
        let mut chunk = [0u8; 4096];
        // The status line is enough; stop at the end of the headers.
        while !response.windows(4).any(|w| w == b"\r\n\r\n") {
            match read.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => response.extend_from_slice(&chunk[..n]),
            }
        }
    };
    tokio::time::timeout(PATIENCE, async { tokio::join!(send, receive) })
        .await
        .map_err(|_| "no answer".to_owned())?;
    let text = String::from_utf8_lossy(&response);
    text.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an HTTP response: {text:?}"))
}

fn post_head(addr: SocketAddr, length: usize, session: Option<&str>) -> String {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n"
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    head.push_str("\r\n");
    head
}

// ---------------------------------------------------------------------------------------
// One client
// ---------------------------------------------------------------------------------------

struct Client {
    number: u64,
    addr: SocketAddr,
    conn: Conn,
    session: String,
    next_id: u64,
    rng: Rng,
    tally: Arc<Tally>,
    held: Held,
    /// Calls of this client held open by a disconnect and not cancelled by it.
    held_open: u64,
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

impl Client {
    async fn open(
        number: u64,
        seed: u64,
        addr: SocketAddr,
        tally: Arc<Tally>,
        held: Held,
    ) -> Option<Client> {
        let mut conn = Conn::new(addr);
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": format!("soak-{number}"), "version": "0"}}});
        Tally::add(&tally.requests_sent);
        let session = match conn.post(&initialize, None).await {
            Ok(Reply {
                status: 200,
                session: Some(session),
                messages,
            }) if messages
                .iter()
                .any(|m| m["result"]["serverInfo"].is_object()) =>
            {
                session
            }
            Ok(reply) => {
                tally.fail(format!(
                    "client {number}: initialize got {} {:?}",
                    reply.status, reply.messages
                ));
                return None;
            }
            Err(e) => {
                tally.fail(format!("client {number}: initialize: {e}"));
                return None;
            }
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        Tally::add(&tally.requests_sent);
        match conn.post(&initialized, Some(&session)).await {
            Ok(reply) if reply.status == 202 => {}
            Ok(reply) => tally.fail(format!("client {number}: initialized got {}", reply.status)),
            Err(e) => tally.fail(format!("client {number}: initialized: {e}")),
        }
        Some(Client {
            number,
            addr,
            conn,
            session,
            next_id: 1,
            rng: Rng(seed ^ number.wrapping_mul(0x2545_F491_4F6C_DD1D)),
            tally,
            held,
            held_open: 0,
        })
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// A well-formed call: exactly one response, carrying this call's id, and `check`
    /// must accept its result.
    async fn expect_one(&mut self, request: Value, check: impl Fn(&Value) -> bool) {
        let id = request["id"].clone();
        Tally::add(&self.tally.requests_sent);
        Tally::add(&self.tally.well_formed_calls);
        let reply = match self.conn.post(&request, Some(&self.session)).await {
            Ok(reply) => reply,
            Err(e) => {
                return self
                    .tally
                    .fail(format!("client {}: call {id}: {e}", self.number));
            }
        };
        let responses: Vec<&Value> = reply
            .messages
            .iter()
            .filter(|m| m.get("result").is_some() || m.get("error").is_some())
            .collect();
        let ok = reply.status == 200
            && responses.len() == 1
            && responses[0]["id"] == id
            && check(responses[0]);
        if ok {
            Tally::add(&self.tally.correct_responses);
        } else {
            self.tally.fail(format!(
                "client {}: call {id}: status {}, responses {responses:?}",
                self.number, reply.status
            ));
        }
    }

    async fn step(&mut self) {
        let id = self.id();
        let roll = self.rng.below(100);
        match roll {
            0..=49 => {
                let (a, b) = (self.rng.next() as i32 as i64, self.rng.next() as i32 as i64);
                let want = (a + b).to_string();
                self.expect_one(call(id, "add", json!({"a": a, "b": b})), |r| {
                    r["result"]["isError"] == false && r["result"]["content"][0]["text"] == want
                })
                .await;
            }
            50..=64 => {
                let text = format!("client {} call {id} ✓ \"quoted\"\n", self.number);
                self.expect_one(call(id, "echo", json!({"text": text})), |r| {
                    r["result"]["content"][0]["text"] == text.as_str()
                })
                .await;
            }
            65..=71 => {
                Tally::add(&self.tally.injected_panics);
                self.expect_one(call(id, "boom", json!({})), |r| {
                    r["result"]["isError"] == true
                        && r["result"]["content"][0]["text"] == "boom panicked: injected panic"
                })
                .await;
            }
            72..=75 => {
                Tally::add(&self.tally.injected_bad_arguments);
                self.expect_one(call(id, "add", json!({"a": "one", "b": [2]})), |r| {
                    r["result"]["isError"] == true
                })
                .await;
            }
            76..=79 => {
                Tally::add(&self.tally.injected_unknown_tools);
                self.expect_one(call(id, "no_such_tool", json!({})), |r| {
                    r["error"]["code"] == -32602
                })
                .await;
            }
            80..=85 => {
                Tally::add(&self.tally.injected_malformed_json);
                let garbage: &[&[u8]] = &[
                    b"{not json",
                    br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add""#,
                    b"\xff\xfe\x00garbage",
                    b"",
                    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
                ];
                let body = garbage[self.rng.below(garbage.len() as u64) as usize].to_vec();
                self.refused(body).await;
            }
            86..=89 => {
                Tally::add(&self.tally.injected_not_jsonrpc);
                let body = json!({"hello": "world", "id": id}).to_string().into_bytes();
                self.refused(body).await;
            }
            90..=94 => self.disconnect_mid_call(id).await,
            _ => {
                Tally::add(&self.tally.injected_disconnects_mid_request);
                Tally::add(&self.tally.requests_sent);
                if let Ok(mut stream) = TcpStream::connect(self.addr).await {
                    let head = post_head(self.addr, 500, Some(&self.session));
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(br#"{"jsonrpc":"2.0","id":"#).await;
                }
            }
        }
    }

    /// A bad request on its own connection: a 4xx status, or a JSON-RPC error.
    async fn refused(&mut self, body: Vec<u8>) {
        Tally::add(&self.tally.requests_sent);
        let mut conn = Conn::new(self.addr);
        match conn.send("POST", body, Some(&self.session)).await {
            Ok(reply)
                if (400..500).contains(&reply.status)
                    || reply.messages.iter().any(|m| m.get("error").is_some()) => {}
            Ok(reply) => self.tally.fail(format!(
                "client {}: bad request accepted: {} {:?}",
                self.number, reply.status, reply.messages
            )),
            Err(e) => self
                .tally
                .fail(format!("client {}: bad request: {e}", self.number)),
        }
    }

    /// Starts a call that never ends by itself, waits until the tool is running, and
    /// disconnects. Streamable HTTP keeps such a call running (a client may reconnect for
    /// its result), so half the time the client also cancels it explicitly
    /// (`notifications/cancelled`); the others end with the session.
    async fn disconnect_mid_call(&mut self, id: u64) {
        Tally::add(&self.tally.injected_disconnects_mid_call);
        Tally::add(&self.tally.requests_sent);
        let key = self.number << 32 | id;
        let (tell, running) = oneshot::channel();
        self.held.lock().unwrap().insert(key, tell);
        let body = call(id, "hold", json!({"key": key})).to_string();
        let head = post_head(self.addr, body.len(), Some(&self.session));
        let Ok(mut stream) = TcpStream::connect(self.addr).await else {
            return self.tally.fail("connect for a held call".into());
        };
        let _ = stream.write_all(head.as_bytes()).await;
        let _ = stream.write_all(body.as_bytes()).await;
        if tokio::time::timeout(PATIENCE, running).await.is_err() {
            self.tally.fail(format!(
                "client {}: held call {id} never started",
                self.number
            ));
        }
        drop(stream);
        if self.rng.below(2) == 0 {
            self.held_open += 1;
            return;
        }
        Tally::add(&self.tally.explicit_cancels);
        Tally::add(&self.tally.requests_sent);
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": id, "reason": "soak"}});
        match self.conn.post(&cancel, Some(&self.session)).await {
            Ok(reply) if reply.status == 202 => {}
            Ok(reply) => self.tally.fail(format!(
                "client {}: cancel got {}",
                self.number, reply.status
            )),
            Err(e) => self
                .tally
                .fail(format!("client {}: cancel: {e}", self.number)),
        }
    }

    async fn close(mut self, vanish: bool) {
        if vanish {
            // Its held calls run on until the session's idle timeout or the shutdown.
            Tally::add(&self.tally.vanished_sessions);
            self.tally
                .held_in_vanished_sessions
                .fetch_add(self.held_open, Ordering::SeqCst);
            return;
        }
        Tally::add(&self.tally.requests_sent);
        match self
            .conn
            .send("DELETE", Vec::new(), Some(&self.session))
            .await
        {
            Ok(reply) if (200..300).contains(&reply.status) => {
                Tally::add(&self.tally.closed_sessions)
            }
            Ok(reply) => self.tally.fail(format!(
                "client {}: DELETE got {}",
                self.number, reply.status
            )),
            Err(e) => self
                .tally
                .fail(format!("client {}: DELETE: {e}", self.number)),
        }
    }
}

async fn oversized(addr: SocketAddr, tally: &Tally) {
    Tally::add(&tally.injected_oversized_bodies);
    Tally::add(&tally.requests_sent);
    let pad = "x".repeat(MAX_BODY + 64 * 1024);
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","pad":"{pad}"}}"#).into_bytes();
    match raw_exchange(addr, post_head(addr, body.len(), None), body).await {
        Ok(413) => {}
        Ok(status) => tally.fail(format!("oversized body got {status}, not 413")),
        Err(e) => tally.fail(format!("oversized body: {e}")),
    }
}

// ---------------------------------------------------------------------------------------
// The soak
// ---------------------------------------------------------------------------------------

async fn round(config: &Config, number: u64, addr: SocketAddr, tally: &Arc<Tally>, held: &Held) {
    let clients: Vec<_> = (0..config.clients)
        .map(|c| {
            let client_number = number * config.clients + c;
            let (tally, held) = (tally.clone(), held.clone());
            let (requests, seed) = (config.requests, config.seed);
            let vanish = config.vanishing > 0 && client_number.is_multiple_of(config.vanishing);
            tokio::spawn(async move {
                // One client per round sends an oversized body as well.
                if c == 0 {
                    oversized(addr, &tally).await;
                }
                let Some(mut client) = Client::open(client_number, seed, addr, tally, held).await
                else {
                    return;
                };
                for _ in 0..requests {
                    client.step().await;
                }
                // Some clients vanish without closing their session.
                client.close(vanish).await;
            })
        })
        .collect();
    for client in clients {
        if let Err(e) = client.await {
            tally.fail(format!("a client task failed: {e}"));
        }
    }
}

/// Waits (boundedly) until `unfinished` reaches zero.
async fn held_calls_end(unfinished: impl Fn() -> u64) -> bool {
    let deadline = Instant::now() + PATIENCE;
    while unfinished() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    unfinished() == 0
}

/// Runs the soak and returns its report; `report["failures"]` is 0 when all held.
async fn soak(config: &Config) -> Value {
    let tally = Arc::new(Tally::default());
    let held: Held = Arc::default();
    let server = McpServer::new(toolkit(tally.clone(), held.clone()))
        .name("soak")
        .max_message_bytes(MAX_BODY);
    // Vanished clients' sessions outlive the rounds (until their idle expiry): room for
    // them all. The floods below check the default cap.
    let http = server
        .serve_http_with("127.0.0.1:0", HttpOptions::new().max_sessions(1 << 14))
        .await
        .expect("the server binds a loopback port");
    let addr = http.local_addr();
    let started = Instant::now();

    // A warm-up client, so the first measurement is not the server's start-up cost.
    if let Some(client) = Client::open(u64::MAX >> 1, 0, addr, tally.clone(), held.clone()).await {
        client.close(false).await;
    }
    let (rss_before, peak_before) = memory_kib();
    let mut rss_rounds = Vec::new();
    for number in 0..config.rounds {
        round(config, number, addr, &tally, &held).await;
        rss_rounds.push(memory_kib().0);
    }
    let (rss_after, peak_after) = memory_kib();

    // Every call abandoned by a disconnect and then cancelled, or whose session was
    // closed, must have had its tool cancelled (its future dropped). An explicit
    // cancellation takes effect at once; closing a session takes a few seconds.
    let unfinished = || {
        let open = Tally::get(&tally.held_in_vanished_sessions);
        (Tally::get(&tally.held_started) - open).saturating_sub(Tally::get(&tally.held_dropped))
    };
    if !held_calls_end(unfinished).await {
        tally.fail(format!(
            "{} cancelled calls were never stopped",
            unfinished()
        ));
    }

    // The server still answers, through a whole new session.
    let mut still_answers = false;
    if let Some(mut client) =
        Client::open(u64::MAX >> 2, 0, addr, tally.clone(), held.clone()).await
    {
        let before = Tally::get(&tally.correct_responses);
        client
            .expect_one(call(1, "add", json!({"a": 40, "b": 2})), |r| {
                r["result"]["content"][0]["text"] == "42"
            })
            .await;
        still_answers = Tally::get(&tally.correct_responses) == before + 1;
        client.close(false).await;
    }
    if !still_answers {
        tally.fail("the server does not answer after the soak".into());
    }
    let shutdown_clean = matches!(
        tokio::time::timeout(PATIENCE, http.shutdown()).await,
        Ok(Ok(()))
    );
    if !shutdown_clean {
        tally.fail("the server did not shut down cleanly".into());
    }
    // The shutdown ends every session, so the calls of vanished clients stop too.
    let left = || Tally::get(&tally.held_started).saturating_sub(Tally::get(&tally.held_dropped));
    if !held_calls_end(left).await {
        tally.fail(format!("{} calls still running after the shutdown", left()));
    }

    // Memory must level off: the last round may not add more than the first round did
    // (plus slack for allocator noise). A per-request leak grows every round alike.
    let first_growth = rss_rounds
        .first()
        .map_or(0, |r| r.saturating_sub(rss_before));
    let last_growth = match rss_rounds.len() {
        0 | 1 => 0,
        n => rss_rounds[n - 1].saturating_sub(rss_rounds[n - 2]),
    };
    let memory_levels_off = rss_rounds.len() < 3 || last_growth <= first_growth / 2 + 8 * 1024;
    if !memory_levels_off {
        tally.fail(format!(
            "resident memory keeps growing: +{first_growth} KiB in round 1, +{last_growth} KiB in the last round"
        ));
    }

    // The floods, each against a server of its own with the default limits.
    let mut floods = json!({});
    if config.session_flood > 0 {
        let (report, failed) =
            floods::session_flood(config.session_flood, config.flood_session_cap as usize).await;
        failed.into_iter().for_each(|f| tally.fail(f));
        floods["sessions"] = report;
    }
    if config.slow_flood > 0 {
        let timeout = Duration::from_millis(config.header_timeout_ms);
        let (report, failed) = floods::slow_header_flood(config.slow_flood, timeout).await;
        failed.into_iter().for_each(|f| tally.fail(f));
        floods["slow_headers"] = report;
    }

    let t = &tally;
    let get = Tally::get;
    json!({
        "config": {"clients": config.clients, "requests_per_client": config.requests,
                   "rounds": config.rounds, "seed": config.seed, "vanishing": config.vanishing},
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        "requests_sent": get(&t.requests_sent),
        "well_formed_calls": get(&t.well_formed_calls),
        "correct_responses": get(&t.correct_responses),
        "errors_injected": {
            "tool_panics": get(&t.injected_panics),
            "bad_arguments": get(&t.injected_bad_arguments),
            "unknown_tools": get(&t.injected_unknown_tools),
            "malformed_json": get(&t.injected_malformed_json),
            "not_jsonrpc": get(&t.injected_not_jsonrpc),
            "disconnects_mid_call": get(&t.injected_disconnects_mid_call),
            "disconnects_mid_request": get(&t.injected_disconnects_mid_request),
            "oversized_bodies": get(&t.injected_oversized_bodies),
            "vanished_sessions": get(&t.vanished_sessions),
        },
        "sessions_closed": get(&t.closed_sessions),
        "held_calls": {
            "started": get(&t.held_started),
            "cancelled_explicitly": get(&t.explicit_cancels),
            "left_in_vanished_sessions": get(&t.held_in_vanished_sessions),
            "stopped_by_the_end": get(&t.held_dropped),
        },
        "server_answers_after": still_answers,
        "shutdown_clean": shutdown_clean,
        "rss_kib": {"before": rss_before, "after_each_round": rss_rounds, "after": rss_after,
                    "peak_before": peak_before, "peak_after": peak_after},
        "floods": floods,
        "failures": get(&t.failures),
        "failure_samples": t.samples.lock().unwrap().clone(),
    })
}

fn main() {
    let config = match Config::from_args() {
        Ok(config) => config,
        Err(e) => {
            eprintln!(
                "mcp_soak: {e}\nusage: mcp_soak [--clients N] [--requests N] [--rounds N] [--seed N] [--vanishing N] [--session-flood N] [--flood-session-cap N] [--slow-flood N] [--header-timeout-ms N]"
            );
            std::process::exit(2);
        }
    };
    // The injected panics are expected: keep them off stderr.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<&str>() != Some(&"injected panic") {
            default_hook(info);
        }
    }));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let report = runtime.block_on(soak(&config));
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
    if report["failures"] != 0 {
        std::process::exit(1);
    }
}

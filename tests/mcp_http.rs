//! The MCP server over streamable HTTP, spoken to with raw HTTP/1.1 requests: the checks
//! on who may connect (`Origin`, `Host`), the limits (sessions, idle sessions, slow
//! headers, connections), the status codes (malformed JSON, malformed params, `DELETE`),
//! resuming a dropped stream with `Last-Event-ID`, priming events only for the protocol
//! versions that have them, the URL of a server bound to every interface, and the
//! stateless mode.

#[path = "support/raw_http.rs"]
mod raw_http;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};
use toolnexus::{Tool, ToolResult, Toolkit};

use raw_http::{Reply, exchange};

/// Hang protection only.
const PATIENCE: Duration = Duration::from_secs(30);

fn add() -> Tool {
    Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
        |args, _| {
            ToolResult::ok(
                (args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)).to_string(),
            )
        },
    )
}

async fn serve(options: HttpOptions) -> HttpServer {
    McpServer::new(Toolkit::new().with(add()))
        .serve_http_with("127.0.0.1:0", options)
        .await
        .unwrap()
}

impl Reply {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    }

    /// The JSON messages of the body: the whole body, or the `data:` lines of an event
    /// stream.
    fn messages(&self) -> Vec<Value> {
        if let Ok(value) = serde_json::from_str(self.body.trim()) {
            return vec![value];
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }

    /// The first JSON-RPC message with an `id` (a response or an error).
    fn answer(&self) -> Value {
        self.messages()
            .into_iter()
            .find(|m| m.get("id").is_some())
            .unwrap_or_else(|| panic!("no answer in {self:?}"))
    }

    /// Whether the body holds an SSE event with an id whose data is empty.
    fn has_priming_event(&self) -> bool {
        self.body.split("\n\n").any(|event| {
            let data: Vec<_> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .collect();
            !data.is_empty() && data.iter().all(|d| d.trim().is_empty())
        })
    }
}

fn request(method: &str, addr: SocketAddr, body: &str, headers: &[(&str, &str)]) -> String {
    let mut text = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    text
}

async fn post(addr: SocketAddr, body: &str, headers: &[(&str, &str)]) -> Reply {
    exchange(addr, request("POST", addr, body, headers)).await
}

fn initialize(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string()
}

/// A new session: `initialize`, then `notifications/initialized`; returns its id.
async fn open_session(addr: SocketAddr, version: &str) -> String {
    let reply = post(addr, &initialize(version), &[]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let session = reply.header("mcp-session-id").expect("a session id");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", version),
    ];
    assert_eq!(post(addr, initialized, &headers).await.status, 202);
    session
}

fn call(id: u64, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

const V_OLD: &str = "2025-06-18";
const V_NEW: &str = "2025-11-25";

#[tokio::test]
async fn a_foreign_or_null_origin_is_refused_with_403() {
    let http = serve(HttpOptions::new()).await;
    let addr = http.local_addr();
    for origin in [
        "http://evil.example",
        "null",
        "https://localhost.evil.example",
    ] {
        let reply = post(addr, &initialize(V_OLD), &[("Origin", origin)]).await;
        assert_eq!(reply.status, 403, "Origin {origin}: {reply:?}");
    }
    // The deployment call of the report, on a session opened without an Origin.
    let session = open_session(addr, V_OLD).await;
    let deploy = call(2, json!({"name": "add", "arguments": {"a": 1, "b": 2}}));
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("Origin", "http://evil.example"),
    ];
    assert_eq!(post(addr, &deploy, &headers).await.status, 403);
    // Loopback pages and clients without an Origin are served.
    for origin in ["http://localhost:5173", "http://127.0.0.1:8080"] {
        let reply = post(addr, &initialize(V_OLD), &[("Origin", origin)]).await;
        assert_eq!(reply.status, 200, "Origin {origin}: {reply:?}");
    }
    http.shutdown().await.unwrap();

    // Configured origins are accepted beside the loopback ones.
    let http = serve(HttpOptions::new().allowed_origins(["https://app.example.com"])).await;
    let addr = http.local_addr();
    let ok = post(
        addr,
        &initialize(V_OLD),
        &[("Origin", "https://app.example.com")],
    )
    .await;
    assert_eq!(ok.status, 200, "{ok:?}");
    let evil = post(
        addr,
        &initialize(V_OLD),
        &[("Origin", "https://evil.example.com")],
    )
    .await;
    assert_eq!(evil.status, 403);
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn sessions_are_capped_and_delete_frees_one() {
    let http = serve(HttpOptions::new().max_sessions(3)).await;
    let addr = http.local_addr();
    let mut sessions = Vec::new();
    for _ in 0..3 {
        sessions.push(open_session(addr, V_OLD).await);
    }
    let refused = post(addr, &initialize(V_OLD), &[]).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    let error = refused.answer();
    assert_eq!(error["id"], 1, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Too many sessions"),
        "{error}"
    );

    // DELETE answers 200 for a live session, 404 for an unknown or closed one.
    let delete = |session: &str| request("DELETE", addr, "", &[("Mcp-Session-Id", session)]);
    assert_eq!(exchange(addr, delete(&sessions[0])).await.status, 200);
    assert_eq!(exchange(addr, delete(&sessions[0])).await.status, 404);
    assert_eq!(exchange(addr, delete("no-such-session")).await.status, 404);
    // A request on the closed session: 404, as the specification says.
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
    let closed = post(addr, ping, &[("Mcp-Session-Id", &sessions[0])]).await;
    assert_eq!(closed.status, 404, "{closed:?}");
    // The freed place is taken by a new session.
    open_session(addr, V_OLD).await;
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_idle_session_expires() {
    let idle = Duration::from_millis(300);
    let http = serve(HttpOptions::new().session_idle_timeout(idle)).await;
    let addr = http.local_addr();
    let session = open_session(addr, V_OLD).await;
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
    let headers = [("Mcp-Session-Id", session.as_str())];
    assert_eq!(post(addr, ping, &headers).await.status, 200);
    // Every message resets the clock: after a few idle periods without one, it is gone.
    tokio::time::sleep(idle * 5).await;
    let expired = post(addr, ping, &headers).await;
    assert_eq!(expired.status, 404, "{expired:?}");
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn slow_headers_are_cut_off_and_connections_are_capped() {
    let options = HttpOptions::new()
        .header_read_timeout(Duration::from_millis(300))
        .max_connections(2);
    let http = serve(options).await;
    let addr = http.local_addr();

    // Partial headers, then nothing: the server closes the connection.
    for partial in ["POST /mcp HTTP/1.1\r\nHost: 127.0", ""] {
        let mut slow = TcpStream::connect(addr).await.unwrap();
        slow.write_all(partial.as_bytes()).await.unwrap();
        let mut sink = Vec::new();
        let closed =
            tokio::time::timeout(Duration::from_secs(10), slow.read_to_end(&mut sink)).await;
        assert!(
            closed.is_ok(),
            "a connection sending {partial:?} was kept open"
        );
    }

    // Two stalled connections take both places: a third waits until one goes.
    let stalled = [
        TcpStream::connect(addr).await.unwrap(),
        TcpStream::connect(addr).await.unwrap(),
    ];
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut third = TcpStream::connect(addr).await.unwrap();
    third
        .write_all(request("POST", addr, &initialize(V_OLD), &[]).as_bytes())
        .await
        .unwrap();
    let mut answer = Vec::new();
    let waited =
        tokio::time::timeout(Duration::from_millis(150), third.read_to_end(&mut answer)).await;
    assert!(waited.is_err(), "served past the connection cap");
    drop(stalled);
    tokio::time::timeout(PATIENCE, third.read_to_end(&mut answer))
        .await
        .expect("served once a place is free")
        .unwrap();
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn malformed_messages_get_400_or_32602_with_their_id() {
    let http = serve(HttpOptions::new()).await;
    let addr = http.local_addr();

    let reply = post(addr, "{not json", &[]).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    let error = reply.answer();
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert_eq!(error["id"], Value::Null);

    let reply = post(
        addr,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[]}"#,
        &[],
    )
    .await;
    assert_eq!(reply.status, 400, "{reply:?}");
    let error = reply.answer();
    assert_eq!(
        (error["id"].clone(), error["error"]["code"].clone()),
        (json!(5), json!(-32602))
    );

    let session = open_session(addr, V_OLD).await;
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", V_OLD),
    ];
    for (id, params) in [
        (6, json!({"name": "add", "arguments": "a=1"})),
        (7, json!({"arguments": {"a": 1}})),
        (8, json!({"name": 5})),
    ] {
        let reply = post(addr, &call(id, params.clone()), &headers).await;
        let answer = reply.answer();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
    }
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn priming_events_only_for_versions_that_have_them() {
    let http = serve(HttpOptions::new()).await;
    let addr = http.local_addr();
    for (version, primed) in [(V_OLD, false), ("2025-03-26", false), (V_NEW, true)] {
        let reply = post(addr, &initialize(version), &[]).await;
        assert_eq!(
            reply.has_priming_event(),
            primed,
            "initialize {version}: {reply:?}"
        );
        let session = reply.header("mcp-session-id").unwrap();
        let headers = [
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", version),
        ];
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        post(addr, initialized, &headers).await;
        let reply = post(
            addr,
            &call(2, json!({"name": "add", "arguments": {"a": 2, "b": 3}})),
            &headers,
        )
        .await;
        assert_eq!(reply.answer()["result"]["content"][0]["text"], "5");
        assert_eq!(
            reply.has_priming_event(),
            primed,
            "tools/call {version}: {reply:?}"
        );
    }
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_dropped_stream_is_resumed_with_last_event_id_and_gets_the_result() {
    let gate = Arc::new(Notify::new());
    let opened = Arc::clone(&gate);
    let gated = Tool::new(
        "gated",
        "Answers once the gate opens.",
        json!({"type": "object"}),
        move |_, _| {
            let gate = Arc::clone(&opened);
            async move {
                gate.notified().await;
                ToolResult::ok("through the gate")
            }
        },
    );
    let http = McpServer::new(Toolkit::new().with(gated))
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let addr = http.local_addr();
    let session = open_session(addr, V_NEW).await;
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", V_NEW),
    ];

    // The call's stream: read up to its first event id, then drop the connection.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let body = call(2, json!({"name": "gated", "arguments": {}}));
    stream
        .write_all(request("POST", addr, &body, &headers).as_bytes())
        .await
        .unwrap();
    let mut seen = String::new();
    let last_event_id = loop {
        let mut buf = [0u8; 1024];
        let n = tokio::time::timeout(PATIENCE, stream.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "the stream ended before any event: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        // A whole event has arrived (its id line is complete).
        if seen.contains("\n\n")
            && let Some(id) = seen.lines().find_map(|l| l.strip_prefix("id:"))
        {
            break id.trim().to_owned();
        }
    };
    drop(stream);
    tokio::time::sleep(Duration::from_millis(50)).await;
    gate.notify_one();

    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nConnection: close\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {V_NEW}\r\nLast-Event-ID: {last_event_id}\r\n\r\n"
    );
    let reply = exchange(addr, get).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let answer = reply.answer();
    assert_eq!(answer["id"], 2, "{reply:?}");
    assert_eq!(answer["result"]["content"][0]["text"], "through the gate");
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_server_on_every_interface_gives_a_usable_url() {
    let http = McpServer::new(Toolkit::new().with(add()))
        .serve_http("0.0.0.0:0")
        .await
        .unwrap();
    assert!(http.is_on_all_interfaces());
    let url = http.url();
    let port = http.local_addr().port();
    assert_eq!(url, format!("http://127.0.0.1:{port}/mcp"));
    // The URL works: its host passes the Host check.
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    assert_eq!(post(addr, &initialize(V_OLD), &[]).await.status, 200);
    // Another name for this machine is refused until allowed.
    let foreign = request("POST", addr, &initialize(V_OLD), &[])
        .replace(&format!("Host: {addr}"), "Host: tools.example.com");
    assert_eq!(exchange(addr, foreign.clone()).await.status, 403);
    http.shutdown().await.unwrap();

    let http = McpServer::new(Toolkit::new())
        .serve_http_with(
            "0.0.0.0:0",
            HttpOptions::new().allowed_hosts(["tools.example.com"]),
        )
        .await
        .unwrap();
    let addr = SocketAddr::from(([127, 0, 0, 1], http.local_addr().port()));
    let foreign = request("POST", addr, &initialize(V_OLD), &[])
        .replace(&format!("Host: {addr}"), "Host: tools.example.com");
    assert_eq!(exchange(addr, foreign).await.status, 200);
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_stateless_mode_answers_without_sessions() {
    let http = serve(HttpOptions::new().stateless()).await;
    let addr = http.local_addr();
    let reply = post(addr, &initialize(V_OLD), &[]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.header("mcp-session-id"), None);
    // Any request stands alone: no session id, a plain JSON answer.
    let reply = post(
        addr,
        &call(2, json!({"name": "add", "arguments": {"a": 20, "b": 22}})),
        &[("MCP-Protocol-Version", V_OLD)],
    )
    .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(
        reply
            .header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert_eq!(reply.answer()["result"]["content"][0]["text"], "42");
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(exchange(addr, get).await.status, 405);
    http.shutdown().await.unwrap();
}

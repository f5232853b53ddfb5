//! Raw HTTP/1.1 for the security probes: requests written by hand on their own
//! connections, answers read to their end or for a bounded time.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// Hang protection only.
pub(crate) const PATIENCE: Duration = Duration::from_secs(30);
pub(crate) const V_NEW: &str = "2025-11-25";
pub(crate) const V_2026: &str = "2026-07-28";

/// An HTTP response as read: its status, head and body (what arrived of it).
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
    /// Whether the server ended the response (closed the connection) in the time given.
    pub(crate) ended: bool,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    }

    /// The JSON messages of the body: the whole body, or the `data:` lines of events.
    pub(crate) fn messages(&self) -> Vec<Value> {
        if let Ok(value) = serde_json::from_str::<Value>(self.body.trim())
            && value.is_object()
        {
            return vec![value];
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }

    /// The event ids of an event-stream body, in order.
    pub(crate) fn event_ids(&self) -> Vec<String> {
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("id:"))
            .map(|id| id.trim().to_owned())
            .collect()
    }

    /// The text of the first tool result in the body, if any.
    pub(crate) fn tool_text(&self) -> Option<String> {
        self.messages().into_iter().find_map(|m| {
            m["result"]["content"][0]["text"]
                .as_str()
                .map(str::to_owned)
        })
    }
}

fn parse(raw: &[u8], ended: bool) -> Reply {
    let text = String::from_utf8_lossy(raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    // 0: no response arrived (in the time given).
    let status = match head.split(' ').nth(1).and_then(|s| s.parse().ok()) {
        Some(status) => status,
        None if text.is_empty() => 0,
        None => panic!("not an HTTP response: {text:?}"),
    };
    Reply {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
        ended,
    }
}

/// Sends `request` on a new connection and reads the answer to its end.
pub(crate) async fn exchange(addr: SocketAddr, request: String) -> Reply {
    let reply = exchange_for(addr, request, PATIENCE).await;
    assert!(reply.ended, "the server did not end its answer: {reply:?}");
    reply
}

/// Sends `request` and reads what arrives within `wait` (the whole answer if the server
/// ends it sooner).
pub(crate) async fn exchange_for(addr: SocketAddr, request: String, wait: Duration) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let _ = stream.write_all(request.as_bytes()).await;
    let (raw, ended) = read_for(&mut stream, wait).await;
    parse(&raw, ended)
}

/// What arrives on `stream` within `wait`, and whether the server closed it.
pub(crate) async fn read_for(stream: &mut TcpStream, wait: Duration) -> (Vec<u8>, bool) {
    let mut raw = Vec::new();
    let deadline = tokio::time::Instant::now() + wait;
    let ended = loop {
        let mut buf = [0u8; 4096];
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => break false,
            Ok(Ok(0)) | Ok(Err(_)) => break true,
            Ok(Ok(n)) => raw.extend_from_slice(&buf[..n]),
        }
    };
    (raw, ended)
}

/// An HTTP/1.1 request to `/mcp` with `Connection: close`.
pub(crate) fn request(
    method: &str,
    addr: SocketAddr,
    body: &str,
    headers: &[(&str, &str)],
) -> String {
    let mut text = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Accept: application/json, text/event-stream\r\n"
    );
    if method == "POST" {
        text.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    text
}

pub(crate) async fn post(addr: SocketAddr, body: &str, headers: &[(&str, &str)]) -> Reply {
    exchange(addr, request("POST", addr, body, headers)).await
}

pub(crate) fn initialize(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"}}})
    .to_string()
}

/// A session of `version`: its id (after `initialize` and `notifications/initialized`).
pub(crate) async fn open_session(addr: SocketAddr, version: &str) -> String {
    let reply = post(addr, &initialize(version), &[]).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let session = reply.header("mcp-session-id").expect("a session id");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let headers = session_headers(&session, version);
    let reply = post(addr, initialized, &as_refs(&headers)).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    session
}

/// The headers of a request in session `session`.
pub(crate) fn session_headers(session: &str, version: &str) -> Vec<(String, String)> {
    vec![
        ("Mcp-Session-Id".to_owned(), session.to_owned()),
        ("MCP-Protocol-Version".to_owned(), version.to_owned()),
    ]
}

pub(crate) fn as_refs(headers: &[(String, String)]) -> Vec<(&str, &str)> {
    headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// A `tools/call` request in a session.
pub(crate) fn call(id: u64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

/// A session-less MCP 2026-07-28 `tools/call` (SEP-2575: the client's version, info and
/// capabilities in `_meta`), with its headers.
pub(crate) fn call_2026(addr: SocketAddr, tool: &str, arguments: Value) -> String {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": V_2026,
        "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
        // So that a slow tool's progress opens its stream at once.
        "progressToken": 1,
    });
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta}})
    .to_string();
    request(
        "POST",
        addr,
        &body,
        &[
            ("MCP-Protocol-Version", V_2026),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
        ],
    )
}

/// A replay: `GET /mcp` with `Last-Event-ID`, in a session or not.
pub(crate) fn replay(
    addr: SocketAddr,
    last_event_id: &str,
    session: Option<&str>,
    version: &str,
) -> String {
    let mut headers = vec![
        ("Last-Event-ID", last_event_id),
        ("MCP-Protocol-Version", version),
    ];
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session));
    }
    request("GET", addr, "", &headers).replace(
        "Accept: application/json, text/event-stream",
        "Accept: text/event-stream",
    )
}

/// Sends `request` (a call answered with an event stream) and reads up to its first
/// event id; returns the connection, still open, and that id.
pub(crate) async fn first_event_id(addr: SocketAddr, request: String) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut seen = String::new();
    loop {
        let mut buf = [0u8; 4096];
        let n = tokio::time::timeout(PATIENCE, stream.read(&mut buf))
            .await
            .expect("an event in time")
            .unwrap();
        assert!(n > 0, "the stream ended before any event id: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        // The events complete so far: every piece but the last.
        let pieces: Vec<&str> = seen.split("\n\n").collect();
        let complete = &pieces[..pieces.len() - 1];
        if let Some(id) = complete
            .iter()
            .find_map(|event| event.lines().find_map(|l| l.strip_prefix("id:")))
        {
            return (stream, id.trim().to_owned());
        }
    }
}

//! Raw JSON-RPC for the probes, with no SDK in between: over HTTP/1.1 (one connection per
//! request, `Connection: close`) with the headers a client chooses, and over a stdio
//! child's pipes. Every exchange is bounded by [`PATIENCE`].

use std::process::Stdio as Piped;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// Hang protection only: no assertion depends on how long anything takes.
pub(crate) const PATIENCE: Duration = Duration::from_secs(30);

pub(crate) const MODERN: &str = "2026-07-28";
pub(crate) const LEGACY: &str = "2025-11-25";
pub(crate) const TASKS: &str = "io.modelcontextprotocol/tasks";

/// One client of an HTTP endpoint: its protocol version, its session (handshake-era), and
/// the headers it sends (its identity, as a gateway would set it).
#[derive(Clone, Debug)]
pub(crate) struct Peer {
    url: String,
    version: &'static str,
    session: Option<String>,
    headers: Vec<(String, String)>,
    /// The client capabilities (declared per request in 2026-07-28).
    capabilities: Value,
}

/// The capabilities of a client that declares the tasks extension.
pub(crate) fn with_tasks() -> Value {
    json!({"extensions": {TASKS: {}}})
}

impl Peer {
    /// A 2026-07-28 client: no session, its capabilities on every request.
    pub(crate) fn modern(url: &str, capabilities: Value) -> Peer {
        Peer {
            url: url.to_owned(),
            version: MODERN,
            session: None,
            headers: Vec::new(),
            capabilities,
        }
    }

    /// A handshake-era client without a session (a stateless server).
    pub(crate) fn sessionless(url: &str) -> Peer {
        Peer {
            version: LEGACY,
            ..Peer::modern(url, json!({}))
        }
    }

    /// The same client, sending header `name: value` as well.
    pub(crate) fn with_header(mut self, name: &str, value: &str) -> Peer {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// A handshake-era client with a session of its own: `initialize` (with
    /// `capabilities`) and `notifications/initialized`.
    pub(crate) async fn session(url: &str, capabilities: Value) -> Peer {
        let mut peer = Peer {
            version: LEGACY,
            capabilities: capabilities.clone(),
            ..Peer::modern(url, json!({}))
        };
        let params = json!({
            "protocolVersion": LEGACY,
            "capabilities": capabilities,
            "clientInfo": {"name": "security-probe", "version": "0"},
        });
        let (headers, response) = peer.exchange(0, "initialize", "", params).await;
        assert!(response.get("result").is_some(), "initialize: {response}");
        let session = headers
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_else(|| panic!("no Mcp-Session-Id in {headers}"));
        peer.session = Some(session);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        peer.post(&note, "notifications/initialized", "").await;
        peer
    }

    /// The JSON-RPC response to request `id` (`method` with `params`).
    pub(crate) async fn rpc(&self, id: i64, method: &str, params: Value) -> Value {
        let name = params["taskId"]
            .as_str()
            .or(params["name"].as_str())
            .unwrap_or_default()
            .to_owned();
        self.exchange(id, method, &name, params).await.1
    }

    /// `tools/call` of `tool` with `args` (and `extra` params merged in).
    pub(crate) async fn call(&self, id: i64, tool: &str, args: Value, extra: Value) -> Value {
        let mut params = json!({"name": tool, "arguments": args});
        if let Value::Object(extra) = extra {
            params.as_object_mut().unwrap().extend(extra);
        }
        self.rpc(id, "tools/call", params).await
    }

    async fn exchange(
        &self,
        id: i64,
        method: &str,
        name: &str,
        mut params: Value,
    ) -> (String, Value) {
        if self.version == MODERN {
            let meta = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "security-probe", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            });
            let merged = params["_meta"].as_object().cloned().unwrap_or_default();
            params["_meta"] = meta;
            params["_meta"].as_object_mut().unwrap().extend(merged);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (headers, text) = self.post(&body, method, name).await;
        // A JSON body, or server-sent events: the one whose data answers `id`.
        let response = text
            .lines()
            .filter_map(|line| {
                let line = line.strip_prefix("data:").unwrap_or(line).trim();
                serde_json::from_str::<Value>(line).ok()
            })
            .find(|message| message["id"] == id && message.get("method").is_none())
            .unwrap_or_else(|| panic!("no answer to {method} #{id} in {headers}\n{text}"));
        (headers, response)
    }

    /// POSTs `body`; the response's head and body.
    async fn post(&self, body: &Value, method: &str, name: &str) -> (String, String) {
        let rest = self.url.strip_prefix("http://").expect("an http:// URL");
        let (host, path) = rest.split_once('/').expect("a path");
        let body = body.to_string();
        let mut head = format!(
            "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n\
             Content-Length: {}\r\n",
            body.len()
        );
        if method != "initialize" {
            head.push_str(&format!("MCP-Protocol-Version: {}\r\n", self.version));
        }
        if self.version == MODERN {
            head.push_str(&format!("Mcp-Method: {method}\r\nMcp-Name: {name}\r\n"));
        }
        if let Some(session) = &self.session {
            head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
        }
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        let request = format!("{head}\r\n{body}");
        let exchange = async {
            let mut stream = tokio::net::TcpStream::connect(host).await?;
            stream.write_all(request.as_bytes()).await?;
            let mut raw = Vec::new();
            stream.read_to_end(&mut raw).await?;
            Ok::<_, std::io::Error>(String::from_utf8_lossy(&raw).into_owned())
        };
        let text = tokio::time::timeout(PATIENCE, exchange)
            .await
            .expect("the server answers in time")
            .expect("the exchange");
        let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
        (head.to_owned(), body.to_owned())
    }
}

/// A handshake-era client of a server spoken to over its stdin and stdout; the server is
/// killed when this is dropped.
pub(crate) struct StdioPeer {
    _child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl StdioPeer {
    /// Starts example `name` over stdio with `env`, and initializes (version [`LEGACY`])
    /// with `capabilities`.
    pub(crate) async fn start(name: &str, env: &[(&str, &str)], capabilities: Value) -> StdioPeer {
        let mut child = tokio::process::Command::new(super::example(name))
            .envs(env.iter().copied())
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("example {name} does not start: {e}"));
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut peer = StdioPeer {
            _child: child,
            stdin,
            lines,
        };
        let params = json!({
            "protocolVersion": LEGACY,
            "capabilities": capabilities,
            "clientInfo": {"name": "security-probe", "version": "0"},
        });
        let response = peer.rpc(0, "initialize", params).await;
        assert!(response.get("result").is_some(), "initialize: {response}");
        peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        peer
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.expect("write");
        self.stdin.flush().await.expect("flush");
    }

    /// The response to request `id`.
    pub(crate) async fn rpc(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let read = async {
            loop {
                let line = self.lines.next_line().await.expect("read").expect("a line");
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if message["id"] == id && message.get("method").is_none() {
                    return message;
                }
            }
        };
        tokio::time::timeout(PATIENCE, read)
            .await
            .expect("the server answers in time")
    }

    /// `tools/call` of `tool` with `args` (and `extra` params merged in).
    pub(crate) async fn call(&mut self, id: i64, tool: &str, args: Value, extra: Value) -> Value {
        let mut params = json!({"name": tool, "arguments": args});
        if let Value::Object(extra) = extra {
            params.as_object_mut().unwrap().extend(extra);
        }
        self.rpc(id, "tools/call", params).await
    }
}

/// The result of a response that must have one.
pub(crate) fn result(response: &Value) -> &Value {
    assert!(response.get("error").is_none(), "an error: {response}");
    &response["result"]
}

/// The error of a response that must be one.
pub(crate) fn error(response: &Value) -> &Value {
    response
        .get("error")
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

/// The error, with `id` written as `<id>` wherever it appears: two errors for two ids
/// compare equal when they say the same thing.
pub(crate) fn normalized(response: &Value, id: &str) -> Value {
    let text = error(response).to_string().replace(id, "<id>");
    serde_json::from_str(&text).expect("JSON")
}

/// A fresh scratch path for `test` (nothing there yet).
pub(crate) fn scratch(test: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("toolnexus-security-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

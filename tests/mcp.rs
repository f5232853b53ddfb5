//! `toolnexus::mcp`: a `Toolkit` served over the Model Context Protocol.
//!
//! Two layers:
//! - the example server (`examples/mcp_server.rs`) driven by the official Python MCP SDK
//!   (`tests/mcp_client/client.py`) over stdio and over streamable HTTP;
//! - the server in-process, spoken to with raw JSON-RPC lines and raw HTTP requests, for
//!   what a well-behaved client never sends: garbage, oversized messages, cancellations,
//!   abrupt disconnects.
//!
//! The Python client runs with `$TOOLNEXUS_PYTHON` (default `python3`), which must have
//! the `mcp` package: `.ci/run` makes a virtual environment for it. Without it these tests
//! FAIL (they never skip), saying how to set it up.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use toolnexus::mcp::{McpServer, call_tool_result};
use toolnexus::tool::CancellationToken;
use toolnexus::{ContentPart, Request, Tool, ToolResult, Toolkit};

/// Hang protection only: no assertion depends on how long anything takes.
const PATIENCE: Duration = Duration::from_secs(60);

#[path = "support/mcp_peer.rs"]
mod mcp_peer;
use mcp_peer::{python, root};

const PNG: &[u8] = include_bytes!("../examples/media/fixture.png");

// ---------------------------------------------------------------------------------------
// The example server and the official Python client
// ---------------------------------------------------------------------------------------

/// Runs `client.py ARGS` and returns its JSON report.
fn run_python_client(args: &[&str]) -> Value {
    let script = root().join("tests/mcp_client/client.py");
    let output = Command::new(python())
        .arg(&script)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the Python client runs");
    assert!(
        output.status.success(),
        "the Python client failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // The SDK logs the server's answers it finds wrong (a DELETE answered 202, an event it
    // cannot parse) as warnings on stderr.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("Session termination failed") && !stderr.contains("Error parsing"),
        "the Python client complained:\n{stderr}"
    );
    serde_json::from_slice(&output.stdout).expect("the client prints a JSON report")
}

/// What the example says it serves (`--print-tools`, i.e. `Toolkit::to_mcp()`).
fn example_tools() -> Value {
    let output = Command::new(mcp_peer::example_server())
        .arg("--print-tools")
        .output()
        .expect("the example runs");
    assert!(output.status.success());
    serde_json::from_slice(&output.stdout).expect("--print-tools prints JSON")
}

fn text(result: &Value, index: usize) -> &str {
    result["content"][index]["text"]
        .as_str()
        .unwrap_or_default()
}

/// Everything the Python client must have seen, over either transport.
fn check_report(report: &Value) {
    let init = &report["initialize"];
    assert_eq!(init["serverInfo"]["name"], "toolnexus-quickstart");
    assert_eq!(init["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(init["capabilities"]["tools"].is_object(), "{init}");

    // Names, descriptions and schemas arrive verbatim.
    assert_eq!(report["tools"], example_tools());
    let names: Vec<_> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "divide", "deploy_service", "screenshot"]);

    let calls = &report["calls"];
    let success = &calls["success"]["result"];
    assert_eq!(text(success, 0), "5");
    assert_eq!(success["isError"], false);

    let failure = &calls["failure"]["result"];
    assert_eq!(text(failure, 0), "cannot divide by zero");
    assert_eq!(failure["isError"], true);

    let bad = &calls["bad_arguments"]["result"];
    assert_eq!(bad["isError"], true);
    assert!(text(bad, 0).contains("invalid arguments for add"), "{bad}");

    let image = &calls["image"]["result"];
    assert_eq!(image["isError"], false);
    assert_eq!(text(image, 0), "image (image/png, 82 bytes)");
    assert_eq!(image["content"][1]["type"], "image");
    assert_eq!(image["content"][1]["mimeType"], "image/png");
    assert_eq!(
        image["content"][1]["data"],
        ContentPart::image_bytes(PNG, "image/png")
            .unwrap()
            .base64()
            .unwrap()
    );

    let pending = &calls["pending"]["result"];
    assert_eq!(pending["isError"], true);
    assert_eq!(text(pending, 0), "Which environment?");
    assert_eq!(pending["_meta"]["toolnexus/pending"]["kind"], "input");

    let unknown = &calls["unknown"]["error"];
    assert_eq!(unknown["code"], -32602, "{unknown}");
    assert_eq!(unknown["message"], "Unknown tool: no_such_tool");

    assert_eq!(text(&calls["after"]["result"], 0), "42");

    check_resources_and_prompts(report);
}

/// The example's resource, template and prompt, as the client read them.
fn check_resources_and_prompts(report: &Value) {
    let capabilities = &report["initialize"]["capabilities"];
    assert_eq!(
        capabilities["resources"]["subscribe"], true,
        "{capabilities}"
    );
    assert_eq!(
        capabilities["prompts"]["listChanged"], true,
        "{capabilities}"
    );
    assert!(capabilities["completions"].is_object(), "{capabilities}");

    assert_eq!(
        report["resources"]["resources"],
        json!([{
            "uri": "docs://readme",
            "name": "readme",
            "description": "What this server offers, in Markdown.",
            "mimeType": "text/markdown"
        }])
    );
    let templates = &report["templates"]["resourceTemplates"];
    assert_eq!(templates[0]["uriTemplate"], "deploy://{env}/status");
    assert_eq!(templates[0]["name"], "deploy_status");

    let reads = &report["reads"];
    let readme = &reads["readme"]["result"]["contents"][0];
    assert_eq!(readme["uri"], "docs://readme");
    assert_eq!(readme["mimeType"], "text/markdown");
    assert!(readme["text"].as_str().unwrap().starts_with("# toolnexus"));
    let status = &reads["template"]["result"]["contents"][0];
    assert_eq!(status["uri"], "deploy://staging/status");
    assert_eq!(status["mimeType"], "application/json");
    let status: Value = serde_json::from_str(status["text"].as_str().unwrap()).unwrap();
    assert_eq!(status["env"], "staging");
    // An environment the template's function does not know, and a URI no resource has.
    assert_eq!(reads["not_found"]["error"]["code"], -32002, "{reads}");
    assert_eq!(reads["unknown"]["error"]["code"], -32002, "{reads}");
    assert!(
        reads["unknown"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nothing://here")
    );

    let prompts = &report["prompts"]["prompts"];
    assert_eq!(prompts[0]["name"], "plan_deploy");
    assert_eq!(prompts[0]["title"], "Plan a deployment");
    assert_eq!(
        prompts[0]["arguments"],
        json!([
            {"name": "env", "description": "The environment to deploy to.", "required": true},
            {"name": "changes", "description": "What changed since the last deployment.", "required": false}
        ])
    );
    let messages = &report["prompt"]["messages"];
    assert_eq!(messages[0]["content"]["type"], "resource");
    assert_eq!(messages[0]["content"]["resource"]["uri"], "docs://readme");
    assert_eq!(
        messages[1]["content"]["text"],
        "Plan a deployment to staging with the tools above. Changes: a fix."
    );
    let missing = &report["prompt_missing_argument"]["error"];
    assert_eq!(missing["code"], -32602, "{missing}");
    assert!(
        missing["message"].as_str().unwrap().contains("`env`"),
        "{missing}"
    );

    assert_eq!(
        report["completion"]["completion"]["values"],
        json!(["staging"])
    );
    assert_eq!(
        report["template_completion"]["completion"]["values"],
        json!(["production"])
    );
}

#[test]
fn the_python_client_drives_the_example_over_stdio() {
    let binary = mcp_peer::example_server().to_str().expect("utf-8 path");
    let report = run_python_client(&["stdio", binary]);
    check_report(&report);
}

#[test]
fn the_python_client_drives_the_example_over_http() {
    let mut server = Command::new(mcp_peer::example_server())
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let mut first_line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut first_line,
    )
    .unwrap();
    let url = first_line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {first_line:?}"))
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    assert!(!url.contains(":0/"), "the real port is reported: {url}");

    let report = run_python_client(&["http", &url]);
    // Closing the example's stdin is its shutdown signal: it must stop by itself, cleanly.
    drop(server.stdin.take());
    let exit = server.wait_with_output().expect("the example exits");
    check_report(&report);
    assert!(exit.status.success(), "{exit:?}");
    assert!(String::from_utf8_lossy(&exit.stderr).contains("shut down"));
}

// ---------------------------------------------------------------------------------------
// In-process: the result mapping
// ---------------------------------------------------------------------------------------

fn padded(header: &[u8]) -> Vec<u8> {
    let mut bytes = header.to_vec();
    bytes.resize(64, 0);
    bytes
}

#[test]
fn parts_become_image_audio_and_embedded_resource_items() {
    let wav = padded(b"RIFF\x24\x00\x00\x00WAVEfmt ");
    let parts = [
        ContentPart::image_bytes(PNG, "image/png").unwrap(),
        ContentPart::audio_bytes(wav, "audio/wav").unwrap(),
        ContentPart::file_bytes(padded(b"%PDF-1.7\n"), "application/pdf").unwrap(),
    ];
    let result = ToolResult::ok("three parts").with_parts(parts.clone());
    let mapped = serde_json::to_value(call_tool_result("render", result)).unwrap();
    let content = &mapped["content"];
    assert_eq!(mapped["isError"], false);
    assert_eq!(content[0], json!({"type": "text", "text": "three parts"}));
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");
    assert_eq!(content[1]["data"], parts[0].base64().unwrap());
    assert_eq!(content[2]["type"], "audio");
    assert_eq!(content[2]["mimeType"], "audio/wav");
    assert_eq!(content[2]["data"], parts[1].base64().unwrap());
    assert_eq!(content[3]["type"], "resource");
    let resource = &content[3]["resource"];
    assert_eq!(resource["mimeType"], "application/pdf");
    assert_eq!(resource["blob"], parts[2].base64().unwrap());
    assert_eq!(resource["uri"], "toolnexus://render/parts/2");
    assert_eq!(content.as_array().unwrap().len(), 4);
}

#[test]
fn errors_and_suspensions_are_error_results() {
    let failed = serde_json::to_value(call_tool_result("t", ToolResult::error("no"))).unwrap();
    assert_eq!(failed["isError"], true);
    assert_eq!(failed["content"][0]["text"], "no");
    assert!(failed.get("_meta").is_none());

    let request = Request::authorization("https://example.com/login", "Sign in to continue.");
    let parked = ToolResult::pending(request.clone()).with_metadata("trace", "not for the client");
    let mapped = serde_json::to_value(call_tool_result("t", parked)).unwrap();
    assert_eq!(mapped["isError"], true);
    assert_eq!(mapped["content"][0]["text"], "Sign in to continue.");
    assert_eq!(mapped["content"][1]["text"], "https://example.com/login");
    assert_eq!(
        mapped["_meta"]["toolnexus/pending"],
        serde_json::to_value(&request).unwrap()
    );
    assert!(!mapped.to_string().contains("not for the client"));
}

// ---------------------------------------------------------------------------------------
// In-process: raw JSON-RPC over an in-memory pipe
// ---------------------------------------------------------------------------------------

fn add() -> Tool {
    Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]
        }),
        |args, _| match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
            _ => ToolResult::error("add: `a` and `b` must be integers"),
        },
    )
}

fn boom() -> Tool {
    Tool::new_sync("boom", "Panics.", json!({"type": "object"}), |_, _| {
        panic!("kaboom")
    })
}

/// A tool that never finishes; it reports when it starts, and when its future is dropped
/// whether the token it was given had been cancelled.
fn wait_forever(started: mpsc::UnboundedSender<()>, dropped: mpsc::UnboundedSender<bool>) -> Tool {
    struct OnDrop(Option<CancellationToken>, mpsc::UnboundedSender<bool>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            let cancelled = self.0.as_ref().is_some_and(CancellationToken::is_cancelled);
            let _ = self.1.send(cancelled);
        }
    }
    Tool::new(
        "wait",
        "Waits forever.",
        json!({"type": "object"}),
        move |_, ctx| {
            let guard = OnDrop(ctx.cancellation().cloned(), dropped.clone());
            let started = started.clone();
            async move {
                let _guard = guard;
                let _ = started.send(());
                std::future::pending::<ToolResult>().await
            }
        },
    )
}

struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Client {
    async fn start(server: McpServer) -> Client {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(theirs);
        let server = tokio::spawn(server.serve_io(read, write));
        let (read, write) = tokio::io::split(ours);
        Client {
            write,
            lines: BufReader::new(read).lines(),
            server,
        }
    }

    async fn connect(server: McpServer) -> (Client, Value) {
        let mut client = Client::start(server).await;
        let init = client
            .request(
                0,
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}
                }),
            )
            .await;
        client
            .send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        (client, init)
    }

    async fn send_line(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    /// The next message that is a response or an error (notifications are skipped). An
    /// error about a message without an id carries no id.
    async fn response(&mut self) -> Value {
        loop {
            let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
                .await
                .expect("the server answers")
                .unwrap()
                .expect("the server keeps the connection open");
            let msg: Value = serde_json::from_str(&line).unwrap();
            if msg.get("id").is_some() || msg.get("error").is_some() {
                return msg;
            }
        }
    }

    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&msg.to_string()).await;
        let response = self.response().await;
        assert_eq!(response["id"], id, "{response}");
        response
    }

    async fn call(&mut self, id: u64, name: &str, args: Value) -> Value {
        self.request(id, "tools/call", json!({"name": name, "arguments": args}))
            .await
    }
}

#[tokio::test]
async fn initialize_advertises_the_name_the_version_and_the_tools_capability() {
    let (_client, init) = Client::connect(McpServer::new(Toolkit::new().with(add()))).await;
    let info = &init["result"]["serverInfo"];
    assert_eq!(info["name"], "toolnexus");
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );

    let named = McpServer::new(Toolkit::new())
        .name("infra")
        .version("9.9.9")
        .instructions("Use deploy for deployments.");
    let (_client, init) = Client::connect(named).await;
    assert_eq!(init["result"]["serverInfo"]["name"], "infra");
    assert_eq!(init["result"]["serverInfo"]["version"], "9.9.9");
    assert_eq!(
        init["result"]["instructions"],
        "Use deploy for deployments."
    );
}

#[tokio::test]
async fn tools_list_is_to_mcp_and_the_allow_list_filters_it() {
    let toolkit = Toolkit::new().with(add()).with(boom());
    let (mut client, _) = Client::connect(McpServer::new(toolkit.clone())).await;
    let listed = client.request(1, "tools/list", json!({})).await;
    assert_eq!(listed["result"]["tools"], toolkit.to_mcp());

    let only_add = McpServer::new(toolkit).allowed_tools(["add", "not_a_tool"]);
    let (mut client, _) = Client::connect(only_add).await;
    let listed = client.request(1, "tools/list", json!({})).await;
    let names: Vec<_> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, [json!("add")]);
    // A hidden tool is not callable either: the same error as a tool that does not exist.
    let hidden = client.call(2, "boom", json!({})).await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
    assert_eq!(hidden["error"]["message"], "Unknown tool: boom");
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_result_and_the_server_keeps_serving() {
    let toolkit = Toolkit::new().with(add()).with(boom());
    let (mut client, _) = Client::connect(McpServer::new(toolkit)).await;
    let crashed = client.call(1, "boom", json!({})).await;
    assert_eq!(crashed["result"]["isError"], true, "{crashed}");
    assert_eq!(
        crashed["result"]["content"][0]["text"],
        "boom panicked: kaboom"
    );
    let after = client.call(2, "add", json!({"a": 1, "b": 2})).await;
    assert_eq!(after["result"]["content"][0]["text"], "3");
    // Missing arguments are the tool's own error result, not a protocol error.
    let missing = client
        .request(3, "tools/call", json!({"name": "add"}))
        .await;
    assert_eq!(missing["result"]["isError"], true, "{missing}");
}

#[tokio::test]
async fn garbage_and_oversized_lines_are_answered_and_do_not_end_the_connection() {
    let server = McpServer::new(Toolkit::new().with(add())).max_message_bytes(4096);
    let (mut client, _) = Client::connect(server).await;

    // Not JSON: a parse error (without an id: there is none to find).
    client.send_line("{this is not json").await;
    let garbage = client.response().await;
    assert_eq!(garbage["error"]["code"], -32700, "{garbage}");
    assert_eq!(garbage["id"], Value::Null);
    // Over the bound: refused, with the request's id.
    let huge = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "add", "arguments": {"pad": "x".repeat(10_000)}}});
    client.send_line(&huge.to_string()).await;
    let oversized = client.response().await;
    assert_eq!(oversized["error"]["code"], -32600, "{oversized}");
    assert_eq!(oversized["id"], 7);
    // JSON, but not JSON-RPC: an invalid-request error.
    client.send_line(r#"{"hello": "world"}"#).await;
    let invalid = client.response().await;
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");

    let after = client.call(8, "add", json!({"a": 20, "b": 22})).await;
    assert_eq!(after["result"]["content"][0]["text"], "42", "{after}");
}

#[tokio::test]
async fn the_client_cancelling_a_call_cancels_the_tools_context() {
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let (dropped_tx, mut dropped) = mpsc::unbounded_channel();
    let toolkit = Toolkit::new()
        .with(add())
        .with(wait_forever(started_tx, dropped_tx));
    let (mut client, _) = Client::connect(McpServer::new(toolkit)).await;

    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "wait", "arguments": {}}});
    client.send_line(&call.to_string()).await;
    tokio::time::timeout(PATIENCE, started.recv())
        .await
        .expect("the tool starts");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 5, "reason": "user pressed stop"}});
    client.send_line(&cancel.to_string()).await;
    let token_was_cancelled = tokio::time::timeout(PATIENCE, dropped.recv())
        .await
        .expect("the call is abandoned")
        .unwrap();
    assert!(
        token_was_cancelled,
        "the Context's token carries the cancellation"
    );

    let after = client.call(6, "add", json!({"a": 1, "b": 1})).await;
    assert_eq!(after["result"]["content"][0]["text"], "2");
}

#[tokio::test]
async fn a_client_that_vanishes_ends_serve_io_without_a_panic() {
    let (mut client, _) = Client::connect(McpServer::new(Toolkit::new().with(add()))).await;
    client
        .write
        .write_all(br#"{"jsonrpc":"2.0","id":1,"#)
        .await
        .unwrap();
    let Client {
        write,
        lines,
        server,
    } = client;
    drop((write, lines));
    let outcome = tokio::time::timeout(PATIENCE, server)
        .await
        .expect("serve_io returns");
    assert!(
        outcome.is_ok(),
        "the serving task did not panic: {outcome:?}"
    );

    // Gone before `initialize`: an error, not a hang or a panic.
    let (ours, theirs) = tokio::io::duplex(1024);
    drop(ours);
    let (read, write) = tokio::io::split(theirs);
    let early = McpServer::new(Toolkit::new()).serve_io(read, write).await;
    assert!(early.is_err());
}

// ---------------------------------------------------------------------------------------
// In-process: raw HTTP
// ---------------------------------------------------------------------------------------

/// One HTTP/1.1 POST to `/mcp` on its own connection; returns the status and the body.
async fn post(addr: std::net::SocketAddr, body: &[u8], session: Option<&str>) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    head.push_str("\r\n");
    let (mut read, mut write) = stream.split();
    let body = body.to_vec();
    let send = async move {
        // The server may answer (and close) before reading a body it refuses.
        let _ = write.write_all(head.as_bytes()).await;
        let _ = write.write_all(&body).await;
    };
    let mut response = Vec::new();
    let receive = read.read_to_end(&mut response);
    let (_, received) = tokio::time::timeout(PATIENCE, async { tokio::join!(send, receive) })
        .await
        .expect("the server answers");
    received.unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
    (status, response)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

#[tokio::test]
async fn http_reports_the_bound_address_and_shuts_down_cleanly() {
    let http = McpServer::new(Toolkit::new().with(add()))
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let addr = http.local_addr();
    assert_ne!(addr.port(), 0);
    assert_eq!(http.url(), format!("http://{addr}/mcp"));

    let (status, body) = post(addr, INITIALIZE.as_bytes(), None).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""serverInfo""#), "{body}");

    let handle = http.shutdown_handle();
    assert!(!handle.is_shutdown());
    tokio::time::timeout(PATIENCE, http.shutdown())
        .await
        .expect("shutdown finishes")
        .unwrap();
    assert!(handle.is_shutdown());
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "no longer listening"
    );
}

#[tokio::test]
async fn http_refuses_bad_requests_and_keeps_serving_other_clients() {
    let http = McpServer::new(Toolkit::new().with(add()))
        .max_message_bytes(8 * 1024)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let addr = http.local_addr();

    // Oversized: refused without being buffered whole.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","pad":"{}"}}"#,
        "x".repeat(64 * 1024)
    );
    let (status, _) = post(addr, huge.as_bytes(), None).await;
    assert_eq!(status, 413);

    // Malformed JSON: 400, with a JSON-RPC parse error body.
    let (status, body) = post(addr, b"{not json", None).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("-32700"), "{body}");

    // A client that disconnects in the middle of its request.
    {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                    Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\"";
        stream.write_all(head.as_bytes()).await.unwrap();
    }

    // Another client is served normally, through a whole session.
    let (status, body) = post(addr, INITIALIZE.as_bytes(), None).await;
    assert_eq!(status, 200, "{body}");
    let session = body
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .expect("a session id");
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (status, _) = post(addr, initialized, Some(&session)).await;
    assert_eq!(status, 202);
    let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#;
    let (status, body) = post(addr, call, Some(&session)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""text":"5""#), "{body}");
    let unknown = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#;
    let (_, body) = post(addr, unknown, Some(&session)).await;
    assert!(body.contains("-32602"), "{body}");

    http.shutdown().await.unwrap();
}

//! `toolnexus::mcp::McpClient`: other MCP servers' tools as ordinary `Tool`s.
//!
//! Proven against servers this crate did not write the client for: this crate's own
//! `McpServer` (the `mcp_server` example, over stdio, and in-process over HTTP), and a
//! server written with the official Python SDK (`tests/mcp_client/python_server.py`,
//! over stdio and HTTP). `tests/mcp_client_everything.rs` drives the reference server.
//! Every server binds 127.0.0.1 only and is killed by the test that started it.

#[path = "support/mcp_peer.rs"]
mod mcp_peer;

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::process::Command;
use std::time::Duration;

use mcp_peer::*;
use serde_json::{Value, json};
use toolnexus::dispatch::resume;
use toolnexus::mcp::{McpClient, McpClientError, McpServer};
use toolnexus::schema::profile::Profile;
use toolnexus::{Client, Context, RunStatus, Toolkit};

async fn quickstart(prefix: Option<&str>) -> McpClient {
    let mut builder = McpClient::stdio(example_server(), Vec::<String>::new());
    if let Some(prefix) = prefix {
        builder = builder.prefix(prefix);
    }
    builder.connect().await.expect("the example server starts")
}

#[tokio::test]
async fn a_toolnexus_server_s_tools_come_back_as_they_were_served() {
    let client = quickstart(None).await;
    assert_eq!(
        client.server_info().map(|i| i.0),
        Some("toolnexus-quickstart")
    );
    let tools = client.tools().await.unwrap();
    let served = Command::new(example_server())
        .arg("--print-tools")
        .output()
        .unwrap();
    let served: Value = serde_json::from_slice(&served.stdout).unwrap();
    let toolkit: Toolkit = tools.into_iter().collect();
    // Names, descriptions and schemas verbatim: the listing is the server's own.
    assert_eq!(toolkit.to_mcp(), served);
    assert!(toolkit.tools().iter().all(|t| t.source() == "mcp"));
    // The profiles apply as to any tool.
    toolkit.check(Profile::OpenAiStrict).unwrap();
    assert_eq!(toolkit.to_openai_strict()[0]["function"]["strict"], true);

    let sum = toolkit
        .execute("add", json!({"a": 2, "b": 3}), Context::default())
        .await;
    assert_eq!((sum.output.as_str(), sum.is_error), ("5", false));
    let divided = toolkit
        .execute_json("divide", r#"{"a": 1, "b": 0}"#, Context::default())
        .await;
    assert!(divided.is_error);
    assert_eq!(divided.output, "cannot divide by zero");
    let shot = toolkit
        .execute("screenshot", json!({}), Context::default())
        .await;
    assert!(!shot.is_error, "{shot:?}");
    let parts = shot.parts.expect("the image comes back as a part");
    assert_eq!(parts[0].mime_type(), "image/png");
    assert_eq!(shot.output, parts[0].summary());
    // The server's own argument check speaks through the result.
    let bad = toolkit
        .execute("add", json!({"a": "two"}), Context::default())
        .await;
    assert!(bad.is_error && bad.output.contains("add"), "{bad:?}");
}

#[tokio::test]
async fn a_served_suspension_is_pending_and_its_answer_goes_back() {
    let client = quickstart(None).await;
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let parked = toolkit
        .execute("deploy_service", json!({}), Context::default())
        .await;
    assert!(parked.is_pending(), "{parked:?}");
    let request = parked.pending_request().unwrap();
    assert_eq!(
        (request.kind.as_str(), request.prompt.as_str()),
        ("input", "Which environment?")
    );

    // The loop's wait_for answers it, and the answer reaches the served tool.
    let run = run_answering(&toolkit, "deploy_service", json!({}), |r| r.answer("prod")).await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.tool_calls[0].result.output, "deployed to prod");

    // Halted, then resumed from the serialized transcript alone.
    let halted = Client::new(one_call("deploy_service", json!({})))
        .run("go", &toolkit)
        .await;
    assert_eq!(halted.status, RunStatus::Pending);
    let request = halted.pending.clone().unwrap();
    let resumed = resume(halted.messages, request.answer("staging"), &toolkit)
        .await
        .unwrap();
    assert_eq!(resumed.calls[0].result.output, "deployed to staging");
}

#[tokio::test]
async fn a_prefix_keeps_two_servers_with_the_same_tools_apart() {
    let plain = quickstart(None).await;
    let prefixed = quickstart(Some("calc")).await;
    let mut toolkit = Toolkit::new();
    toolkit.extend(plain.tools().await.unwrap());
    toolkit.extend(prefixed.tools().await.unwrap());
    assert!(toolkit.rejected().is_empty(), "{:?}", toolkit.rejected());
    assert_eq!(toolkit.len(), 8);
    let sum = toolkit
        .execute("calc_add", json!({"a": 1, "b": 1}), Context::default())
        .await;
    assert_eq!(sum.output, "2");
}

#[tokio::test]
async fn streamable_http_to_a_toolnexus_server_with_headers() {
    // The example's tools, served again in-process over HTTP.
    let client = quickstart(None).await;
    let tools = client.tools().await.unwrap();
    let server = McpServer::new(tools.into_iter().collect());
    let http = server.serve_http("127.0.0.1:0").await.unwrap();
    let remote = McpClient::http(http.url())
        .header("x-api-key", "k-123")
        .bearer_token("s3cret")
        .connect()
        .await
        .unwrap();
    let toolkit: Toolkit = remote.tools().await.unwrap().into_iter().collect();
    let sum = toolkit
        .execute("add", json!({"a": 20, "b": 22}), Context::default())
        .await;
    assert_eq!(sum.output, "42");
    // Two hops of suspension: the example's tool, through an in-process server, to here.
    let run = run_answering(&toolkit, "deploy_service", json!({}), |r| r.answer("dev")).await;
    assert_eq!(run.tool_calls[0].result.output, "deployed to dev");
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn headers_are_sent_with_every_request() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
            head.push(byte[0]);
        }
        let _ = stream.write_all(
            b"HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        String::from_utf8_lossy(&head).to_lowercase()
    });
    let error = McpClient::http(&url)
        .header("X-Api-Key", "k-123")
        .bearer_token("s3cret")
        .connect_timeout(Duration::from_secs(20))
        .connect()
        .await
        .unwrap_err();
    let head = seen.join().unwrap();
    assert!(head.contains("x-api-key: k-123"), "{head}");
    assert!(head.contains("authorization: bearer s3cret"), "{head}");
    // A 401 to a client without a login is an authorization error that says so.
    assert!(
        matches!(error, McpClientError::Authorization { .. }),
        "{error}"
    );
    assert!(error.to_string().contains(&url), "{error}");

    let invalid = McpClient::http(&url)
        .header("bad header", "x")
        .connect()
        .await
        .unwrap_err();
    assert!(
        invalid
            .to_string()
            .contains("invalid HTTP header name `bad header`"),
        "{invalid}"
    );
}

async fn python_stdio() -> McpClient {
    McpClient::stdio(python(), [python_server()])
        .quiet()
        .timeout(Duration::from_secs(5))
        .connect()
        .await
        .expect("the Python server starts")
}

#[tokio::test]
async fn a_python_sdk_server_paginated_with_structured_content_images_and_errors() {
    let client = python_stdio().await;
    assert_eq!(client.server_info().map(|i| i.0), Some("python-tools"));
    let tools = client.tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    // Two per page: every page was followed.
    assert_eq!(
        names,
        [
            "echo", "weather", "pixel", "fail", "deploy", "unlock", "hang", "crash"
        ]
    );
    assert_eq!(tools[0].description(), "Echo the text back.");
    assert_eq!(tools[0].input_schema()["required"], json!(["text"]));
    let toolkit: Toolkit = tools.into_iter().collect();

    let echo = toolkit
        .execute("echo", json!({"text": "hi"}), Context::default())
        .await;
    assert_eq!(echo.output, "hi");
    let weather = toolkit
        .execute("weather", json!({"city": "Oslo"}), Context::default())
        .await;
    let metadata = weather.metadata.expect("structured content is kept");
    assert_eq!(
        metadata["structuredContent"],
        json!({"city": "Oslo", "celsius": 21.5})
    );
    let pixel = toolkit
        .execute("pixel", json!({}), Context::default())
        .await;
    assert_eq!(pixel.parts.unwrap()[0].mime_type(), "image/png");
    let fail = toolkit
        .execute("fail", json!({"reason": "boom"}), Context::default())
        .await;
    assert!(fail.is_error);
    assert!(fail.output.contains("failed: boom"), "{fail:?}");
}

#[tokio::test]
async fn a_python_sdk_server_elicits_and_gets_the_answer() {
    let client = python_stdio().await;
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let args = json!({"service": "api"});
    let run = run_answering(&toolkit, "deploy", args.clone(), |request| {
        assert_eq!(request.prompt, "Which environment for api?");
        let schema = &request.data.as_ref().unwrap()["schema"];
        assert_eq!(schema["properties"]["env"]["type"], "string", "{schema}");
        request.answer("prod")
    })
    .await;
    assert_eq!(run.tool_calls[0].result.output, "deployed api to prod");
    assert_eq!(client.waiting_calls(), 0);

    let declined = run_answering(&toolkit, "deploy", args.clone(), |r| r.decline("no")).await;
    assert!(
        declined.tool_calls[0]
            .result
            .output
            .starts_with("declined/expired")
    );
    // The loop never re-ran the tool, so the server still waits on that call: it is parked.
    assert_eq!(client.waiting_calls(), 1);

    // Halted without wait_for, then resumed: the parked call gets the answer.
    let halted = Client::new(one_call("deploy", args))
        .run("go", &toolkit)
        .await;
    let request = halted.pending.clone().expect("halted on the elicitation");
    let resumed = resume(
        halted.messages,
        request.answer(json!({"env": "dev"})),
        &toolkit,
    )
    .await
    .unwrap();
    assert_eq!(resumed.calls[0].result.output, "deployed api to dev");

    // Resumed by another client (as in a new process): the parked call is gone, so the call
    // is made afresh and the answer goes to its first elicitation.
    let halted = Client::new(one_call("deploy", json!({"service": "db"})))
        .run("go", &toolkit)
        .await;
    let request = halted.pending.clone().unwrap();
    let elsewhere: Toolkit = python_stdio()
        .await
        .tools()
        .await
        .unwrap()
        .into_iter()
        .collect();
    let resumed = resume(halted.messages, request.answer("eu"), &elsewhere)
        .await
        .unwrap();
    assert_eq!(resumed.calls[0].result.output, "deployed db to eu");
}

#[tokio::test]
async fn a_python_sdk_server_over_http() {
    let port = free_port();
    let mut command = Command::new(python());
    command
        .arg(python_server())
        .args(["--http", &port.to_string()]);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (_server, client) = start_http(command, &url, Some("py")).await;
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    assert!(toolkit.get("py_echo").is_some());
    let echo = toolkit
        .execute("py_echo", json!({"text": "over http"}), Context::default())
        .await;
    assert_eq!(echo.output, "over http");
    let run = run_answering(&toolkit, "py_deploy", json!({"service": "web"}), |r| {
        r.answer("qa")
    })
    .await;
    assert_eq!(run.tool_calls[0].result.output, "deployed web to qa");
}

#[tokio::test]
async fn tools_list_changed_refreshes_the_toolkit() {
    let client = python_stdio().await;
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let mut toolkit = toolkit.with(toolnexus::Tool::new_sync(
        "local",
        "A local tool.",
        json!({"type": "object"}),
        |_, _| toolnexus::ToolResult::ok("here"),
    ));
    assert!(toolkit.get("secret").is_none());
    let before = client.generation();
    let changed = client.changed();
    let unlocked = toolkit
        .execute("unlock", json!({}), Context::default())
        .await;
    assert_eq!(unlocked.output, "unlocked");
    tokio::time::timeout(PATIENCE, changed)
        .await
        .expect("list_changed arrives");
    assert!(client.generation() > before);
    toolkit = client.refresh(&toolkit).await.unwrap();
    assert!(toolkit.rejected().is_empty(), "{:?}", toolkit.rejected());
    assert_eq!(toolkit.tools()[0].name(), "local");
    let secret = toolkit
        .execute("secret", json!({}), Context::default())
        .await;
    assert_eq!(secret.output, "42");
}

#[tokio::test]
async fn a_hung_call_times_out_and_a_crash_reconnects() {
    let client = python_stdio().await;
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let hung = toolkit.execute("hang", json!({}), Context::default()).await;
    assert!(hung.is_error);
    assert!(
        hung.output.contains("did not answer within 5s"),
        "{}",
        hung.output
    );
    // The context's own, shorter timeout applies too.
    let ctx = Context::new().with_timeout(Duration::from_millis(300));
    let hung = toolkit.execute("hang", json!({}), ctx).await;
    assert!(
        hung.is_error && hung.output.contains("timed out"),
        "{}",
        hung.output
    );

    let crashed = toolkit
        .execute("crash", json!({}), Context::default())
        .await;
    assert!(crashed.is_error);
    assert!(
        crashed.output.contains("closed during the call"),
        "{}",
        crashed.output
    );
    assert_eq!(client.connections(), 1);
    let echo = toolkit
        .execute("echo", json!({"text": "back"}), Context::default())
        .await;
    assert_eq!(echo.output, "back");
    assert_eq!(client.connections(), 2);
}

/// A "server" that completes the handshake, then answers `tools/list` with one tool and
/// every other request with garbage.
const GARBAGE_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "garbage", "version": "0"}}
    elif msg.get("method") == "tools/list":
        result = {"tools": [{"name": "g", "inputSchema": {"type": "object"}}]}
    elif "id" in msg:
        print("this is not JSON {{{", flush=True)
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": "not a result"}), flush=True)
        continue
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"#;

#[tokio::test]
async fn garbage_a_missing_command_and_a_refused_connection_are_clear_errors() {
    let client = McpClient::stdio(python(), ["-c", GARBAGE_SERVER])
        .timeout(Duration::from_secs(3))
        .connect()
        .await
        .unwrap();
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let garbage = toolkit.execute("g", json!({}), Context::default()).await;
    assert!(garbage.is_error, "{garbage:?}");
    assert!(garbage.output.starts_with("g: "), "{}", garbage.output);
    assert!(garbage.output.contains("`garbage`"), "{}", garbage.output);

    let missing = McpClient::spawn("toolnexus-no-such-server", ["--x"])
        .await
        .unwrap_err();
    assert!(matches!(missing, McpClientError::Spawn { .. }));
    assert!(
        missing
            .to_string()
            .contains("could not start the MCP server `toolnexus-no-such-server --x`"),
        "{missing}"
    );

    let port = free_port();
    let refused = McpClient::http(format!("http://127.0.0.1:{port}/mcp"))
        .connect_timeout(Duration::from_secs(20))
        .connect()
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains(&format!("127.0.0.1:{port}")),
        "{refused}"
    );

    // A server that exits at once: a clear error, not a hang.
    let exits = McpClient::stdio(python(), ["-c", "pass"])
        .connect()
        .await
        .unwrap_err();
    assert!(
        exits
            .to_string()
            .contains("could not connect to the MCP server"),
        "{exits}"
    );
}

#[test]
fn the_example_mounts_a_server_next_to_local_tools_and_runs_the_loop() {
    let example = build_example("mcp_client");
    let output = Command::new(&example).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for line in [
        "connected to weather-and-tables",
        "forecast       [mcp] Lisbon: 18°C, light wind",
        "to_fahrenheit  [native] 64.4",
        "host asked: For how many people? -> answering 2",
        "book_table     [mcp] booked Ramiro for 2",
        "answer: Lisbon is mild today",
    ] {
        assert!(stdout.contains(line), "missing `{line}` in:\n{stdout}");
    }
    // Any server, given as a command: its tools are mounted with a prefix.
    let output = Command::new(&example)
        .args(["node", everything().to_str().unwrap(), "stdio"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("remote_echo"), "{stdout}");
}

#[tokio::test]
async fn an_http_server_that_restarts_is_reached_again() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let serve = || {
        let mut command = Command::new(python());
        command
            .arg(python_server())
            .args(["--http", &port.to_string()]);
        command
    };
    let (server, client) = start_http(serve(), &url, None).await;
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let echo =
        |text: &'static str| toolkit.execute("echo", json!({ "text": text }), Context::default());
    assert_eq!(echo("one").await.output, "one");
    drop(server);
    let down = echo("two").await;
    assert!(down.is_error, "{down:?}");
    eprintln!("server down: {}", down.output);
    let (_server, _probe) = start_http(serve(), &url, None).await;
    let back = echo("three").await;
    assert_eq!(back.output, "three", "{back:?}");
}

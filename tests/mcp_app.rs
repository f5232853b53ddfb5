//! MCP Apps, the server side, judged by the extension's own SDK
//! (`@modelcontextprotocol/ext-apps`, pinned in `.ci/test`): the `mcp_app` example serves
//! a tool with a view; the official MCP client lists it and calls it, the SDK's
//! `AppBridge` renders the view in a sandboxed frame in Chromium, and the SDK's `App`
//! inside the view receives the result and calls the second tool through the host
//! (tests/mcp_app/host.mjs). The screenshot is saved as `target/tmp/mcp_app.png`. On the
//! client side, `McpClient` keeps the views, and a run's stream carries a call's view.
//!
//! Needs `TOOLNEXUS_UI_NODE_MODULES` and chromium at `TOOLNEXUS_CHROMIUM` (default
//! `/usr/bin/chromium`).

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::process::Command;

use serde_json::{Value, json};

#[path = "support/example.rs"]
mod example;
use example::Listening;

#[test]
fn the_sdk_renders_a_view_of_this_server_which_calls_a_second_tool() {
    let modules = std::env::var("TOOLNEXUS_UI_NODE_MODULES").unwrap_or_else(|_| {
        panic!("TOOLNEXUS_UI_NODE_MODULES is not set: this test drives chromium with playwright-core and does not skip; run it through .ci/test")
    });
    let sdk = serve_host(&modules);
    let server = Listening::start_with(
        "mcp_app",
        &["--http", "127.0.0.1:0"],
        &[("MCP_APP_SDK", sdk.as_str())],
    );
    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp_app.png");
    let _ = std::fs::remove_file(&screenshot);
    let node = std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into());
    let output = Command::new("timeout")
        .args([
            "90",
            &node,
            &format!("{}/tests/mcp_app/host.mjs", env!("CARGO_MANIFEST_DIR")),
        ])
        .arg(&server.url)
        .arg(sdk.trim_end_matches("app-with-deps.js"))
        .arg(&screenshot)
        .env("NODE_MODULES", modules)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the browser run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");

    // The server declares the extension, and the tools carry their view and visibility.
    assert_eq!(
        seen["extension"],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]})
    );
    assert_eq!(
        seen["tools"]["budget"]["ui"]["resourceUri"],
        "ui://budget/view.html"
    );
    assert_eq!(
        seen["tools"]["add_line"]["ui"]["visibility"],
        json!(["app"])
    );
    // `Json<T>` returns carry structuredContent, as the view reads it.
    assert_eq!(seen["result"]["total"], 1200.0);

    // The view resource: the app MIME type and its `_meta.ui` (CSP and border).
    let host = seen["host"].as_array().expect("the host's log");
    let read = &host[0]["read"];
    assert_eq!(read["mimeType"], "text/html;profile=mcp-app");
    let origin = sdk.trim_end_matches("/app-with-deps.js");
    assert_eq!(
        read["meta"]["ui"],
        json!({"csp": {"resourceDomains": [origin]}, "prefersBorder": true})
    );
    // The SDK's App initialized, and its call went through the host to `add_line`.
    assert!(
        host.iter()
            .any(|e| e["initialized"]["name"] == "budget-view"),
        "{host:?}"
    );
    assert!(host.iter().any(|e| e["calltool"] == "add_line"), "{host:?}");
    let chart = seen["chart"].as_str().unwrap();
    assert!(chart.contains("travel: 250"), "{chart}");

    let png = std::fs::read(&screenshot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
}

/// Serves, on a loopback port and to any origin (the view's frame has none of its own),
/// the host page at `/`, the SDK's files under `/node_modules/`, and its browser bundle
/// (what the view imports) at `/app-with-deps.js`; returns the bundle's URL.
fn serve_host(modules: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/app-with-deps.js", listener.local_addr().unwrap());
    let modules = std::path::PathBuf::from(modules);
    let host = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_app/host.html");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut head = String::new();
            let _ = reader.read_line(&mut head);
            let path = head.split(' ').nth(1).unwrap_or("/").to_owned();
            let mut line = String::new();
            // The rest of the request head, up to its blank line.
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let file = match path.as_str() {
                "/" => Some(host.clone()),
                "/app-with-deps.js" => {
                    Some(modules.join("@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js"))
                }
                _ => path
                    .strip_prefix("/node_modules/")
                    .filter(|rest| !rest.contains(".."))
                    .map(|rest| modules.join(rest)),
            };
            let mut stream = &stream;
            let Some(body) = file.and_then(|f| std::fs::read(f).ok()) else {
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
                continue;
            };
            let kind = if path == "/" {
                "text/html"
            } else {
                "text/javascript"
            };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\n\
                 access-control-allow-origin: *\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
    });
    url
}

/// `McpClient` keeps the view of a remote tool and leaves the tool listed for views only
/// out of the model's list.
#[tokio::test]
async fn the_client_keeps_views_and_hides_app_only_tools_from_the_model() {
    let server = Listening::start("mcp_app", &["--http", "127.0.0.1:0"]);
    let client = toolnexus::mcp::McpClient::connect(server.url.clone())
        .await
        .expect("connects");
    let tools = client.tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["budget"]);
    assert_eq!(
        tools[0].ui().and_then(|ui| ui.resource_uri.as_deref()),
        Some("ui://budget/view.html")
    );
    let all = client.view_tools().await.expect("tools/list");
    let add_line = all.iter().find(|t| t.name() == "add_line").expect("listed");
    assert_eq!(
        add_line.ui().map(|ui| ui.visibility.clone()),
        Some(vec!["app".to_owned()])
    );
    // The view reads with its `_meta.ui`.
    let read = client
        .read_resource("ui://budget/view.html")
        .await
        .expect("resources/read");
    let contents = &read[0];
    assert_eq!(contents.mime_type(), Some("text/html;profile=mcp-app"));
    assert_eq!(contents.meta().unwrap()["ui"]["prefersBorder"], true);
    client.close().await;
}

/// A run that calls a remote tool with a view carries the view in its stream: the page
/// read from the server with its `_meta.ui`, the call's input and its MCP result, between
/// the call's start and finish; a tool without a view sends none.
#[tokio::test]
async fn a_stream_carries_the_view_of_a_remote_call() {
    use futures_util::StreamExt as _;
    use toolnexus::{Client, Event, Reply, ScriptedModel, Toolkit};

    let server = Listening::start("mcp_app", &["--http", "127.0.0.1:0"]);
    let mcp = toolnexus::mcp::McpClient::connect(server.url.clone())
        .await
        .expect("connects");
    let toolkit: Toolkit = mcp
        .view_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .collect();
    let lines = json!({"lines": [{"name": "rent", "amount": 900.0}]});
    let with_line = json!({"lines": [], "name": "food", "amount": 300.0});
    let model = ScriptedModel::new([
        Reply::call("call_1", "budget", lines.to_string()),
        Reply::call("call_2", "add_line", with_line.to_string()),
        Reply::text("Shown."),
    ]);
    let events: Vec<_> = Client::new(model)
        .run("Show my budget", &toolkit)
        .stream()
        .collect()
        .await;
    let kinds: Vec<&str> = events.iter().map(|e| e.kind()).collect();
    let views: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::View { call_id, view } => Some((call_id.to_string(), view.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(views.len(), 1, "{kinds:?}");
    let (call_id, view) = &views[0];
    assert_eq!(call_id, "call_1");
    assert_eq!(view.uri, "ui://budget/view.html");
    assert_eq!(view.server, "toolnexus-budget");
    assert_eq!(view.tool, "budget");
    assert!(view.html.contains("budget-view"), "{}", view.html);
    assert_eq!(view.ui["prefersBorder"], true);
    assert_eq!(view.input, lines);
    assert_eq!(view.result["structuredContent"]["total"], 900.0);
    assert_eq!(view.result["isError"], false);
    // Between the call's start and finish.
    let at = kinds.iter().position(|k| *k == "view").unwrap();
    assert_eq!(kinds[at - 1], "tool_call_started");
    assert_eq!(kinds[at + 1], "tool_result");
    // The JSON form.
    let json = serde_json::to_value(&events[at]).unwrap();
    assert_eq!(json["type"], "view");
    assert_eq!(json["call_id"], "call_1");
    assert_eq!(json["view"]["server"], "toolnexus-budget");
    assert_eq!(json["view"]["result"]["structuredContent"]["total"], 900.0);
    mcp.close().await;
}

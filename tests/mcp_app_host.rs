//! MCP Apps, the host side: the chat example's page renders the view of an MCP server's
//! tool and speaks the host protocol with it, judged in Chromium with the view written
//! with the extension's own SDK (`@modelcontextprotocol/ext-apps`, its `App`, pinned in
//! `.ci/test`). `examples/chat_ui --mcp` serves the tools of `examples/mcp_app --http`;
//! a scripted model calls `budget`, the page renders its view in a sandboxed frame, the
//! view's `add_line` call waits on an approval the test clicks, its message lands in the
//! chat and the next turn reads it, and its link opens only after the user confirms.
//! From inside the frame the test tries to escape (tests/mcp_app/chat_host.mjs). The
//! screenshot is saved as `target/tmp/mcp_app_host.png`. A second server, written with
//! the official MCP TypeScript SDK (tests/mcp_app/ts_server.mjs), ships a view the page
//! renders, which calls a tool and posts a message the same way
//! (tests/mcp_app/chat_ts.mjs, `target/tmp/mcp_app_ts.png`).
//!
//! Needs `TOOLNEXUS_UI_NODE_MODULES`, `TOOLNEXUS_NODE_MODULES` (the TypeScript SDK),
//! `TOOLNEXUS_AGUI_PYTHON` and chromium at `TOOLNEXUS_CHROMIUM` (default
//! `/usr/bin/chromium`).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::Command;

use serde_json::{Value, json};

#[path = "support/browser.rs"]
mod browser;
#[path = "support/example.rs"]
mod example;
use example::Listening;

/// The budget server (its view importing the SDK from a loopback server of the test) and
/// the chat page serving its tools, `add_line` gated.
fn servers(modules: &str) -> (Listening, Listening) {
    let sdk = serve_sdk(modules);
    let budget = Listening::start_with(
        "mcp_app",
        &["--http", "127.0.0.1:0"],
        &[("MCP_APP_SDK", sdk.as_str())],
    );
    let chat = Listening::start(
        "chat_ui",
        &["127.0.0.1:0", "--mcp", &budget.url, "--approve", "add_line"],
    );
    (budget, chat)
}

#[test]
fn the_chat_page_hosts_a_view_which_calls_through_approval_and_stays_contained() {
    let modules = browser::modules();
    let (_budget, chat) = servers(&modules);
    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp_app_host.png");
    let _ = std::fs::remove_file(&screenshot);
    let stdout = browser::run(
        "mcp_app/chat_host.mjs",
        &[&chat.url, screenshot.to_str().unwrap()],
    );
    let seen: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");

    // The frame: scripts only (an opaque origin), under the policy the view asked for.
    assert_eq!(seen["sandbox"], "allow-scripts");
    let policy = seen["policy"].as_str().expect("a CSP meta in the view");
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(policy.contains("connect-src 'none'"), "{policy}");
    // The view ran: the SDK's App got the result, then the approved call's.
    assert!(
        seen["chart"].as_str().unwrap().contains("travel: 250"),
        "{seen}"
    );
    assert_eq!(seen["totalBeforeApproval"], "Total: 1200");
    assert!(
        seen["frameHeight"].as_str().unwrap().ends_with("px"),
        "the frame was not sized: {seen}"
    );
    // Contained.
    assert_eq!(seen["parentRead"], "blocked: SecurityError");
    assert_eq!(seen["cookie"], "blocked: SecurityError");
    assert!(
        seen["topNavigation"]
            .as_str()
            .unwrap()
            .starts_with("blocked"),
        "{seen}"
    );
    assert_eq!(
        seen["url"],
        chat.url.as_str(),
        "the page was navigated away"
    );
    assert!(
        seen["fetchPage"].as_str().unwrap().starts_with("blocked"),
        "{seen}"
    );
    assert_eq!(seen["foreignScript"], "blocked: script-src-elem");
    let foreign = &seen["foreignTool"];
    assert!(foreign.get("result").is_none(), "{foreign}");
    assert!(
        foreign["error"]["message"]
            .as_str()
            .unwrap()
            .contains("has no tool `deploy`"),
        "{foreign}"
    );
    // The link: nothing opened before the user confirmed, then it did.
    assert_eq!(seen["pagesBeforeConfirm"], 1);
    assert_eq!(seen["elsewhereBeforeConfirm"], json!([]));
    assert_eq!(seen["pagesAfterConfirm"], 2);
    assert!(
        seen["elsewhere"].as_array().unwrap().iter().any(|u| u
            .as_str()
            .unwrap()
            .starts_with("https://en.wikipedia.org/wiki/Budget")),
        "{seen}"
    );
    let png = std::fs::read(&screenshot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
}

/// A view's gated call goes through the run store as a model's does: with the chat's
/// runs in SQLite (`--db`), the call parked on its approval card outlives the chat
/// server, the approval clicked after the restart reaches the next server on the same
/// file, which completes the call and hands the view its result, and the answer is
/// taken once. The screenshot is saved as `target/tmp/mcp_app_restarted.png`.
#[test]
fn a_views_call_waiting_on_approval_is_answered_by_the_next_chat_server() {
    let modules = browser::modules();
    let sdk = serve_sdk(&modules);
    let budget = Listening::start_with(
        "mcp_app",
        &["--http", "127.0.0.1:0"],
        &[("MCP_APP_SDK", sdk.as_str())],
    );
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let db = tmp.join(format!("mcp_app_host-{}.db", std::process::id()));
    let db = db.to_str().unwrap();
    let chat_args = |addr: &str| -> Vec<String> {
        [
            addr,
            "--db",
            db,
            "--mcp",
            &budget.url,
            "--approve",
            "add_line",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let args = chat_args("127.0.0.1:0");
    let first = Listening::start(
        "chat_ui",
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let addr = first
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let screenshot = tmp.join("mcp_app_restarted.png");
    let _ = std::fs::remove_file(&screenshot);
    let mut session = browser::Session::start(
        "mcp_app/chat_restart.mjs",
        &[&first.url, screenshot.to_str().unwrap()],
    );
    session.expect_line("interrupted");

    // The chat server that parked the call goes away; another on the same file takes
    // its place.
    drop(first);
    let args = chat_args(&addr);
    let second = Listening::start(
        "chat_ui",
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(second.url, format!("http://{addr}/"));
    let line = session.go_on();
    let seen: Value = serde_json::from_str(line.trim()).expect("one JSON line");
    assert_eq!(seen["totalBeforeApproval"], "Total: 1200");
    assert!(
        seen["chart"].as_str().unwrap().contains("travel: 250"),
        "{seen}"
    );
    assert_eq!(seen["answerStatus"], 200, "{seen}");
    let answers = seen["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 1, "{seen}");
    assert_eq!(answers[0]["approved"], true);
    // The id names the stored run of the view's call; it is answered once.
    let id = answers[0]["id"].as_str().unwrap();
    assert!(id.contains("@view:"), "{id}");
    let (status, again) = post(
        &second.url,
        "apps/answer",
        &json!({"id": id, "approved": true}),
    );
    assert_eq!(status, 404, "{again}");
    assert!(again.contains("no call waits on"), "{again}");
    assert!(std::fs::read(&screenshot).unwrap().starts_with(b"\x89PNG"));
    drop(second);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db}{suffix}"));
    }
}

/// A server the crate did not write: tests/mcp_app/ts_server.mjs, on the official MCP
/// TypeScript SDK (`TOOLNEXUS_NODE_MODULES`), its view loading the extension SDK from
/// `sdk`; a child process killed when dropped.
fn ts_server(sdk: &str) -> Listening {
    let modules = std::env::var("TOOLNEXUS_NODE_MODULES").unwrap_or_else(|_| {
        panic!("TOOLNEXUS_NODE_MODULES is not set: this test runs the MCP TypeScript SDK and does not skip; run it through .ci/test")
    });
    let node = std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into());
    let mut child = Command::new("timeout")
        .args([
            "180",
            &node,
            &format!("{}/tests/mcp_app/ts_server.mjs", env!("CARGO_MANIFEST_DIR")),
        ])
        .env("NODE_MODULES", modules)
        .env("MCP_APP_SDK", sdk)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("node runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the server's first line");
    let Some(url) = line.trim().strip_prefix("listening on ") else {
        let _ = child.kill();
        panic!("ts_server.mjs printed {line:?}, not `listening on URL`");
    };
    let url = url.to_owned();
    Listening { child, url }
}

/// The second judge: a view written with the extension SDK and served by the official
/// MCP TypeScript SDK renders on the chat page, receives its result, calls a tool (one
/// its server lists for views only, which the model never sees) through the page, and
/// posts a message the next turn reads. The screenshot is saved as
/// `target/tmp/mcp_app_ts.png`.
#[test]
fn the_chat_page_hosts_a_view_served_by_the_typescript_sdk() {
    let modules = browser::modules();
    let server = ts_server(&serve_sdk(&modules));
    let chat = Listening::start("chat_ui", &["127.0.0.1:0", "--mcp", &server.url]);

    // The model does not have the view's own tool: a prompt naming it is no call of it.
    let body = json!({
        "id": "chat-1",
        "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "complete_task {\"open\": [\"ship\"], \"done\": [], \"task\": \"ship\"}"}]}],
    });
    let (_, stream) = post(&chat.url, "chat", &body);
    assert!(stream.contains(r#""toolName":"deploy""#), "{stream}");
    assert!(
        !stream.contains(r#""toolName":"complete_task""#),
        "{stream}"
    );

    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp_app_ts.png");
    let _ = std::fs::remove_file(&screenshot);
    let stdout = browser::run(
        "mcp_app/chat_ts.mjs",
        &[&chat.url, screenshot.to_str().unwrap()],
    );
    let seen: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");

    assert_eq!(seen["sandbox"], "allow-scripts");
    // The result reached the view: every task open.
    let open = seen["openBefore"].as_str().unwrap();
    for task in ["write the tests", "review the docs", "ship"] {
        assert!(open.contains(task), "{seen}");
    }
    // Its call went through the page to its own server, and its result came back.
    let calls = seen["appsCalls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{seen}");
    assert_eq!(calls[0]["server"], "ts-tasks-app");
    assert_eq!(calls[0]["name"], "complete_task");
    assert_eq!(calls[0]["arguments"]["task"], "write the tests");
    assert_eq!(seen["doneAfter"], "write the tests");
    assert!(
        !seen["openAfter"]
            .as_str()
            .unwrap()
            .contains("write the tests"),
        "{seen}"
    );
    // Its message was the next turn's: the scripted model deployed what it said.
    let log = seen["log"].as_str().unwrap();
    assert!(
        log.contains(
            r#"calling deploy {"service":"Tasks done: write the tests; open: review the docs, ship."}"#
        ),
        "{log}"
    );
    assert_eq!(seen["url"], chat.url.as_str());
    assert_eq!(seen["elsewhere"], json!([]), "{seen}");
    let png = std::fs::read(&screenshot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
}

/// The AI SDK's stream carries the view as a data part, AG-UI as a `CUSTOM` event (which
/// the AG-UI Python SDK accepts), and the apps endpoint refuses
/// what a view may not do: a server it does not come from, a tool its server does not
/// have, an answer to no call; a gated call waits on an approval answered once.
#[test]
fn the_streams_carry_the_view_and_the_apps_endpoint_keeps_views_to_their_server() {
    let modules = browser::modules();
    let (_budget, chat) = servers(&modules);
    let body = json!({
        "id": "chat-1",
        "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "budget {\"lines\": [{\"name\": \"rent\", \"amount\": 900}]}"}]}],
    });
    let (_, stream) = post(&chat.url, "chat", &body);
    let parts: Vec<Value> = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let view = parts
        .iter()
        .find(|p| p["type"] == "data-mcp-app-view")
        .unwrap_or_else(|| panic!("no view part in {parts:?}"));
    let data = &view["data"];
    assert_eq!(view["id"], data["toolCallId"]);
    assert_eq!(data["uri"], "ui://budget/view.html");
    assert_eq!(data["server"], "toolnexus-budget");
    assert_eq!(data["toolName"], "budget");
    assert_eq!(data["toolResult"]["structuredContent"]["total"], 900.0);
    assert_eq!(data["toolInput"]["lines"][0]["name"], "rent");
    assert!(data["html"].as_str().unwrap().contains("budget-view"));

    // AG-UI: a CUSTOM event, which the AG-UI Python SDK's event models accept.
    let input = json!({
        "threadId": "thread-1", "runId": "run-1", "tools": [], "context": [], "state": {},
        "messages": [{"id": "m1", "role": "user", "content": "budget {\"lines\": [{\"name\": \"rent\", \"amount\": 900}]}"}],
    });
    let (_, stream) = post(&chat.url, "agui", &input);
    let events: Vec<Value> = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let custom = events
        .iter()
        .find(|e| e["type"] == "CUSTOM")
        .unwrap_or_else(|| panic!("no CUSTOM event in {events:?}"));
    assert_eq!(custom["name"], "mcp-app-view");
    assert_eq!(custom["value"]["uri"], "ui://budget/view.html");
    assert_eq!(
        custom["value"]["toolResult"]["structuredContent"]["total"],
        900.0
    );
    let result_at = events
        .iter()
        .position(|e| e["type"] == "TOOL_CALL_RESULT")
        .expect("the call's result");
    let custom_at = events.iter().position(|e| e["type"] == "CUSTOM").unwrap();
    assert!(custom_at < result_at, "{events:?}");
    let python = std::env::var("TOOLNEXUS_AGUI_PYTHON").unwrap_or_else(|_| {
        panic!("TOOLNEXUS_AGUI_PYTHON is not set: run this test through .ci/test")
    });
    let mut judge = Command::new(python)
        .arg(format!(
            "{}/tests/chat_ui/agui_events.py",
            env!("CARGO_MANIFEST_DIR")
        ))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    let line = json!({"check": "view", "events": events}).to_string() + "\n";
    judge
        .stdin
        .take()
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    let judged = judge.wait_with_output().unwrap();
    assert!(
        judged.status.success(),
        "the AG-UI Python SDK rejected an event:\n{}",
        String::from_utf8_lossy(&judged.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&judged.stdout).trim(),
        format!("parsed {}", events.len())
    );

    // A gated call waits on an answer, answerable once.
    let call = json!({"server": "toolnexus-budget", "name": "add_line", "arguments": {"lines": [], "name": "food", "amount": 300}});
    let (status, answer) = post(&chat.url, "apps/call", &call);
    assert_eq!(status, 200, "{answer}");
    let answer: Value = serde_json::from_str(&answer).unwrap();
    let pending = &answer["pending"];
    assert_eq!(pending["prompt"], "Let `add_line` run?");
    let id = pending["id"].as_str().unwrap();
    let (status, done) = post(
        &chat.url,
        "apps/answer",
        &json!({"id": id, "approved": true}),
    );
    assert_eq!(status, 200, "{done}");
    let done: Value = serde_json::from_str(&done).unwrap();
    assert_eq!(
        done["result"]["structuredContent"]["total"], 300.0,
        "{done}"
    );
    let (status, again) = post(
        &chat.url,
        "apps/answer",
        &json!({"id": id, "approved": true}),
    );
    assert_eq!(status, 404, "{again}");
    // Declined, the tool does not run.
    let (_, answer) = post(&chat.url, "apps/call", &call);
    let answer: Value = serde_json::from_str(&answer).unwrap();
    let id = answer["pending"]["id"].as_str().unwrap();
    let (_, declined) = post(
        &chat.url,
        "apps/answer",
        &json!({"id": id, "approved": false}),
    );
    let declined: Value = serde_json::from_str(&declined).unwrap();
    assert_eq!(declined["result"]["isError"], true, "{declined}");
    assert!(
        declined["result"].get("structuredContent").is_none(),
        "{declined}"
    );

    // Another site's page cannot call a view's tool.
    let (status, _) = post_from(
        &chat.url,
        "apps/call",
        &call,
        Some("https://attacker.example"),
    );
    assert_eq!(status, 403);

    // Another server, another server's tool: refused, named.
    let (status, refused) = post(
        &chat.url,
        "apps/call",
        &json!({"server": "elsewhere", "name": "add_line", "arguments": {}}),
    );
    assert_eq!(status, 404);
    assert!(refused.contains("no MCP server `elsewhere`"), "{refused}");
    let (status, refused) = post(
        &chat.url,
        "apps/call",
        &json!({"server": "toolnexus-budget", "name": "deploy", "arguments": {}}),
    );
    assert_eq!(status, 404);
    assert!(refused.contains("has no tool `deploy`"), "{refused}");
}

/// POSTs `body` as JSON to `path` under `base`; the status and the body (de-chunked
/// enough for line-oriented reading).
fn post(base: &str, path: &str, body: &Value) -> (u16, String) {
    post_from(base, path, body, None)
}

/// [`post`] from a page at `origin`, when given.
fn post_from(base: &str, path: &str, body: &Value, origin: Option<&str>) -> (u16, String) {
    let origin = origin
        .map(|o| format!("origin: {o}\r\n"))
        .unwrap_or_default();
    let host = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let body = body.to_string();
    let mut stream = TcpStream::connect(&host).expect("connects");
    write!(
        stream,
        "POST /{path} HTTP/1.1\r\nhost: {host}\r\n{origin}content-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("a response");
    let (head, rest) = response.split_once("\r\n\r\n").expect("a head");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let text = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    (status, text)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// Serves the SDK's browser bundle (what the view imports) on a loopback port, to any
/// origin (the view's frame has none of its own); returns its URL.
fn serve_sdk(modules: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/app-with-deps.js", listener.local_addr().unwrap());
    let bundle = std::path::PathBuf::from(modules)
        .join("@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            // The request head, up to its blank line.
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let body = std::fs::read(&bundle).unwrap_or_default();
            let mut stream = &stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/javascript\r\n\
                 access-control-allow-origin: *\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
    });
    url
}

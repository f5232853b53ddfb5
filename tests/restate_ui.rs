//! The chat page on Restate: `examples/chat_ui --restate` serves its model and tools as
//! the `Agent` object, registered with a real `restate-server` (tests/support/
//! restate_server.rs), and its `/agui` endpoint is `toolnexus::restate::ag_ui` on the
//! server's ingress. An approval card is a suspended invocation:
//!
//! - another site's page, a rebound host name and a form body are refused and start no
//!   run;
//! - over AG-UI, the interrupt is answered once, only by its own thread, only with the id
//!   it was issued with, and the answer resumes the invocation to its end;
//! - in Chromium (Debian's package, driven by playwright-core: tests/chat_ui/browser.cjs),
//!   the restate-server is SIGKILLed and started again while the card shows, and the
//!   Approve click still resumes the run (`target/tmp/chat_ui_restate.png`).
//!
//! Needs `TOOLNEXUS_UI_NODE_MODULES` and chromium at `TOOLNEXUS_CHROMIUM` for the second.

use std::net::SocketAddr;

use serde_json::{Value, json};

#[path = "support/browser.rs"]
mod browser;
#[path = "support/example.rs"]
mod example;
#[path = "support/raw_http.rs"]
mod raw_http;
#[path = "support/restate_server.rs"]
mod restate_server;
use example::Listening;
use restate_server::Server;

/// Held by each test for its whole run: one restate-server (with its chat example and
/// browser) at a time, so that neither waits on the other's start for the 2 cores.
static ONE_SERVER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The chat example on the Restate server `server`.
fn chat_on(server: &Server) -> Listening {
    let ingress = server.ingress_url();
    let admin = server.admin();
    Listening::start(
        "chat_ui",
        &["127.0.0.1:0", "--restate", &ingress, "--admin", &admin],
    )
}

fn addr(chat: &Listening) -> SocketAddr {
    chat.url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap()
}

/// POSTs `body` to the AG-UI endpoint with `host` and `headers`; the status and body.
async fn post(addr: SocketAddr, host: &str, headers: &str, body: &str) -> raw_http::Reply {
    let request = format!(
        "POST /agui HTTP/1.1\r\nHost: {host}\r\n{headers}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    raw_http::exchange(addr, request).await
}

/// POSTs `input` to the AG-UI endpoint, as the page does, and gives back its events.
async fn agui(addr: SocketAddr, input: Value) -> Vec<Value> {
    let json = "Content-Type: application/json\r\n";
    let reply = post(addr, &addr.to_string(), json, &input.to_string()).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    // The body may be chunked: each event is one `data: …` line.
    reply
        .body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).expect("an event is JSON"))
        .collect()
}

fn prompt(thread: &str, run: &str, text: &str) -> Value {
    json!({
        "threadId": thread, "runId": run, "state": null, "tools": [], "context": [],
        "forwardedProps": null,
        "messages": [{"id": format!("{run}-u"), "role": "user", "content": text}],
    })
}

fn resume(thread: &str, run: &str, interrupt: &str) -> Value {
    let mut input = prompt(thread, run, "");
    input["messages"] = json!([]);
    input["resume"] = json!([{"interruptId": interrupt, "status": "resolved"}]);
    input
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The code of the input's refusal (its `RUN_ERROR`).
fn refusal(events: &[Value]) -> &str {
    let errors = of_type(events, "RUN_ERROR");
    assert_eq!(errors.len(), 1, "{events:?}");
    errors[0]["code"].as_str().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_on_restate_is_answered_once_by_its_own_thread() {
    let _alone = ONE_SERVER.lock().await;
    let mut server = Server::start();
    server.ready().await;
    let chat = chat_on(&server);
    let at = addr(&chat);

    // Another site's page, a rebound host name and a form body start no run.
    let body = prompt("t0", "r0", "the api").to_string();
    let host = at.to_string();
    let foreign = "Content-Type: application/json\r\nOrigin: https://evil.example\r\n";
    assert_eq!(post(at, &host, foreign, &body).await.status, 403);
    let rebound = format!("evil.example:{}", at.port());
    let json = "Content-Type: application/json\r\n";
    assert_eq!(post(at, &rebound, json, &body).await.status, 403);
    let form = "Content-Type: text/plain\r\n";
    assert_eq!(post(at, &host, form, &body).await.status, 415);
    let ingress = server.ingress();
    assert!(ingress.pending("t0").await.unwrap().is_empty());
    assert!(ingress.waiting("t0").await.unwrap().is_none());

    let events = agui(at, prompt("t1", "r1", "the api")).await;
    assert_eq!(events[0]["type"], "RUN_STARTED", "{events:?}");
    let started = of_type(&events, "TOOL_CALL_START");
    assert_eq!(started.len(), 1, "{events:?}");
    assert_eq!(started[0]["toolCallName"], "deploy");
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED", "{events:?}");
    assert_eq!(finished["outcome"]["type"], "interrupt");
    let interrupt = &finished["outcome"]["interrupts"][0];
    assert_eq!(interrupt["message"], "Deploy this service?");
    assert_eq!(interrupt["toolCallId"], started[0]["toolCallId"]);
    let id = interrupt["id"].as_str().unwrap().to_owned();
    assert!(
        of_type(&events, "TOOL_CALL_RESULT").is_empty(),
        "{events:?}"
    );

    // A new prompt while the card is open, another thread's answer, a forged id.
    let events = agui(at, prompt("t1", "r2", "the db")).await;
    assert_eq!(refusal(&events), "interrupt_not_answered");
    let events = agui(at, resume("t2", "r3", &id)).await;
    assert_eq!(refusal(&events), "unknown_interrupt");
    let (request, _) = id.rsplit_once('@').unwrap();
    let forged = format!("{request}@inv_1forged");
    let events = agui(at, resume("t1", "r4", &forged)).await;
    assert_eq!(refusal(&events), "unknown_interrupt");

    // The answer resumes the invocation to its end: only what is new is sent.
    let events = agui(at, resume("t1", "r5", &id)).await;
    assert!(of_type(&events, "TOOL_CALL_START").is_empty(), "{events:?}");
    let results = of_type(&events, "TOOL_CALL_RESULT");
    assert_eq!(results.len(), 1, "{events:?}");
    assert_eq!(results[0]["content"], "deployed the api");
    let finished = events.last().unwrap();
    assert_eq!(finished["outcome"]["type"], "success", "{events:?}");
    assert_eq!(finished["result"], "Done: deployed the api.");
    let text = of_type(&events, "TEXT_MESSAGE_CONTENT");
    assert_eq!(text[0]["delta"], "Done: deployed the api.");

    // Answered: the id no longer answers anything, and the thread takes a new prompt.
    let events = agui(at, resume("t1", "r6", &id)).await;
    assert_eq!(refusal(&events), "unknown_interrupt");
    let events = agui(at, prompt("t1", "r7", "the db")).await;
    assert_eq!(events.last().unwrap()["outcome"]["type"], "interrupt");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_clicked_after_the_restate_server_restarted_resumes_the_run() {
    let _alone = ONE_SERVER.lock().await;
    let mut server = Server::start();
    server.ready().await;
    let chat = chat_on(&server);
    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("chat_ui_restate.png");
    let _ = std::fs::remove_file(&screenshot);
    let mut session = browser::Session::start(
        "chat_ui/browser.cjs",
        &[&chat.url, screenshot.to_str().unwrap(), "restart"],
    );
    session.expect_line("interrupted");

    // The Restate server goes away with the invocation suspended, and comes back.
    server.kill();
    server.spawn();
    server.ready().await;
    assert_eq!(session.go_on().trim(), "answered");
    assert!(std::fs::read(&screenshot).unwrap().starts_with(b"\x89PNG"));
}

//! Probes of the chat example's endpoints (`/agui`, AG-UI; `/chat`, the AI SDK's stream)
//! as a foreign web page or a stranger would send them, in raw HTTP/1.1 against
//! `examples/chat_ui` as it ships:
//!
//! - a cross-site `text/plain` POST (no CORS preflight), a POST with no `Content-Type`,
//!   a foreign `Origin` and a rebound `Host` are refused before any run starts;
//! - a stranger who knows a thread id learns no interrupt id from the refusal of a new
//!   run there, cannot answer the thread's interrupt from another thread, and the victim's
//!   `deploy` is still waiting for the victim's own answer afterwards;
//! - a body that trickles in gets `408` and its connection closed;
//! - the page's own requests (loopback `Origin`, JSON) still run.
//!
//! And, in process, `ui::ag_ui_with` with a user function: another user's interrupt is
//! unknown, the same thread id reaches a thread of one's own, and an allowed proxy host
//! is accepted.

#[path = "support/example.rs"]
mod example;
#[path = "support/raw_http.rs"]
mod raw_http;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use example::Listening;
use raw_http::{Reply, exchange};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// Hang protection only.
const PATIENCE: Duration = Duration::from_secs(60);

impl Reply {
    /// The JSON values of an event-stream body's `data:` lines.
    fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }

    fn event(&self, kind: &str) -> Option<Value> {
        self.events().into_iter().find(|e| e["type"] == kind)
    }

    /// The AG-UI interrupt id the run finished with.
    fn interrupt(&self) -> String {
        let finished = self
            .event("RUN_FINISHED")
            .unwrap_or_else(|| panic!("{self:?}"));
        finished["outcome"]["interrupts"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no interrupt: {self:?}"))
            .to_owned()
    }

    /// The AI SDK approval id the run asked with.
    fn approval(&self) -> String {
        let asked = self
            .event("tool-approval-request")
            .unwrap_or_else(|| panic!("no approval request: {self:?}"));
        asked["approvalId"].as_str().unwrap().to_owned()
    }
}

/// Sends a request on its own connection (`Connection: close`) and reads the answer to
/// its end. `host` is the `Host` header; `headers` are added as given.
async fn send(
    addr: SocketAddr,
    host: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut text = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    exchange(addr, text).await
}

const JSON: (&str, &str) = ("Content-Type", "application/json");

/// The page's own request: JSON, from a loopback page.
async fn legit(addr: SocketAddr, path: &str, body: &Value) -> Reply {
    let origin = format!("http://{addr}");
    let headers = [
        ("Content-Type", "application/json; charset=utf-8"),
        ("Origin", origin.as_str()),
    ];
    send(addr, &addr.to_string(), path, &headers, &body.to_string()).await
}

fn agui_run(thread: &str, text: &str) -> Value {
    json!({
        "threadId": thread, "runId": format!("run-{text}"), "state": {}, "tools": [],
        "context": [], "forwardedProps": {},
        "messages": [{"id": format!("u-{text}"), "role": "user", "content": text}],
    })
}

fn agui_resume(thread: &str, interrupt: &str) -> Value {
    json!({
        "threadId": thread, "runId": "run-resume", "state": {}, "tools": [], "context": [],
        "forwardedProps": {}, "messages": [],
        "resume": [{"interruptId": interrupt, "status": "resolved"}],
    })
}

fn chat_run(chat: &str, text: &str) -> Value {
    json!({"id": chat, "messages": [
        {"id": format!("u-{text}"), "role": "user", "parts": [{"type": "text", "text": text}]},
    ]})
}

fn chat_resume(chat: &str, approval: &str) -> Value {
    json!({"id": chat, "messages": [
        {"id": "u-1", "role": "user", "parts": [{"type": "text", "text": "x"}]},
        {"id": "m-1", "role": "assistant", "parts": [{
            "type": "dynamic-tool", "toolName": "deploy", "toolCallId": "c",
            "state": "approval-responded", "approval": {"id": approval, "approved": true},
        }]},
    ]})
}

fn chat_ui() -> (Listening, SocketAddr) {
    let server = Listening::start("chat_ui", &["127.0.0.1:0"]);
    let addr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect("a socket address");
    (server, addr)
}

/// Whether a new run of `thread` on `/agui` is refused for an unanswered interrupt: the
/// sign that a run was started (and halted) on it before.
async fn agui_has_run(addr: SocketAddr, thread: &str) -> bool {
    let reply = legit(addr, "/agui", &agui_run(thread, "probe")).await;
    let error = reply.event("RUN_ERROR");
    error.is_some_and(|e| e["code"] == "interrupt_not_answered")
}

#[tokio::test]
async fn a_foreign_page_starts_no_run() {
    let (_server, addr) = chat_ui();
    let host = addr.to_string();
    let port = addr.port();
    let rebound = format!("evil.example:{port}");
    for (path, thread, body) in [
        (
            "/agui",
            "t-foreign",
            agui_run("t-foreign", "web").to_string(),
        ),
        (
            "/chat",
            "c-foreign",
            chat_run("c-foreign", "web").to_string(),
        ),
    ] {
        // A cross-site fetch or form with a CORS-safe type: no preflight, so only the
        // server can refuse it.
        let plain = [
            ("Content-Type", "text/plain;charset=UTF-8"),
            ("Origin", "https://evil.example"),
        ];
        let reply = send(addr, &host, path, &plain, &body).await;
        assert_eq!(reply.status, 403, "{path} foreign text/plain: {reply:?}");
        // The same type from no page at all (curl, a native client): still not JSON.
        let plain = [("Content-Type", "text/plain")];
        let reply = send(addr, &host, path, &plain, &body).await;
        assert_eq!(reply.status, 415, "{path} text/plain: {reply:?}");
        assert!(reply.body.contains("application/json"), "{reply:?}");
        // No Content-Type (a Blob with no type).
        let reply = send(addr, &host, path, &[], &body).await;
        assert_eq!(reply.status, 415, "{path} no Content-Type: {reply:?}");
        // A type that merely starts like JSON.
        let reply = send(
            addr,
            &host,
            path,
            &[("Content-Type", "application/json-x")],
            &body,
        )
        .await;
        assert_eq!(reply.status, 415, "{path} application/json-x: {reply:?}");
        // JSON from a foreign page (after a preflight the page could not pass either).
        let foreign = [JSON, ("Origin", "https://evil.example")];
        let reply = send(addr, &host, path, &foreign, &body).await;
        assert_eq!(reply.status, 403, "{path} foreign JSON: {reply:?}");
        assert!(reply.body.contains("Origin"), "{reply:?}");
        let null = [JSON, ("Origin", "null")];
        assert_eq!(send(addr, &host, path, &null, &body).await.status, 403);
        // DNS rebinding: the page's own origin, reached under its own name.
        let origin = format!("http://{rebound}");
        let rebinding = [JSON, ("Origin", origin.as_str())];
        let reply = send(addr, &rebound, path, &rebinding, &body).await;
        assert_eq!(reply.status, 403, "{path} rebound Host: {reply:?}");
        assert!(reply.body.contains("Host"), "{reply:?}");
        let reply = send(addr, &rebound, path, &[JSON], &body).await;
        assert_eq!(
            reply.status, 403,
            "{path} rebound Host, no Origin: {reply:?}"
        );
        assert!(!reply.head.contains("text/event-stream"), "{reply:?}");
        if path == "/agui" {
            assert!(
                !agui_has_run(addr, thread).await,
                "a refused request started a run"
            );
        }
    }
    // None of those started a chat run either: the chat takes a new message.
    let reply = legit(addr, "/chat", &chat_run("c-foreign", "web")).await;
    assert!(reply.event("tool-approval-request").is_some(), "{reply:?}");
}

#[tokio::test]
async fn the_pages_own_requests_still_run_and_approve() {
    let (_server, addr) = chat_ui();
    let first = legit(addr, "/agui", &agui_run("t-legit", "web")).await;
    assert_eq!(first.status, 200, "{first:?}");
    let interrupt = first.interrupt();
    let second = legit(addr, "/agui", &agui_resume("t-legit", &interrupt)).await;
    let result = second.event("TOOL_CALL_RESULT").expect("the tool ran");
    assert_eq!(result["content"], "deployed web");

    let asked = legit(addr, "/chat", &chat_run("c-legit", "web")).await;
    let approval = asked.approval();
    let done = legit(addr, "/chat", &chat_resume("c-legit", &approval)).await;
    let output = done.event("tool-output-available").expect("the tool ran");
    assert_eq!(output["output"], "deployed web", "{done:?}");
}

#[tokio::test]
async fn a_stranger_who_knows_a_thread_id_cannot_approve_its_deploy() {
    let (_server, addr) = chat_ui();
    // The victim's thread, halted on the approval of `deploy`.
    let victim = legit(addr, "/agui", &agui_run("t-victim", "prod")).await;
    let interrupt = victim.interrupt();
    assert!(interrupt.len() >= 32, "an unguessable id: {interrupt}");

    // A new run on the victim's thread is refused, and the refusal names no id.
    let probe = legit(addr, "/agui", &agui_run("t-victim", "staging")).await;
    let error = probe.event("RUN_ERROR").expect("refused");
    assert_eq!(error["code"], "interrupt_not_answered");
    assert!(!probe.body.contains(&interrupt), "{probe:?}");
    assert!(!probe.body.contains("int_"), "{probe:?}");
    // Guessed ids are unknown.
    for guess in ["int_0", "int_00000000000000000000000000000000", "1"] {
        let reply = legit(addr, "/agui", &agui_resume("t-victim", guess)).await;
        let error = reply.event("RUN_ERROR").expect("refused");
        assert_eq!(error["code"], "unknown_interrupt", "{reply:?}");
    }
    // The real id, used from another thread (one the stranger owns), is unknown there.
    let reply = legit(addr, "/agui", &agui_resume("t-thief", &interrupt)).await;
    let error = reply.event("RUN_ERROR").expect("refused");
    assert_eq!(error["code"], "unknown_interrupt", "{reply:?}");
    assert!(reply.event("TOOL_CALL_RESULT").is_none(), "{reply:?}");

    // The deploy did not run: it still waits for the victim, whose answer runs it once.
    let own = legit(addr, "/agui", &agui_resume("t-victim", &interrupt)).await;
    let result = own.event("TOOL_CALL_RESULT").expect("the tool ran");
    assert_eq!(result["content"], "deployed prod");

    // The AI SDK's chats: the same.
    let victim = legit(addr, "/chat", &chat_run("c-victim", "prod")).await;
    let approval = victim.approval();
    let probe = legit(addr, "/chat", &chat_run("c-victim", "staging")).await;
    assert!(probe.event("error").is_some(), "{probe:?}");
    assert!(!probe.body.contains(&approval), "{probe:?}");
    assert!(!probe.body.contains("apr_"), "{probe:?}");
    let stolen = legit(addr, "/chat", &chat_resume("c-thief", &approval)).await;
    let error = stolen.event("error").expect("refused");
    assert!(
        error["errorText"]
            .as_str()
            .unwrap()
            .contains("no approval with the id"),
        "{stolen:?}"
    );
    assert!(
        stolen.event("tool-output-available").is_none(),
        "{stolen:?}"
    );
    let own = legit(addr, "/chat", &chat_resume("c-victim", &approval)).await;
    let output = own.event("tool-output-available").expect("the tool ran");
    assert_eq!(output["output"], "deployed prod");
}

#[tokio::test]
async fn a_trickled_body_gets_408_and_its_connection_closed() {
    let (_server, addr) = chat_ui();
    let body = agui_run("t-trickle", "web").to_string();
    let head = format!(
        "POST /agui HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    // One byte every two seconds: the whole body would take minutes.
    let mut answer = Vec::new();
    let mut sent = 0;
    let ended = tokio::time::timeout(PATIENCE, async {
        loop {
            let mut buf = [0u8; 4096];
            tokio::select! {
                read = stream.read(&mut buf) => match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => answer.extend_from_slice(&buf[..n]),
                },
                () = tokio::time::sleep(Duration::from_secs(2)) => {
                    if sent < body.len() && stream.write_all(&body.as_bytes()[sent..=sent]).await.is_ok() {
                        sent += 1;
                    }
                }
            }
        }
    })
    .await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(ended.is_ok(), "the connection was still open: {answer}");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
    assert!(sent < body.len(), "the body was never all sent");
    assert!(
        !agui_has_run(addr, "t-trickle").await,
        "the trickled request started a run"
    );
}

/// Deploy a service.
#[toolnexus::tool(approval = "Deploy this service?")]
fn deploy(
    /// What to deploy.
    service: String,
    counter: toolnexus::State<Arc<AtomicUsize>>,
) -> Result<String, std::convert::Infallible> {
    counter.fetch_add(1, Ordering::SeqCst);
    Ok(format!("deployed {service}"))
}

/// The chat example's model: deploys what it is asked to.
fn model() -> toolnexus::model::FnModel {
    use toolnexus::{Message, Reply as ModelReply};
    toolnexus::model::FnModel::new_sync(|transcript, _tools| {
        Ok(match transcript.last() {
            Some(Message::User { content }) => ModelReply::call(
                format!("call_{}", transcript.len()),
                "deploy",
                json!({ "service": content }).to_string(),
            ),
            Some(Message::Tool { content, .. }) => ModelReply::text(format!("Done: {content}.")),
            _ => ModelReply::text("Nothing to do."),
        })
    })
}

#[tokio::test]
async fn with_users_a_thread_and_its_interrupts_are_the_users_own() {
    users_own_their_threads(false).await;
}

/// The same on a client with a run store: a thread is a session named after its user.
#[tokio::test]
async fn with_users_and_a_store_the_same() {
    users_own_their_threads(true).await;
}

async fn users_own_their_threads(stored: bool) {
    let deploys = Arc::new(AtomicUsize::new(0));
    let toolkit = toolnexus::Toolkit::new()
        .with(deploy::tool())
        .with_state(Arc::clone(&deploys));
    let options = toolnexus::ui::UiOptions::new()
        .guard(toolnexus::web::WebGuard::new().allowed_hosts(["chat.example"]))
        .user(|request| {
            let user = request.headers.get("x-user")?;
            user.to_str().ok().map(str::to_owned)
        });
    let mut client = toolnexus::Client::new(model());
    if stored {
        let store = toolnexus::store::RunStore::sqlite(":memory:")
            .await
            .unwrap();
        client = client.store(store);
    }
    let app =
        axum::Router::new().nest("/agui", toolnexus::ui::ag_ui_with(client, toolkit, options));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    // Through a proxy that forwards its own name, which the app allowed.
    let as_user = |user: &'static str, body: Value| async move {
        let headers = [JSON, ("x-user", user)];
        send(addr, "chat.example", "/agui", &headers, &body.to_string()).await
    };
    let alice = as_user("alice", agui_run("shared-id", "prod")).await;
    assert_eq!(alice.status, 200, "{alice:?}");
    let interrupt = alice.interrupt();
    // Bob sends Alice's interrupt id on the same thread id: unknown to him.
    let stolen = as_user("bob", agui_resume("shared-id", &interrupt)).await;
    let error = stolen.event("RUN_ERROR").expect("refused");
    assert_eq!(error["code"], "unknown_interrupt", "{stolen:?}");
    assert_eq!(
        deploys.load(Ordering::SeqCst),
        0,
        "Bob's answer ran the deploy"
    );
    // The same thread id is a thread of Bob's own: his run is not refused by Alice's
    // open interrupt, and gets an interrupt of its own.
    let bob = as_user("bob", agui_run("shared-id", "dev")).await;
    let bobs = bob.interrupt();
    assert_ne!(bobs, interrupt);
    // Alice's interrupt answers for Alice, once.
    let own = as_user("alice", agui_resume("shared-id", &interrupt)).await;
    let result = own.event("TOOL_CALL_RESULT").expect("the tool ran");
    assert_eq!(result["content"], "deployed prod");
    assert_eq!(deploys.load(Ordering::SeqCst), 1);
    // Another host name is still refused.
    let elsewhere = send(
        addr,
        "other.example",
        "/agui",
        &[JSON],
        &agui_run("t", "x").to_string(),
    )
    .await;
    assert_eq!(elsewhere.status, 403, "{elsewhere:?}");
    server.abort();
}

/// What an endpoint keeps of a thread is bounded: its conversation (continued from one
/// run to the next, in the endpoint's bounded conversation store) takes no more runs once
/// it passes `max_transcript_bytes`, on AG-UI and the AI SDK alike, and a run that
/// halts past it ends with the error instead of an interrupt.
#[tokio::test]
async fn a_thread_past_its_transcript_limit_takes_no_more_runs() {
    use toolnexus::{Message, Reply as ModelReply};
    // Says how many user turns it was shown; halts on `deploy` when asked to deploy.
    let model = toolnexus::model::FnModel::new_sync(|transcript, _tools| {
        let users = transcript
            .iter()
            .filter(|m| matches!(m, Message::User { .. }))
            .count();
        Ok(match transcript.last() {
            Some(Message::User { content }) if content.to_string().starts_with("deploy") => {
                ModelReply::call("c1", "deploy", json!({ "service": "x" }).to_string())
            }
            _ => ModelReply::text(format!("turn {users}")),
        })
    });
    let toolkit = toolnexus::Toolkit::new()
        .with(deploy::tool())
        .with_state(Arc::new(AtomicUsize::new(0)));
    let options = toolnexus::ui::UiOptions::new().max_transcript_bytes(600);
    let client = toolnexus::Client::new(model);
    let app = axum::Router::new()
        .nest(
            "/agui",
            toolnexus::ui::ag_ui_with(client.clone(), toolkit.clone(), options.clone()),
        )
        .nest(
            "/chat",
            toolnexus::ui::ai_sdk_with(client, toolkit, options),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let text_of = |reply: &Reply| -> String {
        reply
            .events()
            .iter()
            .filter_map(|e| e["delta"].as_str().map(str::to_owned))
            .collect()
    };

    // The thread is one conversation: the second run is shown both user turns.
    let first = legit(addr, "/agui", &agui_run("t", "hello")).await;
    assert_eq!(text_of(&first), "turn 1", "{first:?}");
    let long = "y".repeat(700);
    let second = legit(addr, "/agui", &agui_run("t", &long)).await;
    assert_eq!(text_of(&second), "turn 2", "{second:?}");
    assert!(second.event("RUN_FINISHED").is_some(), "{second:?}");
    // Now past 600 bytes: refused, saying why.
    let third = legit(addr, "/agui", &agui_run("t", "again")).await;
    let error = third.event("RUN_ERROR").expect("refused");
    assert_eq!(error["code"], "thread_too_long", "{third:?}");
    assert_eq!(text_of(&third), "", "the model was not asked: {third:?}");
    // Another thread is not.
    let other = legit(addr, "/agui", &agui_run("u", "hello")).await;
    assert_eq!(text_of(&other), "turn 1", "{other:?}");
    // A run that halts past the limit ends with the error, no interrupt.
    let halted = legit(addr, "/agui", &agui_run("v", &format!("deploy {long}"))).await;
    let error = halted.event("RUN_ERROR").expect("refused");
    assert_eq!(error["code"], "thread_too_long", "{halted:?}");

    // The AI SDK's chats are bounded the same way.
    let chat = legit(addr, "/chat", &chat_run("c", &long)).await;
    assert!(chat.body.contains("turn 1"), "{chat:?}");
    let refused = legit(addr, "/chat", &chat_run("c", "again")).await;
    assert!(
        refused.body.contains("start a new chat") && !refused.body.contains("turn 2"),
        "{refused:?}"
    );
    let halted = legit(addr, "/chat", &chat_run("d", &format!("deploy {long}"))).await;
    assert!(
        halted.event("tool-approval-request").is_none(),
        "{halted:?}"
    );
    assert!(halted.body.contains("start a new chat"), "{halted:?}");
    server.abort();
}

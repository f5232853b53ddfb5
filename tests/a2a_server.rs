//! `A2aServer` on the wire, request by request: A2A's error codes for bad input, both
//! protocol versions, tasks visible only to their creator, conversations by `contextId`,
//! cancellation of a running task, the size limits, and streams.

#[path = "support/a2a.rs"]
mod a2a;

use std::time::Duration;

use a2a::{events, http, rpc};
use serde_json::{Value, json};
use toolnexus::a2a::A2aServer;
use toolnexus::model::FnModel;
use toolnexus::{Client, Context, Message, Reply, Suspend, Tool, ToolResult, Toolkit};

const V1: (&str, &str) = ("A2A-Version", "1.0");

/// The test agent: `ask` suspends for a name, `slow` runs until cancelled, `big` answers
/// 2000 bytes, `count` says how many user messages its conversation holds; anything else
/// is echoed.
fn server() -> A2aServer {
    let model = FnModel::new_sync(|transcript, _| {
        let users = transcript
            .iter()
            .filter(|m| matches!(m, Message::User { .. }))
            .count();
        Ok(match transcript.last() {
            Some(Message::User { content }) => match content.as_text().unwrap_or_default() {
                "ask" => Reply::call(format!("c{}", transcript.len()), "ask", "{}"),
                "slow" => Reply::call(format!("c{}", transcript.len()), "slow", "{}"),
                "big" => Reply::text("x".repeat(2000)),
                "count" => Reply::text(format!("{users} user messages")),
                other => Reply::text(format!("echo: {other}")),
            },
            Some(Message::Tool { content, .. }) => Reply::text(content.clone()),
            _ => Reply::text("?"),
        })
    });
    let ask = Tool::new(
        "ask",
        "Asks a name.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            match ctx.answer().and_then(|a| a.text()) {
                Some(name) => ToolResult::ok(format!("hello {name}")),
                None => Suspend::input("What name?").0.into(),
            }
        },
    );
    let slow = Tool::new(
        "slow",
        "Runs long.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            ctx.cancelled().await;
            ToolResult::error("stopped")
        },
    );
    A2aServer::new(Client::new(model), Toolkit::new().with(ask).with(slow))
        .principal(|parts| {
            parts
                .headers
                .get("x-user")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .max_message_bytes(4096)
        .max_artifact_bytes(1000)
}

/// The server, run on a runtime of its own; its endpoint URL.
fn start() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let served = server().serve("127.0.0.1:0").await.unwrap();
            tx.send(served.url()).unwrap();
            std::future::pending::<()>().await;
        });
    });
    rx.recv_timeout(Duration::from_secs(10)).unwrap()
}

fn message(text: &str, extra: Value) -> Value {
    let mut message = json!({"messageId": uuid(), "role": "ROLE_USER", "parts": [{"text": text}]});
    for (key, value) in extra.as_object().unwrap() {
        message[key] = value.clone();
    }
    message
}

fn uuid() -> String {
    format!(
        "m-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

fn send(url: &str, headers: &[(&str, &str)], text: &str, extra: Value) -> Value {
    rpc(
        url,
        headers,
        "SendMessage",
        json!({"message": message(text, extra)}),
    )
}

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

#[test]
fn bad_input_gets_a2a_error_codes() {
    let url = start();
    let post = |body: &str| {
        let (status, text) = http("POST", &url, &[("Content-Type", "application/json")], body);
        assert_eq!(status, 200, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()
    };
    assert_eq!(code(&post("{not json")), -32700);
    assert_eq!(code(&post(r#"{"id": 1, "method": "GetTask"}"#)), -32600);
    assert_eq!(
        code(&post(
            r#"[{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}]"#
        )),
        -32600
    );
    assert_eq!(code(&rpc(&url, &[V1], "NoSuchMethod", json!({}))), -32601);
    assert_eq!(code(&rpc(&url, &[V1], "GetTask", json!({}))), -32602);
    assert_eq!(
        code(&rpc(&url, &[V1], "GetTask", json!({"id": "nope"}))),
        -32001
    );
    assert_eq!(
        code(&rpc(&url, &[V1], "CancelTask", json!({"id": "nope"}))),
        -32001
    );
    assert_eq!(
        code(&rpc(
            &url,
            &[("A2A-Version", "2.0")],
            "GetTask",
            json!({"id": "x"})
        )),
        -32009
    );
    assert_eq!(
        code(&rpc(
            &url,
            &[V1],
            "CreateTaskPushNotificationConfig",
            json!({})
        )),
        -32003
    );
    assert_eq!(
        code(&rpc(&url, &[V1], "GetExtendedAgentCard", json!({}))),
        -32004
    );
    let no_parts = rpc(
        &url,
        &[V1],
        "SendMessage",
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": []}}),
    );
    assert_eq!(code(&no_parts), -32602);
    let error = &no_parts["error"];
    assert_eq!(error["data"][0]["reason"], "INVALID_PARAMS", "{error}");
    // Over the size limit: refused before it is read whole (by the web guard, as 413).
    let huge = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": message(&"y".repeat(5000), json!({}))}});
    let (status, text) = http(
        "POST",
        &url,
        &[("Content-Type", "application/json"), V1],
        &huge.to_string(),
    );
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("4096"), "{text}");

    // A completed task takes no more messages, and cannot be canceled.
    let done = send(&url, &[V1], "hi", json!({}));
    let task = &done["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "echo: hi");
    let id = task["id"].as_str().unwrap();
    assert_eq!(
        code(&send(&url, &[V1], "again", json!({"taskId": id}))),
        -32004
    );
    assert_eq!(
        code(&rpc(&url, &[V1], "CancelTask", json!({"id": id}))),
        -32002
    );
    assert_eq!(
        code(&rpc(&url, &[V1], "SubscribeToTask", json!({"id": id}))),
        -32004
    );
    let other_context = send(
        &url,
        &[V1],
        "again",
        json!({"taskId": id, "contextId": "elsewhere"}),
    );
    assert_eq!(code(&other_context), -32602);
    // An answer too large for the artifact limit fails the task, saying why.
    let big = send(&url, &[V1], "big", json!({}));
    assert_eq!(
        big["result"]["task"]["status"]["state"], "TASK_STATE_FAILED",
        "{big}"
    );
    let why = big["result"]["task"]["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(why.contains("2000 bytes") && why.contains("1000"), "{why}");
}

#[test]
fn both_protocol_versions_on_one_endpoint() {
    let url = start();
    // 0.3 by its method names: bare task, `kind`s, kebab-case states.
    let v03 = rpc(
        &url,
        &[],
        "message/send",
        json!({"message": {
        "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "ask"}]}}),
    );
    let task = &v03["result"];
    assert_eq!(task["kind"], "task", "{v03}");
    assert_eq!(task["status"]["state"], "input-required");
    assert_eq!(
        task["status"]["message"]["parts"][0],
        json!({"kind": "text", "text": "What name?"})
    );
    assert_eq!(task["status"]["message"]["role"], "agent");
    let request = &task["status"]["message"]["metadata"]["toolnexus/request"];
    assert_eq!(
        (request["kind"].as_str(), request["prompt"].as_str()),
        (Some("input"), Some("What name?"))
    );
    // The PascalCase names without `A2A-Version` are 0.3 too (A2A 1.0 §3.6.2), as the
    // toolnexus contract's ports send them.
    let id = task["id"].as_str().unwrap();
    let got = rpc(&url, &[], "GetTask", json!({"id": id}));
    assert_eq!(got["result"]["status"]["state"], "input-required", "{got}");
    let got = rpc(&url, &[V1], "GetTask", json!({"id": id}));
    assert_eq!(
        got["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{got}"
    );
    // The answer, in 0.3, on the same task.
    let answered = rpc(
        &url,
        &[],
        "message/send",
        json!({"message": {
        "kind": "message", "messageId": "m2", "role": "user", "taskId": id,
        "parts": [{"kind": "text", "text": "Ada"}]}}),
    );
    assert_eq!(
        answered["result"]["status"]["state"], "completed",
        "{answered}"
    );
    assert_eq!(
        answered["result"]["artifacts"][0]["parts"][0]["text"],
        "hello Ada"
    );
    assert_eq!(answered["result"]["history"].as_array().unwrap().len(), 3);
    let short = rpc(
        &url,
        &[V1],
        "GetTask",
        json!({"id": id, "historyLength": 1}),
    );
    assert_eq!(
        short["result"]["history"].as_array().unwrap().len(),
        1,
        "{short}"
    );

    // A 0.3 stream: `kind`ed updates, the last one `final`.
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "message/stream", "params": {"message": {
        "kind": "message", "messageId": "m3", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}});
    let (_, text) = http(
        "POST",
        &url,
        &[("Content-Type", "application/json")],
        &body.to_string(),
    );
    let kinds: Vec<Value> = events(&text)
        .iter()
        .map(|e| e["result"]["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        ["task", "status-update", "artifact-update", "status-update"],
        "{text}"
    );
    let last = events(&text).pop().unwrap();
    assert_eq!(
        (last["result"]["final"].as_bool(), last["id"].as_i64()),
        (Some(true), Some(3))
    );
}

#[test]
fn a_task_is_seen_only_by_whoever_created_it() {
    let url = start();
    let alice = [V1, ("x-user", "alice")];
    let bob = [V1, ("x-user", "bob")];
    let asked = send(&url, &alice, "ask", json!({}));
    let task = &asked["result"]["task"];
    let id = task["id"].as_str().unwrap();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    for (method, params) in [
        ("GetTask", json!({"id": id})),
        ("CancelTask", json!({"id": id})),
        ("SubscribeToTask", json!({"id": id})),
    ] {
        assert_eq!(
            code(&rpc(&url, &bob, method, params)),
            -32001,
            "{method} as bob"
        );
    }
    assert_eq!(
        code(&send(&url, &bob, "Mallory", json!({"taskId": id}))),
        -32001
    );
    let listed = rpc(&url, &bob, "ListTasks", json!({}));
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
    let listed = rpc(&url, &alice, "ListTasks", json!({}));
    assert_eq!(listed["result"]["totalSize"], 1, "{listed}");
    // Conversations are per principal too: bob's `count` in alice's context starts afresh.
    let context = task["contextId"].as_str().unwrap();
    let answered = send(&url, &alice, "Ada", json!({"taskId": id}));
    assert_eq!(
        answered["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    let counted = send(&url, &alice, "count", json!({"contextId": context}));
    let text = &counted["result"]["task"]["artifacts"][0]["parts"][0]["text"];
    assert_eq!(
        text, "2 user messages",
        "the conversation went on: {counted}"
    );
    let theirs = send(&url, &bob, "count", json!({"contextId": context}));
    assert_eq!(
        theirs["result"]["task"]["artifacts"][0]["parts"][0]["text"],
        "1 user messages"
    );
}

#[test]
fn a_running_task_is_canceled_and_a_subscriber_follows_an_answer() {
    let url = start();
    let started = rpc(
        &url,
        &[V1],
        "SendMessage",
        json!({
        "message": message("slow", json!({})), "configuration": {"returnImmediately": true}}),
    );
    let task = &started["result"]["task"];
    let id = task["id"].as_str().unwrap().to_owned();
    assert!(
        matches!(
            task["status"]["state"].as_str(),
            Some("TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING")
        ),
        "{started}"
    );
    let canceled = rpc(&url, &[V1], "CancelTask", json!({"id": id}));
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let got = rpc(&url, &[V1], "GetTask", json!({"id": id}));
    assert_eq!(got["result"]["status"]["state"], "TASK_STATE_CANCELED");

    // A subscriber to a task that asks sees the answer's run through to the end.
    let asked = send(&url, &[V1], "ask", json!({}));
    let id = asked["result"]["task"]["id"].as_str().unwrap().to_owned();
    let subscriber = {
        let (url, id) = (url.clone(), id.clone());
        std::thread::spawn(move || {
            let body = json!({"jsonrpc": "2.0", "id": 9, "method": "SubscribeToTask", "params": {"id": id}});
            http(
                "POST",
                &url,
                &[("Content-Type", "application/json"), V1],
                &body.to_string(),
            )
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let answered = send(&url, &[V1], "Ada", json!({"taskId": id}));
    assert_eq!(
        answered["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answered}"
    );
    let (_, text) = subscriber.join().unwrap();
    let seen = events(&text);
    assert!(
        seen[0]["result"]["task"].is_object(),
        "the stream starts with the task: {text}"
    );
    let states: Vec<&str> = seen
        .iter()
        .filter_map(|e| e["result"]["statusUpdate"]["status"]["state"].as_str())
        .collect();
    assert_eq!(states.last(), Some(&"TASK_STATE_COMPLETED"), "{text}");
    assert!(
        seen.iter()
            .any(|e| e["result"]["artifactUpdate"]["artifact"]["parts"][0]["text"] == "hello Ada"),
        "{text}"
    );
}

#[test]
fn the_card_says_where_to_call_in_both_versions() {
    let url = start();
    let (status, text) = http("GET", &format!("{url}.well-known/agent-card.json"), &[], "");
    assert_eq!(status, 200);
    let card: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(card["name"], "toolnexus-agent");
    assert_eq!(
        card["supportedInterfaces"][0],
        json!({"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"})
    );
    assert_eq!(card["supportedInterfaces"][1]["protocolVersion"], "0.3");
    // A2A 1.0's card has no 0.3 `url` / `protocolVersion` (its schema allows none):
    // 0.3 clients read the second interface, or fall back to the card's origin.
    assert!(
        card.get("url").is_none() && card.get("protocolVersion").is_none(),
        "{card}"
    );
    assert_eq!(
        card["skills"][0]["id"], "run",
        "the documented default skill: {card}"
    );
    assert_eq!(card["capabilities"]["streaming"], true);
}

//! `McpClient` on MCP 2026-07-28: a server's `input_required` becomes a pending result,
//! and the call resumed with an `Answer` (by `wait_for`, by `resume`, or after the run was
//! serialized and picked up by another client) retries with `inputResponses` and the
//! server's `requestState`.
//!
//! Proven against this crate's own server (`tests/suspend/server.rs`) and a server written
//! with the official Python SDK 2.3 whose tool returns an `InputRequiredResult`
//! (`tests/suspend/python_server.py`), and one written with the official TypeScript SDK
//! 2.x whose tool returns `inputRequired(...)` with a state sealed by the SDK's own codec
//! (`tests/suspend/ts_server.cjs`). Servers are child processes, killed with the client.

#[path = "support/example.rs"]
mod example;
#[path = "support/mcp_peer.rs"]
mod mcp_peer;
#[path = "support/node.rs"]
mod node;

use std::path::Path;

use example::example;
use mcp_peer::{one_call, run_answering};
use node::node_modules;
use serde_json::json;
use toolnexus::dispatch::resume;
use toolnexus::mcp::McpClient;
use toolnexus::{Answer, Client, Request, RunStatus, Toolkit};

const KEY: &str = "replicas-share-this-secret-of-40-bytes!!";

/// This crate's suspend server over stdio, every state sealed with `KEY`.
async fn own_server() -> (McpClient, Toolkit) {
    let client = McpClient::stdio(example("suspend_server"), Vec::<String>::new())
        .env("SUSPEND_KEY", KEY)
        .latest_protocol()
        .connect()
        .await
        .expect("the suspend server starts");
    let toolkit = client.tools().await.unwrap().into_iter().collect();
    (client, toolkit)
}

#[tokio::test]
async fn a_toolnexus_server_s_input_required_is_pending_and_resumes() {
    let (_client, toolkit) = own_server().await;
    let run = run_answering(&toolkit, "deploy", json!({"service": "api"}), |request| {
        // The server's own request comes back: same kind and prompt, the retry state in the id.
        assert_eq!(request.kind, "input");
        assert_eq!(request.prompt, "Which environment for api?");
        assert!(request.id.starts_with("mcp-input."), "{}", request.id);
        request.answer("prod")
    })
    .await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.tool_calls[0].result.output, "deployed api to prod");

    // An approval, through the loop; a decline leaves the tool unrun.
    let run = run_answering(&toolkit, "delete_repo", json!({"name": "x"}), |request| {
        assert_eq!(request.kind, "approval");
        assert_eq!(
            request.prompt,
            r#"Allow `delete_repo` to run with {"name":"x"}?"#
        );
        request.answer(true)
    })
    .await;
    assert_eq!(run.tool_calls[0].result.output, "deleted x");

    // A login: the URL comes back, and accepting it completes the call.
    let run = run_answering(&toolkit, "connect_account", json!({}), |request| {
        assert_eq!(request.kind, "authorization");
        assert_eq!(request.url.as_deref(), Some("https://example.com/login"));
        Answer::accept(&request.id)
    })
    .await;
    assert_eq!(run.tool_calls[0].result.output, "connected");
}

#[tokio::test]
async fn a_halted_run_resumes_in_another_process_from_its_serialized_transcript() {
    let (_client, toolkit) = own_server().await;
    let halted = Client::new(one_call("deploy", json!({"service": "db"})))
        .run("go", &toolkit)
        .await;
    assert_eq!(halted.status, RunStatus::Pending);
    let request = halted.pending.clone().unwrap();
    // Everything travels as JSON: the transcript and the request (with the state inside).
    let transcript = serde_json::to_string(&halted.messages).unwrap();
    let request_json = serde_json::to_string(&request).unwrap();
    drop((halted, toolkit, _client));

    // Another client and another server process, sharing only the key.
    let (_other, elsewhere) = own_server().await;
    let transcript: Vec<toolnexus::Message> = serde_json::from_str(&transcript).unwrap();
    let request: Request = serde_json::from_str(&request_json).unwrap();
    let resumed = resume(transcript, request.answer("eu"), &elsewhere)
        .await
        .unwrap();
    assert_eq!(resumed.calls[0].result.output, "deployed db to eu");

    // A declined answer is sent as `decline`: the tool hears it and says so.
    let halted = Client::new(one_call("deploy", json!({"service": "web"})))
        .run("go", &elsewhere)
        .await;
    let request = halted.pending.clone().unwrap();
    let declined = elsewhere
        .execute(
            "deploy",
            json!({"service": "web"}),
            toolnexus::Context::new().with_answer(request.decline("declined")),
        )
        .await;
    assert_eq!(declined.output, "deployment of web cancelled (decline)");
}

fn python() -> String {
    std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

#[tokio::test]
async fn a_python_sdk_server_s_input_required_result_is_answered() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suspend/python_server.py");
    let client = McpClient::stdio(python(), [script])
        .quiet()
        .latest_protocol()
        .connect()
        .await
        .expect("the Python server starts");
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let run = run_answering(&toolkit, "book", json!({"city": "Lisbon"}), |request| {
        assert_eq!(request.kind, "input");
        assert_eq!(request.prompt, "How many nights in Lisbon?");
        let schema = &request.data.as_ref().unwrap()["schema"];
        assert_eq!(
            schema["properties"]["nights"]["type"], "integer",
            "{schema}"
        );
        // A lone value fills the form's only field.
        request.answer(3)
    })
    .await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.tool_calls[0].result.output, "booked 3 nights in Lisbon");

    // Halted, then resumed: the sealed state the SDK made comes back to it.
    let halted = Client::new(one_call("book", json!({"city": "Porto"})))
        .run("go", &toolkit)
        .await;
    let request = halted.pending.clone().unwrap();
    let resumed = resume(halted.messages, request.decline("declined"), &toolkit)
        .await
        .unwrap();
    // The loop does not re-run a declined call; running it with the answer tells the server.
    assert!(
        resumed.calls[0].result.output.starts_with("declined"),
        "{resumed:?}"
    );
    let told = toolkit
        .execute(
            "book",
            json!({"city": "Porto"}),
            toolnexus::Context::new().with_answer(request.decline("declined")),
        )
        .await;
    assert_eq!(told.output, "booking in Porto: decline");
}

#[tokio::test]
async fn a_typescript_sdk_server_s_input_required_result_is_answered() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suspend/ts_server.cjs");
    let client = McpClient::stdio("node", [script])
        .env("NODE_PATH", node_modules("server"))
        .quiet()
        .latest_protocol()
        .connect()
        .await
        .expect("the TypeScript server starts");
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let run = run_answering(
        &toolkit,
        "reserve",
        json!({"restaurant": "Nopa"}),
        |request| {
            assert_eq!(request.kind, "input");
            assert_eq!(request.prompt, "How many people at Nopa?");
            let schema = &request.data.as_ref().unwrap()["schema"];
            assert_eq!(schema["properties"]["people"]["maximum"], 12, "{schema}");
            request.answer(4)
        },
    )
    .await;
    assert!(run.is_done(), "{run:?}");
    // The SDK verified its own sealed state before the tool ran again.
    assert_eq!(run.tool_calls[0].result.output, "reserved for 4 at Nopa");

    // Halted, serialized and resumed: the state travels in the pending request, and a
    // decline reaches the server as `decline`.
    let halted = Client::new(one_call("reserve", json!({"restaurant": "Zuni"})))
        .run("go", &toolkit)
        .await;
    let request = halted.pending.clone().unwrap();
    let wire = serde_json::to_string(&request).unwrap();
    let request: Request = serde_json::from_str(&wire).unwrap();
    let answered = toolkit
        .execute(
            "reserve",
            json!({"restaurant": "Zuni"}),
            toolnexus::Context::new().with_answer(request.answer(2)),
        )
        .await;
    assert_eq!(answered.output, "reserved for 2 at Zuni");
    let told = toolkit
        .execute(
            "reserve",
            json!({"restaurant": "Zuni"}),
            toolnexus::Context::new().with_answer(request.decline("declined")),
        )
        .await;
    assert_eq!(told.output, "reservation at Zuni: decline");
}

//! The system under test for the A2A project's conformance kit (a2aproject/a2a-tck, its
//! A2A 1.0 suite): an `A2aServer` whose run answers as each test's scenario asks. The kit
//! says which scenario by the message's `messageId` prefix, so the prompt is the
//! `messageId`, then the text (`A2aServer::prompt`), and a scripted model reads it.
//!
//! `cargo run --example a2a_tck_sut -- 127.0.0.1:9999` prints `listening on URL` and
//! serves until stdin closes; `TCK_STREAMING_TIMEOUT` (seconds, default 2) sets how long
//! the resubscription scenario's task runs (twice that).

use std::io::Read as _;
use std::time::Duration;

use serde_json::json;
use toolnexus::a2a::{A2aServer, DEFAULT_MAX_RUNS, DEFAULT_MAX_STORED_TASKS};
use toolnexus::model::FnModel;
use toolnexus::{Client, Context, Message, ModelError, Reply, Suspend, Tool, ToolResult, Toolkit};

fn answer(prefix_and_text: &str) -> Result<Reply, ModelError> {
    let id = prefix_and_text.lines().next().unwrap_or_default();
    let call = |tool: &str| Ok(Reply::call(format!("call-{tool}"), tool, "{}"));
    let text = |text: &str| Ok(Reply::text(text));
    match id {
        _ if id.starts_with("tck-input-required") => call("ask"),
        _ if id.starts_with("test-resubscribe-message-id") => call("wait"),
        _ if id.starts_with("tck-reject-task") => Err(ModelError::new("rejected")),
        _ if id.starts_with("tck-stream-artifact-text") => text("Streamed text content"),
        _ if id.starts_with("tck-stream-ordering-001") => text("Ordered output"),
        _ if id.starts_with("tck-stream-001") => text("Stream hello from TCK"),
        _ if id.starts_with("tck-stream-003") => text("Stream task lifecycle"),
        _ if id.starts_with("tck-artifact-text") => text("Generated text content"),
        _ if id.starts_with("tck-artifact-data") => text(r#"{"key": "value", "count": 42}"#),
        _ if id.starts_with("tck-complete-task") => text("Hello from TCK"),
        _ if id.starts_with("tck-message-response") => text("Direct message response"),
        _ => Ok(Reply::text(format!("Unhandled messageId prefix: {id}"))),
    }
}

fn server() -> A2aServer {
    let model = FnModel::new_sync(|transcript, _| match transcript.last() {
        Some(Message::User { content }) => answer(&content.text()),
        Some(Message::Tool { content, .. }) => Ok(Reply::text(content.clone())),
        _ => Ok(Reply::text("")),
    });
    let ask = Tool::new(
        "ask",
        "Asks for input.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            match ctx.answer().and_then(|a| a.text()) {
                Some(text) => ToolResult::ok(format!("received: {text}")),
                None => Suspend::input("Please provide input").0.into(),
            }
        },
    );
    let streaming_timeout: f64 = std::env::var("TCK_STREAMING_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2.0);
    let wait = Tool::new(
        "wait",
        "Runs long.",
        json!({"type": "object"}),
        move |_, _ctx: Context| async move {
            tokio::time::sleep(Duration::from_secs_f64(2.0 * streaming_timeout)).await;
            ToolResult::ok("done waiting")
        },
    );
    A2aServer::new(Client::new(model), Toolkit::new().with(ask).with(wait))
        .name("toolnexus TCK SUT")
        .description("A2aServer under the A2A conformance kit")
        .skill(
            "tck",
            "TCK Conformance",
            "Handles TCK conformance test messages",
        )
        .direct_replies(|message| {
            message["messageId"]
                .as_str()
                .is_some_and(|id| id.starts_with("tck-message-response"))
        })
        .artifact(|run| {
            let first = run.messages.iter().find_map(|m| match m {
                Message::User { content } => content.as_text(),
                _ => None,
            });
            let id = first.and_then(|c| c.lines().next()).unwrap_or_default();
            let file = |extra: serde_json::Value| {
                let mut part = json!({"mediaType": "text/plain", "filename": "output.txt"});
                part.as_object_mut()
                    .unwrap()
                    .extend(extra.as_object().unwrap().clone());
                part
            };
            if id.starts_with("tck-artifact-file-url") {
                vec![file(json!({"url": "https://example.com/output.txt"}))]
            } else if id.starts_with("tck-artifact-file")
                || id.starts_with("tck-stream-artifact-file")
            {
                vec![file(json!({"raw": "dGNr"}))] // "tck"
            } else if id.starts_with("tck-artifact-data") {
                vec![json!({"data": {"key": "value", "count": 42}})]
            } else {
                vec![json!({"text": run.text})]
            }
        })
        // The kit is one caller: named, so that its `ListTasks` without a `contextId` lists
        // its tasks (a caller without a principal lists one conversation at a time), and
        // with the per-caller limits lifted, since it leaves many tasks waiting.
        .principal(|_| Some("tck".to_owned()))
        .max_runs_per_caller(DEFAULT_MAX_RUNS)
        .max_unfinished_tasks_per_caller(DEFAULT_MAX_STORED_TASKS)
        .prompt(|message| {
            let id = message["messageId"].as_str().unwrap_or_default();
            let text: Vec<&str> = message["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["text"].as_str())
                .collect();
            format!("{id}\n{}", text.join("\n"))
        })
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let served = server().serve(addr.as_str()).await?;
    println!("listening on {}", served.url());
    tokio::task::spawn_blocking(|| {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
    })
    .await
    .ok();
    served.shutdown().await
}

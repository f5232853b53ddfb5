//! Fixtures for the loop tests: tools that suspend, sleep or count, and the checks every
//! transcript must pass.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use toolnexus::{Answer, Message, Request, Tool, ToolCall, ToolResult, Toolkit};

pub(crate) fn add() -> Tool {
    Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({"type": "object"}),
        |args, _| match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
            _ => ToolResult::error("add: `a` and `b` must be integers"),
        },
    )
}

/// Sleeps `ms` milliseconds (tokio's clock), then says so.
pub(crate) fn sleep() -> Tool {
    Tool::new(
        "sleep",
        "Sleeps.",
        json!({"type": "object"}),
        |args, _| async move {
            let ms = args["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            ToolResult::ok(format!("slept {ms}ms"))
        },
    )
}

/// Asks the user to log in (an authorization request with the id `login-<user>`) unless
/// the answer says who logged in; counts its runs.
pub(crate) fn login(runs: Arc<AtomicUsize>) -> Tool {
    Tool::new_sync(
        "login",
        "Logs in.",
        json!({"type": "object"}),
        move |args, ctx| {
            runs.fetch_add(1, Ordering::SeqCst);
            match ctx.answer().and_then(Answer::text) {
                Some(who) => ToolResult::ok(format!("logged in as {who}")),
                None => {
                    let user = args["user"].as_str().unwrap_or("someone");
                    ToolResult::pending(
                        Request::authorization("https://example.com/login", "Log in")
                            .with_id(format!("login-{user}")),
                    )
                }
            }
        },
    )
}

/// `add`, `sleep` and a `login` counting into `runs`.
pub(crate) fn kit(runs: &Arc<AtomicUsize>) -> Toolkit {
    Toolkit::new()
        .with(add())
        .with(sleep())
        .with(login(runs.clone()))
}

pub(crate) fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall::new(id, name, args)
}

/// Every assistant turn with tool calls is followed by exactly one tool message per call
/// (keyed by id, in call order), none of them still pending.
#[track_caller]
pub(crate) fn assert_balanced(transcript: &[Message]) {
    for (at, message) in transcript.iter().enumerate() {
        let calls = message.calls();
        if calls.is_empty() {
            continue;
        }
        let answers: Vec<&Message> = transcript[at + 1..]
            .iter()
            .take_while(|m| m.role() == "tool")
            .collect();
        let ids: Vec<&str> = answers.iter().filter_map(|m| m.tool_call_id()).collect();
        let expected: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, expected, "tool messages after turn at {at}");
        assert!(
            answers.iter().all(|m| m.pending().is_none()),
            "a call is still pending after turn at {at}"
        );
    }
}

/// The text of every tool message, by call id.
pub(crate) fn tool_outputs(transcript: &[Message]) -> HashMap<String, String> {
    transcript
        .iter()
        .filter_map(|m| Some((m.tool_call_id()?.to_owned(), m.text()?.to_owned())))
        .collect()
}

/// The call ids of the tool messages, in transcript order.
pub(crate) fn tool_ids(transcript: &[Message]) -> Vec<String> {
    transcript
        .iter()
        .filter_map(|m| m.tool_call_id().map(str::to_owned))
        .collect()
}

//! A task's runner: the tool in the background, its lease renewed, its end recorded.

use rmcp::model::{ElicitRequest, InputRequest, InputRequests};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::record::{Pending, Status, TaskRow};
use super::{McpServer, ms};
use crate::mcp::server::convert::call_tool_result;
use crate::mcp::server::elicit::{elicitation_for, unsendable_result};
use crate::tool::context::Context;
use crate::tool::request::Answer;

/// Starts the tool of `row` (held by this process) on its own Tokio task, with `token`,
/// the runner place reserved for it (already registered for `tasks/cancel`).
pub(super) fn spawn(
    server: McpServer,
    row: &TaskRow,
    args: Value,
    answer: Option<Answer>,
    token: CancellationToken,
) {
    let (id, tool, round) = (row.id.clone(), row.tool.clone(), row.rounds);
    tokio::spawn(async move { run(server, id, tool, round, args, answer, token).await });
}

async fn run(
    server: McpServer,
    id: String,
    tool: String,
    round: i64,
    args: Value,
    answer: Option<Answer>,
    token: CancellationToken,
) {
    let tasks = server.0.tasks.clone();
    // The call id is the task id: the same on every round, so `idempotency_key` is too.
    let mut ctx = Context::new()
        .with_call_id(id.clone())
        .with_cancellation(token.clone());
    if let Some(limit) = server.0.timeout {
        ctx = ctx.with_timeout(limit);
    }
    if let Some(answer) = answer {
        ctx = ctx.with_answer(answer);
    }
    let toolkit = server.0.toolkit.clone();
    let call = toolkit.execute(&tool, args, ctx);
    tokio::pin!(call);
    let every = tasks.lease / 3;
    let result = loop {
        tokio::select! {
            result = &mut call => break result,
            () = tokio::time::sleep(every) => {
                match tasks.storage.renew(&id, &tasks.owner, ms(tasks.lease)).await {
                    Ok(Some(false)) => {}
                    // Cancelled, or no longer this runner's (reported failed, deleted).
                    Ok(Some(true) | None) => token.cancel(),
                    Err(why) => tracing::warn!(task = %id, %why, "the task's lease was not renewed"),
                }
            }
        }
    };
    tasks.live().remove(&id);
    let (status, message, payload, pending) = if token.is_cancelled() {
        (
            Status::Cancelled,
            format!("{tool} was cancelled"),
            "null".to_owned(),
            None,
        )
    } else if let Some(request) = result.pending_request() {
        match elicitation_for(&request.shown(), false) {
            Ok((params, field)) => {
                let key = format!("{}.{round}", request.id);
                let mut requests = InputRequests::new();
                requests.insert(
                    key.clone(),
                    InputRequest::Elicitation(ElicitRequest::new(params)),
                );
                let pending = Pending {
                    key,
                    id: request.id.clone(),
                    field,
                };
                (
                    Status::InputRequired,
                    request.prompt.clone(),
                    text(&requests),
                    Some(text(&pending)),
                )
            }
            Err(why) => (
                Status::Completed,
                format!("{tool} ended with an error result"),
                text(&unsendable_result(&tool, &request, &why)),
                None,
            ),
        }
    } else {
        let result = call_tool_result(&tool, result);
        let message = if result.is_error == Some(true) {
            format!("{tool} ended with an error result")
        } else {
            format!("{tool} completed")
        };
        (Status::Completed, message, text(&result), None)
    };
    match tasks
        .storage
        .settle(
            &id,
            &tasks.owner,
            status,
            &message,
            &payload,
            pending.as_deref(),
        )
        .await
    {
        Ok(true) if status.is_terminal() => tasks.trim_finished().await,
        Ok(true) => {}
        Ok(false) => tracing::debug!(task = %id, "the task was no longer this runner's to settle"),
        // Left `working`: once its lease lapses, the task is reported failed.
        Err(why) => tracing::error!(task = %id, %why, "the task's end was not recorded"),
    }
}

/// Plain data as JSON text (serializing it cannot fail).
fn text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

//! The task side of `tools/call`, and `tasks/get`, `tasks/update`, `tasks/cancel`.
//!
//! Every task id a client sends is untrusted: one that is not of the form this server
//! issues, unknown here, or past its time to live is a JSON-RPC invalid-params error
//! (`-32602`) saying which, with `data.reason` (`invalid_task_id`, `unknown_task`,
//! `expired_task`); the server never runs anything for it. A task of another caller
//! (another session or principal) gets exactly the answer an unknown id gets: its
//! existence is not revealed. The precise reason goes to the server's log.

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CreateTaskResult, ElicitResult,
    ErrorCode, ErrorData, GetTaskParams, GetTaskResult, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::record::{Pending, Status, TaskRow};
use super::storage::NewTask;
use super::{McpServer, ms, run};
use crate::mcp::server::caller::Requester;

/// The longest task id accepted (ids this server makes are 36 characters).
const MAX_ID_LEN: usize = 64;

/// Runs `request` as a task when its tool is long-running and the client declared the
/// tasks extension on it (a retry that carries MRTR input stays synchronous); `None`:
/// the ordinary call.
pub(in crate::mcp) async fn start(
    server: &McpServer,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, ErrorData>> {
    let name = request.name.as_ref();
    let tool = server.0.toolkit.get(name)?;
    if !tool.is_task() || request.request_state.is_some() || request.input_responses.is_some() {
        return None;
    }
    if !context
        .client_capabilities()
        .is_some_and(|caps| caps.supports_tasks())
    {
        return None;
    }
    let caller = Requester::of(server, context);
    Some(create(server, name, request, &caller).await)
}

async fn create(
    server: &McpServer,
    name: &str,
    request: &CallToolRequestParams,
    caller: &Requester,
) -> Result<CallToolResponse, ErrorData> {
    server.keep_swept();
    let tasks = &server.0.tasks;
    let args = Value::Object(request.arguments.clone().unwrap_or_default());
    let text = serde_json::to_string(&args).unwrap_or_else(|_| "{}".to_owned());
    let id = uuid::Uuid::new_v4().to_string();
    let token = tasks
        .reserve(&id)
        .map_err(|limit| busy(name, "the tool did not run", limit))?
        .unwrap_or_default();
    let binding = caller.binding();
    // Callers with no identity cannot be told apart: they share one allowance.
    let anonymous = binding.is_empty();
    let limit = if anonymous {
        tasks.max_anonymous
    } else {
        tasks.max_per_caller
    };
    let created = tasks
        .storage
        .create(NewTask {
            id: &id,
            tool: name,
            args: &text,
            owner: &tasks.owner,
            lease_ms: ms(tasks.lease),
            ttl_ms: ms(tasks.ttl),
            caller: &binding,
            limit,
        })
        .await;
    let row = match created {
        Ok(Some(row)) => row,
        Ok(None) if anonymous => {
            tasks.release(&id);
            return Err(ErrorData::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "{name}: the callers with neither a session nor an authenticated \
                     principal already have {limit} unfinished tasks between them, their \
                     limit (McpServer::max_anonymous_tasks); the tool did not run: \
                     wait for one to end, or call with a session or a principal"
                ),
                Some(json!({"reason": "task_limit", "scope": "anonymous", "limit": limit})),
            ));
        }
        Ok(None) => {
            tasks.release(&id);
            return Err(ErrorData::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "{name}: this caller already has {limit} unfinished tasks, the limit \
                     (McpServer::max_tasks_per_caller); the tool did not run: wait for \
                     one to end, or cancel one with tasks/cancel"
                ),
                Some(json!({"reason": "task_limit", "scope": "caller", "limit": limit})),
            ));
        }
        Err(why) => {
            tasks.release(&id);
            return Err(ErrorData::internal_error(
                format!("{name}: the task could not be recorded, so the tool did not run: {why}"),
                None,
            ));
        }
    };
    run::spawn(server.clone(), &row, args, None, token);
    Ok(CallToolResponse::Task(CreateTaskResult::new(
        row.task(tasks.poll_ms()),
    )))
}

/// The error for a call (or an answer) that would run one task more than the process
/// may run at once.
fn busy(what: &str, outcome: &str, limit: usize) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        format!(
            "{what}: this server already runs {limit} tasks, its limit \
             (McpServer::max_running_tasks); {outcome}: try again when one has ended"
        ),
        Some(json!({"reason": "task_limit", "scope": "server", "limit": limit})),
    )
}

fn refused(id: &str, reason: &str, message: String) -> ErrorData {
    ErrorData::invalid_params(message, Some(json!({"reason": reason, "taskId": id})))
}

/// The task `id` names, checked: well-formed, known, `caller`'s, not expired.
async fn lookup(server: &McpServer, id: &str, caller: &Requester) -> Result<TaskRow, ErrorData> {
    server.keep_swept();
    let shown: String = id.chars().take(MAX_ID_LEN).collect();
    if id.is_empty()
        || id.len() > MAX_ID_LEN
        || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(refused(
            &shown,
            "invalid_task_id",
            format!("`{shown}` is not a task id this server issued (ids are UUIDs)"),
        ));
    }
    let found = server.0.tasks.storage.get(id).await.map_err(|why| {
        ErrorData::internal_error(format!("task `{id}` could not be read: {why}"), None)
    })?;
    let unknown = || {
        refused(
            id,
            "unknown_task",
            format!(
                "unknown task `{id}`: this server never issued it, or it expired and was deleted"
            ),
        )
    };
    match found {
        None => Err(unknown()),
        Some((row, _)) if row.caller != caller.binding() => {
            // Answered as an unknown id: another caller learns nothing of the task.
            tracing::warn!(
                task = id,
                "a task request from another session or principal than the task's creator was refused"
            );
            Err(unknown())
        }
        Some((row, now)) if row.expires_at < now => Err(refused(
            id,
            "expired_task",
            format!(
                "task `{id}` expired {} ms ago (its ttlMs was {}); it is no longer kept",
                now - row.expires_at,
                row.ttl_ms
            ),
        )),
        Some((row, _)) => Ok(row),
    }
}

/// `tasks/get`.
pub(in crate::mcp) async fn get(
    server: &McpServer,
    params: GetTaskParams,
    context: &RequestContext<RoleServer>,
) -> Result<GetTaskResult, ErrorData> {
    let caller = Requester::of(server, context);
    let row = lookup(server, &params.task_id, &caller).await?;
    Ok(GetTaskResult::new(row.detailed(server.0.tasks.poll_ms())))
}

/// `tasks/update`: the answer to the outstanding request runs the tool again with it.
/// Responses under keys that are not outstanding are ignored, as the extension says.
pub(in crate::mcp) async fn update(
    server: &McpServer,
    params: UpdateTaskParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let id = params.task_id.as_str();
    let caller = Requester::of(server, context);
    let row = lookup(server, id, &caller).await?;
    if row.status != Status::InputRequired {
        return Ok(());
    }
    let pending: Pending = row
        .pending
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok())
        .ok_or_else(|| {
            ErrorData::internal_error(
                format!("task `{id}`: the request it waits on does not read back"),
                None,
            )
        })?;
    let Some(response) = params.input_responses.get(&pending.key) else {
        return Ok(());
    };
    let result: ElicitResult = serde_json::from_value(response.clone()).map_err(|e| {
        refused(
            id,
            "invalid_input_response",
            format!(
                "task `{id}`: inputResponses[`{}`] is not an elicitation result: {e}",
                pending.key
            ),
        )
    })?;
    let answer =
        crate::mcp::server::elicit::answer_for(&pending.id, pending.field.as_deref(), &result);
    let tasks = &server.0.tasks;
    let reserved = tasks.reserve(id).map_err(|limit| {
        busy(
            &format!("task `{id}`"),
            "the answer was not taken (the task still waits for it)",
            limit,
        )
    })?;
    // Already running here: another answer took it first.
    let Some(token) = reserved else {
        return Ok(());
    };
    let resumed = tasks
        .storage
        .resume(
            id,
            &tasks.owner,
            ms(tasks.lease),
            "running again with the answer",
        )
        .await;
    match resumed {
        Ok(Some(row)) => {
            let args = serde_json::from_str(&row.args).unwrap_or_else(|_| json!({}));
            run::spawn(server.clone(), &row, args, Some(answer), token);
            Ok(())
        }
        // Another replica took the answer first, or the task was cancelled meanwhile.
        Ok(None) => {
            tasks.release(id);
            Ok(())
        }
        Err(why) => {
            tasks.release(id);
            Err(ErrorData::internal_error(
                format!("task `{id}` could not be resumed: {why}"),
                None,
            ))
        }
    }
}

/// `tasks/cancel`: flags the task and trips its tool's token when it runs here (another
/// replica's runner sees the flag when it renews its lease). A task waiting for input is
/// cancelled at once; an ended task stays as it ended.
pub(in crate::mcp) async fn cancel(
    server: &McpServer,
    params: CancelTaskParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let id = params.task_id.as_str();
    let caller = Requester::of(server, context);
    lookup(server, id, &caller).await?;
    let tasks = &server.0.tasks;
    let cancelled = tasks
        .storage
        .cancel(id, "cancelled by the client")
        .await
        .map_err(|why| {
            ErrorData::internal_error(format!("task `{id}` could not be cancelled: {why}"), None)
        })?;
    if let Some(token) = tasks.live().get(id) {
        token.cancel();
    }
    // A waiting task ends here (a running one when its runner settles it).
    if cancelled.is_some_and(|row| row.is_terminal()) {
        tasks.trim_finished().await;
    }
    Ok(())
}

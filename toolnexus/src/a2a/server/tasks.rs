//! `ListTasks`: a principal's tasks (or, for a caller without one, a conversation's),
//! newest change first, a page at a time, paged by the store.

use serde_json::{Value, json};

use super::RpcCall;
use super::engine::parse;
use super::store::ListQuery;
use crate::a2a::wire::{RpcError, Task, TaskState, history_length, member};

const DEFAULT_PAGE: usize = 50;
const MAX_PAGE: usize = 100;

/// `2026-10-28T10:30:00.000Z` (fraction and offset optional) as ms since the epoch.
pub(super) fn parse_rfc3339(text: &str) -> Option<i64> {
    crate::time::unix_ms(text)
}

fn string<'a>(params: &'a Value, key: &str) -> Result<Option<&'a str>, RpcError> {
    match member(params, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(RpcError::invalid_params(format!(
            "params.{key} must be a string, not {other}"
        ))),
    }
}

pub(super) async fn list(call: &RpcCall, params: &Value) -> Result<Value, RpcError> {
    let context = string(params, "contextId")?;
    let status = match string(params, "status")? {
        None | Some("TASK_STATE_UNSPECIFIED") => None,
        Some(name) => Some(TaskState::parse(name).ok_or_else(|| {
            RpcError::invalid_params(format!("params.status: `{name}` is not a task state"))
        })?),
    };
    let page_size = match member(params, "pageSize") {
        None | Some(Value::Null) => DEFAULT_PAGE,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| (1..=MAX_PAGE).contains(n))
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "params.pageSize must be between 1 and {MAX_PAGE}, not {v}"
                ))
            })?,
    };
    let cursor = match string(params, "pageToken")? {
        None => None,
        Some(token) => Some(parse_token(token).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "params.pageToken `{token}` is not a page token of this agent"
            ))
        })?),
    };
    let after = match string(params, "statusTimestampAfter")? {
        None => None,
        Some(text) => Some(parse_rfc3339(text).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "params.statusTimestampAfter `{text}` is not an RFC 3339 timestamp"
            ))
        })?),
    };
    // A caller without a principal proves nothing but what it knows: it lists the tasks
    // of a conversation whose contextId it gives, and nothing else.
    if call.owner.is_none() && context.is_none() {
        return Err(RpcError::invalid_params(
            "params.contextId is required: this agent knows no principal for this request \
             (the server sets one with A2aServer::principal, from your authentication), \
             so it lists only the tasks of the conversation whose contextId you give",
        ));
    }
    let history = history_length(member(params, "historyLength"), "params.historyLength")?;
    let artifacts = member(params, "includeArtifacts").and_then(Value::as_bool) == Some(true);
    let query = ListQuery {
        now_ms: crate::a2a::time::now_ms(),
        context: context.map(str::to_owned),
        state: status,
        updated_after: after,
        cursor,
        limit: page_size,
    };
    let mut page = call
        .engine
        .store
        .list(call.owner.as_deref(), &query)
        .await
        .map_err(RpcError::internal)?;
    let more = page.records.len() > page_size;
    page.records.truncate(page_size);
    let next_token = match (more, page.records.last()) {
        (true, Some(last)) => format!("{}:{}", last.updated_ms, last.id),
        _ => String::new(),
    };
    let tasks: Vec<Value> = page
        .records
        .iter()
        .map(|record| {
            let mut task: Task = parse(record)?;
            if !artifacts {
                task.artifacts.clear();
            }
            let mut json = task.to_json(call.dialect, history);
            if artifacts && task.artifacts.is_empty() {
                json["artifacts"] = json!([]);
            }
            Ok(json)
        })
        .collect::<Result<_, RpcError>>()?;
    Ok(json!({
        "tasks": tasks,
        "nextPageToken": next_token,
        "pageSize": page_size,
        "totalSize": page.total,
    }))
}

/// A page token (`<updated ms>:<task id>`, where the previous page ended) read back.
fn parse_token(token: &str) -> Option<(i64, String)> {
    let (ms, id) = token.split_once(':')?;
    if id.is_empty() {
        return None;
    }
    Some((ms.parse().ok()?, id.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::parse_rfc3339;

    #[test]
    fn reads_rfc3339() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339("2026-12-01T10:00:00.007Z"),
            Some(1_796_119_200_007)
        );
        assert_eq!(parse_rfc3339("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_rfc3339("yesterday"), None);
    }
}

//! The tool calls of MCP Apps views as durable runs of a client's store (see
//! [`mcp_apps_durable`](crate::ui::mcp_apps_durable)): a call is a run of one step whose
//! scripted model makes exactly that call, so it is recorded, parked on its approval and
//! answered once as a model's call is, by this process or the next.

use axum::http::StatusCode;
use axum::response::Response;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::{json_response, refused, wire_result};
use crate::agent::client::Client;
use crate::agent::journal::StoreError;
use crate::agent::run::RunResult;
use crate::model::message::Message;
use crate::model::seam::{FnModel, Reply};
use crate::tool::kit::Toolkit;
use crate::tool::request::Answer;

/// How a view call's run id begins.
const VIEW: &str = "view:";
/// The id of the one call in a view call's run.
const CALL_ID: &str = "view_call";

/// A client that runs view calls in `client`'s store, when it has one: its own model (the
/// call the view asked for), nothing else of `client`'s but the store and its lease.
pub(crate) fn runner(client: &Client) -> Option<Client> {
    let mut durable = client.store.clone()?;
    durable.run_id = None;
    let mut runner = Client::new(one_call());
    runner.store = Some(durable);
    Some(runner)
}

/// The model of a view call's run: its first turn makes the call its prompt names
/// (`{"name", "arguments"}`), the next one ends the run. It reads only the transcript, so
/// the run goes on after a restart.
fn one_call() -> FnModel {
    FnModel::new_sync(|transcript, _tools| {
        let asked = match transcript.last() {
            Some(Message::User { content }) => {
                serde_json::from_str::<Value>(&content.text()).unwrap_or(Value::Null)
            }
            _ => return Ok(Reply::text("")),
        };
        let (Some(name), Some(arguments)) = (
            asked.get("name").and_then(Value::as_str),
            asked.get("arguments"),
        ) else {
            return Ok(Reply::text(""));
        };
        Ok(Reply::call(CALL_ID, name, arguments.to_string()))
    })
}

/// `name` as it goes in a run id: URL-safe base64 (no `/`, `@` or `:`).
fn encode(name: &str) -> String {
    URL_SAFE_NO_PAD.encode(name.as_bytes())
}

/// The name [`encode`] wrote as `text`, if it is one.
fn decode(text: &str) -> Option<String> {
    String::from_utf8(URL_SAFE_NO_PAD.decode(text).ok()?).ok()
}

/// Runs `name` of `server` (whose view tools are `tools`) for `caller` as a new durable
/// run, and answers with its result or the request it parked on.
pub(crate) async fn call(
    runner: &Client,
    caller: &str,
    server: &str,
    tools: &Toolkit,
    name: &str,
    arguments: Value,
) -> Response {
    // The run id names the caller and the server: an answer is checked against the one,
    // and resumes the call on the other.
    let run_id = format!(
        "{VIEW}{caller}{}/{}",
        encode(server),
        uuid::Uuid::new_v4().simple()
    );
    let prompt = json!({ "server": server, "name": name, "arguments": arguments }).to_string();
    let run = runner
        .clone()
        .run_id(run_id.clone())
        .run(prompt, tools)
        .await;
    outcome(&run_id, name, &run)
}

/// Answers the durable view call `id` (as [`call`] handed it out) for `caller`, and
/// resumes it on its server.
pub(crate) async fn answer(
    runner: &Client,
    caller: &str,
    servers: &std::collections::HashMap<String, Toolkit>,
    id: &str,
    approved: bool,
) -> Response {
    let unknown = || {
        refused(
            StatusCode::NOT_FOUND,
            format!(
                "answer to a view's call: no call waits on {id:?} (answered already, or never asked)"
            ),
        )
    };
    let Some((request, run_id)) = id
        .rfind(&format!("@{VIEW}"))
        .map(|at| (&id[..at], &id[at + 1..]))
    else {
        return unknown();
    };
    // Another caller's id (or a made-up one) is as unknown: nothing is learnt of it.
    let Some((server, own)) = run_id[VIEW.len()..]
        .strip_prefix(caller)
        .and_then(|rest| rest.split_once('/'))
    else {
        return unknown();
    };
    let server = decode(server);
    let (Some(server), true) = (
        server,
        own.len() == 32 && own.bytes().all(|b| b.is_ascii_hexdigit()) && !request.is_empty(),
    ) else {
        return unknown();
    };
    let Some(tools) = servers.get(&server) else {
        return refused(
            StatusCode::NOT_FOUND,
            format!("answer to a view's call: no MCP server `{server}` here any more"),
        );
    };
    let given = if approved {
        Answer::accept(request).with_data(true)
    } else {
        Answer::decline(request, "the user declined")
    };
    match runner.answer(given, tools).run(run_id).await {
        Ok(run) => {
            let name = run
                .tool_calls
                .iter()
                .rev()
                .map(|record| record.call.name.clone())
                .next()
                .unwrap_or_default();
            outcome(run_id, &name, &run)
        }
        Err(StoreError::UnknownRun(_) | StoreError::UnknownRequest(_)) => unknown(),
        Err(StoreError::AlreadyAnswered { .. }) => unknown(),
        Err(StoreError::HeldByAnotherWorker { .. }) => refused(
            StatusCode::CONFLICT,
            format!("answer to a view's call: {id:?} is being answered elsewhere"),
        ),
        Err(other) => refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("answer to a view's call {id:?}: the run store failed: {other}"),
        ),
    }
}

/// The page's answer for view call `name`'s run `run_id`: the call's result, or the
/// request it waits on (its id names the run).
fn outcome(run_id: &str, name: &str, run: &RunResult) -> Response {
    if let Some(request) = &run.pending {
        let pending = json!({
            "id": format!("{}@{run_id}", request.id),
            "kind": request.kind,
            "prompt": request.prompt,
            "request": request,
        });
        return json_response(StatusCode::OK, &json!({ "pending": pending }));
    }
    match run.tool_calls.iter().rev().find(|r| r.call.name == name) {
        Some(record) => json_response(
            StatusCode::OK,
            &json!({ "result": wire_result(&record.result) }),
        ),
        None => refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                "tools/call from a view: `{name}` did not run (the run {run_id} ended {})",
                run.status.as_str()
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{decode, encode};

    #[test]
    fn a_server_name_goes_through_the_run_id_and_back() {
        let name = "ts-tasks/app ü@x:y";
        let encoded = encode(name);
        assert!(!encoded.contains(['/', '@', ':']), "{encoded}");
        assert_eq!(decode(&encoded).as_deref(), Some(name));
        assert_eq!(decode("not base64!"), None);
        assert_eq!(decode("_w"), None, "not UTF-8");
    }
}

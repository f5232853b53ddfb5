//! [`mcp_apps`]: the tool calls of the MCP Apps views a page renders, run on the server
//! that owns each view, through the tools' own approvals; [`mcp_apps_durable`] keeps them
//! in a run store.

mod durable;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse as _, Response};
use axum::routing::post;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::tool::context::Context;
use crate::tool::kit::Toolkit;
use crate::tool::request::Request;
use crate::tool::result::ToolResult;
use crate::ui::{Namespace, UiOptions};

/// How many view calls may wait on an answer at once; the oldest is dropped for a new one.
const MAX_PARKED: usize = 256;

/// An axum router that runs the tool calls of the MCP Apps views a page renders (the
/// `tools/call` a view sends its host), each on the server its view came from.
///
/// `servers` are the MCP servers whose views the page shows: each a server's name (as
/// [`ToolView::server`](crate::tool::ToolView::server) names it, its `serverInfo.name`)
/// and the tools a view of that server may call (typically `McpClient::view_tools`,
/// with [`Tool::with_approval`](crate::Tool::with_approval) on those the user must allow
/// each time, as for the model's calls).
///
/// - `POST /call` takes `{"server", "name", "arguments"}` and answers `{"result": …}`,
///   the call's result in MCP's `CallToolResult` form, or, when the call suspends (a
///   gated tool's approval, a server's elicitation), `{"pending": {"id", "kind",
///   "prompt", "request"}}`. A server the router does not know, or a tool that server
///   does not have (another server's included), is refused with `404` and an `error`
///   that names it.
/// - `POST /answer` takes `{"id", "approved"}` for a pending call: approved, the call
///   runs with the request's answer (and may be pending again); declined, the tool is
///   told so and its result is the answer. Ids are random, answerable once, bound to the
///   caller's user (see [`UiOptions::user`]); an unknown one is refused with `404`.
///
/// The page sends the view's server itself (from the view event), never the view: a
/// view reaches only its own server's tools. The router is behind [`UiOptions::new`]'s
/// [`WebGuard`](crate::web::WebGuard) (loopback hosts and origins, JSON bodies);
/// [`mcp_apps_with`] configures it.
pub fn mcp_apps(servers: impl IntoIterator<Item = (String, Toolkit)>) -> Router {
    mcp_apps_with(servers, UiOptions::new())
}

/// [`mcp_apps`] with [`UiOptions`]: the hosts and origins it accepts and the app's users.
pub fn mcp_apps_with(
    servers: impl IntoIterator<Item = (String, Toolkit)>,
    options: UiOptions,
) -> Router {
    router(servers, options, None)
}

/// [`mcp_apps_with`], the views' calls kept in `client`'s run store
/// ([`Client::store`]) as a model's calls are: each call is a run of its own in the
/// store (its id begins with `view:`; only the store and its lease are taken from
/// `client`, not its model), recorded before and after the tool runs, parked there when
/// it suspends. A call waiting on an approval is then answered by whichever process
/// serves the router on the same store, after a restart too, and once only (a second
/// answer is refused with `404`). The pending ids name the run and the caller's user.
///
/// The runs are the store's like any other: `RunStore::pending` lists a parked view
/// call, `RunStore::purge` deletes the finished ones, and [`Client::recover`] on a
/// client of that store takes up one whose process died while its tool ran, and drives
/// it with that client's model (which reads the call as a user message): call `recover`
/// on such a store only with a model that may read it. For a client without a store it is
/// [`mcp_apps_with`].
///
/// [`Client::store`]: crate::Client::store
/// [`Client::recover`]: crate::Client::recover
pub fn mcp_apps_durable(
    client: &crate::Client,
    servers: impl IntoIterator<Item = (String, Toolkit)>,
    options: UiOptions,
) -> Router {
    router(servers, options, durable::runner(client))
}

fn router(
    servers: impl IntoIterator<Item = (String, Toolkit)>,
    options: UiOptions,
    runner: Option<crate::Client>,
) -> Router {
    let shared = Arc::new(Apps {
        servers: servers.into_iter().collect(),
        parked: Mutex::new(ParkedCalls::default()),
        user: options.user.clone(),
        runner,
    });
    crate::ui::guarded(
        Router::new()
            .route("/call", post(call))
            .route("/answer", post(answer))
            .with_state(shared),
        &options,
    )
}

struct Apps {
    servers: HashMap<String, Toolkit>,
    parked: Mutex<ParkedCalls>,
    /// Who sent a request, when the app has users.
    user: Option<crate::ui::User>,
    /// The client whose store keeps the calls ([`mcp_apps_durable`]); `None`: in memory.
    runner: Option<crate::Client>,
}

/// The calls waiting on an answer, oldest first.
#[derive(Default)]
struct ParkedCalls {
    calls: HashMap<String, Waiting>,
    order: std::collections::VecDeque<String>,
}

struct Waiting {
    caller: String,
    server: String,
    name: String,
    arguments: Value,
    request: Request,
}

#[derive(Deserialize)]
struct CallInput {
    server: String,
    name: String,
    #[serde(default)]
    arguments: Value,
}

#[derive(Deserialize)]
struct AnswerInput {
    id: String,
    approved: bool,
}

/// `value` as a JSON response with `status`.
pub(crate) fn json_response(status: StatusCode, value: &Value) -> Response {
    let body = serde_json::to_vec(value).unwrap_or_default();
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

pub(crate) fn refused(status: StatusCode, message: String) -> Response {
    json_response(status, &json!({ "error": message }))
}

fn caller_of(apps: &Apps, request: &Parts) -> String {
    let caller: Namespace = crate::ui::caller_of(apps.user.as_ref(), request);
    caller.key("")
}

async fn call(State(apps): State<Arc<Apps>>, request: Parts, body: Bytes) -> Response {
    let input: CallInput = match serde_json::from_slice(&body) {
        Ok(input) => input,
        Err(e) => {
            return refused(
                StatusCode::BAD_REQUEST,
                format!("tools/call from a view: the body is not {{server, name, arguments}}: {e}"),
            );
        }
    };
    let Some(tools) = apps.servers.get(&input.server) else {
        return refused(
            StatusCode::NOT_FOUND,
            format!(
                "tools/call from a view: no MCP server `{}` here (a view calls only its own server)",
                input.server
            ),
        );
    };
    if tools.get(&input.name).is_none() {
        return refused(
            StatusCode::NOT_FOUND,
            format!(
                "tools/call from a view: the MCP server `{}` has no tool `{}` a view may call",
                input.server, input.name
            ),
        );
    }
    let caller = caller_of(&apps, &request);
    if let Some(runner) = &apps.runner {
        return durable::call(
            runner,
            &caller,
            &input.server,
            tools,
            &input.name,
            input.arguments,
        )
        .await;
    }
    run(
        &apps,
        caller,
        input.server,
        input.name,
        input.arguments,
        None,
    )
    .await
}

async fn answer(State(apps): State<Arc<Apps>>, request: Parts, body: Bytes) -> Response {
    let input: AnswerInput = match serde_json::from_slice(&body) {
        Ok(input) => input,
        Err(e) => {
            return refused(
                StatusCode::BAD_REQUEST,
                format!("answer to a view's call: the body is not {{id, approved}}: {e}"),
            );
        }
    };
    let caller = caller_of(&apps, &request);
    if let Some(runner) = &apps.runner {
        return durable::answer(runner, &caller, &apps.servers, &input.id, input.approved).await;
    }
    let waiting = {
        let mut parked = apps.parked.lock().unwrap_or_else(PoisonError::into_inner);
        match parked.calls.get(&input.id) {
            Some(waiting) if waiting.caller == caller => {
                parked.order.retain(|id| id != &input.id);
                parked.calls.remove(&input.id)
            }
            _ => None,
        }
    };
    let Some(waiting) = waiting else {
        return refused(
            StatusCode::NOT_FOUND,
            format!(
                "answer to a view's call: no call waits on {:?} (answered already, or never asked)",
                input.id
            ),
        );
    };
    let answer = if input.approved {
        waiting.request.answer(true)
    } else {
        waiting.request.decline("the user declined")
    };
    run(
        &apps,
        caller,
        waiting.server,
        waiting.name,
        waiting.arguments,
        Some(answer),
    )
    .await
}

/// Runs the call (with `answer`, when it answers an earlier suspension) and answers with
/// its result, or parks it when it suspends.
async fn run(
    apps: &Apps,
    caller: String,
    server: String,
    name: String,
    arguments: Value,
    answer: Option<crate::tool::request::Answer>,
) -> Response {
    let Some(tools) = apps.servers.get(&server) else {
        return refused(StatusCode::NOT_FOUND, format!("no MCP server `{server}`"));
    };
    let mut ctx = Context::new();
    if let Some(answer) = answer {
        ctx = ctx.with_answer(answer);
    }
    let result = tools.execute(&name, arguments.clone(), ctx).await;
    let Some(request) = result.pending_request() else {
        return json_response(StatusCode::OK, &json!({ "result": wire_result(&result) }));
    };
    let id = format!("view_{}", uuid::Uuid::new_v4().simple());
    let pending = json!({
        "id": id,
        "kind": request.kind,
        "prompt": request.prompt,
        "request": request,
    });
    let mut parked = apps.parked.lock().unwrap_or_else(PoisonError::into_inner);
    if parked.order.len() >= MAX_PARKED
        && let Some(oldest) = parked.order.pop_front()
    {
        parked.calls.remove(&oldest);
    }
    parked.order.push_back(id.clone());
    parked.calls.insert(
        id,
        Waiting {
            caller,
            server,
            name,
            arguments,
            request,
        },
    );
    json_response(StatusCode::OK, &json!({ "pending": pending }))
}

/// `result` in MCP's `CallToolResult` form, as a view reads it: the text as one text
/// block, with the `structuredContent` and `_meta` the server sent.
pub(crate) fn wire_result(result: &ToolResult) -> Value {
    crate::mcp::view_result(result)
}

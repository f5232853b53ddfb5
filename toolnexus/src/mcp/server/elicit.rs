//! A suspended call served the way each MCP client understands it.
//!
//! - 2026-07-28 clients get `resultType: "input_required"`: one elicitation for the
//!   pending [`Request`] and a sealed `requestState` (see `seal.rs`); their retry, with
//!   `inputResponses` and the state, runs the tool again with the [`Answer`].
//! - Handshake-era clients that declare `elicitation` are asked with
//!   `elicitation/create` during the call, and the tool runs again with the answer.
//! - Other clients get the pending result as it always was (the prompt as text, the
//!   request in `_meta["toolnexus/pending"]`); an answer they send back in
//!   `_meta["toolnexus/answer"]` counts only for a request this server gave that session
//!   (or stdio connection), for the same tool and arguments, once (`caller.rs`).
//!
//! A `requestState` is bound to the caller it was issued to and runs its retry once
//! (`spent.rs`). Every refused state gets one fixed error; the precise reason goes to the
//! server's log and to the call's span.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, ErrorData,
    InputRequest, InputRequests, InputRequiredResult, MetaObject, ProtocolVersion,
    RequestMetaObject,
};
use rmcp::service::RequestContext;
use serde_json::{Map, Value, json};

use super::McpServer;
use super::caller::Requester;
use super::convert::{PENDING_META_KEY, call_tool_result};
use super::elicit_schema::{ElicitationSchemaError, check_elicitation_schema};
use super::seal::{Claims, StateError, args_digest};
use crate::mcp::client;
use crate::tool::context::Context;
use crate::tool::request::{Answer, Request};
use crate::tool::result::ToolResult;

/// The form field a request without a schema of its own asks for.
pub const ANSWER_FIELD: &str = "answer";

/// How many times one handshake-era call may ask before it gives up.
const MAX_ROUNDS: usize = 10;

/// How long a handshake-era elicitation waits for the user when the server has no call
/// timeout: 10 minutes.
const DEFAULT_ELICITATION_WAIT: Duration = Duration::from_secs(600);

/// What a client whose `requestState` is refused is told, whatever the reason (the reason
/// goes to the server's log and trace, not to whoever presented the state).
const REFUSED_STATE: &str = "invalid requestState: the tool did not run; call the \
     tool again without requestState and inputResponses";

/// Runs one `tools/call` in the way its client's protocol asks for.
pub(super) async fn call(
    server: &McpServer,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
    caller: std::sync::Arc<super::notify::McpCaller>,
) -> Result<CallToolResponse, ErrorData> {
    let name = request.name.to_string();
    let args = Value::Object(request.arguments.clone().unwrap_or_default());
    let ctx = server.context(&context).with_caller(caller);
    let capabilities = context.client_capabilities();
    let who = Requester::of(server, &context);
    let modern = context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
    if modern {
        let found = (request, capabilities.as_ref());
        return modern_call(server, &name, args, found, ctx, &who).await;
    }
    let ctx = match client::answer_in(request.meta.as_ref())
        .or_else(|| client::answer_in(Some(&context.meta)))
    {
        Some(answer)
            if server
                .2
                .redeem(&who, &answer.id, &name, &args_digest(&args)) =>
        {
            ctx.with_answer(answer)
        }
        Some(answer) => {
            tracing::warn!(
                tool = %name,
                request = %answer.id,
                "an answer in _meta[\"toolnexus/answer\"] to a request this session was not given (or was already answered) was ignored"
            );
            ctx
        }
        None => ctx,
    };
    let elicits = capabilities
        .as_ref()
        .is_some_and(|caps| caps.elicitation.is_some())
        && server.0.mid_call_requests;
    if !elicits {
        // Only a session can answer later: nothing to remember (or copy) without one.
        let kept = who.has_session().then(|| args.clone());
        let result = server.0.toolkit.execute(&name, args, ctx).await;
        if let Some(args) = kept {
            issued(server, &who, &name, &args, &result);
        }
        return Ok(call_tool_result(&name, result).into());
    }
    let asking = Asking {
        capabilities: capabilities.as_ref(),
        context: &context,
        who: &who,
    };
    ask_during_call(server, &name, args, ctx, asking).await
}

/// Remembers the request a fallback pending result gives the client, so that its answer
/// in `_meta["toolnexus/answer"]` counts (on this session only, once).
fn issued(server: &McpServer, who: &Requester, name: &str, args: &Value, result: &ToolResult) {
    if let Some(pending) = result.pending_request() {
        let digest = args_digest(args);
        server
            .2
            .issue(who, &pending.id, name, &digest, server.0.state_ttl);
    }
}

/// The 2026-07-28 form: answer a suspension with `input_required`, and a retry with the
/// answer its state and responses make.
async fn modern_call(
    server: &McpServer,
    name: &str,
    args: Value,
    (request, capabilities): (CallToolRequestParams, Option<&ClientCapabilities>),
    mut ctx: Context,
    who: &Requester,
) -> Result<CallToolResponse, ErrorData> {
    let digest = args_digest(&args);
    let binding = who.binding();
    match (&request.request_state, &request.input_responses) {
        (Some(state), responses) => {
            let claims = server
                .sealing_key()
                .open(state, name, &digest, &binding)
                .map_err(|why| refused(name, why))?;
            let response = responses
                .as_ref()
                .and_then(|r| r.get(&claims.request))
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!(
                            "{name}: the retry carries no inputResponses entry `{}` for the request it answers",
                            claims.request
                        ),
                        Some(json!({"reason": "missing_input_response"})),
                    )
                })?;
            let result: ElicitResult = serde_json::from_value(response.clone()).map_err(|e| {
                ErrorData::invalid_params(
                    format!(
                        "{name}: inputResponses[`{}`] is not an elicitation result: {e}",
                        claims.request
                    ),
                    Some(json!({"reason": "invalid_input_response"})),
                )
            })?;
            spend(server, name, &claims).await?;
            ctx = ctx.with_answer(answer_for(
                &claims.request,
                claims.field.as_deref(),
                &result,
            ));
            if let Some(call) = &claims.call {
                ctx = ctx.with_call_id(call.clone());
            }
            if let Some(pending) = claims.pending {
                ctx = ctx.with_request(*pending);
            }
        }
        (None, Some(_)) => {
            return Err(ErrorData::invalid_params(
                format!("{name}: inputResponses came without the requestState they answer"),
                Some(json!({"reason": "missing_request_state"})),
            ));
        }
        (None, None) => {}
    }
    let call_id = ctx.call_id().map(str::to_owned);
    let result = server.0.toolkit.execute(name, args, ctx).await;
    let Some(pending) = result.pending_request() else {
        return Ok(call_tool_result(name, result).into());
    };
    let url_mode = capabilities
        .and_then(|c| c.elicitation.as_ref())
        .is_some_and(|e| e.url.is_some());
    let (params, field) = match elicitation_for(&pending.shown(), url_mode) {
        Ok(form) => form,
        Err(why) => return Ok(unsendable(name, &pending, &why)),
    };
    let claims = Claims {
        version: super::seal::VERSION,
        tool: name.to_owned(),
        args: digest,
        request: pending.id.clone(),
        kind: pending.kind.clone(),
        field,
        call: call_id,
        expires: Claims::expiring_in(server.0.state_ttl),
        pending: Some(Box::new(pending.clone())),
        caller: binding,
        id: Claims::new_id(),
    };
    let state = server.sealing_key().seal(&claims);
    let mut requests = InputRequests::new();
    requests.insert(
        pending.id.clone(),
        InputRequest::Elicitation(ElicitRequest::new(params)),
    );
    Ok(InputRequiredResult::new(Some(requests), Some(state)).into())
}

/// The answer to a call whose suspension cannot be sent as an elicitation: an error
/// result that names the tool, the property and the fix (the tool did not finish).
fn unsendable(tool: &str, request: &Request, why: &ElicitationSchemaError) -> CallToolResponse {
    unsendable_result(tool, request, why).into()
}

/// The error result for a suspension whose form schema elicitation cannot carry (also
/// used by tasks, whose input requests are elicitations too).
pub(crate) fn unsendable_result(
    tool: &str,
    request: &Request,
    why: &ElicitationSchemaError,
) -> rmcp::model::CallToolResult {
    tracing::warn!(tool, request = %request.id, %why, "a suspension's schema is outside the elicitation subset");
    call_tool_result(
        tool,
        ToolResult::error(format!(
            "{tool} asked `{}` with a form schema (its Request.data) that elicitation cannot carry: {why}",
            request.prompt
        )),
    )
}

/// Spends the state `claims` came in before its retry runs the tool: a state runs once.
async fn spend(server: &McpServer, name: &str, claims: &Claims) -> Result<(), ErrorData> {
    server.keep_swept();
    let expires = i64::try_from(claims.expires).unwrap_or(i64::MAX);
    match server.0.spent.spend(&claims.id, expires).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(refused(name, StateError::Spent)),
        Err(why) => {
            tracing::error!(tool = name, %why, "a requestState could not be checked against the spent ones");
            Err(ErrorData::internal_error(
                format!(
                    "{name}: the requestState could not be checked (the store did not answer); \
                     the tool did not run: retry the call"
                ),
                None,
            ))
        }
    }
}

/// The one answer to every refused state; why goes to the log and the call's span.
fn refused(tool: &str, why: StateError) -> ErrorData {
    tracing::warn!(
        tool,
        reason = why.code(),
        "a requestState was refused: it {why}; the tool did not run"
    );
    ErrorData::invalid_params(
        REFUSED_STATE,
        Some(json!({"reason": "invalid_request_state"})),
    )
}

/// What the handshake-era form asks through: the client's capabilities, its request's
/// context, and who it is.
struct Asking<'a> {
    capabilities: Option<&'a ClientCapabilities>,
    context: &'a RequestContext<RoleServer>,
    who: &'a Requester,
}

/// The handshake-era form: ask with `elicitation/create`, run the tool again with the
/// answer, as long as the tool keeps asking (up to a bound).
async fn ask_during_call(
    server: &McpServer,
    name: &str,
    args: Value,
    ctx: Context,
    Asking {
        capabilities,
        context,
        who,
    }: Asking<'_>,
) -> Result<CallToolResponse, ErrorData> {
    let url_mode = capabilities
        .and_then(|c| c.elicitation.as_ref())
        .is_some_and(|e| e.url.is_some());
    let wait = server.0.timeout.unwrap_or(DEFAULT_ELICITATION_WAIT);
    let deadline = tokio::time::Instant::now() + wait;
    let mut answer: Option<(Answer, Request)> = None;
    for _ in 0..MAX_ROUNDS {
        let round = match answer.take() {
            Some((answer, request)) => ctx.clone().with_answer(answer).with_request(request),
            None => ctx.clone(),
        };
        let result = server.0.toolkit.execute(name, args.clone(), round).await;
        let Some(pending) = result.pending_request() else {
            return Ok(call_tool_result(name, result).into());
        };
        let (params, field) = match elicitation_for(&pending.shown(), url_mode) {
            Ok(form) => form,
            Err(why) => return Ok(unsendable(name, &pending, &why)),
        };
        let asked = context.peer.create_elicitation_with_timeout(params, None);
        let outcome = tokio::select! {
            outcome = asked => outcome,
            () = context.ct.cancelled() => {
                return Ok(call_tool_result(name, ToolResult::error(format!("{name} was cancelled while it waited for the user"))).into());
            }
            () = tokio::time::sleep_until(deadline) => {
                return Ok(call_tool_result(name, ToolResult::error(format!(
                    "{name}: nobody answered `{}` within {}s; the tool did not finish",
                    pending.prompt,
                    wait.as_secs()
                ))).into());
            }
        };
        match outcome {
            Ok(reply) => {
                answer = Some((answer_for(&pending.id, field.as_deref(), &reply), pending));
            }
            Err(error) => {
                // The client could not be asked after all: the fallback form, with why.
                tracing::debug!(tool = name, %error, "elicitation/create failed");
                issued(server, who, name, &args, &result);
                return Ok(call_tool_result(name, result).into());
            }
        }
    }
    Ok(call_tool_result(
        name,
        ToolResult::error(format!(
            "{name} asked for input {MAX_ROUNDS} times in one call; it did not finish"
        )),
    )
    .into())
}

/// The elicitation that asks for `request`, and the form's only field when the answer is
/// that field's value alone.
///
/// - `approval`: a form with no fields, accepted or declined;
/// - `authorization` with a URL: a URL-mode elicitation when the client takes them, else a
///   form with no fields whose message carries the URL;
/// - any other kind: a form; its schema is the request's `data` when that is a schema
///   (has `type` or `properties`, or holds one under `schema` or `requestedSchema`), sent unchanged,
///   else one string field `answer`.
///
/// A schema outside the elicitation subset is refused ([`check_elicitation_schema`]).
/// The request itself travels in the elicitation's `_meta["toolnexus/pending"]`.
pub(crate) fn elicitation_for(
    request: &Request,
    url_mode: bool,
) -> Result<(ElicitRequestParams, Option<String>), ElicitationSchemaError> {
    let mut meta = Map::new();
    meta.insert(PENDING_META_KEY.to_owned(), request.to_value());
    let meta = Some(RequestMetaObject(MetaObject(meta)));
    if request.kind == "authorization"
        && let Some(url) = &request.url
    {
        if url_mode {
            return Ok((
                ElicitRequestParams::UrlElicitationParams {
                    meta,
                    message: request.prompt.clone(),
                    url: url.clone(),
                    elicitation_id: request.id.clone(),
                },
                None,
            ));
        }
        return Ok((
            form(meta, format!("{}\n{url}", request.prompt), empty_form()),
            None,
        ));
    }
    if request.kind == "approval" {
        return Ok((form(meta, request.prompt.clone(), empty_form()), None));
    }
    let schema = match request.data.as_ref().and_then(written_schema) {
        Some(written) => object_schema(written)?,
        None => one_field(),
    };
    let field = (schema.properties.len() == 1)
        .then(|| schema.properties.keys().next().cloned())
        .flatten();
    Ok((form(meta, request.prompt.clone(), schema), field))
}

/// The form schema a request's `data` carries: under `schema` (the contract's place, as
/// a request made from another server's elicitation has it) or `requestedSchema` (where
/// earlier releases put it), or `data` itself when it reads as a schema (has `type`,
/// `properties` or `$schema`). Other data is a payload, not a form.
fn written_schema(data: &Value) -> Option<&Value> {
    let object = data.as_object()?;
    if let Some(schema) = ["schema", "requestedSchema"]
        .iter()
        .find_map(|key| object.get(*key).filter(|schema| schema.is_object()))
    {
        return Some(schema);
    }
    ["type", "properties", "$schema"]
        .iter()
        .any(|key| object.contains_key(*key))
        .then_some(data)
}

fn form(
    meta: Option<RequestMetaObject>,
    message: String,
    schema: ElicitationSchema,
) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta,
        message,
        requested_schema: schema,
    }
}

/// `value` as the SDK's form schema, once it is inside the elicitation subset; the SDK
/// must carry it unchanged (nothing dropped or added on the way to the client).
fn object_schema(value: &Value) -> Result<ElicitationSchema, ElicitationSchemaError> {
    check_elicitation_schema(value)?;
    let unreadable = |problem: String| ElicitationSchemaError {
        property: None,
        problem,
        fix: "write the form with the subset's keywords only".to_owned(),
    };
    let schema: ElicitationSchema = serde_json::from_value(value.clone())
        .map_err(|e| unreadable(format!("the MCP SDK cannot read it ({e})")))?;
    let carried = serde_json::to_value(&schema).unwrap_or(Value::Null);
    if carried != *value {
        return Err(unreadable(format!(
            "the MCP SDK would send it changed, as {carried}"
        )));
    }
    Ok(schema)
}

fn empty_form() -> ElicitationSchema {
    serde_json::from_value(json!({"type": "object", "properties": {}}))
        .unwrap_or_else(|_| one_field())
}

fn one_field() -> ElicitationSchema {
    // A fixed, valid schema: this parse cannot fail.
    serde_json::from_value(json!({
        "type": "object",
        "properties": {ANSWER_FIELD: {"type": "string", "title": "Answer"}},
        "required": [ANSWER_FIELD],
    }))
    .unwrap_or_else(|_| unreachable!("the one-field form is a valid elicitation schema"))
}

/// The [`Answer`] an elicitation result gives the request `id`.
///
/// Accept is `ok: true`, with the form's content: the only field's value alone when the
/// form has one field (so `ctx.answer().text()` reads a string field), the object
/// otherwise, nothing for an empty form or a URL. Decline and cancel are `ok: false`
/// with the reason `"decline"` or `"cancel"`.
pub(crate) fn answer_for(id: &str, field: Option<&str>, result: &ElicitResult) -> Answer {
    match result.action {
        ElicitationAction::Accept => {
            let answer = Answer::accept(id);
            let content = result.content.clone().filter(|c| match c {
                Value::Object(map) => !map.is_empty(),
                Value::Null => false,
                _ => true,
            });
            match (content, field) {
                (Some(Value::Object(mut map)), Some(field)) if map.contains_key(field) => {
                    answer.with_data(map.remove(field).unwrap_or(Value::Null))
                }
                (Some(content), _) => answer.with_data(content),
                (None, _) => answer,
            }
        }
        ElicitationAction::Decline => Answer::decline(id, "decline"),
        _ => Answer::decline(id, "cancel"),
    }
}

#[cfg(test)]
#[path = "elicit_tests.rs"]
mod tests;

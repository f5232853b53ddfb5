//! One remote tool call: sent on the current connection (made again if it was lost),
//! bounded by the client's call timeout, parked when the server elicits, resumed when
//! the answer comes back.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, MetaObject,
    RequestMetaObject,
};
use rmcp::service::ServiceError;
use serde_json::{Map, Value, json};
use tokio::time::Instant;
use tracing::Instrument as _;

use super::elicit::{ELICITATION_DATA_KEY, InFlight, ParkedElicitation, reply_for, request_for};
use super::handler::{Elicitation, Inbound};
use super::result::tool_result;
use super::retry::{InputRetry, request_for_input, retry_for};
use super::task;
use super::{ANSWER_META_KEY, Shared, humanize};
use crate::mcp::trace;
use crate::tool::context::Context;
use crate::tool::request::Request;
use crate::tool::result::ToolResult;

/// Calls the server's tool `remote` with `args`, in a client span (when anything could
/// see one: without, the span is neither built nor entered at each poll).
pub(super) async fn call(
    shared: Arc<Shared>,
    remote: Arc<str>,
    args: Value,
    ctx: Context,
) -> ToolResult {
    if !crate::trace::listening() {
        return untraced(shared, remote, args, ctx).await;
    }
    let span = trace::client_span(&remote);
    untraced(shared, remote, args, ctx).instrument(span).await
}

async fn untraced(shared: Arc<Shared>, remote: Arc<str>, args: Value, ctx: Context) -> ToolResult {
    shared.parking.sweep();
    if let Some(answer) = ctx.answer()
        && let Some(parked) = shared.parking.take(&answer.id)
    {
        // The re-execution after the host answered this call's elicitation: the server
        // is still waiting for it.
        let ParkedElicitation {
            call,
            params,
            reply,
            ..
        } = parked;
        if reply.send(reply_for(answer, &params)).is_err() {
            return ToolResult::error(format!(
                "{remote}: the MCP server {} stopped waiting for the answer (the elicitation timed out or the connection closed); call the tool again",
                shared.server()
            ));
        }
        let deadline = Instant::now() + shared.options.timeout;
        call.slot.resume(deadline);
        call.slot.report_to(&ctx);
        return drive(&shared, &remote, call, deadline, &ctx).await;
    }
    // The re-execution after the host answered a login suspension: finish the login,
    // then make the call afresh (the answer was the login's, not the tool's).
    #[cfg(feature = "mcp-auth")]
    // Boxed, here and below: the rare paths' futures would otherwise make every call's
    // future as large as theirs, moved whole at each step.
    let ctx = if ctx.answer().is_none() {
        ctx
    } else {
        match Box::pin(super::auth::answer_login(&shared, &ctx)).await {
            Some(Ok(())) => Context::default(),
            Some(Err(message)) => return ToolResult::error(format!("{remote}: {message}")),
            None => ctx,
        }
    };
    let arguments = match args {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            return ToolResult::error(format!(
                "{remote}: the arguments must be a JSON object, got {other}"
            ));
        }
    };
    let peer = match shared.peer().await {
        Ok(peer) => peer,
        Err(error) => return ToolResult::error(format!("{remote}: {error}")),
    };
    let mut params = CallToolRequestParams::new(remote.to_string()).with_arguments(arguments);
    let retry = ctx.answer().and_then(retry_for);
    if let Some(InputRetry {
        responses,
        task: Some(task),
        ..
    }) = retry
    {
        // The answer to a task's `input_required`: it goes to the same task, which runs on.
        return Box::pin(task::resume(&shared, &remote, task, responses, &ctx)).await;
    } else if let Some(InputRetry {
        responses, state, ..
    }) = retry
    {
        // The answer to an `input_required`: the retry carries it with the server's state.
        params = params.with_input_responses(responses);
        params.request_state = state;
    } else if let Some(answer) = ctx.answer() {
        // For a toolnexus server: the answer to the suspension its tool returned earlier.
        let mut meta = Map::new();
        meta.insert(
            ANSWER_META_KEY.to_owned(),
            serde_json::to_value(answer).unwrap_or(Value::Null),
        );
        params.meta = Some(RequestMetaObject(MetaObject(meta)));
    }
    trace::inject(&mut params);
    let deadline = Instant::now() + shared.options.timeout;
    let slot = shared.routing.enter(deadline);
    slot.report_to(&ctx);
    let future = Box::pin(async move { peer.call_tool_once(params).await });
    let call = InFlight {
        future,
        slot,
        preset: ctx.answer().cloned(),
    };
    drive(&shared, &remote, call, deadline, &ctx).await
}

// A step lives in one local between `select!` and `match`: boxing the result to even the
// variants out would cost every call an allocation.
#[allow(clippy::large_enum_variant)]
enum Step {
    Done(Result<CallToolResponse, ServiceError>),
    Elicited(Box<Elicitation>),
    /// The watchdog saw the deadline pass (see `handler/deadline.rs`).
    TimedOut,
}

/// Waits for the call's result, its next elicitation, or its `deadline` (the call
/// timeout from when it was sent or resumed); a task the server makes of the call is
/// followed to its end within the same deadline.
async fn drive(
    shared: &Shared,
    remote: &str,
    mut call: InFlight,
    deadline: Instant,
    ctx: &Context,
) -> ToolResult {
    let limit = shared.options.timeout;
    loop {
        let step = tokio::select! {
            outcome = &mut call.future => Step::Done(outcome),
            Some(inbound) = call.slot.next() => match inbound {
                Inbound::Elicitation(elicitation) => Step::Elicited(elicitation),
                Inbound::Deadline => Step::TimedOut,
            },
        };
        // A word from before the call parked and was resumed with a later deadline.
        if matches!(step, Step::TimedOut) && Instant::now() < deadline {
            continue;
        }
        match step {
            Step::Done(Ok(CallToolResponse::Task(created))) => {
                drop(call);
                let peer = match shared.peer().await {
                    Ok(peer) => peer,
                    Err(error) => return ToolResult::error(format!("{remote}: {error}")),
                };
                let start = task::Start {
                    first: task::poll_interval(created.task.poll_interval_ms),
                    id: created.task.task_id,
                    answered: Default::default(),
                };
                let labels = task::Labels::of(shared, remote);
                return Box::pin(task::follow(peer, labels, start, (deadline, limit), ctx)).await;
            }
            Step::Done(outcome) => return finish(shared, remote, outcome),
            Step::Elicited(elicitation) => {
                let elicitation = *elicitation;
                if let Some(answer) = call.preset.take() {
                    let _ = elicitation
                        .reply
                        .send(reply_for(&answer, &elicitation.params));
                    continue;
                }
                let request = request_for(&elicitation.params);
                call.slot.waiting();
                shared.parking.park(
                    request.id.clone(),
                    ParkedElicitation {
                        call,
                        params: elicitation.params,
                        reply: elicitation.reply,
                        until: Instant::now() + shared.options.elicitation_timeout,
                    },
                );
                return ToolResult::pending(request);
            }
            Step::TimedOut => {
                return ToolResult::error(format!(
                    "{remote}: the MCP server {} did not answer within {} (the call was cancelled; it may be hung, or the call may need a longer timeout)",
                    shared.server(),
                    humanize(limit)
                ));
            }
        }
    }
}

/// The JSON-RPC error code of a call that needs the user to open a URL first.
const URL_ELICITATION_REQUIRED: i32 = -32042;

/// The first URL elicitation of a `-32042` error's data, as an `"authorization"` request:
/// once it is answered, the re-executed call tries again.
fn required_url(data: &Value, shared: &Shared) -> Option<Request> {
    let first = data.get("elicitations")?.as_array()?.first()?;
    let url = first.get("url")?.as_str()?;
    let message = first
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("Open this URL, then try again");
    Some(Request::authorization(url, message).with_data(json!({
        ELICITATION_DATA_KEY: "elicitation",
        "mode": "url",
        "required": true,
        "server": shared.server_name(),
        "elicitationId": first.get("elicitationId").cloned().unwrap_or(Value::Null),
    })))
}

fn finish(
    shared: &Shared,
    remote: &str,
    outcome: Result<CallToolResponse, ServiceError>,
) -> ToolResult {
    let server = shared.server();
    match outcome {
        Ok(CallToolResponse::Complete(mut result)) => match text_only(&mut result) {
            Some(done) => done,
            None => match serde_json::to_value(&result) {
                Ok(wire) => tool_result(&wire),
                Err(error) => ToolResult::error(format!(
                    "{remote}: the result from the MCP server {server} could not be read: {error}"
                )),
            },
        },
        Ok(CallToolResponse::InputRequired(asked)) => match request_for_input(&asked) {
            Ok(request) => ToolResult::pending(request),
            Err(why) => ToolResult::error(format!(
                "{remote}: the MCP server {server} cannot be answered: {why}"
            )),
        },
        Ok(_) => ToolResult::error(format!(
            "{remote}: the MCP server {server} answered with a result of an unknown kind"
        )),
        Err(ServiceError::McpError(error))
            if error.code.0 == URL_ELICITATION_REQUIRED
                && let Some(request) =
                    error.data.as_ref().and_then(|d| required_url(d, shared)) =>
        {
            ToolResult::pending(request)
        }
        Err(ServiceError::McpError(error)) => ToolResult::error(format!(
            "{remote}: the MCP server {server} refused the call: {}",
            error.message
        )),
        #[cfg(feature = "mcp-auth")]
        Err(ServiceError::TransportSend(_))
            if let Some(request) = super::auth::login_request(shared) =>
        {
            ToolResult::pending(request)
        }
        Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
            ToolResult::error(format!(
                "{remote}: the connection to the MCP server {server} closed during the call (did the server exit?); the next call reconnects"
            ))
        }
        Err(error) => ToolResult::error(format!(
            "{remote}: the call to the MCP server {server} failed: {error}"
        )),
    }
}

/// A result of text blocks only, without structured content or `_meta` (what most tools
/// return), read as [`tool_result`] reads its JSON form, without building that form:
/// the texts joined by newlines (taken out of `result`). `None`, and `result` untouched,
/// for every other result.
fn text_only(result: &mut CallToolResult) -> Option<ToolResult> {
    let plain = result.structured_content.is_none()
        && result.meta.is_none()
        && result.content.iter().all(|block| block.as_text().is_some());
    if !plain {
        return None;
    }
    let mut texts = result.content.iter_mut().filter_map(|block| match block {
        ContentBlock::Text(text) => Some(std::mem::take(&mut text.text)),
        _ => None,
    });
    let mut output = texts.next().unwrap_or_default();
    for text in texts {
        output.push('\n');
        output.push_str(&text);
    }
    Some(ToolResult {
        output,
        is_error: result.is_error.unwrap_or(false),
        parts: None,
        metadata: None,
    })
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock};
    use serde_json::json;

    use super::{text_only, tool_result};
    use crate::Context;
    use crate::mcp::McpClient;

    /// A call's future is allocated (and moved) whole on every call, so the rare paths
    /// (reconnecting, a login, a task) are boxed and do not make it as large as theirs.
    #[test]
    fn a_call_s_future_stays_small() {
        let shared = McpClient::stdio("server", ["--stdio"]).shared();
        let handler = super::super::handler::Responder {
            routing: std::sync::Arc::clone(&shared.routing),
        };
        let connecting = std::mem::size_of_val(&shared.endpoint.open(
            handler,
            std::time::Duration::from_secs(1),
            false,
        ));
        let future = super::call(shared, "add".into(), json!({}), Context::default());
        let size = std::mem::size_of_val(&future);
        assert!(
            size < connecting / 2 && size <= 4096,
            "a call's future is {size} bytes, connecting's {connecting}"
        );
    }

    /// The short path gives what the general one gives, and leaves every result it does
    /// not cover to it.
    #[test]
    fn text_only_results_read_as_their_json_form_reads() {
        let cases = [
            CallToolResult::success(vec![ContentBlock::text("5")]),
            CallToolResult::error(vec![ContentBlock::text("no"), ContentBlock::text("way")]),
            CallToolResult::success(vec![]),
        ];
        for mut result in cases {
            let general = tool_result(&serde_json::to_value(&result).unwrap());
            let short = text_only(&mut result).expect("text only");
            assert_eq!(
                serde_json::to_value(&short).unwrap(),
                serde_json::to_value(&general).unwrap()
            );
        }
        let mut with_meta = CallToolResult::success(vec![ContentBlock::text("5")]);
        with_meta.meta = Some(Default::default());
        let others = [
            CallToolResult::structured(json!({"sum": 5})),
            with_meta,
            CallToolResult::success(vec![ContentBlock::image("aGk=", "image/png")]),
        ];
        for mut other in others {
            let before = serde_json::to_value(&other).unwrap();
            assert!(text_only(&mut other).is_none());
            assert_eq!(
                serde_json::to_value(&other).unwrap(),
                before,
                "left as it was"
            );
        }
    }
}

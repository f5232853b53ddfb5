//! [`ag_ui`]: a client's runs as an AG-UI 1.0 endpoint.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::request::Parts;
use axum::response::Response;
use futures_util::StreamExt as _;
use futures_util::stream::{self, BoxStream};
use serde_json::{Value, json};

use crate::agent::client::Client;
use crate::agent::events::{Event, OwnedEvent};
use crate::agent::run::{CallStatus, RunResult, RunStatus, StopReason};
use crate::agent::stream::EventStream;
use crate::tool::kit::Toolkit;
use crate::tool::request::{Answer, Request};
use crate::ui::sse;
use crate::ui::threads::TooLong;
use crate::ui::{Namespace, NotStarted, Shared, UiOptions};

/// An axum router serving `client`'s runs over [AG-UI](https://docs.ag-ui.com) 1.0.
///
/// `POST /` takes a `RunAgentInput` (JSON) and answers with the run's AG-UI events as
/// server-sent events: `RUN_STARTED`; the model's text as `TEXT_MESSAGE_*`; each tool
/// call as `TOOL_CALL_START` / `TOOL_CALL_ARGS` / `TOOL_CALL_END` as the model streams
/// it and `TOOL_CALL_RESULT` once it ran; a call of a tool with an MCP Apps view (an
/// [`Event::View`]) as a `CUSTOM` event named [`VIEW_EVENT`](crate::ui::VIEW_EVENT) whose
/// `value` is `{toolCallId, uri, server, toolName, html, ui, toolInput, toolResult}` (the
/// view's page, its resource's `_meta.ui`, the call's arguments and MCP result), before
/// the call's result; and `RUN_FINISHED`. A run that halts on a
/// pending [`Request`] finishes with `outcome: {type: "interrupt", interrupts: [...]}`:
/// the interrupt's `reason` is the request's kind, its `message` the prompt, its
/// `toolCallId` the suspended call, `expiresAt` and `responseSchema` (the request's
/// `data.schema` or `data.requestedSchema`, when it has one) carried over, and the whole
/// request in its `metadata.request`.
///
/// The next run on the thread answers it with a `resume` entry: `resolved` is an
/// accepting [`Answer`] (its `payload`, when given, the answer's data), `cancelled` a
/// decline. Interrupt ids are random (128 bits), bound to the thread they were issued
/// on (and to its user, see [`UiOptions::user`]), and answerable once: an unknown
/// id (another thread's included: `unknown_interrupt`), one answered already, a thread
/// whose open interrupt the input does not answer (the refusal names no interrupt), and
/// malformed input all get `RUN_ERROR` (with a `code`) at once.
///
/// The prompt of a new run is the last user message of the input; earlier turns come
/// from the thread's own transcript, which the endpoint keeps between runs (in memory,
/// bounded: see [`UiOptions`]). On a client [with a store](Client::store), a thread
/// is a [session](Client::session) of the store instead, and an interrupt id names the
/// stored run and its request: any replica on the same store, or this one after a
/// restart, answers it, and the store answers each request once.
///
/// The router is behind [`UiOptions::new`]'s [`WebGuard`](crate::web::WebGuard): only
/// loopback `Host` and `Origin` headers, and JSON bodies (`Content-Type:
/// application/json`), are accepted; [`ag_ui_with`] configures it.
pub fn ag_ui(client: Client, toolkit: Toolkit) -> Router {
    ag_ui_with(client, toolkit, UiOptions::new())
}

/// [`ag_ui`] with [`UiOptions`]: the hosts and origins it accepts, the app's users, the
/// bounds on the threads it keeps.
pub fn ag_ui_with(client: Client, toolkit: Toolkit, options: UiOptions) -> Router {
    crate::ui::endpoint(client, toolkit, &options, run)
}

async fn run(State(shared): State<Arc<Shared>>, request: Parts, body: Bytes) -> Response {
    let caller = shared.caller(&request);
    sse::response(events(&shared, &caller, &body), None)
}

/// What the AG-UI input asks, checked.
pub(crate) struct Input {
    pub(crate) thread: String,
    /// The thread's key: its id in the caller's namespace.
    pub(crate) key: String,
    pub(crate) run: String,
    pub(crate) resume: Vec<Value>,
    pub(crate) prompt: Option<String>,
}

pub(crate) fn error(message: impl Into<String>, code: &str) -> Value {
    json!({"type": "RUN_ERROR", "message": message.into(), "code": code})
}

pub(crate) fn parse(body: &[u8]) -> Result<Input, (Option<(String, String)>, Value)> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        (
            None,
            error(format!("RunAgentInput: not JSON: {e}"), "invalid_input"),
        )
    })?;
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    let (Some(thread), Some(run)) = (text("threadId"), text("runId")) else {
        return Err((
            None,
            error(
                "RunAgentInput: `threadId` and `runId` must be strings",
                "invalid_input",
            ),
        ));
    };
    let ids = Some((thread.clone(), run.clone()));
    let Some(messages) = value.get("messages").and_then(Value::as_array) else {
        return Err((
            ids,
            error(
                "RunAgentInput: `messages` must be an array",
                "invalid_input",
            ),
        ));
    };
    let resume = match value.get("resume") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(entries)) => entries.clone(),
        Some(_) => {
            return Err((
                ids,
                error("RunAgentInput: `resume` must be an array", "invalid_input"),
            ));
        }
    };
    let prompt = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .map(|m| content_text(m.get("content")));
    Ok(Input {
        key: thread.clone(),
        thread,
        run,
        resume,
        prompt,
    })
}

/// A user message's text: a string, or its text parts joined.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

pub(crate) fn started(thread: &str, run: &str) -> Value {
    json!({"type": "RUN_STARTED", "threadId": thread, "runId": run})
}

/// The AG-UI events of one request.
fn events(shared: &Arc<Shared>, caller: &Namespace, body: &[u8]) -> BoxStream<'static, Value> {
    let input = match parse(body) {
        Ok(input) => Input {
            key: caller.key(&input.thread),
            ..input
        },
        Err((ids, error)) => {
            let mut out = Vec::new();
            if let Some((thread, run)) = ids {
                out.push(started(&thread, &run));
            }
            out.push(error);
            return stream::iter(out).boxed();
        }
    };
    let shared = Arc::clone(shared);
    stream::once(async move {
        let head = started(&input.thread, &input.run);
        match start(&shared, &input).await {
            Ok(run) => {
                let mut translate = Translate::new(shared, input);
                run.flat_map(move |event| stream::iter(translate.event(event)))
                    .boxed()
            }
            Err(error) => stream::iter([head, error]).boxed(),
        }
    })
    .flatten()
    .boxed()
}

/// Whether the endpoint's client keeps its runs in a store (threads are then sessions).
fn stored(shared: &Shared) -> bool {
    crate::ui::durable::stored(&shared.client)
}

/// The run the input asks for, or why there is none.
async fn start(shared: &Shared, input: &Input) -> Result<EventStream, Value> {
    let started = if input.resume.is_empty() {
        let Some(prompt) = input.prompt.clone() else {
            return Err(error(
                "RunAgentInput: no user message to run on",
                "invalid_input",
            ));
        };
        shared.fresh(&input.key, prompt)
    } else {
        let (id, status, payload) = resume_entry(input)?;
        let given = |request: &str| answer(request, status, payload);
        shared.answer(&input.key, id, given).await
    };
    started.map_err(|not| match not {
        // The refusal names no interrupt: its id is for whoever the run was shown to.
        NotStarted::Open => error(
            "the thread has an open interrupt the input does not answer: resume it \
             with the id its run finished with",
            "interrupt_not_answered",
        ),
        NotStarted::TooLong(too_long) => error(too_long.message(), TooLong::CODE),
        NotStarted::Refused(message, code) => error(message, code),
        NotStarted::NoRequest => error("resume: the halted run has no request", "internal"),
        NotStarted::Resume(message) => error(message, "resume_failed"),
    })
}

/// The input's one `resume` entry: its interrupt id, status and payload, checked.
pub(crate) fn resume_entry(input: &Input) -> Result<(&str, &str, Option<&Value>), Value> {
    if input.resume.len() > 1 {
        return Err(error(
            "resume: a run halts on one interrupt at a time; give one entry",
            "invalid_input",
        ));
    }
    let entry = &input.resume[0];
    let (Some(id), Some(status)) = (
        entry.get("interruptId").and_then(Value::as_str),
        entry.get("status").and_then(Value::as_str),
    ) else {
        return Err(error(
            "resume: an entry needs a string `interruptId` and `status`",
            "invalid_input",
        ));
    };
    if status != "resolved" && status != "cancelled" {
        return Err(error(
            format!("resume: status {status:?} is neither \"resolved\" nor \"cancelled\""),
            "invalid_input",
        ));
    }
    Ok((id, status, entry.get("payload")))
}

/// The [`Answer`] a `resume` entry gives request `request`.
pub(crate) fn answer(request: &str, status: &str, payload: Option<&Value>) -> Answer {
    if status == "cancelled" {
        let reason = payload
            .and_then(|p| p.get("reason").and_then(Value::as_str).or(p.as_str()))
            .unwrap_or("declined by the user");
        return Answer::decline(request, reason);
    }
    match payload {
        Some(Value::Null) | None => Answer::accept(request),
        Some(data) => Answer::accept(request).with_data(data.clone()),
    }
}

/// The `TOOL_CALL_RESULT` of call `call_id` of run `run`.
pub(crate) fn call_result(run: &str, call_id: &str, output: &str) -> Value {
    json!({
        "type": "TOOL_CALL_RESULT",
        "messageId": format!("{run}-r-{call_id}"),
        "toolCallId": call_id,
        "content": output,
        "role": "tool",
    })
}

/// The `RUN_FINISHED` of a run that answered `text`.
pub(crate) fn finished_success(thread: &str, run: &str, text: &str) -> Value {
    json!({
        "type": "RUN_FINISHED", "threadId": thread, "runId": run,
        "result": text, "outcome": {"type": "success"},
    })
}

/// The `RUN_FINISHED` of a run that halted on `interrupt`.
pub(crate) fn finished_interrupt(thread: &str, run: &str, interrupt: Option<Value>) -> Value {
    json!({
        "type": "RUN_FINISHED", "threadId": thread, "runId": run,
        "outcome": {"type": "interrupt", "interrupts": [interrupt]},
    })
}

/// The interrupt of a pending request.
pub(crate) fn interrupt(id: &str, call_id: Option<&str>, request: &Request) -> Value {
    let mut interrupt = json!({
        "id": id,
        "reason": request.kind,
        "message": request.prompt,
        "metadata": { "request": request },
    });
    if let Some(call_id) = call_id {
        interrupt["toolCallId"] = json!(call_id);
    }
    if let Some(at) = &request.expires_at {
        interrupt["expiresAt"] = json!(at);
    }
    let schema = request.data.as_ref().and_then(|data| {
        data.get("schema")
            .or_else(|| data.get("requestedSchema"))
            .filter(|s| s.is_object())
    });
    if let Some(schema) = schema {
        interrupt["responseSchema"] = schema.clone();
    }
    interrupt
}

/// Turns a run's events into AG-UI events, keeping which message and calls are open.
struct Translate {
    shared: Arc<Shared>,
    input: Input,
    /// The assistant message of the turn, once its text started (and whether still open).
    text: Option<(String, bool)>,
    /// The calls of the turn the model streamed, by index: their ids.
    streamed: HashMap<usize, String>,
    /// The call whose suspension halts the run, and the request.
    pending: Option<(String, Request)>,
    turn: u32,
}

impl Translate {
    fn new(shared: Arc<Shared>, input: Input) -> Translate {
        Translate {
            shared,
            input,
            text: None,
            streamed: HashMap::new(),
            pending: None,
            turn: 0,
        }
    }

    fn message_id(&self) -> String {
        format!("{}-m{}", self.input.run, self.turn)
    }

    fn open_text(&mut self, out: &mut Vec<Value>) -> String {
        match &self.text {
            Some((id, _)) => id.clone(),
            None => {
                let id = self.message_id();
                out.push(
                    json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}),
                );
                self.text = Some((id.clone(), true));
                id
            }
        }
    }

    fn close_text(&mut self, out: &mut Vec<Value>) {
        if let Some((id, open)) = &mut self.text
            && *open
        {
            out.push(json!({"type": "TEXT_MESSAGE_END", "messageId": id}));
            *open = false;
        }
    }

    fn event(&mut self, event: OwnedEvent) -> Vec<Value> {
        let mut out = Vec::new();
        match event {
            Event::RunStarted { .. } => {
                out.push(started(&self.input.thread, &self.input.run));
            }
            Event::ModelTurnStarted { turn } => {
                self.turn = turn;
                self.text = None;
                self.streamed.clear();
            }
            Event::TextDelta { text, .. } if !text.is_empty() => {
                if self.text.as_ref().is_some_and(|(_, open)| !open) {
                    return out;
                }
                let id = self.open_text(&mut out);
                out.push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": &*text}));
            }
            Event::ToolCallDelta {
                index,
                id,
                name,
                arguments,
                ..
            } => {
                self.close_text(&mut out);
                if !self.streamed.contains_key(&index) {
                    let (Some(id), Some(name)) = (id, name) else {
                        return out;
                    };
                    out.push(json!({
                        "type": "TOOL_CALL_START",
                        "toolCallId": &*id,
                        "toolCallName": &*name,
                        "parentMessageId": self.message_id(),
                    }));
                    self.streamed.insert(index, id.into());
                }
                if !arguments.is_empty() {
                    let id = &self.streamed[&index];
                    out.push(
                        json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": &*arguments}),
                    );
                }
            }
            Event::ModelTurnFinished { reply, .. } => {
                let content = reply.content.as_deref().unwrap_or("");
                if self.text.is_none() && !content.is_empty() {
                    let id = self.open_text(&mut out);
                    out.push(
                        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": content}),
                    );
                }
                self.close_text(&mut out);
                for (index, call) in reply.tool_calls.iter().enumerate() {
                    if self.streamed.get(&index) != Some(&call.id) {
                        out.push(json!({
                            "type": "TOOL_CALL_START",
                            "toolCallId": call.id,
                            "toolCallName": call.name,
                            "parentMessageId": self.message_id(),
                        }));
                        out.push(json!({"type": "TOOL_CALL_ARGS", "toolCallId": call.id, "delta": call.arguments}));
                    }
                    out.push(json!({"type": "TOOL_CALL_END", "toolCallId": call.id}));
                }
                self.streamed.clear();
            }
            Event::ToolCallFinished {
                call,
                result,
                status,
                ..
            } if status != CallStatus::Pending => {
                out.push(call_result(&self.input.run, &call.id, &result.output));
            }
            Event::View { call_id, view } => out.push(json!({
                "type": "CUSTOM",
                "name": crate::ui::VIEW_EVENT,
                "value": crate::ui::view_value(&call_id, &view),
            })),
            Event::Pending { call, request, .. } if self.pending.is_none() => {
                self.pending = Some((call.id.clone(), request.into_owned()));
            }
            Event::RunFinished { run } => out.push(self.finish(&run)),
            _ => {}
        }
        out
    }

    /// The run's last event, recording the thread's state.
    fn finish(&mut self, run: &RunResult) -> Value {
        let threads = &self.shared.threads;
        let (thread, run_id, key) = (&self.input.thread, &self.input.run, &self.input.key);
        match &run.status {
            RunStatus::Done => {
                // (A conversation past the limit refuses the thread's next run.)
                threads.finished(key, run, None);
                finished_success(thread, run_id, &run.text)
            }
            RunStatus::Pending => {
                let request = run.pending.clone().or(self.pending.take().map(|p| p.1));
                let id = match (&run.id, &request) {
                    (Some(run_id), Some(request)) if stored(&self.shared) => {
                        crate::ui::durable::interrupt_id(run_id, &request.id)
                    }
                    _ => format!("int_{}", uuid::Uuid::new_v4().simple()),
                };
                // A conversation past the limit is not kept: nor is its interrupt.
                if let Some(too_long) = self.shared.too_long(key) {
                    threads.finished(key, run, None);
                    return error(too_long.message(), TooLong::CODE);
                }
                threads.finished(key, run, Some(&id));
                let call = self
                    .pending
                    .as_ref()
                    .map(|(call, _)| call.as_str())
                    .or_else(|| parked_call(run));
                let interrupts = request.map(|r| interrupt(&id, call, &r));
                finished_interrupt(thread, run_id, interrupts)
            }
            RunStatus::Incomplete { reason } => {
                threads.finished(key, run, None);
                match reason {
                    StopReason::Store { message } => match self.shared.too_long(key) {
                        Some(too_long) => error(too_long.message(), TooLong::CODE),
                        None => error(format!("the run store: {message}"), "store"),
                    },
                    _ => error(format!("the run stopped: {reason:?}"), "incomplete"),
                }
            }
        }
    }
}

/// The id of the call a halted run is parked on.
pub(crate) fn parked_call(run: &RunResult) -> Option<&str> {
    run.tool_calls
        .iter()
        .rev()
        .find(|c| c.status == CallStatus::Pending)
        .map(|c| c.call.id.as_str())
}

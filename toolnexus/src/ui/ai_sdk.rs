//! [`ai_sdk`]: a client's runs as the AI SDK's UI message stream.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderValue;
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
use crate::tool::request::Answer;
use crate::ui::sse;
use crate::ui::{Namespace, NotStarted, Shared, UiOptions};

/// An axum router serving `client`'s runs as the [AI SDK](https://ai-sdk.dev)'s UI
/// message stream (protocol `v1`, what `useChat` and its `DefaultChatTransport` read).
///
/// `POST /` takes the transport's body (`{"id": chat id, "messages": [UI messages]}`)
/// and answers with the run as server-sent UI message chunks, ending with
/// `data: [DONE]`: `start`; per model turn `start-step`, the text
/// (`text-start` / `text-delta` / `text-end`), reasoning where the provider shows it,
/// each tool call's input as the model streams it (`tool-input-start` /
/// `tool-input-delta` / `tool-input-available`) and, once it ran, its output
/// (`tool-output-available`, `tool-output-error`, or `tool-output-denied` when declined),
/// `finish-step`; and `finish`. A run that fails sends `error`. A call of a tool with an
/// MCP Apps view (an [`Event::View`]) sends a data part `data-mcp-app-view` (see
/// [`VIEW_EVENT`](crate::ui::VIEW_EVENT)) whose `id` is the call's and whose `data` is
/// `{toolCallId, uri, server, toolName, html, ui, toolInput, toolResult}`, before the
/// call's output.
///
/// A run that halts on a pending [`Request`](crate::Request) sends a
/// `tool-approval-request` for the suspended call and finishes. The chat answers it the
/// AI SDK's way (`addToolApprovalResponse`, then sending the messages again): the last
/// assistant message's tool part in state `approval-responded` with its approval's `id`
/// and `approved` is an accepting [`Answer`] or a decline (with its `reason`), and the
/// response continues that message. Approval ids are random (128 bits), bound to the
/// chat they were issued in (and to its user, see [`UiOptions::user`]), and
/// answerable once; anything else is an `error` chunk at once, which names no other
/// approval (another chat's id is unknown here).
///
/// The prompt of a new run is the text of the last user message; earlier turns come from
/// the chat's own transcript, which the endpoint keeps between runs (in memory, bounded:
/// see [`UiOptions`]). On a client [with a store](Client::store) a chat is a
/// [session](Client::session) of the store and an approval id names the stored run and
/// its request, as for [`ag_ui`](crate::ui::ag_ui): any replica on the store answers it.
///
/// The router is behind [`UiOptions::new`]'s [`WebGuard`](crate::web::WebGuard) (loopback
/// hosts and origins, JSON bodies), as [`ag_ui`](crate::ui::ag_ui) is; [`ai_sdk_with`]
/// configures it.
pub fn ai_sdk(client: Client, toolkit: Toolkit) -> Router {
    ai_sdk_with(client, toolkit, UiOptions::new())
}

/// [`ai_sdk`] with [`UiOptions`]: the hosts and origins it accepts, the app's users, the
/// bounds on the chats it keeps.
pub fn ai_sdk_with(client: Client, toolkit: Toolkit, options: UiOptions) -> Router {
    crate::ui::endpoint(client, toolkit, &options, run)
}

async fn run(State(shared): State<Arc<Shared>>, request: Parts, body: Bytes) -> Response {
    let caller = shared.caller(&request);
    let mut response = sse::response(chunks(&shared, &caller, &body), Some("[DONE]"));
    response.headers_mut().insert(
        "x-vercel-ai-ui-message-stream",
        HeaderValue::from_static("v1"),
    );
    response
}

fn failed(message: impl Into<String>) -> BoxStream<'static, Value> {
    stream::iter([json!({"type": "error", "errorText": message.into()})]).boxed()
}

/// The UI message chunks of one request.
fn chunks(shared: &Arc<Shared>, caller: &Namespace, body: &[u8]) -> BoxStream<'static, Value> {
    let Ok(input) = serde_json::from_slice::<Value>(body) else {
        return failed("the request is not JSON");
    };
    let (Some(chat), Some(messages)) = (
        input.get("id").and_then(Value::as_str),
        input.get("messages").and_then(Value::as_array),
    ) else {
        return failed("the request needs a string `id` and a `messages` array");
    };
    let Some(last) = messages.last().cloned() else {
        return failed("`messages` is empty");
    };
    let (shared, chat) = (Arc::clone(shared), caller.key(chat));
    stream::once(async move {
        let started = match last.get("role").and_then(Value::as_str) {
            Some("assistant") => resume(&shared, &chat, &last).await,
            Some("user") => fresh(&shared, &chat, &last).await,
            _ => Err("the last message is neither the user's nor the assistant's".to_owned()),
        };
        match started {
            Ok((run, message_id)) => {
                let mut translate = Translate::new(shared, chat, message_id);
                run.flat_map(move |event| stream::iter(translate.event(event)))
                    .boxed()
            }
            Err(message) => failed(message),
        }
    })
    .flatten()
    .boxed()
}

/// A new run on the user's message.
async fn fresh(
    shared: &Shared,
    chat: &str,
    user: &Value,
) -> Result<(EventStream, Option<String>), String> {
    let run = shared.fresh(chat, text_of(user)).map_err(said)?;
    Ok((run, None))
}

/// The run of the approval the assistant message answers, continuing that message.
async fn resume(
    shared: &Shared,
    chat: &str,
    assistant: &Value,
) -> Result<(EventStream, Option<String>), String> {
    let parts = assistant.get("parts").and_then(Value::as_array);
    let responded: Vec<&Value> = parts
        .into_iter()
        .flatten()
        .filter(|p| p.get("state").and_then(Value::as_str) == Some("approval-responded"))
        .collect();
    let [part] = responded[..] else {
        return Err(format!(
            "the last assistant message answers {} tool approvals; a run waits on one at a time",
            responded.len()
        ));
    };
    let approval = part.get("approval").unwrap_or(&Value::Null);
    let (Some(id), Some(approved)) = (
        approval.get("id").and_then(Value::as_str),
        approval.get("approved").and_then(Value::as_bool),
    ) else {
        return Err("an approval response needs a string `id` and a boolean `approved`".into());
    };
    let given = |request: &str| {
        if approved {
            Answer::accept(request)
        } else {
            let reason = approval.get("reason").and_then(Value::as_str);
            Answer::decline(request, reason.unwrap_or("declined by the user"))
        }
    };
    let message_id = assistant
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let run = shared.answer(chat, id, given).await.map_err(said)?;
    Ok((run, message_id))
}

/// Why no run started, in the chat's words.
fn said(not: NotStarted) -> String {
    match not {
        // The refusal names no approval: its id is for whoever the run was shown to.
        NotStarted::Open => "the chat has a tool approval to answer first (its last \
                             assistant message's approval request)"
            .to_owned(),
        NotStarted::Resume(message) => message,
        NotStarted::TooLong(too_long) => too_long.message().replace("thread", "chat"),
        NotStarted::Refused(message, _) => message
            .replace("interrupt", "approval")
            .replace("thread", "chat"),
        NotStarted::NoRequest => "the halted run has no request".to_owned(),
    }
}

/// A UI message's text parts, joined.
fn text_of(message: &Value) -> String {
    match message.get("parts").and_then(Value::as_array) {
        Some(parts) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        None => message
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    }
}

/// Turns a run's events into UI message chunks.
struct Translate {
    shared: Arc<Shared>,
    chat: String,
    message_id: String,
    step: bool,
    text: Option<String>,
    reasoning: Option<String>,
    /// The calls of the turn the model streamed, by index: their ids.
    streamed: HashMap<usize, String>,
    /// The suspended call and its request's prompt, once the run says it waits.
    approval: Option<(String, String)>,
    /// Whether this turn's text came as deltas (else it is sent whole at the turn's end).
    streamed_text: bool,
    turn: u32,
    parts: u32,
}

impl Translate {
    fn new(shared: Arc<Shared>, chat: String, continued: Option<String>) -> Translate {
        let message_id =
            continued.unwrap_or_else(|| format!("msg_{}", uuid::Uuid::new_v4().simple()));
        Translate {
            shared,
            chat,
            message_id,
            step: false,
            text: None,
            reasoning: None,
            streamed: HashMap::new(),
            approval: None,
            streamed_text: false,
            turn: 0,
            parts: 0,
        }
    }

    fn part_id(&mut self) -> String {
        self.parts += 1;
        format!("{}-{}", self.message_id, self.parts)
    }

    fn close(&mut self, out: &mut Vec<Value>) {
        if let Some(id) = self.text.take() {
            out.push(json!({"type": "text-end", "id": id}));
        }
        if let Some(id) = self.reasoning.take() {
            out.push(json!({"type": "reasoning-end", "id": id}));
        }
    }

    fn start_step(&mut self, out: &mut Vec<Value>) {
        if !self.step {
            out.push(json!({"type": "start-step"}));
            self.step = true;
        }
    }

    fn finish_step(&mut self, out: &mut Vec<Value>) {
        self.close(out);
        if self.step {
            out.push(json!({"type": "finish-step"}));
            self.step = false;
        }
    }

    fn event(&mut self, event: OwnedEvent) -> Vec<Value> {
        let mut out = Vec::new();
        match event {
            Event::RunStarted { .. } => {
                out.push(json!({"type": "start", "messageId": self.message_id}));
            }
            Event::ModelTurnStarted { turn } => {
                self.finish_step(&mut out);
                self.start_step(&mut out);
                self.turn = turn;
                self.streamed.clear();
                self.streamed_text = false;
            }
            Event::TextDelta { text, .. } if !text.is_empty() => {
                self.streamed_text = true;
                if self.reasoning.is_some() {
                    self.close(&mut out);
                }
                let id = match &self.text {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.part_id();
                        out.push(json!({"type": "text-start", "id": id}));
                        self.text = Some(id.clone());
                        id
                    }
                };
                out.push(json!({"type": "text-delta", "id": id, "delta": &*text}));
            }
            Event::ReasoningDelta { text, .. } if !text.is_empty() => {
                let id = match &self.reasoning {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.part_id();
                        out.push(json!({"type": "reasoning-start", "id": id}));
                        self.reasoning = Some(id.clone());
                        id
                    }
                };
                out.push(json!({"type": "reasoning-delta", "id": id, "delta": &*text}));
            }
            Event::ToolCallDelta {
                index,
                id,
                name,
                arguments,
                ..
            } => {
                self.close(&mut out);
                if let Entry::Vacant(slot) = self.streamed.entry(index) {
                    let (Some(id), Some(name)) = (id, name) else {
                        return out;
                    };
                    out.push(json!({"type": "tool-input-start", "toolCallId": &*id, "toolName": &*name, "dynamic": true}));
                    slot.insert(id.into());
                }
                if !arguments.is_empty() {
                    let id = &self.streamed[&index];
                    out.push(json!({"type": "tool-input-delta", "toolCallId": id, "inputTextDelta": &*arguments}));
                }
            }
            Event::ModelTurnFinished { reply, .. } => {
                let content = reply.content.as_deref().unwrap_or("");
                if !self.streamed_text && !content.is_empty() {
                    let id = self.part_id();
                    out.push(json!({"type": "text-start", "id": id}));
                    out.push(json!({"type": "text-delta", "id": id, "delta": content}));
                    out.push(json!({"type": "text-end", "id": id}));
                }
                self.close(&mut out);
                for call in &reply.tool_calls {
                    let input: Value = serde_json::from_str(&call.arguments)
                        .unwrap_or(Value::String(call.arguments.clone()));
                    out.push(json!({
                        "type": "tool-input-available",
                        "toolCallId": call.id,
                        "toolName": call.name,
                        "input": input,
                        "dynamic": true,
                    }));
                }
            }
            Event::ToolCallFinished {
                call,
                result,
                status,
                ..
            } => match status {
                CallStatus::Pending => {}
                CallStatus::Declined | CallStatus::Denied => {
                    out.push(json!({"type": "tool-output-denied", "toolCallId": call.id}));
                }
                _ if result.is_error => out.push(json!({
                    "type": "tool-output-error",
                    "toolCallId": call.id,
                    "errorText": result.output,
                    "dynamic": true,
                })),
                _ => out.push(json!({
                    "type": "tool-output-available",
                    "toolCallId": call.id,
                    "output": result.output,
                    "dynamic": true,
                })),
            },
            Event::View { call_id, view } => out.push(json!({
                "type": format!("data-{}", crate::ui::VIEW_EVENT),
                "id": &*call_id,
                "data": crate::ui::view_value(&call_id, &view),
            })),
            Event::Pending { call, request, .. } if self.approval.is_none() => {
                self.approval = Some((call.id.clone(), request.prompt.clone()));
            }
            Event::RunFinished { run } => self.finish(&run, &mut out),
            _ => {}
        }
        out
    }

    fn finish(&mut self, run: &RunResult, out: &mut Vec<Value>) {
        let threads = &self.shared.threads;
        match &run.status {
            RunStatus::Done => {
                // (A conversation past the limit refuses the chat's next run.)
                threads.finished(&self.chat, run, None);
                self.finish_step(out);
                out.push(json!({"type": "finish", "finishReason": "stop"}));
            }
            RunStatus::Pending => {
                let id = match (&run.id, &run.pending) {
                    (Some(run_id), Some(request))
                        if crate::ui::durable::stored(&self.shared.client) =>
                    {
                        crate::ui::durable::interrupt_id(run_id, &request.id)
                    }
                    _ => format!("apr_{}", uuid::Uuid::new_v4().simple()),
                };
                // A conversation past the limit is not kept: nor is its approval.
                if let Some(too_long) = self.shared.too_long(&self.chat) {
                    threads.finished(&self.chat, run, None);
                    self.finish_step(out);
                    let text = too_long.message().replace("thread", "chat");
                    out.push(json!({"type": "error", "errorText": text}));
                    return;
                }
                threads.finished(&self.chat, run, Some(&id));
                if let Some((call, prompt)) = self.approval.take() {
                    out.push(json!({
                        "type": "tool-approval-request",
                        "approvalId": id,
                        "toolCallId": call,
                        "reason": prompt,
                    }));
                }
                self.finish_step(out);
                out.push(json!({"type": "finish", "finishReason": "tool-calls"}));
            }
            RunStatus::Incomplete { reason } => {
                threads.finished(&self.chat, run, None);
                self.finish_step(out);
                let text = match (reason, self.shared.too_long(&self.chat)) {
                    (StopReason::Store { .. }, Some(too_long)) => {
                        too_long.message().replace("thread", "chat")
                    }
                    _ => format!("the run stopped: {reason:?}"),
                };
                out.push(json!({"type": "error", "errorText": text}));
            }
        }
    }
}

//! The JSON-RPC endpoint: one request in, one response (or one event stream) out.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse as _, Response};
use futures_util::StreamExt as _;
use serde_json::{Value, json};

use super::RpcCall;
use super::engine::TaskEngine;
use super::stream;
use super::tasks;
use crate::a2a::wire::{
    self, A2aMessage, Dialect, RpcError, StreamEvent, Task, TaskState, codes, history_length,
    member, rpc_result,
};

/// The agent's reply to a direct message: the answer's parts, when the task completed.
fn reply_of(task: &Task) -> Option<A2aMessage> {
    if task.status.state != TaskState::Completed {
        return None;
    }
    let parts = task
        .artifacts
        .iter()
        .flat_map(|a| a.parts.clone())
        .collect();
    let mut reply = A2aMessage::agent(parts, "", &task.context_id);
    reply.task_id.clear();
    Some(reply)
}

/// A finished stream of these `data:` payloads.
fn sse(payloads: Vec<Value>) -> Response {
    let frames = futures_util::stream::iter(
        payloads
            .into_iter()
            .map(|data| Ok::<_, Infallible>(Bytes::from(format!("data: {data}\n\n")))),
    );
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(frames),
    )
        .into_response()
}

/// An A2A operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Send,
    Stream,
    Get,
    List,
    Cancel,
    Subscribe,
    Push,
    ExtendedCard,
}

/// The operation a method names, and the version its name belongs to (`None`: both).
fn op(method: &str) -> Option<(Op, Option<Dialect>)> {
    let v1 = Some(Dialect::V1);
    let v03 = Some(Dialect::V03);
    Some(match method {
        "SendMessage" => (Op::Send, v1),
        "SendStreamingMessage" => (Op::Stream, v1),
        "GetTask" => (Op::Get, v1),
        "ListTasks" => (Op::List, v1),
        "CancelTask" => (Op::Cancel, v1),
        "SubscribeToTask" => (Op::Subscribe, v1),
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig" => (Op::Push, v1),
        "GetExtendedAgentCard" => (Op::ExtendedCard, v1),
        "message/send" => (Op::Send, v03),
        "message/stream" => (Op::Stream, v03),
        "tasks/get" => (Op::Get, v03),
        "tasks/cancel" => (Op::Cancel, v03),
        "tasks/resubscribe" => (Op::Subscribe, v03),
        "tasks/pushNotificationConfig/set"
        | "tasks/pushNotificationConfig/get"
        | "tasks/pushNotificationConfig/list"
        | "tasks/pushNotificationConfig/delete" => (Op::Push, v03),
        "agent/getAuthenticatedExtendedCard" => (Op::ExtendedCard, v03),
        _ => return None,
    })
}

/// The version a PascalCase method is spoken in: `A2A-Version`'s, where an absent or
/// empty header means 0.3 (A2A 1.0 §3.6.2).
fn version(headers: &HeaderMap) -> Result<Dialect, RpcError> {
    let asked = headers
        .get("a2a-version")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .unwrap_or("");
    match asked.split('.').next().unwrap_or("") {
        "" => Ok(Dialect::V03),
        "1" => Ok(Dialect::V1),
        "0" if asked.starts_with("0.3") => Ok(Dialect::V03),
        _ => Err(RpcError::new(
            codes::VERSION_NOT_SUPPORTED,
            format!("A2A version `{asked}` is not supported; this agent speaks 1.0 and 0.3"),
        )),
    }
}

fn json_response(value: &Value) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

/// Answers one POST to the endpoint.
pub(super) async fn handle(
    engine: TaskEngine,
    headers: &HeaderMap,
    owner: Option<String>,
    body: Result<Bytes, String>,
) -> Response {
    // The content type was checked by the guard (`application/json` only).
    let body = match body {
        Ok(body) => body,
        Err(reason) => {
            return json_response(
                &RpcError::new(codes::INVALID_REQUEST, reason).response(&Value::Null),
            );
        }
    };
    let request: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(error) => {
            let error = RpcError::new(codes::PARSE_ERROR, format!("Invalid JSON payload: {error}"));
            return json_response(&error.response(&Value::Null));
        }
    };
    let id = match request.get("id") {
        None | Some(Value::Null) => Value::Null,
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        Some(_) => {
            let error = RpcError::new(
                codes::INVALID_REQUEST,
                "`id` must be a string, a number or null",
            );
            return json_response(&error.response(&Value::Null));
        }
    };
    let fail = |error: RpcError| json_response(&error.response(&id));
    if !request.is_object() {
        return fail(RpcError::new(
            codes::INVALID_REQUEST,
            "the request must be one JSON-RPC object (batches are not supported)",
        ));
    }
    if request.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return fail(RpcError::new(
            codes::INVALID_REQUEST,
            "`jsonrpc` must be \"2.0\"",
        ));
    }
    let Some(method) = request.get("method").and_then(Value::as_str) else {
        return fail(RpcError::new(
            codes::INVALID_REQUEST,
            "`method` must be a string",
        ));
    };
    let Some((op, named)) = op(method) else {
        return fail(RpcError::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        ));
    };
    let dialect = match named {
        Some(Dialect::V03) => Dialect::V03,
        _ => match version(headers) {
            Ok(dialect) => dialect,
            Err(error) => return fail(error),
        },
    };
    let params = match request.get("params") {
        None | Some(Value::Null) => json!({}),
        Some(params @ Value::Object(_)) => params.clone(),
        Some(_) => return fail(RpcError::invalid_params("`params` must be an object")),
    };
    let call = RpcCall {
        engine,
        owner,
        dialect,
        id: id.clone(),
    };
    match op {
        Op::Stream | Op::Subscribe => match call.stream(op, &params).await {
            Ok(response) => response,
            Err(error) => fail(error),
        },
        _ => match call.unary(op, &params).await {
            Ok(result) => json_response(&rpc_result(&id, result)),
            Err(error) => fail(error),
        },
    }
}

/// `params.id`: the task's id.
pub(super) fn task_id(params: &Value) -> Result<String, RpcError> {
    match params.get("id") {
        Some(Value::String(id)) if !id.is_empty() => Ok(id.clone()),
        Some(other) => Err(RpcError::invalid_params(format!(
            "params.id must be a task id (a non-empty string), not {}",
            wire::short(other)
        ))),
        None => Err(RpcError::invalid_params(
            "params.id (the task's id) is missing",
        )),
    }
}

/// `params.message`, checked.
fn message(params: &Value) -> Result<A2aMessage, RpcError> {
    let value = params
        .get("message")
        .ok_or_else(|| RpcError::invalid_params("params.message is missing"))?;
    let message: A2aMessage = wire::from_json(value)
        .map_err(|e| RpcError::invalid_params(format!("params.message: {e}")))?;
    if message.message_id.is_empty() {
        return Err(RpcError::invalid_params(
            "params.message.messageId is missing",
        ));
    }
    Ok(message)
}

impl RpcCall {
    async fn unary(&self, op: Op, params: &Value) -> Result<Value, RpcError> {
        match op {
            Op::Send => self.send(params).await,
            Op::Get => {
                let id = task_id(params)?;
                let history =
                    history_length(member(params, "historyLength"), "params.historyLength")?;
                let (_, task) = self.engine.record(self.owner.as_deref(), &id).await?;
                Ok(task.to_json(self.dialect, history))
            }
            Op::Cancel => {
                let id = task_id(params)?;
                let task = self.engine.cancel(self.owner.as_deref(), &id).await?;
                Ok(task.to_json(self.dialect, None))
            }
            Op::List => tasks::list(self, params).await,
            Op::Push => Err(RpcError::new(
                codes::PUSH_NOT_SUPPORTED,
                "Push notifications are not supported by this agent",
            )),
            Op::ExtendedCard => Err(RpcError::unsupported(
                "This agent has no extended Agent Card",
            )),
            Op::Stream | Op::Subscribe => Err(RpcError::internal("a stream is not a unary call")),
        }
    }

    async fn send(&self, params: &Value) -> Result<Value, RpcError> {
        let message = message(params)?;
        let direct = self.direct(&message);
        let config = params.get("configuration").unwrap_or(&Value::Null);
        let history = history_length(
            member(config, "historyLength"),
            "params.configuration.historyLength",
        )?;
        let immediately = !direct
            && match self.dialect {
                Dialect::V1 => {
                    member(config, "returnImmediately").and_then(Value::as_bool) == Some(true)
                }
                Dialect::V03 => config.get("blocking").and_then(Value::as_bool) == Some(false),
            };
        let started = self.engine.send(self.owner.clone(), message).await?;
        let task = if immediately {
            started.task
        } else {
            let id = started.task.id.clone();
            let events = stream::after(
                self.engine.clone(),
                id.clone(),
                self.owner.clone(),
                Some(started.events),
                started.task,
            );
            // Runs to the status that ends the stream.
            events.for_each(|_| async {}).await;
            self.engine.record(self.owner.as_deref(), &id).await?.1
        };
        if direct && let Some(reply) = reply_of(&task) {
            return Ok(StreamEvent::Message(reply).to_json(self.dialect));
        }
        let json = task.to_json(self.dialect, history);
        Ok(match self.dialect {
            Dialect::V1 => json!({ "task": json }),
            Dialect::V03 => json,
        })
    }

    /// Whether `message` is to be answered with a message (see `direct_replies`).
    fn direct(&self, message: &A2aMessage) -> bool {
        let config = &self.engine.config;
        message.task_id.is_empty()
            && config
                .direct
                .as_ref()
                .is_some_and(|direct| direct(&wire::to_value(message)))
    }

    async fn stream(&self, op: Op, params: &Value) -> Result<Response, RpcError> {
        let (first, live) = match op {
            Op::Stream => {
                let message = message(params)?;
                if self.direct(&message) {
                    // The whole answer first, then one event.
                    let result = self.send(params).await?;
                    return Ok(sse(vec![rpc_result(&self.id, result)]));
                }
                let started = self.engine.send(self.owner.clone(), message).await?;
                (started.task, Some(started.events))
            }
            _ => {
                let id = task_id(params)?;
                let (_, task) = self.engine.record(self.owner.as_deref(), &id).await?;
                if task.status.state.is_terminal() {
                    return Err(RpcError::unsupported(format!(
                        "Task {id} is {}: there is nothing left to stream",
                        task.status.state.as_str()
                    )));
                }
                let live = self.engine.live().get(&id).map(|l| l.events.subscribe());
                // Read again, after subscribing, so that no change falls in between.
                let (_, task) = self.engine.record(self.owner.as_deref(), &id).await?;
                (task, live)
            }
        };
        let events = stream::after(
            self.engine.clone(),
            first.id.clone(),
            self.owner.clone(),
            live,
            first.clone(),
        );
        let dialect = self.dialect;
        let id = self.id.clone();
        let frames = futures_util::stream::once(async move { StreamEvent::Task(first) })
            .chain(events)
            .map(move |event| {
                let data = rpc_result(&id, event.to_json(dialect));
                Ok::<_, Infallible>(Bytes::from(format!("data: {data}\n\n")))
            });
        Ok((
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            Body::from_stream(frames),
        )
            .into_response())
    }
}

//! The A2A data model as this crate speaks it: tasks, messages, parts and artifacts, read
//! from either protocol version and written in the one a peer asked for.
//!
//! The structs serialize in the A2A 1.0 form (ProtoJSON: camelCase fields,
//! `TASK_STATE_*` and `ROLE_*` enum names, parts without a `kind`). They read the 0.3 form
//! too (`kind` discriminators, `completed` / `input-required` state names, `user` /
//! `agent` roles, `file` parts with `bytes` / `uri`), and [`v03`] writes it.

mod card;
mod rpc;
pub(crate) mod v03;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

pub(crate) use card::{Endpoint, PeerCard, Skill};

/// The key, in a message's metadata, of the toolnexus [`Answer`](crate::Answer) it
/// carries (the client writes it, the server reads it), and of a status message's
/// toolnexus [`Request`](crate::Request) (the server writes it, the client reads it).
pub(crate) const ANSWER_KEY: &str = "toolnexus/answer";
pub(crate) const REQUEST_KEY: &str = "toolnexus/request";
pub(crate) use rpc::{RpcError, codes, result as rpc_result};
pub(crate) use rpc::{history_length, member};

/// The two protocol versions on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// A2A 1.0: PascalCase methods, ProtoJSON shapes (what the 1.x SDKs speak).
    V1,
    /// A2A 0.3: `message/send`-style methods, `kind` discriminators, kebab-case states.
    V03,
}

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TaskState {
    /// Accepted, not started.
    #[serde(rename = "TASK_STATE_SUBMITTED", alias = "submitted")]
    Submitted,
    /// Running.
    #[serde(rename = "TASK_STATE_WORKING", alias = "working")]
    Working,
    /// Waiting for the client's next message.
    #[serde(rename = "TASK_STATE_INPUT_REQUIRED", alias = "input-required")]
    InputRequired,
    /// Waiting for an authorization, given out of band (or the client's next message).
    #[serde(rename = "TASK_STATE_AUTH_REQUIRED", alias = "auth-required")]
    AuthRequired,
    /// Finished, with its answer.
    #[serde(rename = "TASK_STATE_COMPLETED", alias = "completed")]
    Completed,
    /// Ended in an error.
    #[serde(rename = "TASK_STATE_FAILED", alias = "failed")]
    Failed,
    /// Cancelled by a client.
    #[serde(
        rename = "TASK_STATE_CANCELED",
        alias = "canceled",
        alias = "cancelled"
    )]
    Canceled,
    /// Refused by the agent.
    #[serde(rename = "TASK_STATE_REJECTED", alias = "rejected")]
    Rejected,
    /// A state this crate does not know.
    #[serde(
        rename = "TASK_STATE_UNSPECIFIED",
        alias = "unknown",
        alias = "TASK_STATE_UNKNOWN"
    )]
    Unknown,
}

impl TaskState {
    /// The 0.3 name (`"input-required"`, …): also the word a tool's result metadata uses,
    /// as the toolnexus contract does.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::InputRequired => "input-required",
            TaskState::AuthRequired => "auth-required",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Canceled => "canceled",
            TaskState::Rejected => "rejected",
            TaskState::Unknown => "unknown",
        }
    }

    /// The 1.0 name (`"TASK_STATE_INPUT_REQUIRED"`, …).
    pub fn v1_name(self) -> &'static str {
        match self {
            TaskState::Submitted => "TASK_STATE_SUBMITTED",
            TaskState::Working => "TASK_STATE_WORKING",
            TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
            TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
            TaskState::Completed => "TASK_STATE_COMPLETED",
            TaskState::Failed => "TASK_STATE_FAILED",
            TaskState::Canceled => "TASK_STATE_CANCELED",
            TaskState::Rejected => "TASK_STATE_REJECTED",
            TaskState::Unknown => "TASK_STATE_UNSPECIFIED",
        }
    }

    /// A state from either version's name.
    pub fn parse(name: &str) -> Option<TaskState> {
        serde_json::from_value(Value::String(name.to_owned())).ok()
    }

    /// Completed, failed, canceled or rejected: the task takes no more messages.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// Input-required or auth-required: the task waits for its client.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Role {
    #[serde(rename = "ROLE_USER", alias = "user")]
    User,
    #[serde(rename = "ROLE_AGENT", alias = "agent")]
    Agent,
    #[serde(rename = "ROLE_UNSPECIFIED")]
    Unspecified,
}

/// One piece of a message or artifact: text, bytes (base64), a URL or JSON data.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Part {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) raw: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) filename: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) media_type: Option<String>,
}

impl Part {
    pub(crate) fn text(text: impl Into<String>) -> Part {
        Part {
            text: Some(text.into()),
            ..Part::default()
        }
    }

    /// A part from either version's JSON.
    pub(crate) fn from_value(value: &Value) -> Result<Part, String> {
        let Value::Object(map) = value else {
            return Err(format!("a part must be an object, not {value}"));
        };
        let string = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_owned);
        let metadata = map.get("metadata").and_then(Value::as_object).cloned();
        let mut part = Part {
            metadata,
            filename: string("filename"),
            media_type: string("mediaType").or_else(|| string("media_type")),
            ..Part::default()
        };
        match map.get("kind").and_then(Value::as_str) {
            Some("text") => part.text = Some(string("text").unwrap_or_default()),
            Some("data") => part.data = Some(map.get("data").cloned().unwrap_or(Value::Null)),
            Some("file") => {
                let file = map.get("file").and_then(Value::as_object);
                let field = |key: &str| {
                    file.and_then(|f| f.get(key))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                part.raw = field("bytes");
                part.url = field("uri");
                part.filename = field("name").or(part.filename);
                part.media_type = field("mimeType").or(part.media_type);
            }
            Some(other) => return Err(format!("`{other}` is not a kind of part")),
            None => {
                part.text = string("text");
                part.raw = string("raw");
                part.url = string("url");
                part.data = map.get("data").cloned();
            }
        }
        if part.text.is_none() && part.raw.is_none() && part.url.is_none() && part.data.is_none() {
            return Err("a part needs one of `text`, `raw`, `url` or `data`".to_owned());
        }
        Ok(part)
    }
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Part, D::Error> {
        Part::from_value(&Value::deserialize(deserializer)?).map_err(D::Error::custom)
    }
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct A2aMessage {
    #[serde(default, alias = "message_id")]
    pub(crate) message_id: String,
    #[serde(
        default,
        alias = "context_id",
        skip_serializing_if = "String::is_empty"
    )]
    pub(crate) context_id: String,
    #[serde(default, alias = "task_id", skip_serializing_if = "String::is_empty")]
    pub(crate) task_id: String,
    pub(crate) role: Role,
    #[serde(default)]
    pub(crate) parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<Map<String, Value>>,
    #[serde(
        default,
        alias = "reference_task_ids",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub(crate) reference_task_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) extensions: Vec<String>,
}

impl A2aMessage {
    /// An agent's message of `parts`, on a task.
    pub(crate) fn agent(parts: Vec<Part>, task_id: &str, context_id: &str) -> A2aMessage {
        A2aMessage {
            message_id: uuid::Uuid::new_v4().to_string(),
            context_id: context_id.to_owned(),
            task_id: task_id.to_owned(),
            role: Role::Agent,
            parts,
            metadata: None,
            reference_task_ids: Vec::new(),
            extensions: Vec::new(),
        }
    }

    /// A user's message of one text part.
    pub(crate) fn user(text: impl Into<String>) -> A2aMessage {
        A2aMessage {
            role: Role::User,
            ..A2aMessage::agent(vec![Part::text(text)], "", "")
        }
    }

    /// The text parts, joined by newlines.
    pub(crate) fn text(&self) -> String {
        join_text(&self.parts)
    }
}

/// The text parts of `parts`, joined by newlines.
pub(crate) fn join_text(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts.iter().filter_map(|p| p.text.as_deref()).collect();
    texts.join("\n")
}

/// A task's state, with the agent's message about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskStatus {
    pub(crate) state: TaskState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<A2aMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) timestamp: Option<String>,
}

impl TaskStatus {
    pub(crate) fn now(state: TaskState, message: Option<A2aMessage>) -> TaskStatus {
        TaskStatus {
            state,
            message,
            timestamp: Some(timestamp()),
        }
    }
}

/// The current time in the form A2A wants: RFC 3339, UTC, milliseconds.
pub(crate) fn timestamp() -> String {
    crate::a2a::time::rfc3339(crate::a2a::time::now_ms())
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Artifact {
    #[serde(default, alias = "artifact_id")]
    pub(crate) artifact_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<Map<String, Value>>,
}

/// A unit of work and everything known about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Task {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) context_id: String,
    pub(crate) status: TaskStatus,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) artifacts: Vec<Artifact>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) history: Vec<A2aMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<Map<String, Value>>,
}

impl Task {
    /// The task's answer as text: its artifacts' text parts, else the last agent message
    /// of its history, else its status message (the contract's rule, with the status
    /// message added for agents that answer there).
    pub(crate) fn answer_text(&self) -> String {
        let artifacts: Vec<&Part> = self.artifacts.iter().flat_map(|a| &a.parts).collect();
        let texts: Vec<&str> = artifacts.iter().filter_map(|p| p.text.as_deref()).collect();
        if !texts.is_empty() {
            return texts.join("\n");
        }
        let from_history = self
            .history
            .iter()
            .rev()
            .filter(|m| m.role == Role::Agent)
            .map(A2aMessage::text)
            .find(|t| !t.is_empty());
        from_history
            .or_else(|| self.status.message.as_ref().map(A2aMessage::text))
            .unwrap_or_default()
    }

    /// The text of the status message.
    pub(crate) fn status_text(&self) -> String {
        self.status
            .message
            .as_ref()
            .map(A2aMessage::text)
            .unwrap_or_default()
    }

    /// The task as `dialect` writes it, with at most `history` messages of its history
    /// (all when `None`).
    pub(crate) fn to_json(&self, dialect: Dialect, history: Option<usize>) -> Value {
        let trimmed;
        let task = match history {
            Some(keep) if keep < self.history.len() => {
                trimmed = Task {
                    history: self.history[self.history.len() - keep..].to_vec(),
                    ..self.clone()
                };
                &trimmed
            }
            _ => self,
        };
        match dialect {
            Dialect::V1 => to_value(task),
            Dialect::V03 => v03::task(task),
        }
    }
}

/// A value of this module's types as JSON (they hold only strings and JSON values, so
/// this cannot fail).
pub(crate) fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// What a streaming call (or a send) hands back, one event at a time.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StreamEvent {
    Task(Task),
    Message(A2aMessage),
    Status {
        task_id: String,
        context_id: String,
        status: TaskStatus,
    },
    Artifact {
        task_id: String,
        context_id: String,
        artifact: Artifact,
    },
}

impl StreamEvent {
    /// The event as `dialect` writes a stream's `result`.
    pub(crate) fn to_json(&self, dialect: Dialect) -> Value {
        match (self, dialect) {
            (StreamEvent::Task(task), _) => match dialect {
                Dialect::V1 => json!({ "task": to_value(task) }),
                Dialect::V03 => v03::task(task),
            },
            (StreamEvent::Message(message), Dialect::V1) => json!({ "message": to_value(message) }),
            (StreamEvent::Message(message), Dialect::V03) => v03::message(message),
            (
                StreamEvent::Status {
                    task_id,
                    context_id,
                    status,
                },
                Dialect::V1,
            ) => json!({ "statusUpdate": {
                "taskId": task_id, "contextId": context_id, "status": to_value(status)
            }}),
            (
                StreamEvent::Status {
                    task_id,
                    context_id,
                    status,
                },
                Dialect::V03,
            ) => json!({
                "kind": "status-update", "taskId": task_id, "contextId": context_id,
                "status": v03::status(status),
                "final": status.state.is_terminal() || status.state.is_interrupted(),
            }),
            (
                StreamEvent::Artifact {
                    task_id,
                    context_id,
                    artifact,
                },
                Dialect::V1,
            ) => json!({ "artifactUpdate": {
                "taskId": task_id, "contextId": context_id, "artifact": to_value(artifact),
                "lastChunk": true
            }}),
            (
                StreamEvent::Artifact {
                    task_id,
                    context_id,
                    artifact,
                },
                Dialect::V03,
            ) => json!({
                "kind": "artifact-update", "taskId": task_id, "contextId": context_id,
                "artifact": v03::artifact(artifact), "append": false, "lastChunk": true,
            }),
        }
    }

    /// An event (or a send's result) from either version's JSON: a 1.0 wrapper
    /// (`{"task": …}`, `{"statusUpdate": …}`, …), a 0.3 object with its `kind`, or a bare
    /// task or message (as the toolnexus contract's ports answer).
    pub(crate) fn from_value(value: &Value) -> Result<StreamEvent, String> {
        let Value::Object(map) = value else {
            return Err(format!("expected an object, got {}", short(value)));
        };
        let parse = |v: &Value| -> Result<StreamEvent, String> {
            let kind = v.get("kind").and_then(Value::as_str);
            let is = |key: &str| v.get(key).is_some();
            let event = match kind {
                Some("task") => StreamEvent::Task(from_json(v)?),
                Some("message") => StreamEvent::Message(from_json(v)?),
                Some("status-update") => status_event(v)?,
                Some("artifact-update") => artifact_event(v)?,
                _ if is("status") && is("id") => StreamEvent::Task(from_json(v)?),
                _ if is("parts") && is("role") => StreamEvent::Message(from_json(v)?),
                _ => return Err(format!("not a task, message or update: {}", short(v))),
            };
            Ok(event)
        };
        if let Some(task) = map.get("task") {
            return Ok(StreamEvent::Task(from_json(task)?));
        }
        if let Some(message) = map.get("message") {
            return Ok(StreamEvent::Message(from_json(message)?));
        }
        if let Some(update) = map.get("statusUpdate") {
            return status_event(update);
        }
        if let Some(update) = map.get("artifactUpdate") {
            return artifact_event(update);
        }
        parse(value)
    }

    /// The state this event leaves its task in, when it says.
    pub(crate) fn state(&self) -> Option<TaskState> {
        match self {
            StreamEvent::Task(task) => Some(task.status.state),
            StreamEvent::Status { status, .. } => Some(status.state),
            StreamEvent::Message(_) | StreamEvent::Artifact { .. } => None,
        }
    }
}

fn status_event(v: &Value) -> Result<StreamEvent, String> {
    Ok(StreamEvent::Status {
        task_id: str_field(v, "taskId"),
        context_id: str_field(v, "contextId"),
        status: from_json(v.get("status").unwrap_or(&Value::Null))?,
    })
}

fn artifact_event(v: &Value) -> Result<StreamEvent, String> {
    Ok(StreamEvent::Artifact {
        task_id: str_field(v, "taskId"),
        context_id: str_field(v, "contextId"),
        artifact: from_json(v.get("artifact").unwrap_or(&Value::Null))?,
    })
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// One of this module's types from JSON, with an error that says what was wrong.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.inner().to_string()
        } else {
            format!("{path}: {}", e.inner())
        }
    })
}

/// At most 200 characters of `value`'s JSON, for error messages.
pub(crate) fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

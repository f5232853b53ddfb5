//! The A2A 0.3 form of the data model: `kind` discriminators, kebab-case state names,
//! `user` / `agent` roles, `file` parts holding `bytes` or `uri`.

use serde_json::{Map, Value, json};

use super::{A2aMessage, Artifact, Part, Role, Task, TaskStatus};

pub(crate) fn part(part: &Part) -> Value {
    let mut out = Map::new();
    if let Some(text) = &part.text {
        out.insert("kind".into(), "text".into());
        out.insert("text".into(), text.clone().into());
    } else if let Some(data) = &part.data {
        out.insert("kind".into(), "data".into());
        // 0.3 data parts hold an object; anything else is wrapped.
        let data = match data {
            Value::Object(_) => data.clone(),
            other => json!({ "value": other }),
        };
        out.insert("data".into(), data);
    } else {
        let mut file = Map::new();
        if let Some(raw) = &part.raw {
            file.insert("bytes".into(), raw.clone().into());
        }
        if let Some(url) = &part.url {
            file.insert("uri".into(), url.clone().into());
        }
        if let Some(name) = &part.filename {
            file.insert("name".into(), name.clone().into());
        }
        if let Some(media) = &part.media_type {
            file.insert("mimeType".into(), media.clone().into());
        }
        out.insert("kind".into(), "file".into());
        out.insert("file".into(), Value::Object(file));
    }
    if let Some(metadata) = &part.metadata {
        out.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    Value::Object(out)
}

fn parts(parts: &[Part]) -> Value {
    Value::Array(parts.iter().map(part).collect())
}

pub(crate) fn message(message: &A2aMessage) -> Value {
    let mut out = Map::new();
    out.insert("kind".into(), "message".into());
    out.insert("messageId".into(), message.message_id.clone().into());
    let role = match message.role {
        Role::Agent => "agent",
        Role::User | Role::Unspecified => "user",
    };
    out.insert("role".into(), role.into());
    out.insert("parts".into(), parts(&message.parts));
    if !message.context_id.is_empty() {
        out.insert("contextId".into(), message.context_id.clone().into());
    }
    if !message.task_id.is_empty() {
        out.insert("taskId".into(), message.task_id.clone().into());
    }
    if let Some(metadata) = &message.metadata {
        out.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    if !message.reference_task_ids.is_empty() {
        out.insert(
            "referenceTaskIds".into(),
            message.reference_task_ids.clone().into(),
        );
    }
    Value::Object(out)
}

pub(crate) fn status(status: &TaskStatus) -> Value {
    let mut out = Map::new();
    out.insert("state".into(), status.state.as_str().into());
    if let Some(m) = &status.message {
        out.insert("message".into(), message(m));
    }
    if let Some(timestamp) = &status.timestamp {
        out.insert("timestamp".into(), timestamp.clone().into());
    }
    Value::Object(out)
}

pub(crate) fn artifact(artifact: &Artifact) -> Value {
    let mut out = Map::new();
    out.insert("artifactId".into(), artifact.artifact_id.clone().into());
    if let Some(name) = &artifact.name {
        out.insert("name".into(), name.clone().into());
    }
    if let Some(description) = &artifact.description {
        out.insert("description".into(), description.clone().into());
    }
    out.insert("parts".into(), parts(&artifact.parts));
    if let Some(metadata) = &artifact.metadata {
        out.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    Value::Object(out)
}

pub(crate) fn task(task: &Task) -> Value {
    let mut out = Map::new();
    out.insert("kind".into(), "task".into());
    out.insert("id".into(), task.id.clone().into());
    out.insert("contextId".into(), task.context_id.clone().into());
    out.insert("status".into(), status(&task.status));
    if !task.artifacts.is_empty() {
        out.insert(
            "artifacts".into(),
            Value::Array(task.artifacts.iter().map(artifact).collect()),
        );
    }
    if !task.history.is_empty() {
        out.insert(
            "history".into(),
            Value::Array(task.history.iter().map(message).collect()),
        );
    }
    if let Some(metadata) = &task.metadata {
        out.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    Value::Object(out)
}

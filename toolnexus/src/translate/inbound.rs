//! The inbound half: OpenAI's `messages`, `tools` and `tool_choice` read into the
//! transcript, the toolkit and the [`ToolChoice`] the providers already write out in
//! their own shapes.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::error::TranslateError;
use crate::model::Model;
use crate::model::message::{Message, ToolCall};
use crate::model::settings::ToolChoice;
use crate::schema::profile::Profile;
use crate::tool::content::{ContentPart, PartKind};
use crate::tool::def::{Tool, sanitize_name};
use crate::tool::handler::Dispatch;
use crate::tool::kit::Toolkit;
use crate::tool::result::ToolResult;

/// The source of the tools a request declares (`Tool::source`).
const DECLARED: &str = "declared";

/// The transcript of `messages`, with `system` (when given) in place of every system
/// and developer message.
pub(super) fn transcript(
    messages: &[Value],
    system: Option<&str>,
) -> Result<Vec<Message>, TranslateError> {
    if messages.is_empty() {
        return Err(TranslateError::at(
            "messages",
            "empty: a request needs at least one message",
        ));
    }
    let mut out = Vec::with_capacity(messages.len() + 1);
    if let Some(system) = system.filter(|s| !s.is_empty()) {
        out.push(Message::system(system));
    }
    // The ids of the calls asked for so far: a tool message answers one of them.
    let mut asked: HashSet<&str> = HashSet::new();
    for (i, message) in messages.iter().enumerate() {
        let at = format!("messages[{i}]");
        let Some(fields) = message.as_object() else {
            return Err(TranslateError::at(at, "a message must be an object"));
        };
        let role = fields.get("role").and_then(Value::as_str).ok_or_else(|| {
            TranslateError::at(
                &at,
                "no `role` (system, developer, user, assistant or tool)",
            )
        })?;
        match role {
            "system" | "developer" => {
                let text = text_of(fields, &at)?;
                if system.is_none() && !text.is_empty() {
                    out.push(Message::system(text));
                }
            }
            "user" => {
                // Text parts join into one text part, first; media parts follow in order.
                let (text, parts) = content(fields.get("content"), &format!("{at}.content"), true)?;
                if !parts.is_empty() {
                    let lead = (!text.is_empty()).then(|| ContentPart::text(text));
                    out.push(Message::user(
                        lead.into_iter().chain(parts).collect::<Vec<_>>(),
                    ));
                } else if !text.is_empty() {
                    out.push(Message::user(text));
                }
            }
            "assistant" => {
                if fields.get("function_call").is_some_and(|f| !f.is_null()) {
                    return Err(TranslateError::at(
                        format!("{at}.function_call"),
                        "the legacy `function_call` is not read: send the call in `tool_calls`",
                    ));
                }
                let text = text_of(fields, &at)?;
                let calls = calls_of(fields.get("tool_calls"), &at)?;
                let ids = fields.get("tool_calls").and_then(Value::as_array);
                asked.extend(ids.into_iter().flatten().filter_map(|c| c["id"].as_str()));
                if text.is_empty() && calls.is_empty() {
                    continue;
                }
                out.push(Message::tool_calls(
                    (!text.is_empty()).then_some(text),
                    calls,
                ));
            }
            "tool" => out.push(tool_message(fields, &at, &asked)?),
            "function" => {
                return Err(TranslateError::at(
                    format!("{at}.role"),
                    "the legacy `function` role is not read: send a `tool` message with the \
                     `tool_call_id` it answers",
                ));
            }
            other => {
                return Err(TranslateError::at(
                    format!("{at}.role"),
                    format!("unknown role `{other}` (system, developer, user, assistant or tool)"),
                ));
            }
        }
    }
    Ok(out)
}

/// A `tool` message: the result of a call an earlier assistant message asked for.
fn tool_message(
    fields: &Map<String, Value>,
    at: &str,
    asked: &HashSet<&str>,
) -> Result<Message, TranslateError> {
    let id = match fields.get("tool_call_id") {
        Some(Value::String(id)) if !id.is_empty() => id,
        _ => {
            return Err(TranslateError::at(
                format!("{at}.tool_call_id"),
                "missing: a tool message names the call it answers",
            ));
        }
    };
    if !asked.contains(id.as_str()) {
        return Err(TranslateError::at(
            format!("{at}.tool_call_id"),
            format!("`{id}` answers no call of an earlier assistant message"),
        ));
    }
    let (text, parts) = content(fields.get("content"), &format!("{at}.content"), true)?;
    let mut result = ToolResult::ok(text);
    if !parts.is_empty() {
        result = result.with_parts(parts);
    }
    Ok(Message::tool_result(id, &result))
}

/// The text of a message that carries text only.
fn text_of(fields: &Map<String, Value>, at: &str) -> Result<String, TranslateError> {
    content(fields.get("content"), &format!("{at}.content"), false).map(|(text, _)| text)
}

/// A `content` value's text, and its media parts where `media` allows them: a string,
/// `null`, or an array of parts whose text parts are joined.
fn content(
    value: Option<&Value>,
    at: &str,
    media: bool,
) -> Result<(String, Vec<ContentPart>), TranslateError> {
    let parts = match value {
        None | Some(Value::Null) => return Ok((String::new(), Vec::new())),
        Some(Value::String(text)) => return Ok((text.clone(), Vec::new())),
        Some(Value::Array(parts)) => parts,
        Some(_) => {
            return Err(TranslateError::at(
                at,
                "must be a string, null or an array of parts",
            ));
        }
    };
    let mut text = String::new();
    let mut found = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let Some(fields) = part.as_object() else {
            return Err(TranslateError::at(at, "a content part must be an object"));
        };
        if let Some(piece) = fields.get("text").and_then(Value::as_str) {
            text.push_str(piece);
            continue;
        }
        let kind = fields.get("type").and_then(Value::as_str).unwrap_or("");
        match media_kind(kind, fields) {
            Some(kind) if media => found.push(media_part(kind, fields, &at)?),
            _ => {
                let carried = if media {
                    "text parts, and the contract's media parts ({\"type\": \"image\" | \
                     \"file\" | \"audio\", \"mimeType\", \"data\" | \"url\"})"
                } else {
                    "text parts only: media travels in user messages and tool results"
                };
                return Err(TranslateError::at(
                    at,
                    format!("a `{kind}` part cannot be carried; this message takes {carried}"),
                ));
            }
        }
    }
    Ok((text, found))
}

/// The kind of a contract media part (`{"type": "image" | "file" | "audio", "mimeType"}`).
fn media_kind(kind: &str, fields: &Map<String, Value>) -> Option<PartKind> {
    fields.get("mimeType")?.as_str()?;
    match kind {
        "image" => Some(PartKind::Image),
        "file" | "document" => Some(PartKind::File),
        "audio" => Some(PartKind::Audio),
        _ => None,
    }
}

/// A media part, read by the contract's rules (a `mimeType`, and exactly one of `data`
/// and `url`).
fn media_part(
    _kind: PartKind,
    fields: &Map<String, Value>,
    at: &str,
) -> Result<ContentPart, TranslateError> {
    serde_json::from_value(Value::Object(fields.clone()))
        .map_err(|e| TranslateError::at(at, e.to_string()))
}

/// An assistant message's `tool_calls`.
fn calls_of(value: Option<&Value>, at: &str) -> Result<Vec<ToolCall>, TranslateError> {
    let calls = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(calls)) => calls,
        Some(_) => {
            return Err(TranslateError::at(
                format!("{at}.tool_calls"),
                "must be an array",
            ));
        }
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let at = format!("{at}.tool_calls[{i}]");
            let kind = call.get("type").and_then(Value::as_str).unwrap_or("function");
            if kind != "function" {
                return Err(TranslateError::at(
                    format!("{at}.type"),
                    format!("a `{kind}` call cannot be carried (function calls only)"),
                ));
            }
            let id = match call.get("id") {
                Some(Value::String(id)) if !id.is_empty() => id,
                _ => return Err(TranslateError::at(format!("{at}.id"), "missing")),
            };
            let Some(function) = call.get("function").and_then(Value::as_object) else {
                return Err(TranslateError::at(
                    format!("{at}.function"),
                    "missing: a call is {\"id\", \"type\": \"function\", \"function\": {\"name\", \"arguments\"}}",
                ));
            };
            let name = match function.get("name") {
                Some(Value::String(name)) if !name.is_empty() => name,
                _ => return Err(TranslateError::at(format!("{at}.function.name"), "missing")),
            };
            let arguments = match function.get("arguments") {
                None | Some(Value::Null) => "{}".to_owned(),
                Some(Value::String(text)) => text.clone(),
                Some(object @ Value::Object(_)) => object.to_string(),
                Some(_) => {
                    return Err(TranslateError::at(
                        format!("{at}.function.arguments"),
                        "must be JSON text or an object",
                    ));
                }
            };
            Ok(ToolCall::new(id, name, arguments))
        })
        .collect()
}

/// The toolkit a request lists: `toolkit`'s tools, then the declared `tools`.
pub(super) fn toolkit(
    toolkit: Option<&Toolkit>,
    tools: &[Value],
) -> Result<Toolkit, TranslateError> {
    let mut out = toolkit.cloned().unwrap_or_default();
    for (i, entry) in tools.iter().enumerate() {
        let at = format!("tools[{i}]");
        let tool = declared(entry, &at)?;
        if out.get(tool.name()).is_some() {
            return Err(TranslateError::at(
                at,
                format!("a tool named `{}` is already listed", tool.name()),
            ));
        }
        out.register(tool)
            .map_err(|rejected| TranslateError::at(&at, rejected.to_string()))?;
    }
    Ok(out)
}

/// A tool of the request's `tools`, listed and never run.
fn declared(entry: &Value, at: &str) -> Result<Tool, TranslateError> {
    let Some(fields) = entry.as_object() else {
        return Err(TranslateError::at(at, "a tool must be an object"));
    };
    let (fields, schema_key, at) = match fields.get("function") {
        Some(Value::Object(function)) => (function, "parameters", format!("{at}.function")),
        Some(_) => {
            return Err(TranslateError::at(
                format!("{at}.function"),
                "must be an object",
            ));
        }
        None if fields.get("type").is_none_or(|t| t == "custom") => {
            (fields, "input_schema", at.to_owned())
        }
        None => {
            let kind = fields.get("type").and_then(Value::as_str).unwrap_or("?");
            return Err(TranslateError::at(
                at,
                format!(
                    "a `{kind}` tool cannot be carried (function tools only: {{\"type\": \
                     \"function\", \"function\": {{\"name\", \"description\", \"parameters\"}}}})"
                ),
            ));
        }
    };
    let name = match fields.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name,
        _ => return Err(TranslateError::at(format!("{at}.name"), "missing")),
    };
    if sanitize_name(name) != *name {
        return Err(TranslateError::at(
            format!("{at}.name"),
            format!("`{name}` has characters providers refuse (a-z, A-Z, 0-9, _ and - only)"),
        ));
    }
    let description = match fields.get("description") {
        None | Some(Value::Null) => "",
        Some(Value::String(text)) => text,
        Some(_) => {
            return Err(TranslateError::at(
                format!("{at}.description"),
                "must be a string",
            ));
        }
    };
    let schema = match fields.get(schema_key) {
        None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
        Some(schema @ Value::Object(_)) => schema.clone(),
        Some(_) => {
            return Err(TranslateError::at(
                format!("{at}.{schema_key}"),
                "must be a JSON schema object",
            ));
        }
    };
    Ok(Tool::from_handler(
        name.as_str(),
        description,
        schema,
        DECLARED,
        Box::new(|_, _| {
            Dispatch::Ready(ToolResult::error(
                "declared for translation: translate runs no tool",
            ))
        }),
    ))
}

/// Checks that every tool can be listed in `model`'s dialect, where the model says which
/// it speaks: a provider leaves out a tool it cannot list, and one left out of a
/// translation would be a silent loss.
pub(super) fn check_listing(model: &dyn Model, toolkit: &Toolkit) -> Result<(), TranslateError> {
    let profile = match model.describe().provider {
        Some("openai") => Profile::OpenAi,
        Some("anthropic") => Profile::Anthropic,
        Some("gcp.gemini") => Profile::Gemini,
        _ => return Ok(()),
    };
    if toolkit.is_empty() {
        return Ok(());
    }
    toolkit
        .try_listing(profile)
        .map(drop)
        .map_err(|error| TranslateError::at("tools", error.to_string()))
}

/// OpenAI's `tool_choice` as a [`ToolChoice`]; `None` when absent or `null`.
pub(super) fn tool_choice(value: Option<&Value>) -> Result<Option<ToolChoice>, TranslateError> {
    let refused = |value: &Value| {
        TranslateError::at(
            "tool_choice",
            format!(
                "`{value}` is not a tool choice (\"auto\", \"none\", \"required\", or \
                 {{\"type\": \"function\", \"function\": {{\"name\"}}}})"
            ),
        )
    };
    let Some(value) = value else {
        return Ok(None);
    };
    match value {
        Value::Null => Ok(None),
        Value::String(mode) => match mode.as_str() {
            "auto" => Ok(Some(ToolChoice::Auto)),
            "none" => Ok(Some(ToolChoice::None)),
            "required" | "any" => Ok(Some(ToolChoice::Required)),
            _ => Err(refused(value)),
        },
        Value::Object(fields) => match fields.get("function").and_then(|f| f.get("name")) {
            Some(Value::String(name)) if !name.is_empty() => Ok(Some(ToolChoice::tool(name))),
            _ => Err(refused(value)),
        },
        _ => Err(refused(value)),
    }
}

//! The forms of a request body each API documents as the same request, made one, so the
//! two ports' bodies can be compared whole. Applied to both bodies alike; every rule is
//! in the providers guide's list of differences, with the API's own words for it.

use serde_json::{Map, Value, json};

/// A Messages API body:
/// - a `content` string (of a message or of a `tool_result`) is "shorthand for an array of
///   one content block of type `text`" (the API reference, `messages`);
/// - "consecutive `user` or `assistant` turns in your request will be combined into a
///   single turn" (the same), so they are combined here;
/// - `tool_choice: {"type": "auto"}` is "the default value when tools are provided".
pub fn anthropic(body: &Value) -> Value {
    let mut body = body.clone();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let mut merged: Vec<Value> = Vec::new();
    for message in messages {
        let blocks: Vec<Value> = blocks(&message["content"])
            .into_iter()
            .map(|mut block| {
                if block["type"] == "tool_result" && block["content"].is_string() {
                    block["content"] = Value::Array(blocks(&block["content"]));
                }
                block
            })
            .collect();
        match merged.last_mut() {
            Some(last) if last["role"] == message["role"] => {
                last["content"].as_array_mut().unwrap().extend(blocks);
            }
            _ => merged.push(json!({"role": message["role"], "content": blocks})),
        }
    }
    body["messages"] = Value::Array(merged);
    if body.get("tool_choice") == Some(&json!({"type": "auto"})) {
        body.as_object_mut().unwrap().remove("tool_choice");
    }
    body
}

fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        Value::Array(blocks) => blocks.clone(),
        _ => Vec::new(),
    }
}

/// A Chat Completions body:
/// - `max_tokens` is the deprecated name of `max_completion_tokens` ("deprecated in favor
///   of `max_completion_tokens`");
/// - an assistant message's `content` is "required unless `tool_calls` … is specified":
///   `null` and absent are the same;
/// - a `content` array of text parts is the text of its parts, joined.
pub fn openai(body: &Value) -> Value {
    let mut body = body.clone();
    let fields = body.as_object_mut().unwrap();
    if let Some(max) = fields.remove("max_tokens") {
        fields.insert("max_completion_tokens".to_owned(), max);
    }
    for message in fields
        .get_mut("messages")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let message: &mut Map<String, Value> = message.as_object_mut().unwrap();
        if message.get("content") == Some(&Value::Null) {
            message.remove("content");
        }
        if let Some(Value::Array(parts)) = message.get("content")
            && parts.iter().all(|p| p["type"] == "text")
        {
            let text: String = parts.iter().filter_map(|p| p["text"].as_str()).collect();
            message.insert("content".to_owned(), Value::String(text));
        }
    }
    body
}

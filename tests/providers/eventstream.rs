//! AWS event-stream frames for the Bedrock tests, written with the AWS encoder
//! (`aws-smithy-eventstream`), as Bedrock's ConverseStream sends them.

use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
use serde_json::Value;

fn string(value: &str) -> HeaderValue {
    HeaderValue::String(value.to_owned().into())
}

/// One frame per `(event type, JSON payload)`.
pub fn frames(events: &[(String, Value)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (kind, payload) in events {
        let message = Message::new(payload.to_string().into_bytes())
            .add_header(Header::new(":event-type", string(kind)))
            .add_header(Header::new(":content-type", string("application/json")))
            .add_header(Header::new(":message-type", string("event")));
        aws_smithy_eventstream::frame::write_message_to(&message, &mut out).unwrap();
    }
    out
}

/// An exception frame (`throttlingException`, …) with this message.
pub fn exception(kind: &str, message: &str) -> Vec<u8> {
    let payload = serde_json::json!({ "message": message }).to_string();
    let message = Message::new(payload.into_bytes())
        .add_header(Header::new(":exception-type", string(kind)))
        .add_header(Header::new(":content-type", string("application/json")))
        .add_header(Header::new(":message-type", string("exception")));
    let mut out = Vec::new();
    aws_smithy_eventstream::frame::write_message_to(&message, &mut out).unwrap();
    out
}

/// A Converse response (its `output.message.content`, `stopReason`, `usage`) as the
/// ConverseStream events that carry it, text and inputs cut in two deltas.
pub fn events(response: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut emit = |kind: &str, payload: Value| out.push((kind.to_owned(), payload));
    emit("messageStart", serde_json::json!({"role": "assistant"}));
    let content = response["output"]["message"]["content"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (index, block) in content.iter().enumerate() {
        let half = |text: &str| {
            let at = text
                .char_indices()
                .nth(text.chars().count() / 2)
                .map_or(0, |(i, _)| i);
            (text[..at].to_owned(), text[at..].to_owned())
        };
        let mut deltas = Vec::new();
        if let Some(call) = block.get("toolUse") {
            emit(
                "contentBlockStart",
                serde_json::json!({"contentBlockIndex": index,
                    "start": {"toolUse": {"toolUseId": call["toolUseId"], "name": call["name"]}}}),
            );
            let (head, tail) = half(&call["input"].to_string());
            deltas.push(serde_json::json!({"toolUse": {"input": head}}));
            deltas.push(serde_json::json!({"toolUse": {"input": tail}}));
        } else if let Some(text) = block["text"].as_str() {
            let (head, tail) = half(text);
            deltas.push(serde_json::json!({"text": head}));
            deltas.push(serde_json::json!({"text": tail}));
        } else if let Some(reasoning) = block["reasoningContent"].get("reasoningText") {
            let (head, tail) = half(reasoning["text"].as_str().unwrap_or(""));
            deltas.push(serde_json::json!({"reasoningContent": {"text": head}}));
            deltas.push(serde_json::json!({"reasoningContent": {"text": tail}}));
            deltas.push(
                serde_json::json!({"reasoningContent": {"signature": reasoning["signature"]}}),
            );
        } else if let Some(redacted) = block["reasoningContent"].get("redactedContent") {
            deltas.push(serde_json::json!({"reasoningContent": {"redactedContent": redacted}}));
        }
        for delta in deltas {
            emit(
                "contentBlockDelta",
                serde_json::json!({"contentBlockIndex": index, "delta": delta}),
            );
        }
        emit(
            "contentBlockStop",
            serde_json::json!({"contentBlockIndex": index}),
        );
    }
    emit(
        "messageStop",
        serde_json::json!({"stopReason": response["stopReason"]}),
    );
    emit(
        "metadata",
        serde_json::json!({"usage": response["usage"], "metrics": {"latencyMs": 120}}),
    );
    out
}

//! Bedrock's Converse API's side of the rules server (`/model/{id}/converse` and
//! `/converse-stream`).
//!
//! With Claude's thinking on (`additionalModelRequestFields.thinking`), each turn starts
//! with a signed `reasoningContent` block (the first also with a `redactedContent` one);
//! a reasoning block sent back altered (its signature no longer matches), or a final
//! assistant turn of a tool loop that does not start with reasoning, is refused with a
//! `ValidationException` in the words Bedrock passes on from the model ("The model
//! returned the following errors: …"), as is a request whose tool results answer no
//! call of the turn before them.

use serde_json::{Value, json};

use super::{Out, Shared, Step, eventstream, script_over};

fn error(message: String) -> Out {
    Out::Aws(400, "ValidationException", json!({ "message": message }))
}

fn thinking_on(body: &Value) -> bool {
    body["additionalModelRequestFields"]["thinking"]["type"] == "enabled"
}

/// The rule a request breaks, as the API words it.
pub fn check(shared: &Shared, body: &Value) -> Option<Out> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    for (i, message) in messages.iter().enumerate() {
        for (j, block) in message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(reasoning) = block["reasoningContent"].get("reasoningText") {
                let text = reasoning["text"].as_str().unwrap_or("");
                if shared.thinking.get(text).map(String::as_str) != reasoning["signature"].as_str()
                {
                    return Some(error(format!(
                        "The model returned the following errors: messages.{i}.content.{j}: \
                         Invalid `signature` in `thinking` block"
                    )));
                }
            }
            if let Some(result) = block.get("toolResult") {
                let id = &result["toolUseId"];
                let asked = i >= 1
                    && messages[i - 1]["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|b| &b["toolUse"]["toolUseId"] == id);
                if !asked {
                    return Some(error(format!(
                        "The toolResult blocks at messages.{i}.content contain a toolUseId \
                         {id} that has no toolUse block in the turn before"
                    )));
                }
            }
        }
    }
    let last = messages.len().checked_sub(1)?;
    let results = messages[last]["content"]
        .as_array()
        .is_some_and(|c| c.iter().any(|b| b.get("toolResult").is_some()));
    if thinking_on(body) && results && last >= 1 {
        let first = &messages[last - 1]["content"][0];
        if first.get("reasoningContent").is_none() {
            return Some(error(format!(
                "The model returned the following errors: messages.{}.content.0.type: \
                 Expected `thinking` or `redacted_thinking`, but found `{}`. When `thinking` \
                 is enabled, a final `assistant` message must start with a thinking block",
                last - 1,
                first
                    .as_object()
                    .and_then(|o| o.keys().next().cloned())
                    .unwrap_or_default()
            )));
        }
    }
    None
}

/// One turn: the rules checked, then the next scripted step, with signed reasoning when
/// thinking is on.
pub fn turn(shared: &mut Shared, body: &Value, stream: bool) -> Out {
    if let Some(broken) = check(shared, body) {
        return broken;
    }
    let Some(step) = shared.script.pop_front() else {
        return script_over();
    };
    let mut content = Vec::new();
    if thinking_on(body) {
        let n = shared.counter + 1;
        let thinking = format!("Turn {n}: the tools answer this; call them, then sum up.");
        let signature = shared.opaque("signature");
        shared.thinking.insert(thinking.clone(), signature.clone());
        content.push(json!({"reasoningContent": {"reasoningText": {"text": thinking, "signature": signature}}}));
        if shared.thinking.len() == 1 {
            let data = shared.opaque("redacted");
            content.push(json!({"reasoningContent": {"redactedContent": data}}));
        }
    }
    let stop = match &step {
        Step::Calls(calls) => {
            for (name, args) in calls {
                let id = shared.id("tooluse_");
                content.push(json!({"toolUse": {"toolUseId": id, "name": name, "input": args}}));
            }
            "tool_use"
        }
        Step::Text(text) => {
            content.push(json!({"text": text}));
            "end_turn"
        }
        Step::Fail(..) => unreachable!("a failing step is answered before the turn"),
    };
    let response = json!({
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 120, "outputTokens": 40, "totalTokens": 160},
        "metrics": {"latencyMs": 250}
    });
    match stream {
        false => Out::Json(200, response),
        true => Out::Frames(eventstream::events(&response)),
    }
}

//! Gemini's side of the rules server.
//!
//! Error bodies are the API's own, as reported by its users: "Function call is missing a
//! thought_signature in functionCall parts. This is required for tools to work correctly,
//! … function call `default_api:NAME` , position N. …" and "Corrupted thought signature."
//! (both `INVALID_ARGUMENT`). As documented, the signatures checked are those of the
//! current turn: the model contents since the last user message that is not only function
//! responses, on the first function call of each step.

use serde_json::{Value, json};

use super::{Out, Shared, Step, script_over, tokens};

fn error(message: String) -> Out {
    Out::Json(
        400,
        json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}),
    )
}

/// The rule a request breaks, as the API words it.
pub fn check(shared: &Shared, body: &Value) -> Option<Out> {
    let contents = body["contents"].as_array().cloned().unwrap_or_default();
    let start = contents
        .iter()
        .rposition(|c| {
            c["role"] == "user"
                && c["parts"]
                    .as_array()
                    .is_some_and(|p| p.iter().any(|p| p.get("text").is_some()))
        })
        .map_or(0, |i| i + 1);
    for (position, content) in contents.iter().enumerate().skip(start) {
        if content["role"] != "model" {
            continue;
        }
        let parts = content["parts"].as_array().cloned().unwrap_or_default();
        let Some(first) = parts.iter().find(|p| p.get("functionCall").is_some()) else {
            continue;
        };
        let id = first["functionCall"]["id"].as_str().unwrap_or("");
        let Some((name, signature)) = shared.signed.get(id) else {
            continue;
        };
        match first["thoughtSignature"].as_str() {
            None => {
                return Some(error(format!(
                    "Function call is missing a thought_signature in functionCall parts. This is \
                     required for tools to work correctly, and missing thought_signature may lead \
                     to degraded model performance. Additional data, function call \
                     `default_api:{name}` , position {position}. Please refer to \
                     https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
                )));
            }
            Some(sent) if sent != signature => {
                return Some(error("Corrupted thought signature.".to_owned()));
            }
            Some(_) => {}
        }
    }
    None
}

/// One turn: the rules checked, then the next scripted step, its first call signed (and,
/// with thoughts asked for, a thought summary first).
pub fn turn(shared: &mut Shared, body: &Value, stream: bool) -> Out {
    if let Some(broken) = check(shared, body) {
        return broken;
    }
    let Some(step) = shared.script.pop_front() else {
        return script_over();
    };
    let mut parts = Vec::new();
    let thoughts = body["generationConfig"]["thinkingConfig"]["includeThoughts"] == true;
    if thoughts {
        parts.push(json!({"text": "Working out which tools to call.", "thought": true}));
    }
    match &step {
        Step::Calls(calls) => {
            for (i, (name, args)) in calls.iter().enumerate() {
                let id = shared.id("gc_");
                let mut part = json!({"functionCall": {"id": id, "name": name, "args": args}});
                if i == 0 {
                    let signature = shared.opaque("thought");
                    shared
                        .signed
                        .insert(id, ((*name).to_owned(), signature.clone()));
                    part["thoughtSignature"] = json!(signature);
                }
                parts.push(part);
            }
        }
        Step::Text(text) => {
            let signature = shared.opaque("thought");
            parts.push(json!({"text": text, "thoughtSignature": signature}));
        }
        Step::Fail(..) => unreachable!("a failing step is answered before the turn"),
    }
    let prompt = tokens(body["contents"].to_string().len() + body["tools"].to_string().len());
    let usage = json!({"promptTokenCount": prompt, "candidatesTokenCount": 20,
                       "thoughtsTokenCount": 12, "totalTokenCount": prompt + 32});
    let response = |parts: Vec<Value>, finish: Option<&str>, usage: Option<&Value>| {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        if let Some(finish) = finish {
            candidate["finishReason"] = json!(finish);
        }
        let mut chunk =
            json!({"candidates": [candidate], "modelVersion": "gemini-test", "responseId": "r1"});
        if let Some(usage) = usage {
            chunk["usageMetadata"] = usage.clone();
        }
        chunk
    };
    match stream {
        false => Out::Json(200, response(parts, Some("STOP"), Some(&usage))),
        true => {
            // One part per chunk; the last chunk carries the finish reason and the usage.
            let count = parts.len();
            let chunks = parts
                .into_iter()
                .enumerate()
                .map(|(i, part)| {
                    let last = i + 1 == count;
                    let chunk =
                        response(vec![part], last.then_some("STOP"), last.then_some(&usage));
                    (None, chunk)
                })
                .collect();
            Out::Events(chunks)
        }
    }
}

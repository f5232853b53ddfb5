//! The Responses API's side of the rules server.
//!
//! Error bodies are the API's own, as reported by its users: "Item 'fc_…' of type
//! 'function_call' was provided without its required 'reasoning' item: 'rs_…'.", "Item
//! 'rs_…' of type 'reasoning' was provided without its required following item.", "Item
//! with id 'rs_…' not found. Items are not persisted when `store` is set to false. …"
//! (a 404), "The encrypted content … could not be verified." (`invalid_encrypted_content`)
//! and "No tool call found for function call output with call_id …".

use serde_json::{Value, json};

use super::{Out, Shared, Step, script_over, tokens};

fn error(status: u16, message: String, param: Option<&str>, code: Option<&str>) -> Out {
    Out::Json(
        status,
        json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}),
    )
}

/// The rule a request breaks, as the API words it.
pub fn check(shared: &Shared, body: &Value) -> Option<Out> {
    let input = body["input"].as_array().cloned().unwrap_or_default();
    let stored = body["store"] != false;
    for (i, item) in input.iter().enumerate() {
        let id = item["id"].as_str().unwrap_or("");
        match item["type"].as_str() {
            Some("reasoning") => {
                let Some((encrypted, following)) = shared.reasoning.get(id) else {
                    return Some(not_found(id));
                };
                if !stored {
                    match item["encrypted_content"].as_str() {
                        None => return Some(not_found(id)),
                        Some(sent) if Some(sent) != encrypted.as_deref() => {
                            let short = format!(
                                "{}...{}",
                                &sent[..sent.len().min(4)],
                                &sent[sent.len().saturating_sub(4)..]
                            );
                            return Some(error(
                                400,
                                format!("The encrypted content {short} could not be verified."),
                                None,
                                Some("invalid_encrypted_content"),
                            ));
                        }
                        Some(_) => {}
                    }
                }
                if input.get(i + 1).and_then(|next| next["id"].as_str()) != Some(following) {
                    return Some(error(
                        400,
                        format!(
                            "Item '{id}' of type 'reasoning' was provided without its required following item."
                        ),
                        Some("input"),
                        None,
                    ));
                }
            }
            Some("function_call") if !id.is_empty() => {
                if let Some(reasoning) = shared.call_reasoning.get(id)
                    && !input[..i]
                        .iter()
                        .any(|before| before["id"] == reasoning.as_str())
                {
                    return Some(error(
                        400,
                        format!(
                            "Item '{id}' of type 'function_call' was provided without its required 'reasoning' item: '{reasoning}'."
                        ),
                        Some("input"),
                        None,
                    ));
                }
            }
            Some("function_call_output") => {
                let call = item["call_id"].as_str().unwrap_or("");
                let called = input[..i]
                    .iter()
                    .any(|before| before["type"] == "function_call" && before["call_id"] == call);
                if !called {
                    return Some(error(
                        400,
                        format!("No tool call found for function call output with call_id {call}."),
                        Some("input"),
                        None,
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

fn not_found(id: &str) -> Out {
    error(
        404,
        format!(
            "Item with id '{id}' not found. Items are not persisted when `store` is set to false. \
             Try again with `store` set to true, or remove this item from your input."
        ),
        Some("input"),
        None,
    )
}

/// One turn: the rules checked, then the next scripted step, with its reasoning item.
pub fn turn(shared: &mut Shared, body: &Value, stream: bool) -> Out {
    if let Some(broken) = check(shared, body) {
        return broken;
    }
    let Some(step) = shared.script.pop_front() else {
        return script_over();
    };
    let encrypted = body["include"]
        .as_array()
        .is_some_and(|i| i.iter().any(|v| v == "reasoning.encrypted_content"));
    let rs = shared.id("rs_");
    let n = shared.counter;
    let mut reasoning = json!({"id": rs, "type": "reasoning",
        "summary": [{"type": "summary_text", "text": format!("Step {n}: deciding what to call.")}]});
    let secret = encrypted.then(|| shared.opaque(&rs));
    if let Some(secret) = &secret {
        reasoning["encrypted_content"] = json!(secret);
    }
    let mut output = vec![reasoning];
    match &step {
        Step::Calls(calls) => {
            for (name, args) in calls {
                let fc = shared.id("fc_");
                let call_id = shared.id("call_");
                shared.call_reasoning.insert(fc.clone(), rs.clone());
                output.push(
                    json!({"id": fc, "type": "function_call", "call_id": call_id,
                    "name": name, "arguments": args.to_string(), "status": "completed"}),
                );
            }
        }
        Step::Text(text) => {
            let msg = shared.id("msg_");
            output.push(
                json!({"id": msg, "type": "message", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}),
            );
        }
        Step::Fail(..) => unreachable!("a failing step is answered before the turn"),
    }
    let following = output[1]["id"].as_str().unwrap_or("").to_owned();
    shared.reasoning.insert(rs, (secret, following));
    let input_tokens = tokens(body["input"].to_string().len() + body["tools"].to_string().len());
    let response = json!({
        "id": shared.id("resp_"), "object": "response", "created_at": 1_760_000_000,
        "status": "completed", "model": body["model"], "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls").cloned().unwrap_or(json!(true)),
        "tool_choice": body.get("tool_choice").cloned().unwrap_or(json!("auto")),
        "tools": body.get("tools").cloned().unwrap_or(json!([])),
        "error": null, "incomplete_details": null,
        "usage": {"input_tokens": input_tokens,
                  "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 24},
                  "total_tokens": input_tokens + 40}
    });
    match stream {
        false => Out::Json(200, response),
        true => Out::Events(events(shared, &response)),
    }
}

/// A response as the API streams it: created, each item added / delta'd / done, completed.
pub fn events(shared: &mut Shared, response: &Value) -> Vec<(Option<String>, Value)> {
    let mut seq = 0;
    let mut out = Vec::new();
    let mut emit = |mut event: Value| {
        event["sequence_number"] = json!(seq);
        seq += 1;
        let name = event["type"].as_str().map(str::to_owned);
        out.push((name, event));
    };
    let mut created = response.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    created["usage"] = Value::Null;
    emit(json!({"type": "response.created", "response": created.clone()}));
    emit(json!({"type": "response.in_progress", "response": created}));
    for (index, item) in response["output"].as_array().unwrap().iter().enumerate() {
        let id = item["id"].clone();
        match item["type"].as_str() {
            Some("reasoning") => {
                let mut added = item.clone();
                added["summary"] = json!([]);
                emit(
                    json!({"type": "response.output_item.added", "output_index": index, "item": added}),
                );
                let text = item["summary"][0]["text"].clone();
                emit(
                    json!({"type": "response.reasoning_summary_part.added", "item_id": id, "output_index": index,
                            "summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
                );
                emit(
                    json!({"type": "response.reasoning_summary_text.delta", "item_id": id, "output_index": index,
                            "summary_index": 0, "delta": text}),
                );
                emit(
                    json!({"type": "response.reasoning_summary_text.done", "item_id": id, "output_index": index,
                            "summary_index": 0, "text": text}),
                );
                emit(
                    json!({"type": "response.reasoning_summary_part.done", "item_id": id, "output_index": index,
                            "summary_index": 0, "part": {"type": "summary_text", "text": text}}),
                );
            }
            Some("function_call") => {
                let mut added = item.clone();
                added["arguments"] = json!("");
                added["status"] = json!("in_progress");
                emit(
                    json!({"type": "response.output_item.added", "output_index": index, "item": added}),
                );
                let arguments = item["arguments"].as_str().unwrap_or("");
                let (head, tail) = arguments.split_at(arguments.len() / 2);
                for piece in [head, tail] {
                    emit(
                        json!({"type": "response.function_call_arguments.delta", "item_id": id,
                                "output_index": index, "delta": piece}),
                    );
                }
                emit(
                    json!({"type": "response.function_call_arguments.done", "item_id": id,
                            "output_index": index, "arguments": arguments}),
                );
            }
            _ => {
                let mut added = item.clone();
                added["content"] = json!([]);
                added["status"] = json!("in_progress");
                emit(
                    json!({"type": "response.output_item.added", "output_index": index, "item": added}),
                );
                let text = item["content"][0]["text"].as_str().unwrap_or("");
                emit(
                    json!({"type": "response.content_part.added", "item_id": id, "output_index": index,
                            "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
                );
                for word in text.split_inclusive(' ') {
                    emit(
                        json!({"type": "response.output_text.delta", "item_id": id, "output_index": index,
                                "content_index": 0, "delta": word, "logprobs": []}),
                    );
                }
                emit(
                    json!({"type": "response.output_text.done", "item_id": id, "output_index": index,
                            "content_index": 0, "text": text, "logprobs": []}),
                );
                emit(
                    json!({"type": "response.content_part.done", "item_id": id, "output_index": index,
                            "content_index": 0, "part": item["content"][0]}),
                );
            }
        }
        emit(json!({"type": "response.output_item.done", "output_index": index, "item": item}));
    }
    let _ = shared;
    emit(json!({"type": "response.completed", "response": response}));
    out
}

//! The Messages API's side of the rules server, its prompt cache included.
//!
//! Error bodies are the API's own, as reported by its users: "messages.N.content.0.type:
//! Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is
//! enabled, a final `assistant` message must start with a thinking block …",
//! "messages.N.content.M: Invalid `signature` in `thinking` block", and "A maximum of 4
//! blocks with cache_control may be provided. Found 5.".
//!
//! The cache follows Anthropic's documented model: the prompt is the tools, then the
//! system blocks, then the messages' blocks; a breakpoint (`cache_control`) caches the
//! prefix ending at its block once that prefix is at least 1,024 tokens; a later request
//! reads the longest cached prefix that ends at one of its breakpoints or at one of the
//! 20 blocks before each. Tokens are counted as a quarter of the canonical JSON's bytes.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Value, json};

use super::{CacheTurn, Out, Shared, Step, script_over, tokens};

/// The smallest prefix the cache keeps (Claude Sonnet and Opus: 1,024 tokens).
const MIN_CACHED_TOKENS: u64 = 1024;
/// How many blocks before a breakpoint the cache looks back for a hit.
const LOOKBACK: usize = 20;

fn error(message: String) -> Out {
    Out::Json(
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": message},
               "request_id": "req_011CRulesServer"}),
    )
}

fn thinking_on(body: &Value) -> bool {
    matches!(
        body["thinking"]["type"].as_str(),
        Some("enabled" | "adaptive")
    )
}

/// How many `cache_control` breakpoints the request has, top-level one included.
pub fn breakpoints(value: &Value) -> usize {
    match value {
        Value::Object(map) => {
            usize::from(map.contains_key("cache_control"))
                + map.values().map(breakpoints).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(breakpoints).sum(),
        _ => 0,
    }
}

/// The rule a request breaks, as the API words it.
pub fn check(shared: &Shared, body: &Value) -> Option<Out> {
    let found = breakpoints(body);
    if found > 4 {
        return Some(error(format!(
            "A maximum of 4 blocks with cache_control may be provided. Found {found}."
        )));
    }
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    for (i, message) in messages.iter().enumerate() {
        if message["role"] != "assistant" {
            continue;
        }
        for (j, block) in message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if block["type"] == "thinking" {
                let text = block["thinking"].as_str().unwrap_or("");
                if shared.thinking.get(text).map(String::as_str) != block["signature"].as_str() {
                    return Some(error(format!(
                        "messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
                    )));
                }
            }
        }
    }
    // With thinking on, the assistant turn before the last tool results starts with it.
    let last = messages.len().checked_sub(1)?;
    let results = messages[last]["content"]
        .as_array()
        .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"));
    if thinking_on(body) && results && last >= 1 && messages[last - 1]["role"] == "assistant" {
        let first = &messages[last - 1]["content"][0]["type"];
        if first != "thinking" && first != "redacted_thinking" {
            let found = first.as_str().unwrap_or("text");
            return Some(error(format!(
                "messages.{}.content.0.type: Expected `thinking` or `redacted_thinking`, but \
                 found `{found}`. When `thinking` is enabled, a final `assistant` message must \
                 start with a thinking block (preceeding the lastmost set of `tool_use` and \
                 `tool_result` blocks). We recommend you include thinking blocks from previous \
                 turns. To avoid this requirement, disable `thinking`. Please consult our \
                 documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
                last - 1
            )));
        }
    }
    None
}

/// The prompt's blocks in cache order (tools, system, messages), each as its canonical
/// JSON without its breakpoint, and whether it carries one.
fn blocks(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut add = |value: &Value| {
        let mut value = value.clone();
        let marked = value
            .as_object_mut()
            .and_then(|o| o.remove("cache_control"))
            .is_some();
        out.push((value.to_string(), marked));
    };
    for tool in body["tools"].as_array().into_iter().flatten() {
        add(tool);
    }
    match &body["system"] {
        Value::String(text) => add(&json!({"type": "text", "text": text})),
        Value::Array(system) => system.iter().for_each(&mut add),
        _ => {}
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        add(&json!({"role": message["role"]}));
        match &message["content"] {
            Value::String(text) => add(&json!({"type": "text", "text": text})),
            Value::Array(content) => content.iter().for_each(&mut add),
            _ => {}
        }
    }
    out
}

/// Reads and writes the simulated cache for a request; its usage figures.
fn cache(shared: &mut Shared, body: &Value) -> CacheTurn {
    let blocks = blocks(body);
    let mut hasher = DefaultHasher::new();
    body["model"].to_string().hash(&mut hasher);
    let mut hashes = Vec::with_capacity(blocks.len());
    let mut sizes = Vec::with_capacity(blocks.len());
    let mut total = 0;
    for (text, _) in &blocks {
        text.hash(&mut hasher);
        hashes.push(hasher.finish());
        total += text.len();
        sizes.push(total);
    }
    let marks: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].1).collect();
    let mut read = None;
    for &mark in &marks {
        let from = mark.saturating_sub(LOOKBACK);
        if let Some(hit) = (from..=mark)
            .rev()
            .find(|&i| shared.cache.contains(&hashes[i]))
        {
            read = read.max(Some(hit));
        }
    }
    let read_bytes = read.map_or(0, |i| sizes[i]);
    let mut written_to = None;
    for &mark in &marks {
        if tokens(sizes[mark]) >= MIN_CACHED_TOKENS && Some(mark) > read {
            shared.cache.insert(hashes[mark]);
            written_to = Some(mark);
        }
    }
    let written_bytes = written_to.map_or(0, |i| sizes[i] - read_bytes);
    let turn = CacheTurn {
        bytes: total,
        read_bytes,
        written_bytes,
        input_tokens: tokens(total).saturating_sub(tokens(read_bytes) + tokens(written_bytes)),
        cache_read_input_tokens: tokens(read_bytes),
        cache_creation_input_tokens: tokens(written_bytes),
    };
    shared.cache_turns.push(turn);
    turn
}

/// One turn: the rules checked, the cache read and written, then the next scripted step,
/// with a signed thinking block when thinking is on.
pub fn turn(shared: &mut Shared, body: &Value, stream: bool) -> Out {
    if let Some(broken) = check(shared, body) {
        return broken;
    }
    let Some(step) = shared.script.pop_front() else {
        return script_over();
    };
    let usage = cache(shared, body);
    let mut content = Vec::new();
    if thinking_on(body) {
        let n = shared.counter + 1;
        let thinking = format!("Turn {n}: the tools answer this; call them, then sum up.");
        let signature = shared.opaque("signature");
        shared.thinking.insert(thinking.clone(), signature.clone());
        content.push(json!({"type": "thinking", "thinking": thinking, "signature": signature}));
        if shared.thinking.len() == 1 {
            let data = shared.opaque("redacted");
            content.push(json!({"type": "redacted_thinking", "data": data}));
        }
    }
    let stop = match &step {
        Step::Calls(calls) => {
            for (name, args) in calls {
                let id = shared.id("toolu_");
                content.push(json!({"type": "tool_use", "id": id, "name": name, "input": args}));
            }
            "tool_use"
        }
        Step::Text(text) => {
            content.push(json!({"type": "text", "text": text}));
            "end_turn"
        }
        Step::Fail(..) => unreachable!("a failing step is answered before the turn"),
    };
    let usage = json!({
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": 60,
        "output_tokens_details": {"thinking_tokens": if thinking_on(body) { 30 } else { 0 }}
    });
    let message = json!({"id": shared.id("msg_"), "type": "message", "role": "assistant",
        "model": body["model"], "content": content, "stop_reason": stop, "stop_sequence": null,
        "usage": usage});
    match stream {
        false => Out::Json(200, message),
        true => Out::Events(events(&message)),
    }
}

/// A message as the API streams it.
fn events(message: &Value) -> Vec<(Option<String>, Value)> {
    let mut out = Vec::new();
    let mut emit = |event: Value| out.push((event["type"].as_str().map(str::to_owned), event));
    let mut start = message.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start["usage"]["output_tokens"] = json!(1);
    emit(json!({"type": "message_start", "message": start}));
    for (index, block) in message["content"].as_array().unwrap().iter().enumerate() {
        let (opening, deltas) = match block["type"].as_str() {
            Some("thinking") => (
                json!({"type": "thinking", "thinking": "", "signature": ""}),
                vec![
                    json!({"type": "thinking_delta", "thinking": block["thinking"]}),
                    json!({"type": "signature_delta", "signature": block["signature"]}),
                ],
            ),
            Some("tool_use") => {
                let input = block["input"].to_string();
                let (head, tail) = input.split_at(input.len() / 2);
                (
                    json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                    vec![
                        json!({"type": "input_json_delta", "partial_json": head}),
                        json!({"type": "input_json_delta", "partial_json": tail}),
                    ],
                )
            }
            Some("text") => (
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": block["text"]})],
            ),
            _ => (block.clone(), Vec::new()),
        };
        emit(json!({"type": "content_block_start", "index": index, "content_block": opening}));
        for delta in deltas {
            emit(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        }
        emit(json!({"type": "content_block_stop", "index": index}));
    }
    emit(json!({"type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": null},
                "usage": message["usage"]}));
    emit(json!({"type": "message_stop"}));
    out
}

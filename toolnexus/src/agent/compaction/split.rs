//! The contract's rule (SPEC §7F), as a pure function: the token estimate, where the
//! retained tail starts, and the compacted transcript, over this crate's [`Message`]s and
//! over provider-shaped JSON messages of either dialect.

use serde_json::{Map, Value};

use crate::model::message::Message;

/// The prefix of the summary message's content (SPEC §7F, `examples/compaction`).
pub const SUMMARY_PREFIX: &str = "[Summary of earlier conversation]\n";

/// The reminder [`Compaction::flush_to_memory`](super::Compaction::flush_to_memory)
/// puts before the retained tail (the contract's wording).
pub const FLUSH_REMINDER: &str = "Before continuing: if anything from earlier is worth keeping, \
     save it with the memory tool now — the earlier transcript is about to be summarized.";

/// `"content":null,` — what the contract's form of an assistant turn without text has
/// that this crate's serde form leaves out.
const NULL_CONTENT: usize = "\"content\":null,".len();

/// The contract's token estimate of `messages`: for each message, the characters of its
/// JSON (compact, unspaced, as JavaScript's `JSON.stringify` and the Python port write
/// it) divided by four, rounded up; summed.
///
/// A message is counted in the OpenAI chat form the contract uses (an assistant turn
/// without text has `"content": null`), with this crate's additions where a message has
/// them (an error flag, non-text parts, a pending request, a provider's own form of a
/// turn). Characters are Unicode scalar values, as the Python port counts them. It is an
/// estimator, not a tokenizer: [`Compaction::count_tokens`](super::Compaction::count_tokens)
/// replaces it.
///
/// ```
/// use toolnexus::Message;
/// use toolnexus::agent::estimate_tokens;
///
/// // {"role":"user","content":"hello"} is 33 characters: 9 tokens.
/// assert_eq!(estimate_tokens(&[Message::user("hello")]), 9);
/// ```
pub fn estimate_tokens(messages: &[Message]) -> usize {
    messages.iter().map(message_tokens).sum()
}

/// The estimate of one message.
pub(crate) fn message_tokens(message: &Message) -> usize {
    let text = serde_json::to_string(message).unwrap_or_default();
    let mut chars = text.chars().count();
    if let Message::Assistant { content: None, .. } = message {
        chars += NULL_CONTENT;
    }
    chars.div_ceil(4)
}

/// The estimate of one JSON message, as serialized.
pub(crate) fn json_tokens(message: &Value) -> usize {
    message.to_string().chars().count().div_ceil(4)
}

/// Where the retained tail of `n` messages starts, by the contract's rule: the largest
/// tail that starts at a boundary (past the kept `head`) and whose estimate `suffix(i)`
/// of `messages[i..]` fits `tail_budget`; if none fits, the most recent boundary (safety
/// over size); if there is none, `n` (an empty tail). `None` when nothing past the head
/// can be summarized.
pub(crate) fn split_at(
    n: usize,
    head: usize,
    is_boundary: impl Fn(usize) -> bool,
    mut suffix: impl FnMut(usize) -> usize,
    tail_budget: usize,
) -> Option<usize> {
    let mut split = n;
    for i in (head + 1..n).rev() {
        let tokens = suffix(i);
        if tokens > tail_budget {
            break;
        }
        if is_boundary(i) {
            split = i;
        }
    }
    if split == n
        && let Some(i) = (head + 1..n).rev().find(|&i| is_boundary(i))
    {
        split = i;
    }
    (split > head).then_some(split)
}

/// The plan for compacting a transcript: how many leading messages are kept verbatim
/// (the system prompt, or none) and where the retained tail starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) head: usize,
    pub(crate) split: usize,
}

/// Where `messages` is split, given its per-message estimates (the default counter) or
/// a counter over slices.
pub(crate) fn plan_messages(
    messages: &[Message],
    count: &dyn Fn(&[Message]) -> usize,
    tail_budget: usize,
) -> Option<Plan> {
    let head = usize::from(matches!(messages.first(), Some(Message::System { .. })));
    let is_boundary = |i: usize| matches!(messages[i], Message::User { .. });
    let split = split_at(
        messages.len(),
        head,
        is_boundary,
        |i| count(&messages[i..]),
        tail_budget,
    )?;
    Some(Plan { head, split })
}

/// Whether a JSON message carries a tool result: the Anthropic dialect's `user` message
/// whose content holds `tool_result` blocks.
fn carries_tool_result(message: &Value) -> bool {
    message["content"]
        .as_array()
        .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"))
}

/// A boundary of a JSON message list: a `user` turn that carries no tool result.
pub(crate) fn json_boundary(message: &Value) -> bool {
    message["role"] == "user" && !carries_tool_result(message)
}

/// Where JSON `messages` are split (the default estimate).
pub(crate) fn plan_json(messages: &[Value], tail_budget: usize) -> Option<Plan> {
    let head = usize::from(messages.first().is_some_and(|m| m["role"] == "system"));
    let tokens: Vec<usize> = messages.iter().map(json_tokens).collect();
    let mut sum = 0;
    let mut suffix = vec![0; tokens.len() + 1];
    for i in (0..tokens.len()).rev() {
        sum += tokens[i];
        suffix[i] = sum;
    }
    let split = split_at(
        messages.len(),
        head,
        |i| json_boundary(&messages[i]),
        |i| suffix[i],
        tail_budget,
    )?;
    Some(Plan { head, split })
}

/// The summary message for `summary` (the summarizer's text).
pub(crate) fn summary_message(summary: &str) -> Message {
    Message::system(format!("{SUMMARY_PREFIX}{summary}"))
}

/// A JSON system message.
pub(crate) fn json_system(content: String) -> Value {
    let mut map = Map::new();
    map.insert("role".into(), Value::from("system"));
    map.insert("content".into(), Value::from(content));
    Value::Object(map)
}

/// `message` in the contract's JSON form: this crate's serde form, with `"content":
/// null` on an assistant turn without text (right after `role`, where the contract's
/// messages have it).
pub fn contract_json(message: &Message) -> Value {
    let value = serde_json::to_value(message).unwrap_or(Value::Null);
    let Value::Object(map) = value else {
        return value;
    };
    if map.contains_key("content") {
        return Value::Object(map);
    }
    let mut out = Map::with_capacity(map.len() + 1);
    for (key, value) in map {
        let role = key == "role";
        out.insert(key, value);
        if role {
            out.insert("content".into(), Value::Null);
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::ToolCall;

    #[test]
    fn the_estimate_counts_the_contract_form() {
        let call = Message::tool_calls(None, vec![ToolCall::new("c0", "lookup", "{}")]);
        let json = contract_json(&call).to_string();
        assert_eq!(
            json,
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c0","type":"function","function":{"name":"lookup","arguments":"{}"}}]}"#
        );
        assert_eq!(message_tokens(&call), json.len().div_ceil(4));
        assert_eq!(json_tokens(&contract_json(&call)), message_tokens(&call));
        // Characters, not bytes.
        assert_eq!(estimate_tokens(&[Message::user("ééééé")]), 9);
    }

    #[test]
    fn a_transcript_without_a_boundary_keeps_an_empty_tail() {
        assert_eq!(split_at(5, 1, |_| false, |_| 0, 10), Some(5));
        // The most recent boundary when none fits.
        assert_eq!(split_at(5, 1, |i| i == 2, |_| 100, 10), Some(2));
        // The largest fitting tail.
        assert_eq!(split_at(6, 1, |i| i % 2 == 0, |i| 6 - i, 3), Some(4));
        // Nothing past the head.
        assert_eq!(split_at(1, 1, |_| true, |_| 0, 10), None);
    }
}

//! Approvals on the tool itself: a tool marked with `#[tool(approval)]` or
//! [`Tool::with_approval`](crate::Tool::with_approval) asks before it runs, and runs only
//! after an `ok: true` answer to that very request.
//!
//! The request's id is a digest of the call (the tool's name, its arguments in canonical
//! form, and the call id), so the re-execution recognises the answer to it without any
//! state kept between the two: an answer to another call, to the same tool with other
//! arguments, or to any other request is not an approval, and the tool asks again.

use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::handler::{Dispatch, Handler};
use crate::tool::request::Request;
use crate::tool::result::ToolResult;

/// The prefix of an approval request's id.
pub(crate) const APPROVAL_ID_PREFIX: &str = "approve-";

/// A handler that asks for an approval of each call before it hands the call to `inner`.
pub(crate) fn gate(inner: Arc<Handler>, tool: String, prompt: Option<String>) -> Arc<Handler> {
    Arc::new(move |args: Args<'_>, ctx: Context| {
        let value = match args {
            Args::Value(value) => value,
            // Text that is not JSON: the tool's own reader says what is wrong with it.
            Args::Text(text) => match serde_json::from_str::<Value>(text) {
                Ok(value) => value,
                Err(_) => return inner(Args::Text(text), ctx),
            },
        };
        let id = approval_id(&tool, &value, ctx.call_id());
        match ctx.answer() {
            Some(answer) if answer.id == id && answer.ok => {
                inner(Args::Value(value), ctx.without_answer())
            }
            Some(answer) if answer.id == id => {
                let why = answer.reason.as_deref().unwrap_or("declined");
                Dispatch::Ready(ToolResult::error(format!(
                    "The call to {tool} was not approved ({why}); it did not run."
                )))
            }
            _ => {
                let prompt = prompt
                    .clone()
                    .unwrap_or_else(|| default_prompt(&tool, &value));
                let request = Request::approval(prompt)
                    .with_id(id)
                    .with_data(serde_json::json!({ "tool": tool, "arguments": value }));
                Dispatch::Ready(ToolResult::pending(request))
            }
        }
    })
}

/// "Allow `delete_repo` to run with {"name":"scratch"}?"
fn default_prompt(tool: &str, args: &Value) -> String {
    match args {
        Value::Object(map) if map.is_empty() => format!("Allow `{tool}` to run?"),
        Value::Null => format!("Allow `{tool}` to run?"),
        other => format!("Allow `{tool}` to run with {other}?"),
    }
}

/// The id of the approval request for one call: `approve-` and 32 hex digits of the
/// SHA-256 of the tool's name, its canonical arguments and the call id.
pub(crate) fn approval_id(tool: &str, args: &Value, call_id: Option<&str>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"toolnexus/approval/v1\0");
    hasher.update(tool.as_bytes());
    hasher.update([0]);
    hasher.update(canonical_json(args).as_bytes());
    hasher.update([0]);
    hasher.update(call_id.unwrap_or_default().as_bytes());
    let digest = hasher.finalize();
    let mut id = String::with_capacity(APPROVAL_ID_PREFIX.len() + 32);
    id.push_str(APPROVAL_ID_PREFIX);
    for byte in &digest[..16] {
        let _ = write!(id, "{byte:02x}");
    }
    id
}

/// The SHA-256 of a value's canonical JSON: what binds a sealed state to a call's
/// arguments.
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
pub(crate) fn digest(value: &Value) -> [u8; 32] {
    Sha256::digest(canonical_json(value).as_bytes()).into()
}

/// JSON text with every object's keys sorted and no whitespace, so two argument objects
/// that differ only in key order give the same text.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn canonical_json_ignores_key_order() {
        let a = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}});
        let b = json!({"a": {"x": "s", "y": [1, {"c": 3, "d": 2}]}, "b": 1});
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#
        );
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&json!({"b": 2})));
    }

    #[test]
    fn the_approval_id_binds_tool_arguments_and_call() {
        let args = json!({"name": "x"});
        let id = approval_id("delete_repo", &args, Some("call_1"));
        assert!(id.starts_with(APPROVAL_ID_PREFIX) && id.len() == 40, "{id}");
        assert_eq!(
            id,
            approval_id("delete_repo", &json!({"name": "x"}), Some("call_1"))
        );
        assert_ne!(
            id,
            approval_id("delete_repo", &json!({"name": "y"}), Some("call_1"))
        );
        assert_ne!(id, approval_id("delete_rep", &args, Some("call_1")));
        assert_ne!(id, approval_id("delete_repo", &args, Some("call_2")));
    }
}

//! Incoming JSON-RPC text, checked before the SDK sees it, so that every request that
//! cannot be served gets an error carrying its `id` (when one can be found) at once:
//! shared by the stdio reader and the HTTP layer.

use rmcp::model::{ClientJsonRpcMessage, ErrorCode, ErrorData, NumberOrString, RequestId};
use serde_json::{Value, json};

use super::id::find_id;

/// A message that cannot be served, and the error to answer it with.
#[derive(Debug)]
pub(in crate::mcp) struct Rejection {
    /// The request's `id`, when one could be found in the text.
    pub(in crate::mcp) id: Option<RequestId>,
    pub(in crate::mcp) error: ErrorData,
}

impl Rejection {
    fn new(id: Option<RequestId>, code: ErrorCode, message: String, data: Option<Value>) -> Self {
        Rejection {
            id,
            error: ErrorData::new(code, message, data),
        }
    }

    /// The JSON-RPC error response (`"id": null` when no id was found).
    pub(in crate::mcp) fn to_json(&self) -> Value {
        json!({"jsonrpc": "2.0", "id": self.id, "error": self.error})
    }
}

/// Parses one incoming message, or says why it cannot be served.
///
/// - not UTF-8, or a string with a lone surrogate escape (`"\ud83d"`, what a model's
///   truncated output can contain): `-32700` parse error;
/// - not JSON: `-32700`;
/// - a request whose `params` is not an object (`"params": []`): `-32602` invalid params;
/// - JSON that is not a JSON-RPC message of MCP (a batch, a bare value, no `method`):
///   `-32600` invalid request.
pub(in crate::mcp) fn parse(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Box<Rejection>> {
    if let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        return Ok(message);
    }
    Err(Box::new(diagnose(bytes)))
}

fn diagnose(bytes: &[u8]) -> Rejection {
    let id = find_id(bytes);
    if let Err(error) = std::str::from_utf8(bytes) {
        let at = error.valid_up_to();
        return Rejection::new(
            id,
            ErrorCode::PARSE_ERROR,
            format!("Parse error: the message is not valid UTF-8 (invalid byte at offset {at})"),
            None,
        );
    }
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => value,
        Err(error) => {
            let what = if error.to_string().contains("surrogate") {
                "a string holds a lone UTF-16 surrogate escape, which is not a character"
            } else {
                "the message is not valid JSON"
            };
            return Rejection::new(
                id,
                ErrorCode::PARSE_ERROR,
                format!("Parse error: {what} ({error})"),
                None,
            );
        }
    };
    let Some(object) = value.as_object() else {
        let what = if value.is_array() {
            "batches are not supported: send one JSON-RPC message at a time"
        } else {
            "a JSON-RPC message is a JSON object"
        };
        return Rejection::new(
            None,
            ErrorCode::INVALID_REQUEST,
            format!("Invalid request: {what}"),
            None,
        );
    };
    let id = object.get("id").and_then(request_id).or(id);
    let method = object.get("method").and_then(Value::as_str);
    match (method, object.get("params")) {
        (Some(method), Some(params)) if !params.is_object() && !params.is_null() => {
            Rejection::new(
                id,
                ErrorCode::INVALID_PARAMS,
                format!(
                    "Invalid params: `{method}` takes its params as a JSON object, not {}",
                    kind(params)
                ),
                None,
            )
        }
        (Some(method), _) => Rejection::new(
            id,
            ErrorCode::INVALID_REQUEST,
            format!("Invalid request: `{method}` is not a well-formed JSON-RPC 2.0 message"),
            None,
        ),
        (None, _) => Rejection::new(
            id,
            ErrorCode::INVALID_REQUEST,
            "Invalid request: not a JSON-RPC 2.0 message (no `method`, or a malformed `jsonrpc`, `id`, `result` or `error`)"
                .to_owned(),
            None,
        ),
    }
}

/// The error for a message longer than the bound, with the request's `id` when one was
/// found in it.
pub(in crate::mcp) fn too_large_with_id(id: Option<RequestId>, limit: usize) -> Rejection {
    Rejection::new(
        id,
        ErrorCode::INVALID_REQUEST,
        format!(
            "Invalid request: the message is longer than the server's limit of {limit} bytes; \
             send less (large data belongs in a resource or a file), or raise the limit with \
             McpServer::max_message_bytes"
        ),
        Some(json!({"limit": limit})),
    )
}

/// The error for a request with a method MCP defines but params of the wrong shape (the
/// SDK parses it as a custom request); `None` for a method MCP does not define.
pub(in crate::mcp) fn malformed_params(method: &str, params: Option<&Value>) -> Option<ErrorData> {
    const METHODS: &[&str] = &[
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "logging/setLevel",
    ];
    if !METHODS.contains(&method) {
        return None;
    }
    let reason = match (method, params) {
        ("tools/call", Some(Value::Object(params))) => match params.get("name") {
            None => "`name` is missing".to_owned(),
            Some(Value::String(_)) => match params.get("arguments") {
                Some(arguments) if !arguments.is_object() && !arguments.is_null() => {
                    format!("`arguments` must be an object, not {}", kind(arguments))
                }
                _ => "a field has the wrong type".to_owned(),
            },
            Some(other) => format!("`name` must be a string, not {}", kind(other)),
        },
        (_, None | Some(Value::Null)) => "params are missing".to_owned(),
        (_, Some(Value::Object(_))) => "a field is missing or has the wrong type".to_owned(),
        (_, Some(other)) => format!("params must be an object, not {}", kind(other)),
    };
    let hint = if method == "tools/call" {
        " (expected {\"name\": string, \"arguments\": object})"
    } else {
        ""
    };
    Some(ErrorData::invalid_params(
        format!("Invalid params for {method}: {reason}{hint}"),
        Some(json!({"method": method})),
    ))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn request_id(value: &Value) -> Option<RequestId> {
    match value {
        Value::Number(n) => n.as_i64().map(NumberOrString::Number),
        Value::String(s) => Some(NumberOrString::String(s.as_str().into())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_found_at_the_top_level_only() {
        let text = br#"{"jsonrpc":"2.0","params":{"id":9,"s":"}\"{"},"id":7,"method":"x"}"#;
        assert_eq!(find_id(text), Some(NumberOrString::Number(7)));
        let text = br#"{"id" : "a\"b", "params": {"#;
        assert_eq!(find_id(text), Some(NumberOrString::String("a\"b".into())));
        assert_eq!(find_id(br#"{"params":{"id":1}}"#), None);
        assert_eq!(find_id(br#"{"id":12"#), None);
    }
}

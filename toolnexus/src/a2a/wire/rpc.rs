//! JSON-RPC 2.0 errors, with A2A's codes.

use serde_json::{Value, json};

/// The JSON-RPC error codes A2A uses (its own are -32001 to -32009).
pub(crate) mod codes {
    pub(crate) const PARSE_ERROR: i64 = -32700;
    pub(crate) const INVALID_REQUEST: i64 = -32600;
    pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
    pub(crate) const INVALID_PARAMS: i64 = -32602;
    pub(crate) const INTERNAL: i64 = -32603;
    pub(crate) const TASK_NOT_FOUND: i64 = -32001;
    pub(crate) const TASK_NOT_CANCELABLE: i64 = -32002;
    pub(crate) const PUSH_NOT_SUPPORTED: i64 = -32003;
    pub(crate) const UNSUPPORTED_OPERATION: i64 = -32004;
    pub(crate) const CONTENT_TYPE_NOT_SUPPORTED: i64 = -32005;
    pub(crate) const EXTENDED_CARD_NOT_CONFIGURED: i64 = -32007;
    pub(crate) const VERSION_NOT_SUPPORTED: i64 = -32009;
    /// A limit of this server was reached (JSON-RPC's range for a server's own errors;
    /// A2A names none for it).
    pub(crate) const LIMIT_REACHED: i64 = -32000;
}

/// A JSON-RPC error: its code, its message, and (for A2A's own errors) a
/// `google.rpc.ErrorInfo` detail naming the reason, as A2A 1.0 asks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
    /// The `ErrorInfo`'s `metadata` (a limit's scope and value, say).
    pub(crate) metadata: Vec<(&'static str, String)>,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            metadata: Vec::new(),
        }
    }

    /// The same error, saying `value` for `key` in its `ErrorInfo`'s metadata.
    pub(crate) fn with_metadata(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.metadata.push((key, value.into()));
        self
    }

    pub(crate) fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(codes::INVALID_PARAMS, message)
    }

    pub(crate) fn task_not_found(id: &str) -> RpcError {
        RpcError::new(codes::TASK_NOT_FOUND, format!("Task not found: {id}"))
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> RpcError {
        RpcError::new(codes::UNSUPPORTED_OPERATION, message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> RpcError {
        RpcError::new(codes::INTERNAL, message)
    }

    /// The reason A2A 1.0's `ErrorInfo` gives the code.
    fn reason(&self) -> &'static str {
        match self.code {
            codes::TASK_NOT_FOUND => "TASK_NOT_FOUND",
            codes::TASK_NOT_CANCELABLE => "TASK_NOT_CANCELABLE",
            codes::PUSH_NOT_SUPPORTED => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            codes::UNSUPPORTED_OPERATION => "UNSUPPORTED_OPERATION",
            codes::CONTENT_TYPE_NOT_SUPPORTED => "CONTENT_TYPE_NOT_SUPPORTED",
            codes::EXTENDED_CARD_NOT_CONFIGURED => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            codes::VERSION_NOT_SUPPORTED => "VERSION_NOT_SUPPORTED",
            codes::INVALID_PARAMS => "INVALID_PARAMS",
            codes::INVALID_REQUEST => "INVALID_REQUEST",
            codes::METHOD_NOT_FOUND => "METHOD_NOT_FOUND",
            codes::PARSE_ERROR => "PARSE_ERROR",
            codes::LIMIT_REACHED => "RESOURCE_EXHAUSTED",
            _ => "INTERNAL_ERROR",
        }
    }

    /// The `error` object of a response.
    pub(crate) fn to_json(&self) -> Value {
        let mut info = json!({
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": self.reason(),
            "domain": "a2a-protocol.org",
        });
        if !self.metadata.is_empty() {
            let metadata: serde_json::Map<String, Value> = self
                .metadata
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Value::String(v.clone())))
                .collect();
            info["metadata"] = Value::Object(metadata);
        }
        json!({"code": self.code, "message": self.message, "data": [info]})
    }

    /// The whole response to the request with `id`.
    pub(crate) fn response(&self, id: &Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "error": self.to_json() })
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (JSON-RPC error {})", self.message, self.code)
    }
}

/// A successful response to the request with `id`.
pub(crate) fn result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// The member `camel` of `value`, or its proto field name (`historyLength` or
/// `history_length`): ProtoJSON readers accept both.
pub(crate) fn member<'a>(value: &'a Value, camel: &str) -> Option<&'a Value> {
    if let Some(found) = value.get(camel) {
        return Some(found);
    }
    let mut snake = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            snake.push('_');
            snake.push(c.to_ascii_lowercase());
        } else {
            snake.push(c);
        }
    }
    value.get(&snake)
}

/// `params.historyLength` (or `configuration.historyLength`): a count of messages.
pub(crate) fn history_length(value: Option<&Value>, at: &str) -> Result<Option<usize>, RpcError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "{at} must be a whole number of messages ≥ 0, not {v}"
                ))
            }),
    }
}

//! MCP Apps on the client: the view and visibility a server lists with a tool
//! (`_meta.ui`), kept on the remote [`Tool`].

use serde_json::Value;

use crate::tool::Tool;

/// `tool` with the view (`_meta.ui.resourceUri`) and visibility (`_meta.ui.visibility`)
/// `listed` carries.
pub(super) fn with_listed_ui(tool: Tool, listed: &rmcp::model::Tool) -> Tool {
    let Some(ui) = listed.meta.as_ref().and_then(|meta| meta.0.get("ui")) else {
        return tool;
    };
    let tool = match ui.get("resourceUri").and_then(Value::as_str) {
        Some(uri) => tool.with_ui(uri),
        None => tool,
    };
    match ui.get("visibility").and_then(Value::as_array) {
        Some(visibility) => tool.with_ui_visibility(visibility.iter().filter_map(Value::as_str)),
        None => tool,
    }
}

/// Whether the model may see and call `tool`: not when the server lists it for its views
/// only.
pub(super) fn model_may_call(tool: &Tool) -> bool {
    tool.ui()
        .is_none_or(|ui| ui.visibility.is_empty() || ui.visibility.iter().any(|v| v == "model"))
}

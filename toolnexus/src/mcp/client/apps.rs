//! MCP Apps on the client: the view and visibility a server lists with a tool
//! (`_meta.ui`), kept on the remote [`Tool`]; and, when a call of a tool with a view
//! returns, the view read from the server and shown to the caller
//! ([`Context::view`]).

use std::sync::Arc;

use rmcp::model::ReadResourceRequestParams;
use serde_json::{Map, Value, json};

use super::Shared;
use super::call;
use crate::tool::Tool;
use crate::tool::caller::ToolView;
use crate::tool::context::Context;
use crate::tool::result::ToolResult;

/// The `ui://` view `listed` names (`_meta.ui.resourceUri`), if any.
pub(super) fn listed_view(listed: &rmcp::model::Tool) -> Option<&str> {
    listed
        .meta
        .as_ref()?
        .0
        .get("ui")?
        .get("resourceUri")?
        .as_str()
}

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

/// Calls `remote` as [`call::call`] does; then, for a tool with a view (at `uri`), unless
/// the call suspended or nobody listens, reads the view and shows it to the caller with
/// the call's input and result. A view that cannot be read is logged and left out: the
/// call's result stands.
pub(super) async fn call_with_view(
    shared: Arc<Shared>,
    remote: Arc<str>,
    uri: Option<Arc<str>>,
    args: Value,
    ctx: Context,
) -> ToolResult {
    let Some(uri) = uri else {
        return call::call(shared, remote, args, ctx).await;
    };
    let listening = ctx.caller().is_some();
    let input = if listening { args.clone() } else { Value::Null };
    let result = call::call(Arc::clone(&shared), Arc::clone(&remote), args, ctx.clone()).await;
    if !listening || result.is_pending() {
        return result;
    }
    match read_view(&shared, &uri).await {
        Ok((html, ui)) => ctx.view(&ToolView {
            uri: uri.to_string(),
            server: shared.server_name(),
            tool: remote.to_string(),
            html,
            ui,
            input,
            result: wire_result(&result),
        }),
        Err(why) => tracing::warn!(
            target: "toolnexus::mcp",
            tool = &*remote,
            uri = &*uri,
            "the view of `{remote}` is not shown: {why}"
        ),
    }
    result
}

/// The HTML and `_meta.ui` of the view at `uri`, bounded by the call timeout.
async fn read_view(shared: &Shared, uri: &str) -> Result<(String, Value), String> {
    let peer = shared.peer().await.map_err(|e| e.to_string())?;
    let request = peer.read_resource(ReadResourceRequestParams::new(uri));
    let read = tokio::time::timeout(shared.options.timeout, request)
        .await
        .map_err(|_| {
            format!(
                "the MCP server {} did not answer resources/read for {uri} in time",
                shared.server()
            )
        })?
        .map_err(|e| {
            format!(
                "the MCP server {} could not read {uri}: {e}",
                shared.server()
            )
        })?;
    let wire = serde_json::to_value(&read).map_err(|e| e.to_string())?;
    let first = wire.get("contents").and_then(|c| c.get(0)).ok_or_else(|| {
        format!(
            "the MCP server {} sent no contents for {uri}",
            shared.server()
        )
    })?;
    let html = first
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{uri} is not text (a view is an HTML page)"))?;
    let ui = first
        .get("_meta")
        .and_then(|meta| meta.get("ui"))
        .cloned()
        .unwrap_or(Value::Null);
    Ok((html.to_owned(), ui))
}

/// `result` in MCP's `CallToolResult` form, as a view reads it: the text as one text
/// block, with the `structuredContent` and `_meta` the server sent.
pub(crate) fn wire_result(result: &ToolResult) -> Value {
    let mut wire = Map::new();
    wire.insert(
        "content".to_owned(),
        json!([{"type": "text", "text": result.output}]),
    );
    let metadata = result.metadata.as_ref();
    for key in ["structuredContent", "_meta"] {
        if let Some(value) = metadata.and_then(|m| m.get(key)) {
            wire.insert(key.to_owned(), value.clone());
        }
    }
    wire.insert("isError".to_owned(), Value::Bool(result.is_error));
    Value::Object(wire)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::wire_result;
    use crate::tool::result::ToolResult;

    #[test]
    fn a_result_goes_to_its_view_with_its_structured_content() {
        let result =
            ToolResult::ok("{\"total\":3}").with_metadata("structuredContent", json!({"total": 3}));
        assert_eq!(
            wire_result(&result),
            json!({
                "content": [{"type": "text", "text": "{\"total\":3}"}],
                "structuredContent": {"total": 3},
                "isError": false
            })
        );
        let failed = wire_result(&ToolResult::error("no budget"));
        assert_eq!(failed["isError"], true);
        assert!(failed.get("structuredContent").is_none());
    }
}

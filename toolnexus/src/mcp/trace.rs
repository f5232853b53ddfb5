//! The spans of MCP calls, named and attributed as the official Python SDK's
//! `OpenTelemetryMiddleware` names its own: `tools/call {name}`, of kind SERVER on the
//! server and CLIENT on [`McpClient`](crate::mcp::McpClient), with `mcp.method.name`,
//! `mcp.protocol.version` and `jsonrpc.request.id`. With the `otel` feature the W3C trace
//! context travels in `_meta` (`traceparent`, `tracestate`), so one trace runs through
//! both processes.

use rmcp::RoleServer;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RequestContext;
use tracing::Span;
use tracing::field::Empty;

/// The server span of one `tools/call`, continuing the caller's trace when its `_meta`
/// carries one; none when nothing could see it (see [`crate::trace::listening`]).
pub(super) fn server_span(
    name: &str,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Span {
    if !crate::trace::listening() {
        return Span::none();
    }
    let span = crate::trace::span!("tools/call", format!("tools/call {name}");
        otel.kind = "server",
        "mcp.method.name" = "tools/call",
        "mcp.protocol.version" = Empty,
        "jsonrpc.request.id" = context.id.to_string(),
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = name,
        "error.type" = Empty,
        otel.status_code = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let version = context
        .peer
        .peer_info()
        .map(|info| info.protocol_version.to_string())
        .or_else(|| context.meta.protocol_version().map(|v| v.to_string()));
    if let Some(version) = version {
        span.record("mcp.protocol.version", version.as_str());
    }
    #[cfg(feature = "otel")]
    {
        let meta = request.meta.as_ref().map(|m| &m.0.0);
        let meta = meta.filter(|m| m.contains_key("traceparent"));
        crate::otel::propagate::continue_from(&span, meta.unwrap_or(&context.meta.0.0));
    }
    #[cfg(not(feature = "otel"))]
    let _ = request;
    span
}

/// Records a tool error (or a refused call) on the server span, as the Python SDK does.
pub(super) fn server_responded(
    span: &Span,
    response: &Result<rmcp::model::CallToolResponse, rmcp::ErrorData>,
) {
    let failed = match response {
        Ok(rmcp::model::CallToolResponse::Complete(result)) => result.is_error == Some(true),
        Ok(_) => false,
        Err(_) => true,
    };
    if failed {
        span.record("error.type", "tool_error");
        span.record("otel.status_code", "error");
    }
}

/// The client span of one `tools/call` of the remote tool `name` (its caller checks
/// [`crate::trace::listening`] first).
pub(super) fn client_span(name: &str) -> Span {
    crate::trace::span!("tools/call", format!("tools/call {name}");
        otel.kind = "client",
        "mcp.method.name" = "tools/call",
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = name,
    )
}

/// Writes the current span's trace context into the call's `_meta` (feature `otel`).
pub(super) fn inject(params: &mut CallToolRequestParams) {
    #[cfg(feature = "otel")]
    {
        let span = Span::current();
        if span.is_disabled() {
            return;
        }
        let meta = params.meta.get_or_insert_with(|| {
            rmcp::model::RequestMetaObject(rmcp::model::MetaObject(serde_json::Map::new()))
        });
        crate::otel::propagate::inject(&span, &mut meta.0.0);
        if meta.0.0.is_empty() {
            params.meta = None;
        }
    }
    #[cfg(not(feature = "otel"))]
    let _ = params;
}

//! The `execute_tool` span of one tool call, opened by [`Tool::call`](crate::Tool::call)
//! and closed with the call's outcome.

use tracing::Span;
use tracing::field::Empty;

use crate::tool::args::Args;
use crate::tool::result::ToolResult;
use crate::trace::captures_content;

/// How a call ended, as far as the tool layer knows.
#[derive(Clone, Copy)]
pub(crate) enum End {
    /// The tool returned a result (ok, error or a suspension).
    Returned,
    /// It panicked.
    Panicked,
    /// Its context's timeout passed.
    TimedOut,
    /// Its context's cancellation token fired.
    Cancelled,
}

/// One call's span, with whether it still waits for its outcome. A call dropped before
/// it ends (its run stopped, its caller went away) is recorded as cancelled.
pub(crate) struct ToolSpan {
    span: Span,
    open: bool,
}

impl ToolSpan {
    /// Opens the span of a call of `name` (a child of the current span); disabled, and
    /// free, when no subscriber wants it.
    #[inline]
    pub(crate) fn start(name: &str, call_id: Option<&str>, args: &Args<'_>) -> ToolSpan {
        let span = tracing::info_span!(
            target: "toolnexus",
            "execute_tool",
            otel.name = Empty,
            "gen_ai.operation.name" = "execute_tool",
            "gen_ai.tool.name" = name,
            "gen_ai.tool.type" = "function",
            "gen_ai.tool.call.id" = call_id,
            "gen_ai.tool.call.arguments" = Empty,
            "gen_ai.tool.call.result" = Empty,
            "toolnexus.tool.outcome" = Empty,
            "error.type" = Empty,
            otel.status_code = Empty,
        );
        let span = crate::trace::named(span, || format!("execute_tool {name}"));
        if !span.is_disabled() && captures_content() {
            match args {
                Args::Text(text) => span.record("gen_ai.tool.call.arguments", *text),
                Args::Value(value) => {
                    span.record("gen_ai.tool.call.arguments", value.to_string().as_str())
                }
            };
        }
        ToolSpan { span, open: true }
    }

    /// The span itself, to enter while the call runs.
    #[inline]
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Records how the call ended and hands its result back.
    #[inline]
    pub(crate) fn ended(&mut self, result: ToolResult, end: End) -> ToolResult {
        self.open = false;
        if !self.span.is_disabled() {
            record(&self.span, &result, end);
        }
        result
    }
}

impl Drop for ToolSpan {
    #[inline]
    fn drop(&mut self) {
        if self.open && !self.span.is_disabled() {
            self.span.record("toolnexus.tool.outcome", "cancelled");
            self.span.record("error.type", "cancelled");
            self.span.record("otel.status_code", "error");
        }
    }
}

fn record(span: &Span, result: &ToolResult, end: End) {
    let pending = matches!(end, End::Returned)
        .then(|| result.pending_request())
        .flatten();
    let (outcome, error) = match end {
        End::Returned if pending.is_some() => ("pending", None),
        End::Returned if result.is_error => ("error", Some("tool_error")),
        End::Returned => ("ok", None),
        End::Panicked => ("panicked", Some("panic")),
        End::TimedOut => ("timeout", Some("timeout")),
        End::Cancelled => ("cancelled", Some("cancelled")),
    };
    span.record("toolnexus.tool.outcome", outcome);
    if let Some(error) = error {
        span.record("error.type", error);
        span.record("otel.status_code", "error");
    }
    if captures_content() {
        span.record("gen_ai.tool.call.result", result.output.as_str());
    }
    if let Some(request) = pending {
        span.in_scope(|| {
            tracing::event!(
                target: "toolnexus",
                tracing::Level::INFO,
                "toolnexus.request.kind" = request.kind.as_str(),
                "toolnexus.request.id" = request.id.as_str(),
                "suspended"
            );
        });
    }
}

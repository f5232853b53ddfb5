//! The tool layer's span: `execute_tool`, one per tool call, opened by
//! [`Tool::call`](crate::Tool::call) and closed with the call's outcome. (The loop's spans
//! are in `agent/trace.rs`, MCP's in `mcp/trace.rs`; the names and attributes they share
//! are [`crate::trace`]'s.)

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
///
/// `None` when nothing could see the span (see [`crate::trace::listening`]), or it is
/// disabled and tracing's `log` feature does not forward it: then starting, entering,
/// ending and dropping it are a check of that `None` each.
pub(crate) struct ToolSpan(Option<Open>);

struct Open {
    span: Span,
    open: bool,
}

impl ToolSpan {
    /// Opens the span of a call of `name` (a child of the current span); disabled, and
    /// free, when no subscriber wants it.
    #[inline]
    pub(crate) fn start(name: &str, call_id: Option<&str>, args: &Args<'_>) -> ToolSpan {
        if !crate::trace::listening() {
            return ToolSpan(None);
        }
        ToolSpan::open(name, call_id, args)
    }

    #[cold]
    #[inline(never)]
    fn open(name: &str, call_id: Option<&str>, args: &Args<'_>) -> ToolSpan {
        let span = crate::trace::span!("execute_tool", format!("execute_tool {name}");
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
        if !span.is_disabled() && captures_content() {
            match args {
                Args::Text(text) => span.record("gen_ai.tool.call.arguments", *text),
                Args::Value(value) => {
                    span.record("gen_ai.tool.call.arguments", value.to_string().as_str())
                }
            };
        }
        if span.is_disabled() && !crate::trace::logs_spans() {
            return ToolSpan(None);
        }
        ToolSpan(Some(Open { span, open: true }))
    }

    /// Whether there is no span (nothing could see it).
    #[inline]
    pub(crate) fn is_none(&self) -> bool {
        self.0.is_none()
    }

    /// Runs `f` inside the span (just runs it when there is none).
    #[inline]
    pub(crate) fn in_scope<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(open) => open.span.in_scope(f),
            None => f(),
        }
    }

    /// The span itself (a disabled one when there is none), to instrument a future with.
    pub(crate) fn span(&self) -> Span {
        self.0
            .as_ref()
            .map_or_else(Span::none, |open| open.span.clone())
    }

    /// Records how the call ended, closes the span and hands the result back: what a call
    /// that ends before it returns its future does (nothing left to drop when there is
    /// no span).
    #[inline]
    pub(crate) fn close(mut self, result: ToolResult, end: End) -> ToolResult {
        self.ended(result, end)
    }

    /// Records how the call ended and hands its result back.
    #[inline]
    pub(crate) fn ended(&mut self, result: ToolResult, end: End) -> ToolResult {
        if let Some(open) = &mut self.0 {
            open.open = false;
            if !open.span.is_disabled() {
                record(&open.span, &result, end);
            }
        }
        result
    }
}

impl Drop for Open {
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

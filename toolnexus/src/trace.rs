//! What toolnexus tells [`tracing`]: the spans of runs, model turns and tool calls, named
//! and attributed by the OpenTelemetry GenAI semantic conventions.
//!
//! This module has no OpenTelemetry dependency: any `tracing` subscriber sees the spans
//! (a `fmt` logger, a test collector, the `tracing-opentelemetry` layer that the `otel`
//! feature's `toolnexus::otel::init` installs). With no subscriber, a span costs one
//! check of a static flag.
//!
//! | span | name | when |
//! |---|---|---|
//! | [`INVOKE_AGENT`] | `invoke_agent {gen_ai.agent.name}` | a [`Client`](crate::Client) run, resume included |
//! | [`CHAT`] | `chat {gen_ai.request.model}` | one model turn, a child of the run |
//! | [`EXECUTE_TOOL`] | `execute_tool {gen_ai.tool.name}` | one tool call (loop, MCP server or a direct [`Toolkit::execute`](crate::Toolkit::execute)) |
//!
//! The span names (the `tracing` metadata names) are the operation names; the full names
//! above are in the `otel.name` field, which `tracing-opentelemetry` uses as the span's
//! name. A suspension is an event (`suspended`) on its tool call's span, with the
//! request's kind and id. A run that halts keeps its span's W3C trace context in the
//! request it halts on ([`Request::trace`](crate::Request::trace), a [`TraceContext`]),
//! so it travels with the serialized run and the run store's checkpoint; the resumed
//! run's span names the request it answers and, with the `otel` feature, carries an
//! OpenTelemetry span link to the span of the run that halted, in this process or another.
//!
//! Arguments, results and message text can hold secrets and are recorded only when
//! [`capture_content`] is on (or `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`,
//! the variable the OpenTelemetry GenAI instrumentations read). API keys, headers and
//! shared [`State`](crate::State) are never recorded.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use std::sync::atomic::{AtomicU8, Ordering};
use tracing::Span;

/// The `tracing` target of every span and event toolnexus emits.
pub const TARGET: &str = "toolnexus";

/// The operation and span name of a run (`gen_ai.operation.name`).
pub const INVOKE_AGENT: &str = "invoke_agent";
/// The operation and span name of a model turn.
pub const CHAT: &str = "chat";
/// The operation and span name of a tool call.
pub const EXECUTE_TOOL: &str = "execute_tool";

/// How a tool call ended, the span attribute [`OUTCOME`]: `ok`, `error`, `pending`,
/// `timeout`, `cancelled` or `panicked`.
pub const OUTCOME: &str = "toolnexus.tool.outcome";
/// The kind of the request a suspension waits on (`input`, `approval`, …), on the
/// `suspended` event.
pub const REQUEST_KIND: &str = "toolnexus.request.kind";
/// The id of the request a suspension waits on, on the `suspended` event.
pub const REQUEST_ID: &str = "toolnexus.request.id";
/// On a resumed run's span: the id of the request whose answer it continues with (the
/// [`REQUEST_ID`] of the `suspended` event in the run that halted).
pub const RESUMED_REQUEST_ID: &str = "toolnexus.resume.request.id";
/// A run's end state on its span: `done`, `pending` or `incomplete`.
pub const RUN_STATUS: &str = "toolnexus.run.status";

/// The W3C trace context (the `traceparent` and `tracestate` header values) of the span
/// of a run that halted, kept in the [`Request`](crate::Request) it halted on so that the
/// run that resumes it can link to that span. Plain strings: the core has no
/// OpenTelemetry dependency; the `otel` feature writes and reads them.
///
/// It comes back with serialized data, so it is untrusted: a malformed value is ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceContext {
    /// The W3C `traceparent` value: `00-{trace id}-{span id}-{flags}`.
    pub traceparent: String,
    /// The W3C `tracestate` value, if the span had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracestate: Option<String>,
}

const UNSET: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;

static CAPTURE: AtomicU8 = AtomicU8::new(UNSET);

/// Records tool arguments and results (`gen_ai.tool.call.arguments`,
/// `gen_ai.tool.call.result`) on the spans from now on, for the whole process; `false`
/// stops it. Off by default: they can hold secrets. Until this is called, the
/// environment decides (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`).
pub fn capture_content(on: bool) {
    CAPTURE.store(if on { ON } else { OFF }, Ordering::Relaxed);
}

/// Whether arguments and results are recorded (see [`capture_content`]).
pub fn captures_content() -> bool {
    match CAPTURE.load(Ordering::Relaxed) {
        ON => true,
        OFF => false,
        _ => {
            static FROM_ENV: OnceLock<bool> = OnceLock::new();
            *FROM_ENV.get_or_init(|| {
                std::env::var("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
                    .is_ok_and(|v| v.eq_ignore_ascii_case("true"))
            })
        }
    }
}

/// Whether a toolnexus span could be seen at all: a `tracing` dispatcher was set (global
/// or scoped, now or before), or tracing's `log` feature forwards spans to `log`. One
/// relaxed atomic load; when it is `false`, the spans are not built (`Span::none()`),
/// which costs less than building disabled ones and gives the same result: without a
/// dispatcher every span is disabled.
#[inline]
pub(crate) fn listening() -> bool {
    logs_spans() || tracing::dispatcher::has_been_set()
}

/// Whether tracing's `log` feature forwards spans, disabled ones included, to `log`: it
/// does when it is compiled in and no dispatcher was set (or always, with `log-always`),
/// the check tracing's own span macros make, expanded here as they expand it; and a `log`
/// logger listens (`log`'s maximum level is not `Off`, which it is until a logger is
/// set), the check tracing makes before logging a span. The block of `if_log_enabled!`
/// is compiled only with the `log` feature, where tracing re-exports `log` as
/// `tracing::log`. Without a logger the spans would go nowhere, so they are not built:
/// the suite's database features turn tracing's `log` feature on, through sqlx.
#[inline]
pub(crate) fn logs_spans() -> bool {
    tracing::if_log_enabled! { tracing::Level::INFO, {
        tracing::log::max_level() != tracing::log::LevelFilter::Off
    } else { false } }
}

/// Gives a live span its OpenTelemetry name (`otel.name`), and hands it back. The name is
/// never formatted for a disabled span: written among a span macro's fields it would be,
/// on every call, whenever tracing's `log` feature is on (sqlx, for one, turns it on).
/// Every span declares `otel.name = Empty` and is named through here.
pub(crate) fn named(span: Span, name: impl FnOnce() -> String) -> Span {
    if !span.is_disabled() {
        span.record("otel.name", name().as_str());
    }
    span
}

/// A toolnexus span: `tracing::info_span!` at [`TARGET`] with the operation name `$op`,
/// `otel.name` declared and then [`named`] by `$name` (an expression evaluated only for a
/// live span), and the fields that follow the `;`: the rule of [`named`], kept once.
macro_rules! span {
    ($op:literal, $name:expr; $($fields:tt)*) => {
        $crate::trace::named(
            ::tracing::info_span!(
                target: $crate::trace::TARGET,
                $op,
                otel.name = ::tracing::field::Empty,
                $($fields)*
            ),
            || $name,
        )
    };
}
pub(crate) use span;

#[cfg(test)]
mod tests {
    use super::*;

    /// With tracing's `log` feature on (as in this crate's tests, through sqlx), spans go
    /// to `log` only once a logger listens. A dispatcher set meanwhile by another test
    /// only makes `logs_spans` false, so each assertion holds whatever runs beside it.
    #[test]
    fn spans_are_built_for_log_only_when_a_logger_listens() {
        tracing::if_log_enabled! { tracing::Level::INFO, {
            use tracing::log::{LevelFilter, max_level, set_max_level};
            let before = max_level();
            set_max_level(LevelFilter::Off);
            assert!(!logs_spans(), "no logger: nothing to build spans for");
            set_max_level(LevelFilter::Info);
            let seen = logs_spans();
            set_max_level(before);
            assert!(seen || tracing::dispatcher::has_been_set(), "a logger listens");
        } else {
            assert!(!logs_spans());
        } }
    }
}

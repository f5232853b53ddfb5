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
//! request's kind and id; a resumed run's span names the request it answers, the link to
//! the run that halted on it.
//!
//! Arguments, results and message text can hold secrets and are recorded only when
//! [`capture_content`] is on (or `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`,
//! the variable the OpenTelemetry GenAI instrumentations read). API keys, headers and
//! shared [`State`](crate::State) are never recorded.

pub(crate) mod tool;

use std::sync::OnceLock;

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

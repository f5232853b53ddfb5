//! Span links between a run that halted and the run that resumes it: the halted run's
//! span context is written into its request as W3C `traceparent` / `tracestate`, and the
//! resumed run's span gets an OpenTelemetry link to it.

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator as _;
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use crate::trace::TraceContext;

/// `span`'s context, when it is recorded by the OpenTelemetry layer.
pub(crate) fn context_of(span: &Span) -> Option<TraceContext> {
    if span.is_disabled() {
        return None;
    }
    let cx = span.context();
    if !cx.span().span_context().is_valid() {
        return None;
    }
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&cx, &mut carrier);
    Some(TraceContext {
        traceparent: carrier.remove("traceparent")?,
        tracestate: carrier.remove("tracestate").filter(|s| !s.is_empty()),
    })
}

/// Links `span` (not yet entered) to the span `trace` names; a malformed context (it
/// came back with serialized data) is ignored.
pub(crate) fn link(span: &Span, trace: &TraceContext) {
    if span.is_disabled() {
        return;
    }
    let mut carrier = HashMap::new();
    carrier.insert("traceparent".to_owned(), trace.traceparent.clone());
    if let Some(state) = &trace.tracestate {
        carrier.insert("tracestate".to_owned(), state.clone());
    }
    let cx = TraceContextPropagator::new().extract(&carrier);
    let linked = cx.span().span_context().clone();
    if linked.is_valid() {
        span.add_link(linked);
    }
}

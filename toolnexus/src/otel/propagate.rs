//! W3C trace context in MCP's `_meta` (SEP-414): `traceparent` and `tracestate` keys,
//! read into a span's parent on the server, written from the current span on the client.

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator as _};
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::{Map, Value};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

struct Meta<'a>(&'a Map<String, Value>);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

struct MetaMut<'a>(&'a mut Map<String, Value>);

impl Injector for MetaMut<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), Value::String(value));
    }
}

/// Makes the caller's span in `meta` the parent of `span` (not yet entered); a missing
/// or malformed `traceparent` leaves the span where it is.
pub(crate) fn continue_from(span: &Span, meta: &Map<String, Value>) {
    if span.is_disabled() || !meta.contains_key("traceparent") {
        return;
    }
    let cx = TraceContextPropagator::new().extract(&Meta(meta));
    if cx.span().span_context().is_valid() {
        let _ = span.set_parent(cx);
    }
}

/// Writes `span`'s context into `meta` as `traceparent` (and `tracestate`).
pub(crate) fn inject(span: &Span, meta: &mut Map<String, Value>) {
    if span.is_disabled() {
        return;
    }
    let cx = span.context();
    if cx.span().span_context().is_valid() {
        TraceContextPropagator::new().inject_context(&cx, &mut MetaMut(meta));
    }
}

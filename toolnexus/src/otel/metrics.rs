//! The metrics layer: reads toolnexus's spans as they close and records their durations
//! and token counts in OpenTelemetry histograms.

use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};
use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// `gen_ai.client.operation.duration`: seconds per model turn and per run.
pub const OPERATION_DURATION: &str = "gen_ai.client.operation.duration";
/// `gen_ai.client.token.usage`: tokens per model turn, by `gen_ai.token.type`.
pub const TOKEN_USAGE: &str = "gen_ai.client.token.usage";
/// `toolnexus.tool.call.duration`: seconds per tool call.
pub const TOOL_CALL_DURATION: &str = "toolnexus.tool.call.duration";

/// The bucket boundaries the GenAI conventions advise for durations (seconds)…
const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/// …and for token counts.
const TOKEN_BUCKETS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];

pub(super) struct Metrics {
    operation: Histogram<f64>,
    tokens: Histogram<u64>,
    tools: Histogram<f64>,
}

impl Metrics {
    pub(super) fn new(meter: &Meter) -> Self {
        Metrics {
            operation: meter
                .f64_histogram(OPERATION_DURATION)
                .with_unit("s")
                .with_description("GenAI operation duration")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
            tokens: meter
                .u64_histogram(TOKEN_USAGE)
                .with_unit("{token}")
                .with_description("Number of input and output tokens used")
                .with_boundaries(TOKEN_BUCKETS.to_vec())
                .build(),
            tools: meter
                .f64_histogram(TOOL_CALL_DURATION)
                .with_unit("s")
                .with_description("Tool call duration")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
        }
    }
}

/// What a span of ours carries, as far as the metrics need it.
#[derive(Default)]
struct Fields {
    provider: Option<String>,
    model: Option<String>,
    tool: Option<String>,
    outcome: Option<String>,
    error: Option<String>,
    input: Option<u64>,
    output: Option<u64>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        let slot = match field.name() {
            "gen_ai.provider.name" => &mut self.provider,
            "gen_ai.request.model" => &mut self.model,
            "gen_ai.tool.name" => &mut self.tool,
            "toolnexus.tool.outcome" => &mut self.outcome,
            "error.type" => &mut self.error,
            _ => return,
        };
        *slot = Some(value.to_owned());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "gen_ai.usage.input_tokens" => self.input = Some(value),
            "gen_ai.usage.output_tokens" => self.output = Some(value),
            _ => {}
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if let Ok(value) = u64::try_from(value) {
            self.record_u64(field, value);
        }
    }

    fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
}

struct Timed {
    operation: &'static str,
    started: Instant,
    fields: Fields,
}

impl<S> Layer<S> for Metrics
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let meta = attrs.metadata();
        if meta.target() != crate::trace::TARGET {
            return;
        }
        let operation = match meta.name() {
            "invoke_agent" => "invoke_agent",
            "chat" => "chat",
            "execute_tool" => "execute_tool",
            _ => return,
        };
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Timed {
                operation,
                started: Instant::now(),
                fields,
            });
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(timed) = span.extensions_mut().get_mut::<Timed>()
        {
            values.record(&mut timed.fields);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(timed) = span.extensions_mut().remove::<Timed>() else {
            return;
        };
        let seconds = timed.started.elapsed().as_secs_f64();
        let f = &timed.fields;
        let mut attributes = vec![KeyValue::new("gen_ai.operation.name", timed.operation)];
        let mut add = |key: &'static str, value: &Option<String>| {
            if let Some(value) = value {
                attributes.push(KeyValue::new(key, value.clone()));
            }
        };
        if timed.operation == "execute_tool" {
            add("gen_ai.tool.name", &f.tool);
            add("toolnexus.tool.outcome", &f.outcome);
            add("error.type", &f.error);
            self.tools.record(seconds, &attributes);
            return;
        }
        add("gen_ai.provider.name", &f.provider);
        add("gen_ai.request.model", &f.model);
        add("error.type", &f.error);
        self.operation.record(seconds, &attributes);
        if timed.operation == "chat" {
            for (kind, count) in [("input", f.input), ("output", f.output)] {
                if let Some(count) = count {
                    let mut with_kind = attributes.clone();
                    with_kind.push(KeyValue::new("gen_ai.token.type", kind));
                    self.tokens.record(count, &with_kind);
                }
            }
        }
    }
}

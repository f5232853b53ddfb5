//! OpenTelemetry export of toolnexus's spans and metrics (feature `otel`).
//!
//! [`init`] is the one-call setup: it exports over OTLP (HTTP/protobuf) to the collector
//! at `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://localhost:4318`; the other standard
//! `OTEL_EXPORTER_OTLP_*` and `OTEL_SERVICE_NAME` variables apply too), installs a global
//! `tracing` subscriber that sends every span and event at `INFO` and above there, and
//! sets the W3C trace-context propagator. Keep the returned [`OtelGuard`] alive: dropping
//! it flushes what is buffered and shuts the exporters down.
//!
//! ```no_run
//! # fn main() -> Result<(), toolnexus::otel::OtelError> {
//! let _otel = toolnexus::otel::init()?;
//! // … runs, tool calls and MCP calls are traced from here on …
//! # Ok(())
//! # }
//! ```
//!
//! For a subscriber of your own (another exporter, a `fmt` layer beside it), add
//! [`layer`] to it with your providers.
//!
//! Metrics (from the spans, so every run, turn and call counts):
//!
//! - [`OPERATION_DURATION`] (`gen_ai.client.operation.duration`, seconds): each model
//!   turn (`chat`) and each run (`invoke_agent`), by operation, provider, model and
//!   `error.type`;
//! - [`TOKEN_USAGE`] (`gen_ai.client.token.usage`): each model turn's input and output
//!   tokens (`gen_ai.token.type`);
//! - [`TOOL_CALL_DURATION`] (`toolnexus.tool.call.duration`, seconds): each tool call, by
//!   tool name, outcome and `error.type`.

pub(crate) mod link;
mod metrics;
#[cfg(feature = "mcp")]
pub(crate) mod propagate;

use std::fmt;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::registry::LookupSpan;

pub use metrics::{OPERATION_DURATION, TOKEN_USAGE, TOOL_CALL_DURATION};

/// The instrumentation scope of toolnexus's tracer and meter.
pub const SCOPE: &str = "toolnexus";

/// The `tracing` layer that turns spans into OpenTelemetry spans (through
/// `tracing-opentelemetry`, with `tracer_provider`) and records toolnexus's metrics
/// with `meter_provider`. Add it to a `tracing_subscriber::Registry`.
pub fn layer<S>(
    tracer_provider: &SdkTracerProvider,
    meter_provider: &SdkMeterProvider,
) -> impl Layer<S> + Send + Sync + 'static
where
    S: Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
{
    use opentelemetry::metrics::MeterProvider as _;
    let spans = tracing_opentelemetry::layer()
        .with_tracer(tracer_provider.tracer(SCOPE))
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_level(false);
    spans.and_then(metrics::Metrics::new(&meter_provider.meter(SCOPE)))
}

/// Keeps the exporters of [`init`] running; dropping it flushes them and shuts them down.
#[must_use = "dropping the guard shuts the exporters down"]
pub struct OtelGuard {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
}

impl OtelGuard {
    /// The tracer provider, e.g. to flush it at a point of your choosing.
    pub fn tracer_provider(&self) -> &SdkTracerProvider {
        &self.tracer_provider
    }

    /// The meter provider.
    pub fn meter_provider(&self) -> &SdkMeterProvider {
        &self.meter_provider
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        // Shutting down flushes; an unreachable collector has been reported already.
        let _ = self.tracer_provider.shutdown();
        let _ = self.meter_provider.shutdown();
    }
}

impl fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelGuard").finish_non_exhaustive()
    }
}

/// Why [`init`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// An OTLP exporter could not be built (an invalid endpoint or header variable).
    #[error("the OTLP exporter could not be built: {0}")]
    Exporter(String),
    /// A global `tracing` subscriber was installed already: add [`layer`] to it instead.
    #[error(
        "a global tracing subscriber is already set; add toolnexus::otel::layer to it instead of calling init"
    )]
    SubscriberSet,
}

/// Exports spans and metrics over OTLP HTTP/protobuf to `OTEL_EXPORTER_OTLP_ENDPOINT`,
/// through a global `tracing` subscriber (spans and events at `INFO` and above), and sets
/// the W3C trace-context propagator. See the [module](self) documentation.
pub fn init() -> Result<OtelGuard, OtelError> {
    use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig as _};
    let exporter_error =
        |error: opentelemetry_otlp::ExporterBuildError| OtelError::Exporter(error.to_string());
    let spans = SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
        .map_err(exporter_error)?;
    let metrics = MetricExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
        .map_err(exporter_error)?;
    let tracer_provider = SdkTracerProvider::builder()
        .with_batch_exporter(spans)
        .build();
    let meter_provider = SdkMeterProvider::builder()
        .with_periodic_exporter(metrics)
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(layer(&tracer_provider, &meter_provider).with_filter(LevelFilter::INFO));
    tracing::subscriber::set_global_default(subscriber).map_err(|_| OtelError::SubscriberSet)?;
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    opentelemetry::global::set_tracer_provider(tracer_provider.clone());
    opentelemetry::global::set_meter_provider(meter_provider.clone());
    Ok(OtelGuard {
        tracer_provider,
        meter_provider,
    })
}

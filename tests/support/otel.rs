//! An OpenTelemetry pipeline into the SDK's in-memory exporters, through
//! `toolnexus::otel::layer`, and lookups over what it collected.

use opentelemetry::trace::{SpanId, SpanKind, Status};
use opentelemetry::{Key, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, HistogramDataPoint, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt as _;

/// One histogram data point: its attributes (key, value), count and sum.
pub(crate) type Point = (Vec<(String, String)>, u64, f64);

/// The providers and exporters of one test.
pub(crate) struct Collector {
    pub(crate) spans: InMemorySpanExporter,
    pub(crate) metrics: InMemoryMetricExporter,
    pub(crate) tracer_provider: SdkTracerProvider,
    pub(crate) meter_provider: SdkMeterProvider,
}

impl Collector {
    pub(crate) fn new() -> Collector {
        let spans = InMemorySpanExporter::default();
        let metrics = InMemoryMetricExporter::default();
        let tracer_provider = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let meter_provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        Collector {
            spans,
            metrics,
            tracer_provider,
            meter_provider,
        }
    }

    /// A subscriber with toolnexus's layer over these providers.
    pub(crate) fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync + 'static {
        tracing_subscriber::registry().with(toolnexus::otel::layer(
            &self.tracer_provider,
            &self.meter_provider,
        ))
    }

    /// This collector as the thread's default subscriber, until the guard drops.
    ///
    /// Tracing caches each callsite's interest globally. A test that meets a callsite
    /// first, on a thread with no subscriber, would cache "never" while another test's
    /// scoped collector is being installed, and that collector would then miss the span.
    /// A global subscriber that answers "sometimes" keeps every callsite asking the
    /// thread's current subscriber, whichever test meets it first.
    pub(crate) fn scoped(&self) -> tracing::subscriber::DefaultGuard {
        static UNDECIDED: std::sync::Once = std::sync::Once::new();
        UNDECIDED.call_once(|| {
            // Fails only when the binary already has a global subscriber, which decides.
            let _ = tracing::subscriber::set_global_default(Undecided);
        });
        tracing::subscriber::set_default(self.subscriber())
    }

    /// Every span finished so far.
    pub(crate) fn finished(&self) -> Vec<SpanData> {
        self.spans
            .get_finished_spans()
            .expect("the in-memory spans")
    }

    /// The histogram data points of the metric `name` (f64 or u64 values as f64), from
    /// a fresh export: the totals since the start (cumulative), counted once.
    pub(crate) fn histogram(&self, name: &str) -> Vec<Point> {
        self.metrics.reset();
        self.meter_provider.force_flush().expect("metrics flushed");
        let mut points = Vec::new();
        for resource in self.metrics.get_finished_metrics().expect("metrics") {
            for scope in resource.scope_metrics() {
                for metric in scope.metrics().filter(|m| m.name() == name) {
                    match metric.data() {
                        AggregatedMetrics::F64(MetricData::Histogram(h)) => {
                            points.extend(h.data_points().map(|p| point(p, p.sum())));
                        }
                        AggregatedMetrics::U64(MetricData::Histogram(h)) => {
                            points.extend(h.data_points().map(|p| point(p, p.sum() as f64)));
                        }
                        other => panic!("{name} is not a histogram: {other:?}"),
                    }
                }
            }
        }
        points
    }
}

fn point<T>(p: &HistogramDataPoint<T>, sum: f64) -> Point {
    let attributes = p
        .attributes()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect();
    (attributes, p.count(), sum)
}

/// The value of attribute `key` on `span`.
pub(crate) fn attr<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == Key::from(key.to_owned()))
        .map(|kv| &kv.value)
}

/// The string value of attribute `key` on `span`, or a panic naming the span.
pub(crate) fn text(span: &SpanData, key: &str) -> String {
    attr(span, key)
        .unwrap_or_else(|| panic!("span `{}` has no `{key}`: {:?}", span.name, span.attributes))
        .to_string()
}

/// The one finished span called `name`.
pub(crate) fn span<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    let found: Vec<_> = spans.iter().filter(|s| s.name == name).collect();
    assert_eq!(
        found.len(),
        1,
        "expected one span `{name}`, found {}: {:?}",
        found.len(),
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    found[0]
}

pub(crate) fn id(span: &SpanData) -> SpanId {
    span.span_context.span_id()
}

pub(crate) fn is_error(span: &SpanData) -> bool {
    matches!(span.status, Status::Error { .. })
}

pub(crate) fn kind(span: &SpanData) -> SpanKind {
    span.span_kind.clone()
}

/// A global subscriber that records nothing and leaves every callsite's interest open.
struct Undecided;

impl tracing::Subscriber for Undecided {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        false
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

//! The contract's observability (§8): the [`MetricRecord`]s a client gives its
//! [`on_metric`](Client::on_metric) sink, and the Prometheus text of
//! [`Client::metrics`], rendered from the same records by a [`MetricsRegistry`].
//!
//! The text is the contract's, byte for byte as the Python port renders it: the six
//! metrics in a fixed order, each with its `# HELP` and `# TYPE` lines; series sorted by
//! their rendered label string; the fixed duration buckets; numbers written as
//! JavaScript's `String()` and Python's `repr` write them (`1`, not `1.0`; `1e-05`).
//! The format is plain text, so it is written here rather than through a Prometheus
//! client crate, whose number and label formatting differ from the contract's.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::model::message::ToolCall;
use crate::model::{Model, ModelError, Reply, Usage};
use crate::tool::result::ToolResult;

/// One record of what a client did, as [`Client::on_metric`](crate::Client::on_metric) receives it and the Python
/// port's `on_metric` does: its JSON form is the Python port's dict, `event` naming the
/// kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum MetricRecord {
    /// One model call (retries included), `"ok"` or `"error"`.
    Llm {
        /// The model's name, as the request carried it.
        model: String,
        /// `"ok"` or `"error"`.
        status: String,
        /// How long the call took, in milliseconds.
        ms: f64,
        /// The call's prompt tokens (0 for a failed call).
        prompt_tokens: u64,
        /// The call's completion tokens (0 for a failed call).
        completion_tokens: u64,
    },
    /// One tool call (a call a before-tool hook answered or denied included).
    Tool {
        /// The tool's name.
        tool: String,
        /// Where the tool comes from ([`Tool::source`](crate::Tool::source)); `"custom"`
        /// for a name the toolkit does not hold.
        source: String,
        /// Whether the result is an error (never for a suspension).
        is_error: bool,
        /// How long the call took, hooks included, in milliseconds.
        ms: f64,
        /// Whether the call suspended (a §10 request): written only when it did.
        #[serde(default, skip_serializing_if = "is_false")]
        pending: bool,
    },
    /// One run (`run`, `ask`, `stream`, `resume`).
    Run {
        /// The model's name.
        model: String,
        /// The model turns the run took.
        turns: u32,
        /// The tool calls the run made.
        tool_calls: usize,
        /// The run's tokens.
        total_tokens: u64,
        /// How long the run took, in milliseconds.
        ms: f64,
        /// Why the run failed, when it did (a stop other than its turn limit).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// The sink [`Client::on_metric`] sets.
pub(crate) type OnMetric = dyn Fn(&MetricRecord) + Send + Sync;

/// The duration buckets (seconds), fixed by the contract across ports.
const BUCKETS: [f64; 10] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];
/// The buckets' `le` labels, as JavaScript's `String()` writes them.
const BUCKET_LES: [&str; 10] = [
    "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "60",
];

/// One series of a counter: its label values, rendered label string and value.
#[derive(Clone, Debug)]
struct Counter {
    values: Vec<String>,
    labels: String,
    total: f64,
}

/// One series of a histogram.
#[derive(Clone, Debug)]
struct Histogram {
    values: Vec<String>,
    labels: String,
    counts: [u64; 10],
    sum: f64,
    count: u64,
}

/// A cumulative, in-memory registry of the contract's six metrics, fed with
/// [`MetricRecord`]s and rendered as Prometheus text. Each [`Client`](crate::Client) keeps one (see
/// [`Client::metrics`](crate::Client::metrics)); keep one of your own to aggregate records from elsewhere.
///
/// ```
/// use toolnexus::agent::{MetricRecord, MetricsRegistry};
///
/// let mut registry = MetricsRegistry::default();
/// registry.record(&MetricRecord::Tool {
///     tool: "add".into(), source: "native".into(), is_error: false, ms: 3.0, pending: false,
/// });
/// let text = registry.render();
/// assert!(text.contains(
///     "toolnexus_tool_calls_total{tool=\"add\",source=\"native\",is_error=\"false\",pending=\"false\"} 1\n"
/// ));
/// ```
#[derive(Clone, Debug, Default)]
pub struct MetricsRegistry {
    llm_requests: Vec<Counter>,
    llm_tokens: Vec<Counter>,
    llm_duration: Vec<Histogram>,
    tool_calls: Vec<Counter>,
    tool_duration: Vec<Histogram>,
    run_errors: Vec<Counter>,
}

impl MetricsRegistry {
    /// Adds `record` to the metrics it counts in.
    pub fn record(&mut self, record: &MetricRecord) {
        match record {
            MetricRecord::Llm {
                model,
                status,
                ms,
                prompt_tokens,
                completion_tokens,
            } => self.llm(model, status, *ms, *prompt_tokens, *completion_tokens),
            MetricRecord::Tool {
                tool,
                source,
                is_error,
                ms,
                pending,
            } => self.tool(tool, source, *is_error, *ms, *pending),
            MetricRecord::Run { model, error, .. } => {
                if error.as_deref().is_some_and(|e| !e.is_empty()) {
                    self.run_failed(model);
                }
            }
        }
    }

    fn llm(&mut self, model: &str, status: &str, ms: f64, prompt: u64, completion: u64) {
        inc(
            &mut self.llm_requests,
            &[("model", model), ("status", status)],
            1.0,
        );
        if status == "ok" {
            inc(&mut self.llm_tokens, &[("type", "prompt")], prompt as f64);
            inc(
                &mut self.llm_tokens,
                &[("type", "completion")],
                completion as f64,
            );
        }
        observe(&mut self.llm_duration, &[("model", model)], ms / 1000.0);
    }

    fn tool(&mut self, tool: &str, source: &str, is_error: bool, ms: f64, pending: bool) {
        let labels = [
            ("tool", tool),
            ("source", source),
            ("is_error", if is_error { "true" } else { "false" }),
            ("pending", if pending { "true" } else { "false" }),
        ];
        inc(&mut self.tool_calls, &labels, 1.0);
        observe(&mut self.tool_duration, &[("tool", tool)], ms / 1000.0);
    }

    fn run_failed(&mut self, model: &str) {
        inc(&mut self.run_errors, &[("model", model)], 1.0);
    }

    /// The Prometheus text exposition of everything recorded so far; before any record,
    /// only the `# HELP` and `# TYPE` lines. Ends with a newline.
    pub fn render(&self) -> String {
        let mut out = String::new();
        counter(
            &mut out,
            "toolnexus_llm_requests_total",
            "Total LLM requests.",
            &self.llm_requests,
        );
        counter(
            &mut out,
            "toolnexus_llm_tokens_total",
            "Total tokens, by type.",
            &self.llm_tokens,
        );
        histogram(
            &mut out,
            "toolnexus_llm_request_duration_seconds",
            "LLM request duration in seconds.",
            &self.llm_duration,
        );
        counter(
            &mut out,
            "toolnexus_tool_calls_total",
            "Total tool calls.",
            &self.tool_calls,
        );
        histogram(
            &mut out,
            "toolnexus_tool_duration_seconds",
            "Tool execution duration in seconds.",
            &self.tool_duration,
        );
        counter(
            &mut out,
            "toolnexus_run_errors_total",
            "Total run errors.",
            &self.run_errors,
        );
        out
    }
}

/// Whether `values` are the label values `labels` name.
fn same(values: &[String], labels: &[(&str, &str)]) -> bool {
    values.len() == labels.len() && values.iter().zip(labels).all(|(v, (_, l))| v == l)
}

/// `k="v",k="v"`, values escaped.
fn label_string(labels: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (name, value)) in labels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(name);
        out.push_str("=\"");
        for c in value.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                '\n' => out.push_str("\\n"),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    out
}

fn values(labels: &[(&str, &str)]) -> Vec<String> {
    labels.iter().map(|(_, v)| (*v).to_owned()).collect()
}

fn inc(series: &mut Vec<Counter>, labels: &[(&str, &str)], by: f64) {
    match series.iter_mut().find(|s| same(&s.values, labels)) {
        Some(found) => found.total += by,
        None => series.push(Counter {
            values: values(labels),
            labels: label_string(labels),
            total: by,
        }),
    }
}

fn observe(series: &mut Vec<Histogram>, labels: &[(&str, &str)], seconds: f64) {
    let i = match series.iter().position(|s| same(&s.values, labels)) {
        Some(i) => i,
        None => {
            series.push(Histogram {
                values: values(labels),
                labels: label_string(labels),
                counts: [0; 10],
                sum: 0.0,
                count: 0,
            });
            series.len() - 1
        }
    };
    let h = &mut series[i];
    h.sum += seconds;
    h.count += 1;
    for (count, bucket) in h.counts.iter_mut().zip(BUCKETS) {
        if seconds <= bucket {
            *count += 1;
        }
    }
}

fn head(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// `name{labels}` (or `name` alone without labels).
fn series_name(name: &str, labels: &str) -> String {
    if labels.is_empty() {
        name.to_owned()
    } else {
        format!("{name}{{{labels}}}")
    }
}

fn counter(out: &mut String, name: &str, help: &str, series: &[Counter]) {
    head(out, name, help, "counter");
    let mut sorted: Vec<&Counter> = series.iter().collect();
    sorted.sort_by(|a, b| a.labels.cmp(&b.labels));
    for s in sorted {
        let _ = writeln!(out, "{} {}", series_name(name, &s.labels), number(s.total));
    }
}

fn histogram(out: &mut String, name: &str, help: &str, series: &[Histogram]) {
    head(out, name, help, "histogram");
    let mut sorted: Vec<&Histogram> = series.iter().collect();
    sorted.sort_by(|a, b| a.labels.cmp(&b.labels));
    for h in sorted {
        let with_le = |le: &str| {
            if h.labels.is_empty() {
                format!("le=\"{le}\"")
            } else {
                format!("{},le=\"{le}\"", h.labels)
            }
        };
        for (le, count) in BUCKET_LES.iter().zip(h.counts) {
            let _ = writeln!(out, "{name}_bucket{{{}}} {count}", with_le(le));
        }
        let _ = writeln!(out, "{name}_bucket{{{}}} {}", with_le("+Inf"), h.count);
        let sum = series_name(&format!("{name}_sum"), &h.labels);
        let _ = writeln!(out, "{sum} {}", number(h.sum));
        let count = series_name(&format!("{name}_count"), &h.labels);
        let _ = writeln!(out, "{count} {}", h.count);
    }
}

/// `x` as the contract writes numbers: a whole number without a decimal point, any
/// other as Python's `repr` (the shortest digits that read back as `x`, in exponent form
/// below `1e-4` and from `1e16`).
pub(crate) fn number(x: f64) -> String {
    if !x.is_finite() {
        return match x {
            x if x.is_nan() => "nan".to_owned(),
            x if x > 0.0 => "inf".to_owned(),
            _ => "-inf".to_owned(),
        };
    }
    if x.fract() == 0.0 {
        return if x == 0.0 {
            "0".to_owned()
        } else {
            format!("{x:.0}")
        };
    }
    let exp_form = format!("{x:e}");
    let (mantissa, exp) = exp_form.split_once('e').unwrap_or((&exp_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        format!("{x}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    }
}

/// A client's metrics: the registry [`Client::metrics`] renders and the sink
/// [`Client::on_metric`] set. Shared by the client's clones.
#[derive(Clone, Default)]
pub(crate) struct Meter {
    pub(crate) registry: Arc<Mutex<MetricsRegistry>>,
    pub(crate) sink: Option<Arc<OnMetric>>,
}

impl std::fmt::Debug for Meter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meter")
            .field("on_metric", &self.sink.is_some())
            .finish_non_exhaustive()
    }
}

impl Meter {
    /// Records in the registry (from borrowed values: nothing is allocated once a series
    /// exists), and gives the record `make` builds to the sink, when there is one.
    fn emit(
        &self,
        registry: impl FnOnce(&mut MetricsRegistry),
        make: impl FnOnce() -> MetricRecord,
    ) {
        match self.registry.lock() {
            Ok(mut locked) => registry(&mut locked),
            Err(poisoned) => registry(&mut poisoned.into_inner()),
        }
        if let Some(sink) = &self.sink {
            let record = make();
            // A panicking sink must not take the run down with it.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sink(&record)));
        }
    }

    /// The `llm` record of one call of `model`, begun at `start`.
    pub(crate) fn llm_called(
        &self,
        model: &dyn Model,
        reply: &Result<Reply, ModelError>,
        start: Instant,
    ) {
        let (status, usage) = match reply {
            Ok(reply) => ("ok", reply.usage),
            Err(_) => ("error", Usage::default()),
        };
        let (name, ms) = (model.describe().name.unwrap_or_default(), millis(start));
        let (prompt, completion) = (usage.prompt_tokens, usage.completion_tokens);
        self.emit(
            |r| r.llm(name, status, ms, prompt, completion),
            || MetricRecord::Llm {
                model: name.to_owned(),
                status: status.to_owned(),
                ms,
                prompt_tokens: prompt,
                completion_tokens: completion,
            },
        );
    }

    /// The `tool` record of `call` (a tool of `source`), begun at `start`: a suspension
    /// is `pending`, never an error.
    pub(crate) fn tool_called(
        &self,
        call: &ToolCall,
        source: &str,
        result: &ToolResult,
        start: Instant,
    ) {
        let pending = result.is_pending();
        let (is_error, ms) = (result.is_error && !pending, millis(start));
        self.emit(
            |r| r.tool(&call.name, source, is_error, ms, pending),
            || MetricRecord::Tool {
                tool: call.name.clone(),
                source: source.to_owned(),
                is_error,
                ms,
                pending,
            },
        );
    }

    /// The `run` record of `run`, begun at `start`.
    pub(crate) fn run_ended(&self, run: &RunResult, model: &str, start: Instant) {
        let failed = match &run.status {
            RunStatus::Incomplete { reason } => !matches!(reason, StopReason::MaxTurns { .. }),
            _ => false,
        };
        let model = run.model.as_deref().unwrap_or(model);
        let ms = millis(start);
        self.emit(
            |r| {
                if failed {
                    r.run_failed(model);
                }
            },
            || MetricRecord::Run {
                model: model.to_owned(),
                turns: run.turns,
                tool_calls: run.tool_calls.len(),
                total_tokens: run.usage.total_tokens(),
                ms,
                error: match &run.status {
                    RunStatus::Incomplete { reason } if failed => Some(match reason {
                        StopReason::Aborted { reason } => reason.clone(),
                        StopReason::ModelError { message } => message.clone(),
                        other => other.to_string(),
                    }),
                    _ => None,
                },
            },
        );
    }
}

/// Milliseconds since `start`.
pub(crate) fn millis(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn numbers_are_written_as_python_repr_writes_them() {
        for (x, text) in [
            (0.0, "0"),
            (-0.0, "0"),
            (3.0, "3"),
            (1e20, "100000000000000000000"),
            (0.5, "0.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.0001234, "0.0001234"),
            (0.00001234, "1.234e-05"),
            (5e-6, "5e-06"),
            (1.5e-300, "1.5e-300"),
            (123.456, "123.456"),
        ] {
            assert_eq!(number(x), text, "{x}");
        }
    }
}

//! What the spans cost: `Toolkit::execute` and a loop run of 1000 tool calls, with no
//! `tracing` subscriber and with toolnexus's OpenTelemetry layer installed (a tracer
//! provider that builds every span and exports it nowhere), measured in one run so the
//! ratio is between neighbours. See BENCHMARKS.md, "Tracing".

// `criterion_group!` defines an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::{Value, json};
use toolnexus::{Client, Context, Reply, ScriptedModel, Tool, ToolCall, ToolResult, Toolkit};
use tracing_subscriber::layer::SubscriberExt as _;

const CALLS: usize = 1000;

fn toolkit() -> Toolkit {
    Toolkit::new().with(Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({"type": "object"}),
        |args, _| {
            ToolResult::ok(
                (args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)).to_string(),
            )
        },
    ))
}

fn client() -> Client {
    let calls =
        (0..CALLS).map(|i| ToolCall::new(format!("c{i}"), "add", format!(r#"{{"a":{i},"b":1}}"#)));
    Client::new(ScriptedModel::new([
        Reply::calls(calls),
        Reply::text("done"),
    ]))
}

fn bench(c: &mut Criterion, label: &str) {
    let toolkit = toolkit();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let args: Value = json!({"a": 2, "b": 3});
    let mut group = c.benchmark_group("tracing");
    group.bench_function(format!("execute/{label}"), |b| {
        b.iter(|| rt.block_on(toolkit.execute("add", black_box(args.clone()), Context::default())))
    });
    group.sample_size(20);
    group.bench_function(format!("run_1000_calls/{label}"), |b| {
        b.iter_batched(
            client,
            |client| black_box(rt.block_on(client.run("go", &toolkit))),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn tracing(c: &mut Criterion) {
    let run = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(client().run("go", &toolkit()));
    assert!(run.is_done());
    assert_eq!(run.tool_calls.len(), CALLS);

    bench(c, "no_subscriber");
    let tracer_provider = SdkTracerProvider::builder().build();
    let meter_provider = SdkMeterProvider::builder().build();
    let subscriber = tracing_subscriber::registry()
        .with(toolnexus::otel::layer(&tracer_provider, &meter_provider));
    tracing::subscriber::with_default(subscriber, || bench(c, "otel_layer"));
}

criterion_group!(benches, tracing);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}

//! The overhead of calling an agent run as a tool (`Client::as_tool`), with a model
//! scripted by its transcript (one call to `add`, then the answer). See `BENCHMARKS.md`.
//!
//! ```text
//! cargo bench --bench agents -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! - `agent_call/direct`: the inner agent's tool called directly (`execute_json`).
//! - `agent_call/inner_run`: the inner agent's whole run (`Client::run`): two model turns
//!   and the call.
//! - `agent_call/as_tool`: the same run through the agent's tool, as an outer run calls
//!   it: what `as_tool` adds on top of `inner_run`.
//! - `agent_runtime/bare_turn`: one `Client::run` of a one-turn agent (the model answers at
//!   once): the baseline of a runtime turn.
//! - `agent_runtime/turn`: the same turn through the runtime (`toolnexus::agents`), `wake`
//!   and `wait` on a fresh handle: admission, drain, a tokio task, the metered model and the
//!   settle. `turn / bare_turn` is the runtime's overhead per turn.
//! - `agent_runtime/spawn_wake_wait_1000`: 1,000 handles spawned under the root, each woken
//!   and waited for (eight at a time, the root's `maxConcurrent`, the rest queued and
//!   handed over).

#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::{Client, Context, Message, Reply, Tool, ToolResult, Toolkit};

fn add() -> Tool {
    Tool::new_sync("add", "Adds.", json!({"type": "object"}), |args, _| {
        let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
        ToolResult::ok(sum.to_string())
    })
}

fn inner() -> Client {
    Client::new(FnModel::new_sync(|transcript, _| {
        Ok(match transcript.last() {
            Some(Message::User { .. }) => Reply::call("a1", "add", r#"{"a":20,"b":22}"#),
            _ => Reply::text("42"),
        })
    }))
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let tools = Toolkit::new().with(add());
    let client = inner();
    let outer = Toolkit::new().with(client.as_tool("math", "Does sums.", tools.clone()));
    let mut group = c.benchmark_group("agent_call");
    group.bench_function("direct", |b| {
        b.iter(|| {
            let call = tools.execute_json("add", r#"{"a":20,"b":22}"#, Context::new());
            black_box(rt.block_on(call))
        });
    });
    group.bench_function("inner_run", |b| {
        b.iter(|| black_box(rt.block_on(client.run("20 + 22?", &tools))));
    });
    group.bench_function("as_tool", |b| {
        b.iter(|| {
            let call = outer.execute_json("math", r#"{"prompt":"20 + 22?"}"#, Context::new());
            let result = rt.block_on(call);
            assert_eq!(result.output, "42");
            black_box(result)
        });
    });
    group.finish();
}

fn runtime_bench(c: &mut Criterion) {
    use toolnexus::agents::{Agent, Runtime};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let model = || FnModel::new_sync(|_, _| Ok(Reply::text("ok")));
    let agent = Agent::new("a").does("Answers.");
    let mut group = c.benchmark_group("agent_runtime");
    let bare = Client::new(model());
    let empty = Toolkit::new();
    group.bench_function("bare_turn", |b| {
        b.iter(|| black_box(rt.block_on(bare.run("go", &empty))));
    });
    // A fresh handle for each turn (made outside the timing): a handle's transcript grows
    // with every turn, and the copy each wake takes of it would be measured instead.
    group.bench_function("turn", |b| {
        b.iter_batched(
            || {
                let runtime = Runtime::new(model(), &agent);
                let h = rt
                    .block_on(async { runtime.spawn(&runtime.root(), "a", None) })
                    .unwrap();
                (runtime, h)
            },
            |(runtime, h)| {
                let r = rt.block_on(async {
                    runtime.wake(&h, Some("go".into())).unwrap();
                    runtime.wait(&h, None).await
                });
                assert!(r.is_done());
                black_box(r)
            },
            BatchSize::SmallInput,
        );
    });
    group.sample_size(10);
    group.bench_function("spawn_wake_wait_1000", |b| {
        b.iter(|| {
            let runtime = Runtime::new(model(), &agent);
            rt.block_on(async {
                let handles: Vec<_> = (0..1000)
                    .map(|_| runtime.spawn(&runtime.root(), "a", None).unwrap())
                    .collect();
                for h in &handles {
                    runtime.wake(h, Some("go".into())).unwrap();
                }
                for h in &handles {
                    assert!(runtime.wait(h, None).await.is_done());
                }
            });
            black_box(runtime)
        });
    });
    group.finish();
}

criterion_group!(benches, bench, runtime_bench);
criterion_main!(benches);

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

#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolnexus::{Client, Context, FnModel, Message, Reply, Tool, ToolResult, Toolkit};

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

criterion_group!(benches, bench);
criterion_main!(benches);

//! Loop overhead: 1000 tool calls driven through `Client::run` by a scripted model, beside
//! 1000 direct `Toolkit::execute_json` calls with the same raw-text arguments (what the
//! loop itself runs for each call). See `BENCHMARKS.md`.
//!
//! ```text
//! cargo bench --bench client_loop -- --warm-up-time 1 --measurement-time 3
//! python3 benches/ratios.py
//! ```
//!
//! - `loop_1000/direct`: 1000 `execute_json` calls in a row.
//! - `loop_1000/run_1_turn`: a `ScriptedModel` asks for the 1000 calls in one turn, then
//!   answers; the run plays them (concurrently, the default) and records them.
//! - `loop_1000/run_100_turns`: 100 turns of 10 calls, then the answer. The model here is
//!   an `FnModel` handing out prepared replies: `ScriptedModel` keeps a copy of every
//!   transcript it is shown, which over 100 growing transcripts would measure the copies,
//!   not the loop.

#![allow(missing_docs)]

use std::convert::Infallible;
use std::hint::black_box;
use std::sync::Mutex;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use toolnexus::{Client, Context, FnModel, Reply, ScriptedModel, ToolCall, Toolkit, tool};

const CALLS: usize = 1000;

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> Result<i64, Infallible> {
    Ok(a + b)
}

fn arguments(i: usize) -> String {
    format!(r#"{{"a":{i},"b":22}}"#)
}

fn calls(range: std::ops::Range<usize>) -> Vec<ToolCall> {
    range
        .map(|i| ToolCall::new(format!("call_{i}"), "add", arguments(i)))
        .collect()
}

/// 100 turns of 10 calls, then the answer, served in order without keeping transcripts.
fn turns_model() -> FnModel {
    let mut replies: Vec<Reply> = (0..100)
        .map(|turn| Reply::calls(calls(turn * 10..turn * 10 + 10)))
        .collect();
    replies.push(Reply::text("done"));
    replies.reverse();
    let replies = Mutex::new(replies);
    FnModel::new_sync(move |_, _| {
        Ok(replies
            .lock()
            .unwrap()
            .pop()
            .unwrap_or_else(|| Reply::text("done")))
    })
}

fn client_loop(c: &mut Criterion) {
    let toolkit = Toolkit::new().with(add::tool());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let texts: Vec<String> = (0..CALLS).map(arguments).collect();

    // Both shapes of run do what they claim.
    let one = ScriptedModel::new([Reply::calls(calls(0..CALLS)), Reply::text("done")]);
    let run = rt.block_on(Client::new(one).run("go", &toolkit));
    assert!(run.is_done());
    assert_eq!(run.calls.len(), CALLS);
    assert_eq!(run.calls[999].result.output, "1021");
    let run = rt.block_on(
        Client::new(turns_model())
            .max_turns(101)
            .run("go", &toolkit),
    );
    assert!(run.is_done());
    assert_eq!(run.calls.len(), CALLS);

    let mut group = c.benchmark_group("loop_1000");
    group.sample_size(20);
    group.bench_function("direct", |b| {
        b.iter(|| {
            rt.block_on(async {
                for text in &texts {
                    black_box(toolkit.execute_json("add", text, Context::default()).await);
                }
            })
        })
    });
    group.bench_function("run_1_turn", |b| {
        b.iter_batched(
            || {
                Client::new(ScriptedModel::new([
                    Reply::calls(calls(0..CALLS)),
                    Reply::text("done"),
                ]))
            },
            |client| black_box(rt.block_on(client.run("go", &toolkit))),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("run_100_turns", |b| {
        b.iter_batched(
            || Client::new(turns_model()).max_turns(101),
            |client| black_box(rt.block_on(client.run("go", &toolkit))),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, client_loop);
criterion_main!(benches);

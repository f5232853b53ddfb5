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
//! - `loop_1000/run_1_turn_hooked`, `loop_1000/run_100_turns_hooked`: the same two runs
//!   with every hook set (before and after each tool call and each model turn) and an
//!   event listener, all doing nothing: the cost of the hook and event machinery itself,
//!   to compare with the unhooked runs of the same benchmark run. The hooks are async
//!   closures (one boxed future per hook and call); `_hooked_sync` gives the per-call
//!   hooks as plain functions (`before_tool_sync`, `after_tool_sync`), and
//!   `_hooked_trait` gives all four as one `Hooks` value left at its defaults (futures
//!   decided at once, no allocation).

#![allow(missing_docs)]

use std::convert::Infallible;
use std::hint::black_box;
use std::sync::Mutex;

use criterion::{BatchSize, Criterion, criterion_group};
use toolnexus::agent::TurnDecision;
use toolnexus::agent::{Hooks, ToolDecision};
use toolnexus::model::FnModel;
use toolnexus::{Client, Context, Event, Reply, ScriptedModel, ToolCall, Toolkit, tool};

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

/// `client` with every hook and an event listener, each doing nothing.
fn hooked(client: Client) -> Client {
    client
        .before_tool(|_| std::future::ready(ToolDecision::Allow))
        .after_tool(|_, result| std::future::ready(result))
        .before_turn(|_| std::future::ready(TurnDecision::Continue))
        .after_turn(|_, _| std::future::ready(()))
        .on_event(|event: &Event<'_>| {
            black_box(event);
        })
}

/// Adds a benchmark's hooks to a client.
type AddHooks = fn(Client) -> Client;

/// As [`hooked`], with the per-call hooks in their synchronous form (no future per call).
fn hooked_sync(client: Client) -> Client {
    client
        .before_tool_sync(|_| ToolDecision::Allow)
        .after_tool_sync(|_, _| {})
        .before_turn(|_| std::future::ready(TurnDecision::Continue))
        .after_turn(|_, _| std::future::ready(()))
        .on_event(|event: &Event<'_>| {
            black_box(event);
        })
}

/// A [`Hooks`] implementation that keeps every method's default: hooks at all four
/// points, each deciding at once.
struct Defaults;

impl Hooks for Defaults {}

/// As [`hooked`], with the hooks given as one [`Hooks`] value at its defaults.
fn hooked_trait(client: Client) -> Client {
    client.hooks(Defaults).on_event(|event: &Event<'_>| {
        black_box(event);
    })
}

/// The client of one run of the benchmark `name` (`run_1_turn`, `run_100_turns`, and the
/// same with `_hooked`, `_hooked_sync` or `_hooked_trait`).
fn client_for(name: &str) -> Client {
    let (base, hooks): (&str, Option<AddHooks>) =
        if let Some(base) = name.strip_suffix("_hooked_trait") {
            (base, Some(hooked_trait))
        } else if let Some(base) = name.strip_suffix("_hooked_sync") {
            (base, Some(hooked_sync))
        } else if let Some(base) = name.strip_suffix("_hooked") {
            (base, Some(hooked))
        } else {
            (name, None)
        };
    let client = match base {
        "run_1_turn" => Client::new(ScriptedModel::new([
            Reply::calls(calls(0..CALLS)),
            Reply::text("done"),
        ])),
        "run_100_turns" => Client::new(turns_model()).max_turns(101),
        other => panic!("no loop benchmark named {other}"),
    };
    match hooks {
        Some(add_hooks) => add_hooks(client),
        None => client,
    }
}

/// `LOOP_COUNT=NAME:N`: runs the benchmark `NAME` `N` times outside criterion and exits,
/// for counting instructions under callgrind (see BENCHMARKS.md).
fn count_mode() -> bool {
    let Ok(spec) = std::env::var("LOOP_COUNT") else {
        return false;
    };
    let (name, n) = spec.split_once(':').expect("LOOP_COUNT=NAME:N");
    let n: usize = n.parse().expect("LOOP_COUNT=NAME:N with N a number");
    let toolkit = Toolkit::new().with(add::tool());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for _ in 0..n {
        let run = rt.block_on(client_for(name).run("go", &toolkit));
        assert!(run.is_done());
        black_box(run);
    }
    true
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
    assert_eq!(run.tool_calls.len(), CALLS);
    assert_eq!(run.tool_calls[999].result.output, "1021");
    let run = rt.block_on(
        Client::new(turns_model())
            .max_turns(101)
            .run("go", &toolkit),
    );
    assert!(run.is_done());
    assert_eq!(run.tool_calls.len(), CALLS);
    let run = rt.block_on(hooked(Client::new(turns_model()).max_turns(101)).run("go", &toolkit));
    assert!(run.is_done());
    assert_eq!(run.tool_calls[999].result.output, "1021");

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
    // Each unhooked run is measured right before its hooked twin, so that the load of
    // the machine drifts as little as possible between the two sides of a ratio.
    for name in [
        "run_1_turn",
        "run_1_turn_hooked",
        "run_1_turn_hooked_sync",
        "run_1_turn_hooked_trait",
        "run_100_turns",
        "run_100_turns_hooked",
        "run_100_turns_hooked_sync",
        "run_100_turns_hooked_trait",
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || client_for(name),
                |client| black_box(rt.block_on(client.run("go", &toolkit))),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, client_loop);

fn main() {
    if count_mode() {
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

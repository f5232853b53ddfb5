//! What a suspension costs over MCP 2026-07-28: sealing and opening its `requestState`,
//! and a whole suspended `tools/call` round trip against a plain `tools/call`, in one run.
//! See `BENCHMARKS.md` ("Suspensions over MCP").
//!
//! ```text
//! cargo bench --bench suspend -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! - `request_state/seal_open`: the server's side of one state: the arguments' digest,
//!   sealing the claims (AES-256-GCM) and, on the retry, opening and checking them;
//! - `suspended_call/plain`: one `tools/call` of a tool that answers at once, through an
//!   `McpClient` (2026-07-28) connected to this crate's server over stdio (this bench
//!   binary, started again with `TOOLNEXUS_BENCH_SERVE=1`);
//! - `suspended_call/input_required`: the same tool asking first: `tools/call` answered
//!   `input_required` (a sealed state), the pending result in the client, then the retry
//!   with `inputResponses` and the state, opened by the server, and the tool's answer.
//!
//! Both calls run on the same current-thread Tokio runtime (`block_on` per call).

#![allow(missing_docs)]
// `Result<_, Suspend>` is the return form a suspending tool is written in.
#![allow(clippy::result_large_err)]

use std::hint::black_box;

use criterion::Criterion;
use serde_json::json;
#[path = "common/self_serve.rs"]
mod self_serve;

use toolnexus::mcp::StateKey;
use toolnexus::{Context, Suspend, Toolkit, tool};

/// Book `n` seats at once.
#[tool]
fn book(n: i64) -> Result<String, Suspend> {
    Ok(format!("booked {n}"))
}

/// Book `n` seats, after asking for the name to book them under.
#[tool]
fn book_for(n: i64, ctx: &Context) -> Result<String, Suspend> {
    match ctx.answer().and_then(|a| a.text()) {
        Some(name) => Ok(format!("booked {n} for {name}")),
        None => Err(Suspend::input("Under which name?")),
    }
}

fn toolkit() -> Toolkit {
    Toolkit::new().with(book::tool()).with(book_for::tool())
}

fn bench(c: &mut Criterion) {
    let key = StateKey::random();
    let args = json!({"n": 2});
    assert!(key.seal_and_open("book_for", &args));
    let mut group = c.benchmark_group("request_state");
    group.bench_function("seal_open", |b| {
        b.iter(|| black_box(key.seal_and_open("book_for", black_box(&args))))
    });
    group.finish();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let client = rt
        .block_on(self_serve::itself().latest_protocol().connect())
        .expect("the bench binary serves itself");
    let remote: Toolkit = rt
        .block_on(client.tools())
        .expect("tools/list")
        .into_iter()
        .collect();
    let round_trip = || {
        let asked = rt.block_on(remote.execute("book_for", args.clone(), Context::default()));
        let request = asked.pending_request().expect("the first call asks");
        let answer = request.answer("Ada");
        rt.block_on(remote.execute(
            "book_for",
            args.clone(),
            Context::default().with_answer(answer),
        ))
    };
    // Both calls give the expected answer before anything is measured.
    let plain = rt.block_on(remote.execute("book", args.clone(), Context::default()));
    assert_eq!(plain.output, "booked 2");
    assert_eq!(round_trip().output, "booked 2 for Ada");

    let mut group = c.benchmark_group("suspended_call");
    group.bench_function("plain", |b| {
        b.iter(|| {
            black_box(rt.block_on(remote.execute(
                "book",
                black_box(args.clone()),
                Context::default(),
            )))
        })
    });
    group.bench_function("input_required", |b| b.iter(|| black_box(round_trip())));
    group.finish();
}

fn main() {
    self_serve::main(toolkit, bench);
}

//! What durable runs cost. See `BENCHMARKS.md`, "Durable runs".
//!
//! ```text
//! cargo bench --bench durable -- --warm-up-time 1 --measurement-time 5
//! ```
//!
//! - `checkpointing/{no_store,sqlite_wal,postgres}`: one scripted run of 10 model turns of
//!   3 tool calls each (three trivial tools), then an answer: with no store, on a
//!   `RunStore` file (WAL), on a `RunStore`. PostgreSQL is Debian's server started
//!   for the bench on 127.0.0.1 as the tests start it (tests/support/postgres.rs); set
//!   `TOOLNEXUS_BENCH_PG_URL` to use a server of your own instead, or
//!   `TOOLNEXUS_BENCH_NO_PG=1` to skip it.
//! - `resume/{1000,100000}`: `Client::answer` of one parked run in a SQLite store that
//!   holds 1,000 or 100,000 parked runs (copied in bulk from one parked run); each
//!   iteration parks a fresh run first, outside the timing.
//!
//! The same workload on LangGraph with its `SqliteSaver`: `benches/langgraph/run.py`.

#![allow(missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Answer, Client, Message, Reply, Request, Tool, ToolResult, Toolkit};

#[path = "../tests/support/postgres.rs"]
mod postgres;

#[path = "common/workload.rs"]
mod workload;
use workload::{CALLS, TURNS, model, runtime, temp_db, tools};

fn checkpointing(c: &mut Criterion) {
    let rt = runtime();
    let toolkit = tools();
    let client = || Client::new(model()).max_turns(TURNS as u32 + 1);
    let bare = client();
    let sqlite = rt
        .block_on(RunStore::sqlite(temp_db("checkpointing")))
        .unwrap();
    let on_sqlite = client().store(sqlite);
    let pg_url = match std::env::var("TOOLNEXUS_BENCH_PG_URL") {
        Ok(url) => Some(url),
        Err(_) if std::env::var_os("TOOLNEXUS_BENCH_NO_PG").is_some() => None,
        Err(_) => Some(postgres::server().database("bench_durable")),
    };
    let on_pg = pg_url.map(|url| {
        let store = rt.block_on(RunStore::postgres(url)).unwrap();
        client().store(store)
    });

    let mut group = c.benchmark_group("checkpointing");
    let mut row = |name: &str, client: &Client| {
        group.bench_function(name, |b| {
            b.iter(|| {
                let run = rt.block_on(client.run("go", &toolkit));
                assert!(run.is_done(), "{:?}", run.status);
                assert_eq!(run.tool_calls.len(), TURNS * CALLS);
                black_box(run)
            })
        });
    };
    row("no_store", &bare);
    row("sqlite_wal", &on_sqlite);
    if let Some(client) = &on_pg {
        row("postgres", client);
    }
    group.finish();
}

/// One call that asks for approval (a fresh request id each run), then `done`.
fn asking() -> (FnModel, Toolkit) {
    let model = FnModel::new_sync(|transcript, _| {
        Ok(
            if transcript
                .iter()
                .any(|m| matches!(m, Message::Tool { pending: None, .. }))
            {
                Reply::text("done")
            } else {
                Reply::call("c0", "deploy", "{}")
            },
        )
    });
    let tool = Tool::new_sync(
        "deploy",
        "Deploys.",
        json!({"type": "object"}),
        |_, ctx| match ctx.answer() {
            Some(_) => ToolResult::ok("deployed"),
            None => ToolResult::pending(Request::approval("Deploy?")),
        },
    );
    (model, Toolkit::new().with(tool))
}

/// A SQLite store holding `n` parked runs: one parked through the API, copied in bulk.
async fn parked_store(n: usize) -> (Client, Toolkit) {
    let path = temp_db(&format!("resume-{n}"));
    let store = RunStore::sqlite(&path).await.unwrap();
    let (model, toolkit) = asking();
    let client = Client::new(model).store(store);
    let run = client.run("deploy", &toolkit).await;
    assert!(run.is_pending());
    let id = run.id.unwrap();
    let raw = sqlx::SqlitePool::connect(&format!("sqlite://{path}"))
        .await
        .unwrap();
    let copies =
        format!("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})");
    sqlx::query(&format!(
        "{copies} INSERT INTO toolnexus_runs (id, format, status, transcript, turn_at, result, \
         lease_token, lease_until, created_at, updated_at) SELECT 'bulk_' || i, format, status, \
         transcript, turn_at, result, lease_token, lease_until, created_at, updated_at \
         FROM toolnexus_runs, n WHERE id = '{id}'"
    ))
    .execute(&raw)
    .await
    .unwrap();
    sqlx::query(&format!(
        "{copies} INSERT INTO toolnexus_requests (id, run_id, call_id, tool, prompt, request, \
         created_at, expires_at) SELECT 'bulk_req_' || i, 'bulk_' || i, call_id, tool, prompt, \
         request, created_at, expires_at FROM toolnexus_requests, n WHERE run_id = '{id}'"
    ))
    .execute(&raw)
    .await
    .unwrap();
    (client, toolkit)
}

fn resume(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("resume");
    for n in [1_000, 100_000] {
        let (client, toolkit) = rt.block_on(parked_store(n));
        group.bench_function(n.to_string(), |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let run = rt.block_on(client.run("deploy", &toolkit));
                    let request = run.pending.expect("parked").id;
                    let start = Instant::now();
                    let done = rt.block_on(client.answer(Answer::accept(request), &toolkit));
                    spent += start.elapsed();
                    assert!(done.unwrap().is_done());
                }
                spent
            })
        });
    }
    group.finish();
}

criterion_group!(benches, checkpointing, resume);
criterion_main!(benches);

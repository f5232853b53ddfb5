//! The per-step overhead of a run on Restate, against the same run on a `RunStore`
//! and with no store, measured in one criterion run (see `BENCHMARKS.md`, "Durable
//! runs"):
//!
//! ```text
//! TOOLNEXUS_RESTATE_SERVER=target/node-restate/node_modules/@restatedev/restate-server-linux-x64/bin/restate-server \
//!   cargo bench --bench restate -- --warm-up-time 1 --measurement-time 5
//! ```
//!
//! The workload of `benches/durable.rs`: 10 model turns of 3 tool calls, then an answer
//! (41 steps on Restate: 11 model turns and 30 calls, each one journaled `ctx.run`). The
//! Restate row sends each run through the ingress of a restate-server started for the
//! bench on 127.0.0.1 (its data in a temporary directory) to the `Agent` object served
//! in the bench's own process, a fresh conversation per run.

#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use toolnexus::Client;
use toolnexus::restate::{RestateAgent, register};
use toolnexus::store::RunStore;

#[path = "../tests/support/restate_server.rs"]
mod restate_server;
use restate_server::Server;

#[path = "common/workload.rs"]
mod workload;
use workload::{CALLS, TURNS, model, runtime, temp_db, tools};

fn overhead(c: &mut Criterion) {
    let rt = runtime();
    let toolkit = tools();
    let client = || Client::new(model()).max_turns(TURNS as u32 + 1);
    let bare = client();
    let sqlite = rt.block_on(RunStore::sqlite(temp_db("restate"))).unwrap();
    let on_sqlite = client().store(sqlite);

    let mut group = c.benchmark_group("restate_overhead");
    group.bench_function("no_store", |b| {
        b.iter(|| black_box(rt.block_on(bare.run("go", &toolkit))))
    });
    group.bench_function("sqlite_wal", |b| {
        b.iter(|| black_box(rt.block_on(on_sqlite.run("go", &toolkit))))
    });
    if std::env::var_os("TOOLNEXUS_RESTATE_SERVER").is_none() {
        eprintln!("TOOLNEXUS_RESTATE_SERVER is not set: the restate row is skipped");
        group.finish();
        return;
    }
    let server = Server::start();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let uri = format!("http://{}", listener.local_addr().unwrap());
    rt.spawn(RestateAgent::new(client(), tools()).serve_on(listener));
    let admin = server.admin();
    let start = Instant::now();
    while let Err(error) = rt.block_on(register(&admin, &uri)) {
        assert!(start.elapsed() < Duration::from_secs(60), "{error}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let ingress = server.ingress();
    let conversations = AtomicUsize::new(0);
    group.bench_function("restate", |b| {
        b.iter(|| {
            let key = format!("bench-{}", conversations.fetch_add(1, Ordering::Relaxed));
            let run = rt.block_on(ingress.run(&key, "go")).expect("the run");
            assert!(run.is_done(), "{:?}", run.status);
            assert_eq!(run.tool_calls.len(), TURNS * CALLS);
            black_box(run)
        })
    });
    group.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);

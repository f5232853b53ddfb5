//! What a durable run's store writes per turn, early and late in one run: the bytes a
//! turn adds or changes in the store's tables (runs, their appended messages, their
//! calls) at turn 10 and at turn 1,000 of one run of 1,001 turns of one call each, on a
//! `RunStore` file. Flat is the goal: a checkpoint appends its turn's messages. For
//! comparison it prints the size of the whole transcript at those turns, what a
//! checkpoint that rewrote the transcript wrote each turn. See `BENCHMARKS.md`,
//! "Durable runs".
//!
//! ```text
//! cargo bench --bench journal_bytes
//! ```
//!
//! Then criterion times one turn at turn 10 and at turn 1,000 (`journal_turn/{10,1000}`,
//! each sample one whole run, the turn timed inside it).

#![allow(missing_docs)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Client, Message, Reply, Tool, ToolCall, ToolResult, Toolkit};

#[path = "common/workload.rs"]
mod workload;
use workload::{runtime, temp_db};

const TURNS: usize = 1_001;
const AT: [usize; 2] = [10, 1_000];

/// The store's rows, keyed by table and key: what a turn wrote is what differs.
type Snapshot = HashMap<String, String>;

fn snapshot(path: &str) -> Snapshot {
    let url = format!("sqlite://{path}");
    std::thread::scope(|s| {
        s.spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
                let mut rows = Snapshot::new();
                for sql in [
                    "SELECT 'run:' || id, transcript || COALESCE(result, '') FROM toolnexus_runs",
                    "SELECT 'msg:' || run_id || ':' || seq, message FROM toolnexus_run_messages",
                    "SELECT 'call:' || run_id || ':' || turn_at || ':' || call_id, \
                     attempts || COALESCE(message, '') FROM toolnexus_calls",
                ] {
                    let read: Vec<(String, String)> =
                        sqlx::query_as(sql).fetch_all(&pool).await.unwrap();
                    rows.extend(read);
                }
                pool.close().await;
                rows
            })
        })
        .join()
        .unwrap()
    })
}

/// Bytes of the rows of `after` that are new or changed since `before`.
fn written(before: &Snapshot, after: &Snapshot) -> usize {
    after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| k.len() + v.len())
        .sum()
}

/// Calls `tick` once per turn; at each model turn, `at(turn, transcript)` is called first.
fn model(at: impl Fn(usize, &[Message]) + Send + Sync + 'static) -> FnModel {
    FnModel::new_sync(move |transcript, _| {
        let turn = transcript
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        at(turn, transcript);
        Ok(if turn < TURNS {
            Reply::calls([ToolCall::new(format!("c{turn}"), "tick", r#"{"n":1}"#)])
        } else {
            Reply::text("done")
        })
    })
}

fn toolkit() -> Toolkit {
    Toolkit::new().with(Tool::new_sync(
        "tick",
        "Ticks.",
        json!({"type": "object"}),
        |_, _| ToolResult::ok("ticked: the clock moved one step"),
    ))
}

/// One run of `TURNS` turns on a fresh SQLite file, `at` called at each model turn.
fn one_run(
    rt: &tokio::runtime::Runtime,
    name: &str,
    at: impl Fn(usize, &[Message], &str) + Send + Sync + 'static,
) {
    let path = temp_db(name);
    let store = rt.block_on(RunStore::sqlite(&path)).unwrap();
    let seen = path.clone();
    let client = Client::new(model(move |turn, transcript| at(turn, transcript, &seen)))
        .max_turns(TURNS as u32 + 1)
        .store(store);
    let run = rt.block_on(client.run("go", &toolkit()));
    assert!(run.is_done(), "{:?}", run.status);
}

fn bytes_per_turn() {
    let rt = runtime();
    let snaps: Arc<Mutex<HashMap<usize, (Snapshot, usize)>>> = Arc::default();
    let keep = Arc::clone(&snaps);
    one_run(&rt, "journal-bytes", move |turn, transcript, path| {
        if AT.iter().any(|at| turn == *at || turn == at + 1) {
            let whole = serde_json::to_string(transcript).unwrap().len();
            keep.lock().unwrap().insert(turn, (snapshot(path), whole));
        }
    });
    let snaps = snaps.lock().unwrap();
    let mut figures = Vec::new();
    for at in AT {
        let (before, whole) = &snaps[&at];
        let (after, _) = &snaps[&(at + 1)];
        let bytes = written(before, after);
        println!(
            "journal_bytes/turn_{at}: {bytes} bytes written by the turn \
             (the whole transcript, which a rewrite would write: {whole} bytes)"
        );
        figures.push(bytes as f64);
    }
    println!(
        "journal_bytes/ratio: turn {} writes {:.2}x what turn {} writes",
        AT[1],
        figures[1] / figures[0],
        AT[0]
    );
}

fn journal_turn(c: &mut Criterion) {
    bytes_per_turn();
    let rt = runtime();
    let mut group = c.benchmark_group("journal_turn");
    group.sample_size(10);
    for at in AT {
        group.bench_function(at.to_string(), |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let marks: Arc<Mutex<HashMap<usize, Instant>>> = Arc::default();
                    let keep = Arc::clone(&marks);
                    one_run(&rt, "journal-turn", move |turn, _, _| {
                        if turn == at || turn == at + 1 {
                            keep.lock().unwrap().insert(turn, Instant::now());
                        }
                    });
                    let marks = marks.lock().unwrap();
                    spent += marks[&(at + 1)] - marks[&at];
                }
                spent
            })
        });
    }
    group.finish();
}

criterion_group!(benches, journal_turn);
criterion_main!(benches);

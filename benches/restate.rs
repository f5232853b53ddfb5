//! The per-step overhead of a run on Restate, against the same run on a `SqliteStore`
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
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolnexus::restate::{Agent, Ingress, register};
use toolnexus::store::SqliteStore;
use toolnexus::{Client, FnModel, Message, Reply, Tool, ToolCall, ToolResult, Toolkit};

const TURNS: usize = 10;
const CALLS: usize = 3;

fn model() -> FnModel {
    FnModel::new_sync(|transcript, _| {
        let at = transcript
            .iter()
            .rposition(|m| matches!(m, Message::User { .. }))
            .unwrap_or(0);
        let done = transcript[at..]
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .count();
        let turn = done / CALLS;
        Ok(if turn < TURNS {
            Reply::calls([
                ToolCall::new(format!("a{turn}"), "add", r#"{"a":20,"b":22}"#),
                ToolCall::new(format!("u{turn}"), "upper", r#"{"s":"abc"}"#),
                ToolCall::new(format!("e{turn}"), "echo", r#"{"s":"hi"}"#),
            ])
        } else {
            Reply::text("done")
        })
    })
}

fn tools() -> Toolkit {
    let obj = json!({"type": "object"});
    Toolkit::new()
        .with(Tool::new_sync("add", "Adds.", obj.clone(), |a, _| {
            let sum = a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0);
            ToolResult::ok(sum.to_string())
        }))
        .with(Tool::new_sync(
            "upper",
            "Upper-cases.",
            obj.clone(),
            |a, _| ToolResult::ok(a["s"].as_str().unwrap_or("").to_uppercase()),
        ))
        .with(Tool::new_sync("echo", "Echoes.", obj, |a, _| {
            ToolResult::ok(a["s"].as_str().unwrap_or("").to_owned())
        }))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A restate-server for the bench; SIGKILLed when dropped.
struct Server(Child, PathBuf);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        let _ = std::fs::remove_dir_all(&self.1);
    }
}

fn server(binary: &str) -> (Server, u16, u16) {
    let dir = std::env::temp_dir().join(format!("toolnexus-bench-restate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (ingress, admin, node, pg) = (free_port(), free_port(), free_port(), free_port());
    let child = Command::new(binary)
        .arg("--base-dir")
        .arg(&dir)
        .args(["--no-logo", "--node-name", "bench-node"])
        .env("RESTATE_LISTEN_MODE", "tcp")
        .env("RESTATE_DISABLE_TELEMETRY", "true")
        .env(
            "RESTATE_INGRESS__BIND_ADDRESS",
            format!("127.0.0.1:{ingress}"),
        )
        .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin}"))
        .env(
            "RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS",
            format!("127.0.0.1:{pg}"),
        )
        .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{node}"))
        .env(
            "RESTATE_ADVERTISED_ADDRESS",
            format!("http://127.0.0.1:{node}"),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("restate-server starts");
    (Server(child, dir), ingress, admin)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn temp_db() -> String {
    let path =
        std::env::temp_dir().join(format!("toolnexus-bench-{}-restate.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path.display().to_string()
}

fn overhead(c: &mut Criterion) {
    let rt = runtime();
    let toolkit = tools();
    let client = || Client::new(model()).max_turns(TURNS as u32 + 1);
    let bare = client();
    let sqlite = rt.block_on(SqliteStore::open(temp_db())).unwrap();
    let on_sqlite = client().with_store(sqlite);

    let mut group = c.benchmark_group("restate_overhead");
    group.bench_function("no_store", |b| {
        b.iter(|| black_box(rt.block_on(bare.run("go", &toolkit))))
    });
    group.bench_function("sqlite_wal", |b| {
        b.iter(|| black_box(rt.block_on(on_sqlite.run("go", &toolkit))))
    });
    let Ok(binary) = std::env::var("TOOLNEXUS_RESTATE_SERVER") else {
        eprintln!("TOOLNEXUS_RESTATE_SERVER is not set: the restate row is skipped");
        group.finish();
        return;
    };
    let (_server, ingress_port, admin_port) = server(&binary);
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let uri = format!("http://{}", listener.local_addr().unwrap());
    rt.spawn(Agent::new(client(), tools()).serve_on(listener));
    let admin = format!("http://127.0.0.1:{admin_port}");
    let start = Instant::now();
    while let Err(error) = rt.block_on(register(&admin, &uri)) {
        assert!(start.elapsed() < Duration::from_secs(60), "{error}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let ingress = Ingress::new(format!("http://127.0.0.1:{ingress_port}"));
    let conversations = AtomicUsize::new(0);
    group.bench_function("restate", |b| {
        b.iter(|| {
            let key = format!("bench-{}", conversations.fetch_add(1, Ordering::Relaxed));
            let run = rt.block_on(ingress.run(&key, "go")).expect("the run");
            assert!(run.is_done(), "{:?}", run.status);
            assert_eq!(run.calls.len(), TURNS * CALLS);
            black_box(run)
        })
    });
    group.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);

//! A served task's round trip: a tool call through `A2aAgent` to an `A2aServer` over
//! loopback HTTP, against the same `Client::run` in process, and against the official
//! A2A Python SDK's server doing the same (an echo agent). See `BENCHMARKS.md`.
//!
//! ```text
//! TOOLNEXUS_A2A_PYTHON=target/py-venv-a2a/bin/python \
//!   cargo bench -p toolnexus-suite --bench a2a -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! - `a2a/client_run`: `Client::run` of a model that answers at once (no tool): what a
//!   served task runs, without A2A;
//! - `a2a/a2a_server`: the `A2aAgent` tool of an `A2aServer` serving that client on
//!   127.0.0.1 (the card fetched once, before): `SendStreamingMessage`, the task, its
//!   working status, its artifact, its completed status, the result mapped to a
//!   `ToolResult`;
//! - `a2a/python_sdk_server`: the same `A2aAgent` call against the Python SDK's echo
//!   agent (streaming, uvicorn, a child process), when `TOOLNEXUS_A2A_PYTHON` is set.
//!
//! All run on one multi-thread Tokio runtime of two workers (`block_on` per call).

#![allow(missing_docs)]

use std::hint::black_box;
use std::io::BufRead as _;
use std::process::{Command, Stdio};

use criterion::Criterion;
use serde_json::json;
use toolnexus::a2a::{A2aAgent, A2aServer};
use toolnexus::model::FnModel;
use toolnexus::{Client, Context, Message, Reply, Toolkit};

fn echo_client() -> Client {
    Client::new(FnModel::new_sync(|transcript, _| {
        Ok(match transcript.last() {
            Some(Message::User { content }) => Reply::text(format!("echo: {content}")),
            _ => Reply::text(""),
        })
    }))
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let toolkit = Toolkit::new();
    let client = echo_client();
    let served = rt
        .block_on(A2aServer::new(echo_client(), Toolkit::new()).serve("127.0.0.1:0"))
        .expect("serves");
    let ours = rt
        .block_on(A2aAgent::connect(served.card_url()))
        .expect("the card")
        .tools()
        .remove(0);
    let args = json!({"task": "hello"});
    let call = |tool: &toolnexus::Tool| rt.block_on(tool.execute(args.clone(), Context::new()));
    assert_eq!(
        rt.block_on(client.run("hello", &toolkit)).text,
        "echo: hello"
    );
    assert_eq!(call(&ours).output, "echo: hello");

    let mut group = c.benchmark_group("a2a");
    group.bench_function("client_run", |b| {
        b.iter(|| black_box(rt.block_on(client.run("hello", &toolkit))))
    });
    group.bench_function("a2a_server", |b| b.iter(|| black_box(call(&ours))));

    if let Ok(python) = std::env::var("TOOLNEXUS_A2A_PYTHON") {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/a2a/py_server.py");
        let mut child = Command::new(python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the Python SDK's server starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("its first line");
        let base = line.trim().trim_start_matches("listening on ").to_owned();
        let theirs = rt
            .block_on(A2aAgent::connect(format!(
                "{base}/secho/.well-known/agent-card.json"
            )))
            .expect("the SDK's card")
            .tools()
            .remove(0);
        assert_eq!(call(&theirs).output, "echo: hello");
        group.bench_function("python_sdk_server", |b| b.iter(|| black_box(call(&theirs))));
        let _ = child.kill();
        let _ = child.wait();
    } else {
        eprintln!("a2a/python_sdk_server skipped: TOOLNEXUS_A2A_PYTHON is not set");
    }
    group.finish();
    let _ = rt.block_on(served.shutdown());
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}

//! What a run's events cost a user interface. See `BENCHMARKS.md`, "Event streams".
//!
//! ```text
//! cargo bench --bench ui -- --warm-up-time 1 --measurement-time 5
//! ```
//!
//! - `events/{none,on_event,stream}`: one run of one model turn that streams 1,000 text
//!   deltas, then answers: no listener, an `on_event` listener that counts the events,
//!   and `Client::stream` read to its end (every event copied out of the run). The
//!   per-event cost is (listener or stream − none) / the events of the run.
//! - `sse/first_byte`: an HTTP POST to the `ag_ui` router (served by axum on 127.0.0.1)
//!   until the first server-sent event arrives, on a fresh connection each time.

#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use futures_util::StreamExt as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use toolnexus::model::{Delta, ModelFuture, ModelRequest};
use toolnexus::{Client, Model, Reply, ScriptedModel, Toolkit};

const DELTAS: usize = 1_000;

/// Answers each turn with `DELTAS` streamed pieces of text.
struct Chatty;

impl Model for Chatty {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        Box::pin(async move {
            for _ in 0..DELTAS {
                request.send(Delta::Text("x".to_owned()));
            }
            Ok(Reply::text("x".repeat(DELTAS)))
        })
    }
}

fn events(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let toolkit = Toolkit::new();
    let mut group = c.benchmark_group("events");
    let plain = Client::new(Chatty);
    group.bench_function("none", |b| {
        b.iter(|| black_box(rt.block_on(plain.run("go", &toolkit))))
    });
    let seen = Arc::new(AtomicUsize::new(0));
    let counted = {
        let seen = Arc::clone(&seen);
        Client::new(Chatty).on_event(move |_| {
            seen.fetch_add(1, Ordering::Relaxed);
        })
    };
    group.bench_function("on_event", |b| {
        b.iter(|| black_box(rt.block_on(counted.run("go", &toolkit))))
    });
    group.bench_function("stream", |b| {
        b.iter(|| {
            let n = rt.block_on(plain.run("go", &toolkit).stream().count());
            assert!(n > DELTAS);
            black_box(n)
        })
    });
    group.finish();
}

fn first_byte(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let addr = rt.block_on(async {
        let client = Client::new(ScriptedModel::new(
            std::iter::repeat_with(|| Reply::text("Hello")).take(1_000_000),
        ));
        let app = axum::Router::new().nest("/agui", toolnexus::ui::ag_ui(client, Toolkit::new()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    });
    // A thread of its own for each run: a reused thread would grow to its transcript
    // bound and answer every later run with an error instead of a stream.
    let mut thread = 0u64;
    c.bench_function("sse/first_byte", |b| {
        b.iter(|| {
            thread += 1;
            let body = format!(
                r#"{{"threadId":"t{thread}","runId":"r","messages":[{{"id":"m","role":"user","content":"hi"}}]}}"#
            );
            let request = format!(
                "POST /agui HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            rt.block_on(async {
                let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
                socket.write_all(request.as_bytes()).await.unwrap();
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                while !seen.windows(5).any(|w| w == b"data:") {
                    let n = socket.read(&mut buf).await.unwrap();
                    assert!(n > 0, "closed before the first event");
                    seen.extend_from_slice(&buf[..n]);
                }
                black_box(seen.len())
            })
        })
    });
}

criterion_group!(benches, events, first_byte);
criterion_main!(benches);

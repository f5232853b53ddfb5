//! What reporting progress costs a tool call, against the same call without reports, in
//! one benchmark group. See `BENCHMARKS.md` ("Talking back while a tool runs").
//!
//! ```text
//! cargo bench --bench talk_back -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! - `progress/silent`: `Toolkit::execute` of a synchronous `#[tool]` that sums 64 numbers;
//! - `progress/no_caller`: the same tool reporting progress three times and writing a log
//!   line, called with no caller (nobody listening);
//! - `progress/caller`: the same reporting tool with a caller that counts the reports
//!   (one dynamic call each).

#![allow(missing_docs)]

use std::convert::Infallible;
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{Criterion, criterion_group};
use serde_json::json;
use toolnexus::tool::{Caller, LogLevel};
use toolnexus::{Context, Toolkit, tool};

#[path = "../tests/support/poll.rs"]
mod poll;
use poll::now;

fn work(n: u64) -> u64 {
    (0..n).map(black_box).sum()
}

/// Sums the first `n` numbers.
#[tool]
fn silent(n: u64) -> Result<u64, Infallible> {
    Ok(work(n))
}

/// Sums the first `n` numbers, reporting as it goes.
#[tool]
fn reporting(n: u64, ctx: &Context) -> Result<u64, Infallible> {
    ctx.progress(0, 3.0, "starting");
    let half = work(n / 2);
    ctx.progress(1, 3.0, "halfway");
    let total = half + (n / 2..n).map(black_box).sum::<u64>();
    ctx.progress(3, 3.0, None);
    ctx.log(LogLevel::Debug, "summed");
    Ok(total)
}

/// Counts the reports it hears.
#[derive(Default)]
struct Counter(AtomicU64);

impl Caller for Counter {
    fn progress(&self, _: &Context, _: f64, _: Option<f64>, _: Option<&str>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    fn log(&self, _: &Context, _: LogLevel, _: &str) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn bench(c: &mut Criterion) {
    let toolkit = Toolkit::new().with(silent::tool()).with(reporting::tool());
    let args = json!({"n": 64});
    let counter: Arc<dyn Caller> = Arc::new(Counter::default());
    let mut group = c.benchmark_group("progress");
    group.bench_function("silent", |b| {
        b.iter(|| now(toolkit.execute("silent", args.clone(), Context::new())))
    });
    group.bench_function("no_caller", |b| {
        b.iter(|| now(toolkit.execute("reporting", args.clone(), Context::new())))
    });
    group.bench_function("caller", |b| {
        b.iter(|| {
            let ctx = Context::new().with_caller(Arc::clone(&counter));
            now(toolkit.execute("reporting", args.clone(), ctx))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}

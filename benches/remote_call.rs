//! A tool call through `McpClient` to this crate's own MCP server over stdio, against the
//! server's in-process dispatch of the same call, in one run. See `BENCHMARKS.md`.
//!
//! ```text
//! cargo bench --bench remote_call -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! - `remote_call/in_process`: what the server does for one `tools/call` without a
//!   transport: `Toolkit::execute` of `add` and the result mapped to MCP content
//!   (`call_tool_result`);
//! - `remote_call/mcp_client_stdio`: the remote `add` tool executed through an `McpClient`
//!   connected to a child process serving the same toolkit over stdio (this bench binary,
//!   started again with `TOOLNEXUS_BENCH_SERVE=1`): JSON-RPC out, the server's dispatch,
//!   JSON-RPC back, the result mapped to a `ToolResult`.
//!
//! Both run on the same current-thread Tokio runtime (`block_on` per call).

#![allow(missing_docs)]

use std::convert::Infallible;
use std::hint::black_box;

use criterion::Criterion;
use serde_json::json;
#[path = "common/self_serve.rs"]
mod self_serve;

use toolnexus::mcp::call_tool_result;
use toolnexus::{Context, Toolkit, tool};

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> Result<i64, Infallible> {
    Ok(a + b)
}

fn toolkit() -> Toolkit {
    Toolkit::new().with(add::tool())
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let local = toolkit();
    let client = rt
        .block_on(self_serve::itself().connect())
        .expect("the bench binary serves itself");
    let remote: Toolkit = rt
        .block_on(client.tools())
        .expect("tools/list")
        .into_iter()
        .collect();
    let args = json!({"a": 2, "b": 3});
    // Both sides give the same answer before anything is measured.
    let here = rt.block_on(local.execute("add", args.clone(), Context::default()));
    let there = rt.block_on(remote.execute("add", args.clone(), Context::default()));
    assert_eq!((here.output.as_str(), there.output.as_str()), ("5", "5"));

    let mut group = c.benchmark_group("remote_call");
    group.bench_function("in_process", |b| {
        b.iter(|| {
            let result =
                rt.block_on(local.execute("add", black_box(args.clone()), Context::default()));
            black_box(call_tool_result("add", result))
        })
    });
    group.bench_function("mcp_client_stdio", |b| {
        b.iter(|| {
            black_box(rt.block_on(remote.execute(
                "add",
                black_box(args.clone()),
                Context::default(),
            )))
        })
    });
    group.finish();
}

fn main() {
    self_serve::main(toolkit, bench);
}

//! The server the HTTP and stdio security probes (`tests/security_http.rs`,
//! `tests/security_stdio.rs`) attack, in a child process:
//!
//! ```text
//! cargo run -p toolnexus-suite --example security_server                 # stdio
//! cargo run -p toolnexus-suite --example security_server -- --http 127.0.0.1:0 \
//!     [--stateless] [--max-sessions N] [--max-connections N] [--idle-ms MS] [--body-ms MS]
//! ```
//!
//! Tools: `add` (`a + b`), `slow` (reports progress, then answers `done` after `ms`
//! milliseconds, so a stream stays open) and `blob` (answers `bytes` bytes of text, so a
//! peer that does not read fills its output). Over HTTP the first line on stdout is `listening on URL`; closing
//! stdin stops the server. Over stdio it serves until the client closes stdin, and exits
//! with an error when it stops serving a client.

use std::io::Read as _;
use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::{Tool, ToolResult, Toolkit};

fn toolkit() -> Toolkit {
    let numbers = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    });
    let add = Tool::new_sync("add", "Adds a and b.", numbers, |args, _| {
        match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok(a.wrapping_add(b).to_string()),
            _ => ToolResult::error("`a` and `b` must be integers"),
        }
    });
    let slow = Tool::new(
        "slow",
        "Answers `done` after `ms` milliseconds.",
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}}),
        |args: Value, ctx| async move {
            // Opens the response stream (a 2026-07-28 stream starts with its first message).
            ctx.progress(0, None, "started");
            let ms = args["ms"].as_u64().unwrap_or(1000);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            ToolResult::ok("done")
        },
    );
    let blob = Tool::new_sync(
        "blob",
        "Answers `bytes` bytes of text.",
        json!({"type": "object", "properties": {"bytes": {"type": "integer"}}}),
        |args, _| {
            let bytes = args["bytes"].as_u64().unwrap_or(1024).min(8 << 20);
            ToolResult::ok("x".repeat(bytes as usize))
        },
    );
    Toolkit::new().with(add).with(slow).with(blob)
}

const USAGE: &str = "usage: security_server [--http ADDR [--stateless] [--max-sessions N] \
                     [--max-connections N] [--idle-ms MS] [--body-ms MS]]";

fn usage() -> ! {
    eprintln!("{USAGE}");
    std::process::exit(2);
}

fn number(value: Option<String>) -> u64 {
    value
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| usage())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = McpServer::new(toolkit()).name("security-probe");
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        None => server.serve_stdio().await,
        Some("--http") => {
            let addr = args.next().unwrap_or_else(|| usage());
            let mut options = HttpOptions::new();
            while let Some(flag) = args.next() {
                options = match flag.as_str() {
                    "--stateless" => options.stateless(),
                    "--max-sessions" => options.max_sessions(number(args.next()) as usize),
                    "--max-connections" => options.max_connections(number(args.next()) as usize),
                    "--idle-ms" => {
                        options.session_idle_timeout(Duration::from_millis(number(args.next())))
                    }
                    "--body-ms" => {
                        options.body_read_timeout(Duration::from_millis(number(args.next())))
                    }
                    _ => usage(),
                };
            }
            let http = server.serve_http_with(addr.as_str(), options).await?;
            println!("listening on {}", http.url());
            let handle = http.shutdown_handle();
            std::thread::spawn(move || {
                let _ = std::io::stdin().read_to_end(&mut Vec::new());
                handle.shutdown();
            });
            http.wait().await
        }
        Some(_) => usage(),
    }
}

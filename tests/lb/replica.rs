//! One replica of a stateless MCP deployment, for the load-balancer test (`tests/mcp_lb.rs`).
//!
//! ```text
//! cargo run -p toolnexus-suite --example mcp_replica -- NAME ADDR
//! ```
//!
//! Serves, in stateless mode (`HttpOptions::stateless`), two tools whose results name the
//! replica that answered: `add` (`a + b`) and `slow_add` (the same after `ms`
//! milliseconds; it reports `slow_add started` on stderr, so a test knows a call is in
//! flight here). The first line on stdout is `listening on URL`; closing stdin stops it.

use std::io::Read as _;
use std::time::Duration;

use serde_json::json;
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::{Tool, ToolResult, Toolkit};

fn sum(args: &serde_json::Value) -> Option<i64> {
    args["a"].as_i64()?.checked_add(args["b"].as_i64()?)
}

fn answer(total: Option<i64>, replica: &str) -> ToolResult {
    match total {
        Some(total) => ToolResult::ok(format!("{total} from {replica}")),
        None => ToolResult::error("`a` and `b` must be integers whose sum fits in 64 bits"),
    }
}

fn toolkit(replica: &'static str) -> Toolkit {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "ms": {"type": "integer"}},
        "required": ["a", "b"]
    });
    let add = Tool::new_sync("add", "Adds a and b.", schema.clone(), move |args, _| {
        answer(sum(&args), replica)
    });
    let slow = Tool::new(
        "slow_add",
        "Adds a and b, slowly.",
        schema,
        move |args, _| async move {
            eprintln!("slow_add started");
            let ms = args["ms"].as_u64().unwrap_or(1000);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            answer(sum(&args), replica)
        },
    );
    Toolkit::new().with(add).with(slow)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, addr] = &args[..] else {
        eprintln!("usage: mcp_replica NAME ADDR");
        std::process::exit(2);
    };
    let name: &'static str = Box::leak(name.clone().into_boxed_str());
    let http = McpServer::new(toolkit(name))
        .name(format!("replica-{name}"))
        .serve_http_with(addr.as_str(), HttpOptions::new().stateless())
        .await?;
    println!("listening on {}", http.url());
    let handle = http.shutdown_handle();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        handle.shutdown();
    });
    http.wait().await
}

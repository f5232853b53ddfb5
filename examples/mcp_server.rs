//! The quickstart's tools served over the Model Context Protocol, to any MCP client.
//!
//! ```text
//! cargo run --example mcp_server                          # stdio (a client spawns it)
//! cargo run --example mcp_server -- --http 127.0.0.1:8080 # streamable HTTP at /mcp
//! cargo run --example mcp_server -- --print-tools         # the tools/list entries, as JSON
//! ```
//!
//! Over HTTP the first line on stdout is `listening on http://ADDR/mcp` (port 0 picks a
//! free port); the server stops cleanly when stdin closes, or on Ctrl-C. Over stdio,
//! stdout belongs to the protocol: diagnostics go to stderr.

use std::io::Read as _;
use std::path::Path;

use serde_json::json;
use toolnexus::mcp::McpServer;
use toolnexus::{ContentPart, Context, Suspend, Tool, ToolResult, Toolkit};

/// Every tool the server exposes, built in one place.
fn toolkit() -> Toolkit {
    let add = Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The first addend."},
                "b": {"type": "integer", "description": "The second addend."}
            },
            "required": ["a", "b"],
            "additionalProperties": false
        }),
        |args, _| match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
            _ => ToolResult::error("invalid arguments for add: `a` and `b` must be integers"),
        },
    );
    let divide = Tool::new_sync(
        "divide",
        "Divide a by b.",
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false
        }),
        |args, _| match (args["a"].as_f64(), args["b"].as_f64()) {
            (_, Some(0.0)) => ToolResult::error("cannot divide by zero"),
            (Some(a), Some(b)) => ToolResult::ok((a / b).to_string()),
            _ => ToolResult::error("invalid arguments for divide: `a` and `b` must be numbers"),
        },
    );
    let deploy = Tool::new(
        "deploy_service",
        "Deploy the service; asks which environment when none is given.",
        json!({
            "type": "object",
            "properties": {"env": {"type": ["string", "null"]}},
            "additionalProperties": false
        }),
        |args, ctx: Context| async move {
            let chosen = args["env"].as_str().map(str::to_owned);
            let answered = ctx.answer().and_then(|a| a.text()).map(str::to_owned);
            match chosen.or(answered) {
                Some(env) => ToolResult::ok(format!("deployed to {env}")),
                None => ToolResult::pending(Suspend::input("Which environment?").0),
            }
        },
    );
    let screenshot = Tool::new_sync(
        "screenshot",
        "Take a screenshot of the dashboard.",
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
        |_, _| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/media/fixture.png");
            match ContentPart::image(&path) {
                Ok(shot) => ToolResult::ok(shot.summary()).with_parts([shot]),
                Err(e) => ToolResult::error(e.to_string()),
            }
        },
    );
    Toolkit::new()
        .with(add)
        .with(divide)
        .with(deploy)
        .with(screenshot)
}

const USAGE: &str = "usage: mcp_server [--http ADDR | --print-tools]";

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = McpServer::new(toolkit()).with_name("toolnexus-quickstart");
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => server.serve_stdio().await,
        ["--print-tools"] => {
            let tools = server.toolkit().to_mcp();
            println!("{}", serde_json::to_string_pretty(&tools)?);
            Ok(())
        }
        ["--http", addr] => {
            let http = server.serve_http(addr).await?;
            println!("listening on {}", http.url());
            // Stop when whoever started us closes our stdin (Ctrl-C ends the process too).
            let handle = http.shutdown_handle();
            std::thread::spawn(move || {
                let _ = std::io::stdin().read_to_end(&mut Vec::new());
                handle.shutdown();
            });
            http.wait().await?;
            eprintln!("mcp_server: shut down");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}

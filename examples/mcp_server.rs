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

#[path = "shared/tools.rs"]
mod tools;

use std::io::Read as _;

use toolnexus::Toolkit;
use toolnexus::mcp::McpServer;

/// Every tool the server exposes: the quickstart's `#[tool]` functions.
fn toolkit() -> Toolkit {
    toolnexus::tools![tools::add, tools::divide, tools::deploy, tools::screenshot]
        .into_iter()
        .collect()
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

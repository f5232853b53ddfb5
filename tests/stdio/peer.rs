//! The stdio servers the stdio tests and benchmark drive as child processes, one tool
//! `add(a, b)` each:
//!
//! ```text
//! cargo run -p toolnexus-suite --example stdio_peer -- toolnexus   # McpServer::serve_stdio
//! cargo run -p toolnexus-suite --example stdio_peer -- rmcp        # rmcp, tokio stdin/stdout
//! cargo run -p toolnexus-suite --example stdio_peer -- rmcp-pipes  # rmcp, non-blocking pipes
//! ```
//!
//! The `rmcp` servers are plain rmcp 3.11 (`#[tool_router]`, `AsyncRwTransport`), with
//! nothing of toolnexus: the same tests pass against them, which keeps the tests honest.
//! Each serves until its stdin closes.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, ServiceExt as _, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;
use toolnexus::mcp::McpServer;
use toolnexus::{Tool, ToolResult, Toolkit};

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Clone)]
struct Adder {
    tool_router: rmcp::handler::server::router::tool::ToolRouter<Adder>,
}

#[tool_router]
impl Adder {
    /// Add two numbers.
    #[tool]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        a.wrapping_add(b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Adder {}

fn toolnexus_server() -> McpServer {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    });
    let add = Tool::new_sync("add", "Add two numbers.", schema, |args, _| {
        match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok(a.wrapping_add(b).to_string()),
            _ => ToolResult::error("add: `a` and `b` must be integers"),
        }
    });
    McpServer::new(Toolkit::new().with(add))
}

async fn rmcp_server<R, W>(read: R, write: W) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let adder = Adder {
        tool_router: Adder::tool_router(),
    };
    let running = adder
        .serve((read, write))
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    match std::env::args().nth(1).as_deref() {
        Some("toolnexus") => toolnexus_server().serve_stdio().await,
        Some("rmcp") => {
            let (read, write) = rmcp::transport::stdio();
            rmcp_server(read, write).await
        }
        Some("rmcp-pipes") => {
            let (read, write) = rmcp::transport::stdio_pipes();
            rmcp_server(read, write).await
        }
        _ => {
            eprintln!("usage: stdio_peer toolnexus|rmcp|rmcp-pipes");
            std::process::exit(2);
        }
    }
}

//! An MCP server whose tool is an agent run as a tool, for tests/agents.rs.
//!
//! ```text
//! cargo run -p toolnexus-suite --example agents_server                    # stdio
//! cargo run -p toolnexus-suite --example agents_server -- --http 127.0.0.1:0
//! ```
//!
//! Its one tool, `platform`, is the agent of tests/agents/stack.rs: it calls `lookup` and
//! the agent `ops`, whose `deploy` asks for an approval, so a call suspends two agents
//! down. Every tool body that runs appends its name to the file named by `AGENTS_LOG`.
//! `AGENTS_KEY` is the `requestState` secret, `AGENTS_PRINCIPAL_HEADER` a request header
//! that says who the caller is (as a gateway that authenticated it would). Over HTTP the
//! first line on stdout is `listening on URL`; closing stdin stops the server.

#[path = "stack.rs"]
mod stack;

use std::io::{Read as _, Write as _};

use toolnexus::Toolkit;
use toolnexus::mcp::{HttpOptions, McpServer, StateKey};

fn server() -> McpServer {
    let effects = match std::env::var("AGENTS_LOG") {
        Ok(path) => stack::Effects::to_file(path.into()),
        Err(_) => stack::Effects::default(),
    };
    let toolkit = Toolkit::new().with(stack::platform(&effects));
    let mut server = McpServer::new(toolkit).name("agents-server");
    if let Ok(secret) = std::env::var("AGENTS_KEY") {
        server = server.state_key(StateKey::new(secret).expect("AGENTS_KEY is long enough"));
    }
    if let Ok(header) = std::env::var("AGENTS_PRINCIPAL_HEADER") {
        server = server.principal(move |parts| {
            let value = parts.headers.get(header.as_str())?;
            value.to_str().ok().map(str::to_owned)
        });
    }
    server
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = server();
    let addr = match &args[..] {
        [] => return server.serve_stdio().await,
        [flag, addr] if flag == "--http" => addr,
        _ => {
            eprintln!("usage: agents_server [--http ADDR]");
            std::process::exit(2);
        }
    };
    let http = server
        .serve_http_with(addr.as_str(), HttpOptions::new())
        .await?;
    println!("listening on {}", http.url());
    let _ = std::io::stdout().flush();
    // Until stdin closes (the test drops it, or dies).
    tokio::task::spawn_blocking(|| {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
    })
    .await?;
    http.shutdown().await
}

//! The MCP server over its stdio transport (`McpServer::serve_io`): after a normal
//! `initialize` handshake the client sends the fuzz input as raw bytes (any number of
//! lines, garbage, partial messages, requests to real tools), then one last `ping`, then
//! closes its end.
//!
//! Fails on: any panic, the server not finishing after the client closed (a hang is
//! caught by libFuzzer's `-timeout`), a line of output that is not JSON, or the final
//! `ping` not answered (unless the input itself mentions its id, and so may have
//! cancelled or pre-empted it).

#![no_main]

#[path = "runtime.rs"]
mod runtime;

use std::convert::Infallible;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use runtime::runtime;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolnexus::mcp::McpServer;
use toolnexus::{Context, Toolkit, tool, tools};

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> Result<i64, Infallible> {
    Ok(a.wrapping_add(b))
}

/// Echo a text after a yield.
#[tool]
async fn echo(text: String, ctx: &Context) -> Result<String, Infallible> {
    tokio::task::yield_now().await;
    Ok(format!("{text} ({})", ctx.call_id().unwrap_or("-")))
}

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
);
const FINAL_ID: &str = "final-ping-7f3a";

fn server() -> McpServer {
    static SERVER: OnceLock<McpServer> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let toolkit: Toolkit = tools![add, echo].into_iter().collect();
            McpServer::new(toolkit).max_message_bytes(16 * 1024)
        })
        .clone()
}

fuzz_target!(|data: &[u8]| {
    runtime().block_on(async {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(theirs);
        let serving = tokio::spawn(server().serve_io(read, write));
        let (mut from_server, mut to_server) = tokio::io::split(ours);

        let client = async move {
            to_server.write_all(HANDSHAKE.as_bytes()).await.ok()?;
            to_server.write_all(data).await.ok()?;
            let ping =
                format!("\n{{\"jsonrpc\":\"2.0\",\"id\":\"{FINAL_ID}\",\"method\":\"ping\"}}\n");
            to_server.write_all(ping.as_bytes()).await.ok()?;
            // Keep the pipe open until the final ping is answered: closing it ends the
            // session and may drop a response still being written.
            Some(to_server)
        };
        let reader = async move {
            let mut output = Vec::new();
            let mut chunk = [0u8; 8192];
            loop {
                let n = from_server.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    return (output, false);
                }
                output.extend_from_slice(&chunk[..n]);
                if output.ends_with(b"\n")
                    && output.split(|&b| b == b'\n').any(|line| {
                        line.windows(FINAL_ID.len())
                            .any(|w| w == FINAL_ID.as_bytes())
                    })
                {
                    return (output, true);
                }
            }
        };
        // Bounded, so a server that neither answers nor closes is reported as such.
        let reader = async move {
            tokio::time::timeout(std::time::Duration::from_secs(5), reader)
                .await
                .unwrap_or_default()
        };
        let (writer, (output, answered)) = tokio::join!(client, reader);
        drop(writer);
        let outcome = serving.await.expect("serve_io does not panic");
        let _ = outcome;

        for line in output.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let parsed: Result<Value, _> = serde_json::from_slice(line);
            assert!(
                parsed.is_ok(),
                "not JSON: {:?}",
                String::from_utf8_lossy(line)
            );
        }
        let mentions_id = data
            .windows(FINAL_ID.len())
            .any(|w| w == FINAL_ID.as_bytes());
        if !mentions_id {
            assert!(
                answered,
                "the final ping was not answered; output: {}",
                String::from_utf8_lossy(&output)
            );
        }
    });
});

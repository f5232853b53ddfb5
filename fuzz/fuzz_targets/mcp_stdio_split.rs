//! The MCP server's stdio transport (`McpServer::serve_io`) fed valid traffic in pieces
//! the fuzzer chooses: after the `initialize` handshake, up to 64 `tools/call` requests
//! (and `notifications/initialized`, pings and blank lines between them), written in
//! pieces whose sizes come from the input, with yields between pieces so the server's
//! reads stop at every possible place.
//!
//! Fails on: any panic, a request not answered within the bound, an id answered twice, a
//! wrong result, or a line of output that is not JSON.

#![no_main]

#[path = "runtime.rs"]
mod runtime;

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use runtime::runtime;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolnexus::mcp::McpServer;
use toolnexus::{Toolkit, tool, tools};

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> Result<i64, Infallible> {
    Ok(a.wrapping_add(b))
}

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
);

fn server() -> McpServer {
    static SERVER: OnceLock<McpServer> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let toolkit: Toolkit = tools![add].into_iter().collect();
            // Small, so that some requests (long padding) go over it.
            McpServer::new(toolkit).max_message_bytes(2048)
        })
        .clone()
}

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let count = usize::from(count % 64) + 1;
    let mut traffic = String::from(HANDSHAKE);
    // What each id must be answered with: its sum, or an error for an over-long line.
    let mut expected: HashMap<String, Option<String>> = HashMap::new();
    for i in 0..count {
        let shape = rest.get(i).copied().unwrap_or(0);
        let id = if shape & 1 == 0 {
            format!("{i}")
        } else {
            format!("\"s{i}\"")
        };
        let pad = if shape & 0x30 == 0x30 { 3000 } else { usize::from(shape >> 4) * 40 };
        let pad = "p".repeat(pad);
        // Key orders the SDKs use: the id first (Python) or last (TypeScript).
        let line = if shape & 2 == 0 {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{i},"b":5}},"_meta":{{"pad":"{pad}"}}}}}}"#
            )
        } else {
            format!(
                r#"{{"method":"tools/call","params":{{"name":"add","arguments":{{"a":{i},"b":5}},"_meta":{{"pad":"{pad}"}}}},"jsonrpc":"2.0","id":{id}}}"#
            )
        };
        let over = line.len() > 2048;
        traffic.push_str(&line);
        traffic.push_str(match shape & 0x0c {
            0x04 => "\r\n",
            0x08 => "\n\n",
            _ => "\n",
        });
        let key: Value = serde_json::from_str(&id).unwrap();
        expected.insert(key.to_string(), (!over).then(|| (i + 5).to_string()));
    }
    let sizes: Vec<usize> = rest
        .get(count..)
        .unwrap_or_default()
        .iter()
        .map(|b| usize::from(*b) + 1)
        .collect();

    runtime().block_on(async {
        let (ours, theirs) = tokio::io::duplex(4096);
        let (read, write) = tokio::io::split(theirs);
        let serving = tokio::spawn(server().serve_io(read, write));
        let (from_server, mut to_server) = tokio::io::split(ours);

        let writer = async move {
            let mut bytes = traffic.as_bytes();
            let mut piece = 0;
            while !bytes.is_empty() {
                let size = sizes.get(piece).copied().unwrap_or(bytes.len()).min(bytes.len());
                piece += 1;
                let (now, later) = bytes.split_at(size);
                to_server.write_all(now).await.unwrap();
                tokio::task::yield_now().await;
                bytes = later;
            }
            to_server
        };
        let reader = async move {
            let mut lines = BufReader::new(from_server).lines();
            let mut answered: HashMap<String, usize> = HashMap::new();
            while answered.len() < count {
                let Ok(Some(line)) = lines.next_line().await else {
                    break;
                };
                let answer: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                let id = answer["id"].to_string();
                if id == "\"init\"" {
                    continue;
                }
                let Some(want) = expected.get(&id) else {
                    panic!("an answer to no request: {line}");
                };
                match want {
                    Some(sum) => assert_eq!(
                        answer["result"]["content"][0]["text"].as_str(),
                        Some(sum.as_str()),
                        "{line}"
                    ),
                    None => assert_eq!(answer["error"]["code"], -32600, "{line}"),
                }
                let times = answered.entry(id).or_default();
                *times += 1;
                assert_eq!(*times, 1, "answered twice: {line}");
            }
            answered.len()
        };
        let reader = async move {
            tokio::time::timeout(std::time::Duration::from_secs(5), reader)
                .await
                .unwrap_or(0)
        };
        let (writer, answered) = tokio::join!(writer, reader);
        assert_eq!(answered, count, "a request was never answered");
        drop(writer);
        serving.await.expect("serve_io does not panic").ok();
    });
});

//! The MCP server over stdio under load, as a child process on real pipes: every request
//! is answered exactly once, and an over-long request is answered with its own id.
//!
//! Each test runs against toolnexus's server (`McpServer::serve_stdio`) and against plain
//! rmcp 3.11's stdio server with the same tool (`tests/stdio/peer.rs`): the same checks pass
//! against the SDK alone, which keeps them honest.
//!
//! - raw JSON-RPC: 5,000 `tools/call` lines pipelined, in one write and in random pieces;
//! - the official TypeScript SDK 1.32 (`$TOOLNEXUS_NODE_MODULES`) and Python SDK 2.3
//!   (`$TOOLNEXUS_PYTHON`) clients: 200 concurrent calls × 10 rounds, then over-long
//!   requests with the id first, last (TypeScript) and absent (`tests/stdio/client.*`);
//! - `McpClient`: 5,000 concurrent calls over one connection.
//!
//! The SDK clients are installed by `.ci/test`; without them these tests fail, they never
//! skip.

#[path = "support/example.rs"]
mod example;
#[path = "support/node.rs"]
mod node;
use node::node_command;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolnexus::Context;
use toolnexus::mcp::McpClient;

/// Hang protection only: no assertion depends on how long anything takes.
const PATIENCE: Duration = Duration::from_secs(120);
const SERVERS: [&str; 2] = ["toolnexus", "rmcp"];
const PIPELINED: usize = 5000;
/// Over toolnexus's default bound of 1 MiB, within rmcp's of 16 MiB.
const BIG: usize = 2 * 1024 * 1024;

fn peer() -> PathBuf {
    example::example("stdio_peer")
}

/// A small seeded generator (xorshift), so the pieces are the same on every run.
fn pieces(seed: u64) -> impl FnMut() -> usize {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        1 + (state % 3000) as usize
    }
}

/// Spawns `server`, completes `initialize`, writes `PIPELINED` `tools/call` lines (at
/// once, or in pieces of random sizes), and checks that every id is answered exactly once
/// with the right sum.
async fn pipelined(server: &str, split: Option<u64>) {
    let mut child = tokio::process::Command::new(peer())
        .arg(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let mut to_server = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "pipelined", "version": "0"}}});
    to_server
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], "init", "{first}");

    let mut traffic =
        String::from("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    for id in 0..PIPELINED {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": id, "b": 1000}}});
        traffic.push_str(&call.to_string());
        traffic.push('\n');
    }
    let writer = async move {
        match split {
            None => to_server.write_all(traffic.as_bytes()).await.unwrap(),
            Some(seed) => {
                let mut next = pieces(seed);
                let mut rest = traffic.as_bytes();
                while !rest.is_empty() {
                    let (piece, tail) = rest.split_at(next().min(rest.len()));
                    to_server.write_all(piece).await.unwrap();
                    to_server.flush().await.unwrap();
                    tokio::task::yield_now().await;
                    rest = tail;
                }
            }
        }
        // Open until every answer is in: closing ends the session.
        to_server
    };
    let reader = async {
        let mut answers: HashMap<u64, usize> = HashMap::new();
        while answers.len() < PIPELINED {
            let line = lines
                .next_line()
                .await
                .unwrap()
                .expect("the server stays up");
            let answer: Value = serde_json::from_str(&line).unwrap();
            let id = answer["id"].as_u64().unwrap_or_else(|| panic!("{answer}"));
            let text = &answer["result"]["content"][0]["text"];
            assert_eq!(text, &json!((id + 1000).to_string()), "{answer}");
            *answers.entry(id).or_default() += 1;
            assert_eq!(answers[&id], 1, "id {id} answered twice");
        }
        answers.len()
    };
    let (to_server, answered) =
        tokio::time::timeout(PATIENCE, async { tokio::join!(writer, reader) })
            .await
            .unwrap_or_else(|_| panic!("{server}: not every pipelined request was answered"));
    assert_eq!(answered, PIPELINED);
    drop(to_server);
    let _ = child.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_lines_in_one_write_are_each_answered_once() {
    for server in SERVERS {
        pipelined(server, None).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_lines_in_random_pieces_are_each_answered_once() {
    for (seed, server) in SERVERS.into_iter().enumerate() {
        pipelined(server, Some(0x9e37_79b9 + seed as u64)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_client_pipelines_calls_without_losing_one() {
    for server in SERVERS {
        let client = McpClient::stdio(peer(), [server])
            .timeout(PATIENCE)
            .connect()
            .await
            .unwrap_or_else(|e| panic!("{server}: {e}"));
        let toolkit: toolnexus::Toolkit = client.tools().await.unwrap().into_iter().collect();
        let calls = (0..PIPELINED as i64).map(|i| {
            let toolkit = toolkit.clone();
            async move {
                let result = toolkit
                    .execute("add", json!({"a": i, "b": 7}), Context::default())
                    .await;
                (i, result.output)
            }
        });
        let results = tokio::time::timeout(PATIENCE, futures_util::future::join_all(calls))
            .await
            .unwrap_or_else(|_| panic!("{server}: McpClient lost a call"));
        for (i, output) in results {
            assert_eq!(output, (i + 7).to_string(), "{server}: call {i}");
        }
        client.close().await;
    }
}

fn run_client(mut command: Command, what: &str) -> Value {
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("{what} runs: {e}"));
    assert!(output.status.success(), "{what} failed: {output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim().lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{what} printed no report ({e}): {stdout}"))
}

fn typescript(server: &str) -> Value {
    let mut command = node_command(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/stdio/client.cjs"
    ));
    command
        .args(["200", "10", &BIG.to_string()])
        .arg(peer())
        .arg(server);
    run_client(command, "the TypeScript SDK client")
}

fn python(server: &str) -> Value {
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut command = Command::new(python);
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/stdio/client.py"
        ))
        .args(["200", "10", &BIG.to_string()])
        .arg(peer())
        .arg(server);
    run_client(
        command,
        "the Python SDK client (needs `mcp` in $TOOLNEXUS_PYTHON)",
    )
}

/// 2,000 calls, none lost, every result right; the over-long requests each answered once
/// with their own id: by toolnexus with an invalid-request error, by rmcp (whose bound is
/// 16 MiB) with a result.
fn check(server: &str, report: &Value, cases: &[&str]) {
    let load = &report["load"];
    assert_eq!(load["calls"], 2000, "{server}: {load}");
    assert_eq!(load["correct"], 2000, "{server}: {load}");
    assert_eq!(load["lost"], 0, "{server}: {load}");
    let big = &load["big_call"];
    if server == "toolnexus" {
        assert_eq!(
            big["code"], -32600,
            "{server}: the SDK's own over-long call: {big}"
        );
    } else {
        assert_eq!(big["result"], "answered", "{server}: {big}");
    }
    for case in cases {
        let outcome = &report["over_long"][case];
        assert_eq!(outcome["ping_answered"], true, "{server} {case}: {outcome}");
        let answers = outcome["answers"].as_array().unwrap();
        let expected_id = match *case {
            "id_first" => json!("first"),
            "id_last" => json!("last"),
            _ => Value::Null,
        };
        match (server, *case) {
            // A notification within rmcp's bound: served, and not answered.
            ("rmcp", "id_absent") => assert!(answers.is_empty(), "{outcome}"),
            ("rmcp", _) => {
                assert_eq!(answers.len(), 1, "{server} {case}: {outcome}");
                assert_eq!(answers[0]["id"], expected_id, "{outcome}");
                assert_eq!(answers[0]["result"]["content"][0]["text"], "3", "{outcome}");
            }
            (_, _) => {
                assert_eq!(answers.len(), 1, "{server} {case}: {outcome}");
                let answer = &answers[0];
                if answer.get("sdk_error").is_some() {
                    // The TypeScript SDK's schema refuses `"id": null` (which JSON-RPC
                    // prescribes for an error without an id): it reports the line as an
                    // error of its own, which is the one answer it can see.
                    assert_eq!(*case, "id_absent", "{outcome}");
                    let text = answer["sdk_error"].as_str().unwrap();
                    assert!(text.contains("null"), "{text}");
                } else {
                    assert_eq!(answer["id"], expected_id, "{server} {case}: {outcome}");
                    assert_eq!(answer["error"]["code"], -32600, "{outcome}");
                }
            }
        }
    }
}

#[test]
fn the_typescript_sdk_client_loses_nothing_and_gets_every_id_back() {
    for server in SERVERS {
        check(
            server,
            &typescript(server),
            &["id_first", "id_last", "id_absent"],
        );
    }
}

#[test]
fn the_python_sdk_client_loses_nothing_and_gets_every_id_back() {
    for server in SERVERS {
        check(server, &python(server), &["id_first", "id_absent"]);
    }
}

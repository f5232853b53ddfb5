//! The MCP server over stdio, spoken to with raw JSON-RPC lines: every line that cannot be
//! served is answered at once with an error carrying the request's `id` (a client waiting
//! for that id would otherwise hang), and `tools/list` sends exactly the toolkit's MCP
//! listing.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use toolnexus::mcp::McpServer;
use toolnexus::schema::profile::Profile;
use toolnexus::{Tool, ToolResult, Toolkit};

/// Short: every answer here is due at once, and a missing one must fail the test, not
/// hang it.
const PATIENCE: Duration = Duration::from_secs(10);

fn add() -> Tool {
    Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
        |args, _| match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
            _ => ToolResult::error("add: `a` and `b` must be integers"),
        },
    )
}

struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
}

impl Client {
    async fn connect(server: McpServer) -> Client {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(theirs);
        tokio::spawn(server.serve_io(read, write));
        let (read, write) = tokio::io::split(ours);
        let mut client = Client {
            write,
            lines: BufReader::new(read).lines(),
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}});
        client.send(init.to_string().as_bytes()).await;
        assert_eq!(client.answer().await["id"], 0);
        client
            .send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        client
    }

    async fn send(&mut self, line: &[u8]) {
        self.write.write_all(line).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    /// The next response or error.
    async fn answer(&mut self) -> Value {
        loop {
            let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
                .await
                .expect("answered at once")
                .unwrap()
                .expect("the connection stays open");
            let msg: Value = serde_json::from_str(&line).unwrap();
            if msg.get("id").is_some() {
                return msg;
            }
        }
    }

    async fn error_for(&mut self, line: &[u8]) -> (Value, i64) {
        self.send(line).await;
        let answer = self.answer().await;
        let code = answer["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("an error: {answer}"));
        (answer["id"].clone(), code)
    }
}

#[tokio::test]
async fn every_unservable_line_gets_an_error_with_its_id() {
    let server = McpServer::new(Toolkit::new().with(add())).max_message_bytes(64 * 1024);
    let mut client = Client::connect(server).await;

    // Over the bound: the id is at the start of the line.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"pad":"{}"}}}}}}"#,
        "x".repeat(200_000)
    );
    assert_eq!(client.error_for(huge.as_bytes()).await, (json!(7), -32600));

    // Invalid UTF-8 inside a string.
    let mut bad_utf8 = br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"add","arguments":{"s":""#.to_vec();
    bad_utf8.extend_from_slice(&[0xff, 0xfe]);
    bad_utf8.extend_from_slice(br#""}}}"#);
    assert_eq!(client.error_for(&bad_utf8).await, (json!(8), -32700));

    // A lone surrogate escape, as a model's truncated output can hold.
    let surrogate = br#"{"jsonrpc":"2.0","id":"nine","method":"tools/call","params":{"name":"add","arguments":{"s":"\ud83d"}}}"#;
    assert_eq!(client.error_for(surrogate).await, (json!("nine"), -32700));

    // Params that are not an object.
    let array = br#"{"jsonrpc":"2.0","id":10,"method":"tools/list","params":[]}"#;
    assert_eq!(client.error_for(array).await, (json!(10), -32602));

    // Malformed tools/call params: invalid params, not method not found.
    for (id, params) in [
        (11, json!({"name": "add", "arguments": "a=1"})),
        (12, json!({"arguments": {"a": 1}})),
        (13, json!({"name": 5})),
    ] {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        assert_eq!(
            client.error_for(line.to_string().as_bytes()).await,
            (json!(id), -32602),
            "{params}"
        );
    }

    // Not JSON at all: a parse error without an id.
    assert_eq!(
        client.error_for(b"{this is not json").await,
        (Value::Null, -32700)
    );

    // The connection still serves.
    let ok = json!({"jsonrpc": "2.0", "id": 14, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 20, "b": 22}}});
    client.send(ok.to_string().as_bytes()).await;
    assert_eq!(client.answer().await["result"]["content"][0]["text"], "42");
}

#[tokio::test]
async fn tools_list_sends_the_mcp_listing_of_a_hand_written_schema() {
    // A hand-written schema with a width format that MCP's profile lists differently.
    let schema = json!({
        "type": "object",
        "properties": {"count": {"type": "integer", "format": "uint32", "minimum": 0}},
        "required": ["count"]
    });
    let tool = Tool::new_sync("count", "Counts.", schema.clone(), |_, _| {
        ToolResult::ok("0")
    });
    let toolkit = Toolkit::new().with(tool);
    let expected = toolkit.listing(Profile::Mcp);
    assert_ne!(
        expected[0]["inputSchema"], schema,
        "the MCP profile changes this schema (else the test proves nothing)"
    );
    let server = McpServer::new(toolkit.clone());
    assert_eq!(serde_json::to_value(server.tools()).unwrap(), *expected);

    let mut client = Client::connect(server).await;
    client
        .send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#)
        .await;
    let listed = client.answer().await;
    assert_eq!(listed["result"]["tools"], *expected);
    assert_eq!(listed["result"]["tools"], toolkit.to_mcp());
}

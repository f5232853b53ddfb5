//! The servers the transport benchmark measures, one per mode, each serving the same
//! `add(a, b)` tool: toolnexus's `McpServer`, a bare rmcp server (`#[tool_router]`), and
//! the floors that speak the same JSON-RPC without any MCP SDK. The bench binary starts
//! itself again as one of them (`TRANSPORT_SERVE=MODE`).

use std::convert::Infallible;
use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, ServiceExt as _, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::{Toolkit, tool as toolnexus_tool};

/// The environment variable naming the mode a child serves.
pub const SERVE: &str = "TRANSPORT_SERVE";
/// The address an HTTP child binds (port 0: any free port).
pub const ADDR: &str = "TRANSPORT_ADDR";

/// Add two numbers.
#[toolnexus_tool]
fn add(a: i64, b: i64) -> Result<i64, Infallible> {
    Ok(a + b)
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// The bare rmcp server.
#[derive(Clone)]
#[allow(dead_code)] // read by the code `#[tool_handler]` generates
struct Adder {
    tool_router: rmcp::handler::server::router::tool::ToolRouter<Adder>,
}

#[tool_router]
impl Adder {
    fn new() -> Self {
        Adder {
            tool_router: Self::tool_router(),
        }
    }

    /// Add two numbers.
    #[tool]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler]
impl ServerHandler for Adder {}

fn toolnexus_server() -> McpServer {
    McpServer::new(Toolkit::new().with(add::tool())).name("bench")
}

/// Serves `mode` until the client goes away; `false` for an unknown mode.
pub fn serve(mode: &str) -> bool {
    let stdio = mode.ends_with("-stdio") || mode.contains("-stdio-");
    let rt = if stdio {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    }
    .expect("a runtime");
    rt.block_on(async {
        match mode {
            "toolnexus-stdio" => toolnexus_server().serve_stdio().await.expect("served"),
            "rmcp-stdio-tokio" => rmcp_stdio(rmcp::transport::stdio()).await,
            "rmcp-stdio-pipes" => rmcp_stdio(rmcp::transport::stdio_pipes()).await,
            "floor-stdio" => floor_stdio().await,
            "toolnexus-http-stateless" | "toolnexus-http-stateful" => {
                let mut options = HttpOptions::new();
                if mode.ends_with("stateless") {
                    options = options.stateless();
                }
                let http = toolnexus_server()
                    .serve_http_with(addr().as_str(), options)
                    .await
                    .expect("bound");
                announce(&http.url());
                until_stdin_closes().await;
                http.shutdown().await.expect("shut down");
            }
            "rmcp-http-stateless" | "rmcp-http-stateful" => {
                rmcp_http(mode.ends_with("stateless")).await;
            }
            "floor-http" => floor_http().await,
            _ => return false,
        }
        true
    })
}

/// The bare rmcp server over a pair of streams, until the client goes away.
async fn rmcp_stdio<R, W>(streams: (R, W))
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let running = Adder::new().serve(streams).await.expect("initialized");
    let _ = running.waiting().await;
}

fn addr() -> String {
    std::env::var(ADDR).unwrap_or_else(|_| "127.0.0.1:0".to_owned())
}

fn announce(url: &str) {
    println!("listening on {url}");
}

/// The parent closes our stdin to stop an HTTP child.
async fn until_stdin_closes() {
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut line = String::new();
    while stdin.read_line(&mut line).await.is_ok_and(|n| n > 0) {
        line.clear();
    }
}

/// rmcp's `StreamableHttpService` on axum, as rmcp's own examples serve it.
async fn rmcp_http(stateless: bool) {
    use rmcp::transport::StreamableHttpService;
    use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;

    let listener = tokio::net::TcpListener::bind(addr()).await.expect("bound");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let config = StreamableHttpServerConfig::default();
    let router = if stateless {
        let config = config
            .with_legacy_session_mode(false)
            .with_json_response(true);
        let service = StreamableHttpService::new(
            || Ok(Adder::new()),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        axum::Router::new().nest_service("/mcp", service)
    } else {
        let service = StreamableHttpService::new(
            || Ok(Adder::new()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        axum::Router::new().nest_service("/mcp", service)
    };
    announce(&url);
    // TCP_NODELAY as toolnexus's server sets it: without it an event-stream response,
    // written in several pieces, waits for the client's delayed ACK (40 ms).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let served = axum::serve(listener, router).with_graceful_shutdown(until_stdin_closes());
    served.await.expect("served");
}

#[derive(Deserialize)]
struct Call {
    id: Value,
    params: CallParams,
}

#[derive(Deserialize)]
struct CallParams {
    arguments: AddArgs,
}

#[derive(Serialize)]
struct Reply<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: ReplyResult,
}

#[derive(Serialize)]
struct ReplyResult {
    content: [Text; 1],
    #[serde(rename = "isError")]
    is_error: bool,
}

#[derive(Serialize)]
struct Text {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

/// The floor's whole work for one `tools/call`: parse it, add, write the answer.
fn floor_answer(body: &[u8]) -> Vec<u8> {
    match serde_json::from_slice::<Call>(body) {
        Ok(call) => {
            let AddArgs { a, b } = call.params.arguments;
            serde_json::to_vec(&Reply {
                jsonrpc: "2.0",
                id: &call.id,
                result: ReplyResult {
                    content: [Text {
                        kind: "text",
                        text: (a + b).to_string(),
                    }],
                    is_error: false,
                },
            })
            .expect("serializable")
        }
        Err(_) => {
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#.to_vec()
        }
    }
}

/// axum + serde_json answering the same JSON-RPC, without any MCP SDK.
async fn floor_http() {
    use axum::body::Bytes;
    use axum::http::header;

    let listener = tokio::net::TcpListener::bind(addr()).await.expect("bound");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let router = axum::Router::new().route(
        "/mcp",
        axum::routing::post(|body: Bytes| async move {
            (
                [(header::CONTENT_TYPE, "application/json")],
                floor_answer(&body),
            )
        }),
    );
    announce(&url);
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let served = axum::serve(listener, router).with_graceful_shutdown(until_stdin_closes());
    served.await.expect("served");
}

/// Two processes exchanging one JSON line over pipes: the stdio floor.
async fn floor_stdio() {
    let (read, mut write) = rmcp::transport::stdio_pipes();
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let mut answer = floor_answer(line.as_bytes());
        answer.push(b'\n');
        if write.write_all(&answer).await.is_err() || write.flush().await.is_err() {
            return;
        }
    }
}

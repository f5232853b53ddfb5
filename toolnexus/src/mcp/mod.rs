//! Serve a [`Toolkit`](crate::Toolkit) over the Model Context Protocol (feature `mcp`).
//!
//! [`McpServer`] wraps a toolkit and implements the MCP server side with the official
//! Rust SDK ([`rmcp`]): `initialize` advertises the server's name and version and the
//! tools capability, `tools/list` lists the toolkit's tools (the same entries as
//! [`Toolkit::to_mcp`](crate::Toolkit::to_mcp)), and `tools/call` runs
//! [`Toolkit::execute`](crate::Toolkit::execute) and maps the
//! [`ToolResult`](crate::ToolResult) to MCP content (see [`call_tool_result`]).
//!
//! Two transports:
//!
//! - stdio, for local clients that spawn the server: [`McpServer::serve_stdio`] (or
//!   [`McpServer::serve_io`] over any pair of async streams);
//! - streamable HTTP, mounted at `/mcp`: [`McpServer::serve_http`] binds the address
//!   given (port 0 picks a free port) and returns an [`HttpServer`] that reports the
//!   bound address and shuts down cleanly.
//!
//! ```no_run
//! use serde_json::json;
//! use toolnexus::mcp::McpServer;
//! use toolnexus::{Tool, ToolResult, Toolkit};
//!
//! # async fn demo() -> std::io::Result<()> {
//! let echo = Tool::new_sync("echo", "Echoes `text`.", json!({"type": "object"}), |args, _| {
//!     ToolResult::ok(args["text"].as_str().unwrap_or_default())
//! });
//! let server = McpServer::new(Toolkit::new().with(echo)).name("echo-server");
//!
//! // Streamable HTTP on a free port of the loopback interface…
//! let http = server.clone().serve_http("127.0.0.1:0").await?;
//! println!("serving {}", http.url());
//! http.shutdown().await?;
//!
//! // …or stdio, until the client closes the stream.
//! server.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
//!
//! The module shows its three parts: `server/` ([`McpServer`]: its handler, tasks,
//! suspensions, resources and prompts), `client/` ([`McpClient`]) and `transport/` (stdio
//! and streamable HTTP: the line codec, the HTTP guard and event store, and the JSON-RPC
//! checks both run before the SDK sees a message).

mod client;
pub(crate) mod server;
mod trace;
mod transport;

#[cfg(feature = "ui")]
pub(crate) use client::view_result;
pub use client::{
    ANSWER_META_KEY, DECLINED, DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_ELICITATION_TIMEOUT, ELICITATION_DATA_KEY, McpClient, McpClientBuilder, McpClientError,
    PromptInfo, ResourceInfo, ResourceTemplateInfo, ResourceUpdates,
};
#[cfg(feature = "mcp-auth")]
pub use client::{
    AuthorizationHandler, DEFAULT_MAX_STEP_UPS, DEFAULT_REDIRECT_URI, FileTokenStore,
    HeadlessLogin, JwtAlgorithm, MemoryTokenStore, OAuth, StoredCredentials, TokenStore,
};
/// The MCP SDK this module is built on, re-exported so its types (transports, HTTP
/// configuration, the [`ServerHandler`](rmcp::ServerHandler) trait) can be named without a second dependency.
pub use rmcp;
pub use server::catalog::{DEFAULT_LISTEN_TTL, DEFAULT_PAGE_SIZE, MAX_SUBSCRIPTIONS, ServerHandle};
pub use server::convert::{PENDING_META_KEY, call_tool_result, mcp_tool};
pub use server::elicit::ANSWER_FIELD;
pub use server::elicit_schema::{
    ELICITATION_STRING_FORMATS, ElicitationSchemaError, check_elicitation_schema,
};
pub use server::notify::DEFAULT_LOG_LEVEL;
pub use server::seal::{DEFAULT_STATE_TTL, MIN_STATE_SECRET_BYTES, StateKey, StateKeyError};
pub use server::task::{
    DEFAULT_MAX_ANONYMOUS_TASKS, DEFAULT_MAX_FINISHED_TASK_BYTES, DEFAULT_MAX_FINISHED_TASKS,
    DEFAULT_MAX_RUNNING_TASKS, DEFAULT_MAX_TASKS_PER_CALLER, DEFAULT_TASK_LEASE,
    DEFAULT_TASK_POLL_INTERVAL, DEFAULT_TASK_SWEEP_INTERVAL, DEFAULT_TASK_TTL,
};
pub use transport::http::{
    DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_IDLE_TIMEOUT, HttpOptions, HttpServer,
};

pub use server::{DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_SERVER_NAME, McpServer};

//! The transports an [`McpServer`](crate::mcp::McpServer) is served over: stdio (any
//! pair of byte streams, newline-delimited) and streamable HTTP, and what both share: the
//! JSON-RPC checks run before the SDK sees a message, and the scan that finds a message's
//! `id` to answer it with.

pub(crate) mod http;
pub(crate) mod id;
pub(crate) mod protocol;
pub(crate) mod stdio;

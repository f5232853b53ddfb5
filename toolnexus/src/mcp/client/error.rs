//! [`McpClientError`]: why a connection to an MCP server, or a listing of its tools, failed.

use std::fmt;
use std::time::Duration;

/// Why [`McpClient`](super::McpClient) could not connect to a server or list its tools.
///
/// Tool calls never return this: a call that fails gives an error
/// [`ToolResult`](crate::ToolResult) whose text says the same thing, so the model can read it.
#[derive(Debug)]
#[non_exhaustive]
pub enum McpClientError {
    /// The server's command could not be started (not found, not executable, …).
    Spawn {
        /// The command line, as given.
        command: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The server was reached but the MCP handshake (`initialize`) failed, or the
    /// connection could not be opened.
    Connect {
        /// The server: its command line or URL.
        server: String,
        /// What went wrong.
        message: String,
    },
    /// Connecting, or a request, took longer than allowed.
    Timeout {
        /// The server: its command line or URL (or its advertised name).
        server: String,
        /// What was being done (`"initialize"`, `"tools/list"`, …).
        what: String,
        /// The limit that was reached.
        after: Duration,
    },
    /// A request (`tools/list`, …) failed: the server answered with an error, or the
    /// connection closed before it answered.
    Request {
        /// The server: its advertised name, or its command line or URL.
        server: String,
        /// The MCP method.
        method: String,
        /// What went wrong.
        message: String,
    },
    /// The server requires a login (MCP authorization) and none could be made: no
    /// login was configured, the authorization server refused to register the client,
    /// its token endpoint failed, the user gave no authorization, …
    Authorization {
        /// The server: its URL.
        server: String,
        /// What went wrong, and where.
        message: String,
    },
    /// The options given cannot work (an invalid header, an `https://` URL without TLS
    /// support, …).
    Config {
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl fmt::Display for McpClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpClientError::Spawn { command, source } => write!(
                f,
                "could not start the MCP server `{command}`: {source} (is the command installed and on PATH?)"
            ),
            McpClientError::Connect { server, message } => {
                write!(f, "could not connect to the MCP server {server}: {message}")
            }
            McpClientError::Timeout {
                server,
                what,
                after,
            } => write!(
                f,
                "the MCP server {server} did not answer `{what}` within {}",
                super::humanize(*after)
            ),
            McpClientError::Request {
                server,
                method,
                message,
            } => write!(f, "`{method}` to the MCP server {server} failed: {message}"),
            McpClientError::Authorization { server, message } => {
                write!(f, "could not log in to the MCP server {server}: {message}")
            }
            McpClientError::Config { message } => write!(f, "MCP client: {message}"),
        }
    }
}

impl std::error::Error for McpClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            McpClientError::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}

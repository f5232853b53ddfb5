//! [`McpClientError`]: why a connection to an MCP server, or a listing of its tools, failed.

use std::time::Duration;

/// Why [`McpClient`](super::McpClient) could not connect to a server or list its tools.
///
/// Tool calls never return this: a call that fails gives an error
/// [`ToolResult`](crate::ToolResult) whose text says the same thing, so the model can read it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpClientError {
    /// The server's command could not be started (not found, not executable, …).
    #[error(
        "could not start the MCP server `{command}`: {source} (is the command installed and on PATH?)"
    )]
    Spawn {
        /// The command line, as given.
        command: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The server was reached but the MCP handshake (`initialize`) failed, or the
    /// connection could not be opened.
    #[error("could not connect to the MCP server {server}: {message}")]
    Connect {
        /// The server: its command line or URL.
        server: String,
        /// What went wrong.
        message: String,
    },
    /// Connecting, or a request, took longer than allowed.
    #[error(
        "the MCP server {server} did not answer `{what}` within {}",
        super::humanize(*.after)
    )]
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
    #[error("`{method}` to the MCP server {server} failed: {message}")]
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
    #[error("could not log in to the MCP server {server}: {message}")]
    Authorization {
        /// The server: its URL.
        server: String,
        /// What went wrong, and where.
        message: String,
    },
    /// The options given cannot work (an invalid header, an `https://` URL without TLS
    /// support, …).
    #[error("MCP client: {message}")]
    Config {
        /// What is wrong and how to fix it.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::time::Duration;

    use super::McpClientError;

    #[test]
    fn each_error_names_the_server_and_keeps_its_cause() {
        let spawn = McpClientError::Spawn {
            command: "nope --stdio".to_owned(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert_eq!(
            spawn.to_string(),
            "could not start the MCP server `nope --stdio`: entity not found \
             (is the command installed and on PATH?)"
        );
        assert!(spawn.source().is_some());
        let timeout = McpClientError::Timeout {
            server: "weather".to_owned(),
            what: "tools/list".to_owned(),
            after: Duration::from_secs(3),
        };
        assert_eq!(
            timeout.to_string(),
            "the MCP server weather did not answer `tools/list` within 3s"
        );
        assert!(timeout.source().is_none());
    }
}

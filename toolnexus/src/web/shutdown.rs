//! [`ShutdownHandle`]: stops a server this crate serves over HTTP.

use tokio_util::sync::CancellationToken;

/// Stops a server this crate serves over HTTP (the MCP server's
/// `mcp::HttpServer`, the A2A server's `a2a::ServedA2a`); cheap to clone, so a signal
/// handler or another task can hold one.
#[derive(Debug, Clone)]
pub struct ShutdownHandle(CancellationToken);

impl ShutdownHandle {
    /// The handle that cancels `token`, which the server watches.
    #[allow(dead_code)] // Each server that serves uses it.
    pub(crate) fn new(token: CancellationToken) -> Self {
        Self(token)
    }

    /// Starts the shutdown (idempotent). Does not wait for it: the server's own `wait`
    /// does.
    pub fn shutdown(&self) {
        self.0.cancel();
    }

    /// Whether the shutdown has been started.
    pub fn is_shutdown(&self) -> bool {
        self.0.is_cancelled()
    }
}

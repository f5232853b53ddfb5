//! How an [`McpServer`] is served: over stdio, any pair of byte streams, or streamable
//! HTTP.

use std::io;

use tokio::io::{AsyncRead, AsyncWrite};

use super::McpServer;
use crate::mcp::transport::{http, stdio};
use crate::mcp::{HttpOptions, HttpServer};

impl McpServer {
    /// Serves one client over the process's standard input and output until the client
    /// closes the stream. Nothing else may write to stdout meanwhile: log to stderr.
    ///
    /// When both are pipes (as when a client spawns the server) on Linux, they are read
    /// and written without blocking, on the runtime's IO driver (the SDK's `stdio_pipes`;
    /// the runtime needs IO enabled, as `#[tokio::main]` does); elsewhere through Tokio's
    /// stdin and stdout.
    pub async fn serve_stdio(self) -> io::Result<()> {
        let (stdin, stdout) = rmcp::transport::stdio_pipes();
        self.serve_io(stdin, stdout).await
    }

    /// Serves one client speaking newline-delimited JSON-RPC over `read` / `write` (a
    /// child's pipes, a Unix socket, an in-memory duplex…) until the client closes `read`.
    ///
    /// Every line that cannot be served is answered at once with a JSON-RPC error carrying
    /// the request's `id` when it can be found: a parse error (`-32700`) for input that is
    /// not JSON, not UTF-8, or holds a lone surrogate escape; invalid params (`-32602`)
    /// for params that are not an object; invalid request (`-32600`) for JSON that is not
    /// a JSON-RPC message or a line longer than the message bound. The connection stays
    /// open in every case. The `Err` is a client that went away before completing
    /// `initialize`, a failed read or write, or a client that did not read its output: once
    /// more than 16 MiB of answers wait for it, it is no longer served (`BrokenPipe`).
    pub async fn serve_io<R, W>(self, read: R, write: W) -> io::Result<()>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let transport = stdio::GuardedIo::new(read, write, self.0.max_message_bytes);
        let stopped = transport.stopped();
        let running = rmcp::serve_server(self.for_session(), transport)
            .await
            .map_err(io::Error::other)?;
        running.waiting().await.map_err(io::Error::other)?;
        if stopped.is_cancelled() {
            return Err(stdio::not_reading());
        }
        Ok(())
    }

    /// Serves streamable HTTP at `http://ADDR/mcp` (see [`HttpServer`]) with the default
    /// [`HttpOptions`]: only loopback `Host` and `Origin` headers are accepted, and
    /// sessions, connections and slow clients are bounded. Port 0 picks a free port;
    /// [`HttpServer::local_addr`] reports the one bound.
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<HttpServer> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`McpServer::serve_http`] with [`HttpOptions`] (other hosts and origins, limits,
    /// the stateless mode for replicas behind a load balancer), or the SDK's own
    /// configuration (`StreamableHttpServerConfig`, converted with the default limits).
    /// The request-body bound is the smaller of the SDK configuration's and
    /// [`McpServer::max_message_bytes`]; the cancellation token is tied to the returned
    /// server's shutdown.
    pub async fn serve_http_with(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        options: impl Into<HttpOptions>,
    ) -> io::Result<HttpServer> {
        http::serve(self, addr, options.into()).await
    }
}

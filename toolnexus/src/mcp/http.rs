//! Streamable HTTP: the SDK's `StreamableHttpService` mounted at `/mcp` on an axum router.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::McpServer;

/// The path the MCP endpoint is mounted at.
pub(super) const PATH: &str = "/mcp";

pub(super) async fn serve(
    server: McpServer,
    addr: impl ToSocketAddrs,
    mut config: StreamableHttpServerConfig,
) -> io::Result<HttpServer> {
    let listener = TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let shutdown = CancellationToken::new();
    config.cancellation_token = shutdown.child_token();
    config.max_request_body_bytes = config
        .max_request_body_bytes
        .min(server.max_message_bytes());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service(PATH, service);
    let signal = shutdown.clone();
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(signal.cancelled_owned())
            .await
    });
    Ok(HttpServer {
        local_addr,
        shutdown: ShutdownHandle(shutdown),
        task,
    })
}

/// A running streamable-HTTP MCP server, made by
/// [`McpServer::serve_http`](super::McpServer::serve_http).
///
/// Each client connection is served on its own task, so a client that sends garbage,
/// oversized bodies or disconnects mid-request affects only its own requests. Dropping
/// this value does not stop the server: call [`HttpServer::shutdown`], or trigger a
/// [`ShutdownHandle`] and [`HttpServer::wait`].
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    shutdown: ShutdownHandle,
    task: JoinHandle<io::Result<()>>,
}

impl HttpServer {
    /// The address actually bound (with the real port when port 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint's URL, `http://ADDR/mcp`, to give to clients.
    pub fn url(&self) -> String {
        format!("http://{}{PATH}", self.local_addr)
    }

    /// A handle that stops the server from anywhere (another task, a signal handler).
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.shutdown.clone()
    }

    /// Stops accepting connections, ends every MCP session (cancelling the calls still
    /// running), lets in-flight responses finish, and waits for the server to stop.
    pub async fn shutdown(self) -> io::Result<()> {
        self.shutdown.shutdown();
        self.wait().await
    }

    /// Waits until the server stops (after a [`ShutdownHandle::shutdown`]).
    pub async fn wait(self) -> io::Result<()> {
        match self.task.await {
            Ok(result) => result,
            Err(join) => Err(io::Error::other(join)),
        }
    }
}

/// Stops an [`HttpServer`]; cheap to clone.
#[derive(Debug, Clone)]
pub struct ShutdownHandle(CancellationToken);

impl ShutdownHandle {
    /// Starts the shutdown (idempotent). Does not wait for it: see [`HttpServer::wait`].
    pub fn shutdown(&self) {
        self.0.cancel();
    }

    /// Whether the shutdown has been started.
    pub fn is_shutdown(&self) -> bool {
        self.0.is_cancelled()
    }
}

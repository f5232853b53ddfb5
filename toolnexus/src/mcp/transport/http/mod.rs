//! Streamable HTTP: the SDK's `StreamableHttpService` mounted at `/mcp` on an axum router,
//! behind this crate's guard layer (`guard.rs`, with the per-client limits of
//! `limits.rs`), served by a connection loop with a header-read timeout and a connection
//! cap. Sessions are the SDK's, with replays bound to their owner (`sessions.rs`,
//! `events.rs`).

mod events;
mod guard;
mod limits;
mod options;
mod sessions;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_util::sync::CancellationToken;

use crate::mcp::McpServer;
use crate::web;
use crate::web::ShutdownHandle;
pub use options::{
    DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_IDLE_TIMEOUT, HttpOptions,
};

/// The path the MCP endpoint is mounted at.
pub(in crate::mcp) const PATH: &str = "/mcp";

/// The budget of the resumable-stream store: messages kept for clients that reconnect.
const EVENT_STORE_BYTES: usize = 16 * 1024 * 1024;
/// The part of it for streams that carried their answer (about the last 800 answers):
/// those matter only to a client whose connection dropped as the answer was sent.
const ANSWERED_EVENT_BYTES: usize = 1024 * 1024;

pub(in crate::mcp) async fn serve(
    server: McpServer,
    addr: impl ToSocketAddrs,
    options: HttpOptions,
) -> io::Result<HttpServer> {
    let server = server.for_http(&options);
    let listener = TcpListener::bind(addr).await?;
    let shutdown = CancellationToken::new();
    let max_body = server.message_limit();
    let mut config = options.sdk_config(max_body);
    config.cancellation_token = shutdown.child_token();
    let factory = move || Ok(server.for_session());
    let router = if options.stateless {
        let service =
            StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config);
        let guard = guard::Guard::new(None, &options, max_body);
        axum::Router::new()
            .nest_service(PATH, service)
            .layer(axum::middleware::from_fn_with_state(guard, guard::guard))
    } else {
        let store = events::MemoryEventStore::new(
            options.session_idle_timeout,
            EVENT_STORE_BYTES,
            ANSWERED_EVENT_BYTES,
        );
        let mut local = LocalSessionManager::default().with_event_store(Arc::new(store.clone()));
        local.session_config.keep_alive = Some(options.session_idle_timeout);
        let manager = Arc::new(sessions::Sessions::new(local, store));
        let service = StreamableHttpService::new(factory, Arc::clone(&manager), config);
        let guard = guard::Guard::new(Some(manager), &options, max_body);
        axum::Router::new()
            .nest_service(PATH, service)
            .layer(axum::middleware::from_fn_with_state(guard, guard::guard))
    };
    let limits = web::Limits {
        header_read_timeout: options.header_read_timeout,
        max_connections: options.max_connections,
        grace: None,
        name: "MCP HTTP",
    };
    Ok(HttpServer(web::Served::start(
        listener, router, shutdown, limits,
    )?))
}

/// A running streamable-HTTP MCP server, made by
/// [`McpServer::serve_http`](crate::mcp::McpServer::serve_http).
///
/// Each client connection is served on its own task, so a client that sends garbage,
/// oversized bodies or disconnects mid-request affects only its own requests. Dropping
/// this value does not stop the server: call [`HttpServer::shutdown`], or trigger a
/// [`ShutdownHandle`] and [`HttpServer::wait`].
#[derive(Debug)]
pub struct HttpServer(web::Served);

impl HttpServer {
    /// The address actually bound (with the real port when port 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    /// The endpoint's URL, `http://ADDR/mcp`, to give to clients. For a server bound to
    /// every interface (`0.0.0.0` or `[::]`), the loopback address with the bound port: a
    /// URL that works on this machine (`http://0.0.0.0:PORT` is not one, and its `Host`
    /// would be refused). Clients on other machines use this machine's name, which the
    /// server must be told to accept: [`HttpOptions::allowed_hosts`].
    pub fn url(&self) -> String {
        format!("{}{PATH}", self.0.origin())
    }

    /// Whether the server listens on every interface (bound to `0.0.0.0` or `[::]`), so
    /// that other machines can connect (given [`HttpOptions::allowed_hosts`]).
    pub fn is_on_all_interfaces(&self) -> bool {
        self.0.local_addr().ip().is_unspecified()
    }

    /// A handle that stops the server from anywhere (another task, a signal handler).
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.0.shutdown_handle()
    }

    /// Stops accepting connections, ends every MCP session (cancelling the calls still
    /// running), lets in-flight responses finish, and waits for the server to stop.
    pub async fn shutdown(self) -> io::Result<()> {
        self.0.shutdown().await
    }

    /// Waits until the server stops (after a [`ShutdownHandle::shutdown`]).
    pub async fn wait(self) -> io::Result<()> {
        self.0.wait().await
    }
}

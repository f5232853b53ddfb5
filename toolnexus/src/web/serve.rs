//! [`Served`]: a router served over HTTP/1 by a loop of our own (axum's `serve` has no
//! header-read timeout and no connection cap), shared by the MCP and the A2A servers.

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::web::ShutdownHandle;

/// How a server's connections are served.
pub(crate) struct Limits {
    /// How long a client has to send a request's headers.
    pub(crate) header_read_timeout: Duration,
    /// The most connections served at once.
    pub(crate) max_connections: usize,
    /// How long a shutdown waits for the open connections; `None`: until they end.
    pub(crate) grace: Option<Duration>,
    /// The server's name in the log (`"MCP HTTP"`, `"A2A server"`).
    pub(crate) name: &'static str,
}

/// A router being served on its own task, until its [`ShutdownHandle`] fires.
#[derive(Debug)]
pub(crate) struct Served {
    local_addr: SocketAddr,
    shutdown: ShutdownHandle,
    task: JoinHandle<io::Result<()>>,
}

impl Served {
    /// Serves `router` on `listener` until `signal` is cancelled.
    pub(crate) fn start(
        listener: TcpListener,
        router: axum::Router,
        signal: CancellationToken,
        limits: Limits,
    ) -> io::Result<Self> {
        let local_addr = listener.local_addr()?;
        let shutdown = ShutdownHandle::new(signal.clone());
        let task = tokio::spawn(accept_loop(listener, router, signal, limits));
        Ok(Served {
            local_addr,
            shutdown,
            task,
        })
    }

    /// The address bound.
    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// `http://ADDR`, with the loopback address for a server bound to every interface.
    pub(crate) fn origin(&self) -> String {
        origin_of(self.local_addr)
    }

    /// A handle that stops the server.
    pub(crate) fn shutdown_handle(&self) -> ShutdownHandle {
        self.shutdown.clone()
    }

    /// Starts the shutdown and waits for the server to stop.
    pub(crate) async fn shutdown(self) -> io::Result<()> {
        self.shutdown.shutdown();
        self.wait().await
    }

    /// Waits until the server stops.
    pub(crate) async fn wait(self) -> io::Result<()> {
        match self.task.await {
            Ok(result) => result,
            Err(join) => Err(io::Error::other(join)),
        }
    }
}

/// `http://ADDR` for a server bound at `addr`: for one bound to every interface
/// (`0.0.0.0` or `[::]`), the loopback address with the bound port, a URL that works on
/// this machine (`http://0.0.0.0:PORT` is not one, and its `Host` would be refused).
pub(crate) fn origin_of(addr: SocketAddr) -> String {
    let addr = match addr {
        SocketAddr::V4(v4) if v4.ip().is_unspecified() => {
            SocketAddr::from((Ipv4Addr::LOCALHOST, v4.port()))
        }
        SocketAddr::V6(v6) if v6.ip().is_unspecified() => {
            SocketAddr::from((Ipv6Addr::LOCALHOST, v6.port()))
        }
        addr => addr,
    };
    format!("http://{addr}")
}

/// Accepts connections until the shutdown signal, each served on its own task with a
/// header-read timeout, at most `max_connections` at a time; then lets every connection
/// finish its in-flight response and waits for them (up to the grace period).
async fn accept_loop(
    listener: TcpListener,
    router: axum::Router,
    signal: CancellationToken,
    limits: Limits,
) -> io::Result<()> {
    let name = limits.name;
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    loop {
        let slot = tokio::select! {
            slot = Arc::clone(&slots).acquire_owned() => slot.map_err(io::Error::other)?,
            () = signal.cancelled() => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of descriptors, a connection reset before accept…: wait a moment
                    // and go on, as every other connection is unaffected.
                    tracing::debug!(%error, "{name}: accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = signal.cancelled() => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "{name}: connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    match limits.grace {
        Some(grace) => {
            let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
        }
        None => graceful.shutdown().await,
    }
    Ok(())
}

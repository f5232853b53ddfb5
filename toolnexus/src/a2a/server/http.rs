//! The HTTP side: the router (the card and the JSON-RPC endpoint), and a server that
//! runs it with a header-read timeout and a connection cap.

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse as _, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use sha2::Digest as _;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::web::ShutdownHandle;

use super::{A2aServer, CARD_PATH, rpc};
use crate::web;

/// How long a client has to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections served at once.
const MAX_CONNECTIONS: usize = 512;
/// How long a shutdown waits for open streams before it lets them go.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

async fn card(
    State(server): State<A2aServer>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
) -> Response {
    // The endpoint's URL comes from the configuration (`with_url`), else the address
    // `serve` bound, never from the request: a `Host` header names whatever the caller
    // wants, and the card is cached (`public`).
    let prefix = uri.path().strip_suffix(CARD_PATH).unwrap_or("");
    let base = server
        .0
        .config
        .bound
        .as_deref()
        .unwrap_or("http://localhost");
    let card = server.card(&format!("{base}{prefix}/")).to_string();
    let digest = sha2::Sha256::digest(card.as_bytes());
    let etag: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let etag = format!("\"{etag}\"");
    let cached = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == etag));
    let status = if cached {
        StatusCode::NOT_MODIFIED
    } else {
        StatusCode::OK
    };
    let body = if cached { String::new() } else { card };
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json".to_owned()),
            (header::CACHE_CONTROL, "public, max-age=300".to_owned()),
            (header::ETAG, etag),
            (header::LAST_MODIFIED, http_date(server.0.created_ms)),
        ],
        body,
    )
        .into_response()
}

/// `ms` since the epoch as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let stamp = crate::a2a::time::rfc3339(ms); // 2026-12-01T10:00:00.007Z
    let number = |range: std::ops::Range<usize>| stamp[range].parse::<usize>().unwrap_or(0);
    let weekday = DAYS[usize::try_from(ms.div_euclid(86_400_000).rem_euclid(7)).unwrap_or(0)];
    let month = MONTHS[number(5..7).saturating_sub(1).min(11)];
    format!(
        "{weekday}, {} {month} {} {} GMT",
        &stamp[8..10],
        &stamp[0..4],
        &stamp[11..19]
    )
}

async fn endpoint(State(server): State<A2aServer>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let config = &server.0.config;
    // An empty principal is nobody in particular, as no principal is (the run store
    // keeps both as `''`).
    let owner = config
        .principal
        .as_ref()
        .and_then(|who| who(&parts))
        .filter(|who| !who.is_empty());
    let limit = config.max_message_bytes;
    let body = axum::body::to_bytes(body, limit).await.map_err(|_| {
        format!("Payload too large: the request is over this agent's limit of {limit} bytes")
    });
    rpc::handle((*server.0).clone(), &parts.headers, owner, body).await
}

impl A2aServer {
    /// The routes, to serve or to nest in an existing axum app: `GET` [`CARD_PATH`] for
    /// the card and `POST /` for JSON-RPC, behind the [`WebGuard`](crate::web::WebGuard)
    /// of [`with_web_guard`](A2aServer::with_web_guard). Nested under a path
    /// (`.nest("/a2a", …)`), the card's endpoint URL says that path.
    pub fn router(&self) -> axum::Router {
        let config = &self.0.config;
        let guard = config.guard.clone().with_max_body(config.max_message_bytes);
        let routes = axum::Router::new()
            .route(CARD_PATH, axum::routing::get(card))
            .route("/", axum::routing::post(endpoint))
            .with_state(self.clone());
        web::layer(routes, guard)
    }

    /// Serves the agent at `addr` (`127.0.0.1:0` picks a free port) until
    /// [`ServedA2a::shutdown`]. Each connection is served on its own task, with a
    /// header-read timeout of 10 s, at most 512 at a time.
    pub async fn serve(self, addr: impl ToSocketAddrs) -> io::Result<ServedA2a> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let signal = CancellationToken::new();
        let bound = origin_of(local_addr);
        let router = self.update(|c| c.bound = Some(bound)).router();
        let task = tokio::spawn(accept(listener, router, signal.clone()));
        Ok(ServedA2a {
            local_addr,
            shutdown: ShutdownHandle::new(signal),
            task,
        })
    }
}

async fn accept(
    listener: TcpListener,
    router: axum::Router,
    signal: CancellationToken,
) -> io::Result<()> {
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    loop {
        let slot = tokio::select! {
            slot = Arc::clone(&slots).acquire_owned() => slot.map_err(io::Error::other)?,
            () = signal.cancelled() => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    tracing::debug!(%error, "A2A server: accept failed");
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
                tracing::debug!(%error, "A2A server: connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
    Ok(())
}

/// `http://ADDR` for a server bound at `addr` (the loopback address for every interface).
fn origin_of(addr: SocketAddr) -> String {
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

/// A running A2A server, made by [`A2aServer::serve`]. Dropping it does not stop the
/// server: call [`ServedA2a::shutdown`].
#[derive(Debug)]
pub struct ServedA2a {
    local_addr: SocketAddr,
    shutdown: ShutdownHandle,
    task: JoinHandle<io::Result<()>>,
}

impl ServedA2a {
    /// The address bound (with the real port when port 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The JSON-RPC endpoint, `http://ADDR/` (the loopback address for a server bound to
    /// every interface).
    pub fn url(&self) -> String {
        format!("{}/", origin_of(self.local_addr))
    }

    /// The Agent Card's URL, to give to [`A2aAgent::connect`](crate::a2a::A2aAgent::connect).
    pub fn card_url(&self) -> String {
        format!("{}{}", self.url().trim_end_matches('/'), CARD_PATH)
    }

    /// A handle that stops the server from anywhere.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.shutdown.clone()
    }

    /// Stops accepting connections, lets in-flight responses finish (open streams get a
    /// few seconds), and waits for the server to stop. Tasks still running go on.
    pub async fn shutdown(self) -> io::Result<()> {
        self.shutdown.shutdown();
        self.wait().await
    }

    /// Waits until the server stops.
    pub async fn wait(self) -> io::Result<()> {
        match self.task.await {
            Ok(result) => result,
            Err(join) => Err(io::Error::other(join)),
        }
    }
}

//! The HTTP side: the router (the card and the JSON-RPC endpoint), and a server that
//! runs it with a header-read timeout and a connection cap.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse as _, Response};
use sha2::Digest as _;
use tokio::net::{TcpListener, ToSocketAddrs};
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
    /// of [`web_guard`](A2aServer::web_guard). Nested under a path
    /// (`.nest("/a2a", …)`), the card's endpoint URL says that path.
    pub fn router(&self) -> axum::Router {
        let config = &self.0.config;
        let guard = config.guard.clone().max_body(config.max_message_bytes);
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
        let bound = web::origin_of(listener.local_addr()?);
        let router = self.update(|c| c.bound = Some(bound)).router();
        let limits = web::Limits {
            header_read_timeout: HEADER_READ_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            grace: Some(SHUTDOWN_GRACE),
            name: "A2A server",
        };
        let served = web::Served::start(listener, router, CancellationToken::new(), limits)?;
        Ok(ServedA2a(served))
    }
}

/// A running A2A server, made by [`A2aServer::serve`]. Dropping it does not stop the
/// server: call [`ServedA2a::shutdown`].
#[derive(Debug)]
pub struct ServedA2a(web::Served);

impl ServedA2a {
    /// The address bound (with the real port when port 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    /// The JSON-RPC endpoint, `http://ADDR/` (the loopback address for a server bound to
    /// every interface).
    pub fn url(&self) -> String {
        format!("{}/", self.0.origin())
    }

    /// The Agent Card's URL, to give to [`A2aAgent::connect`](crate::a2a::A2aAgent::connect).
    pub fn card_url(&self) -> String {
        format!("{}{}", self.url().trim_end_matches('/'), CARD_PATH)
    }

    /// A handle that stops the server from anywhere.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.0.shutdown_handle()
    }

    /// Stops accepting connections, lets in-flight responses finish (open streams get a
    /// few seconds), and waits for the server to stop. Tasks still running go on.
    pub async fn shutdown(self) -> io::Result<()> {
        self.0.shutdown().await
    }

    /// Waits until the server stops.
    pub async fn wait(self) -> io::Result<()> {
        self.0.wait().await
    }
}

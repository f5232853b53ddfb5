//! The checks every HTTP surface of the crate (the MCP server's streamable HTTP, the A2A
//! server, the UI routers) makes before a request reaches it, in one place: who may call
//! (the `Host` and `Origin` allow lists, loopback by default), what a body may be (JSON,
//! up to a bound), and how long it may take to arrive.
//!
//! [`WebGuard`] is their configuration. A page on another site can send a `text/plain`
//! or form `POST` to a server on `localhost` without a CORS preflight, and a page whose
//! DNS name was rebound to `127.0.0.1` reads the answers as its own; the guard refuses
//! both, so that only pages of the allowed origins, reached by an allowed host name, drive
//! the server.
//!
//! The MCP and A2A servers are also served from here: one accept loop with a header-read
//! timeout and a connection cap, and one [`ShutdownHandle`] to stop it.

mod allow;
mod guard;
#[cfg(any(feature = "mcp", feature = "a2a"))]
mod serve;
mod shutdown;

use std::time::Duration;

pub(crate) use allow::Allowed;
pub use allow::{LOOPBACK_HOSTS, LOOPBACK_ORIGINS};
#[allow(unused_imports)] // Each HTTP surface uses the part it needs.
pub(crate) use guard::{guard, is_json, layer, read_body};
#[cfg(any(feature = "mcp", feature = "a2a"))]
#[allow(unused_imports)] // `origin_of` is the A2A server's.
pub(crate) use serve::{Limits, Served, origin_of};
pub use shutdown::ShutdownHandle;

/// The default time a client has to send a request's body once its headers are in
/// ([`WebGuard::body_read_timeout`]): a 1 MiB body at 300 kbit/s.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The default bound on a request's body ([`WebGuard::max_body`]): 1 MiB.
pub const DEFAULT_MAX_BODY: usize = 1024 * 1024;

/// What an HTTP endpoint accepts before a request reaches it: the `Host` and `Origin`
/// allow lists, JSON bodies only, and a bound on a body's size and on the time it takes
/// to arrive.
///
/// [`WebGuard::new`] suits a server on the loopback interface: only loopback `Host`s
/// ([`LOOPBACK_HOSTS`], any port) and loopback `Origin`s ([`LOOPBACK_ORIGINS`]; a request
/// without `Origin`, as non-browser clients send, is accepted), `POST`, `PUT` and `PATCH`
/// bodies only as `Content-Type: application/json`, at most [`DEFAULT_MAX_BODY`] bytes,
/// all arrived within [`DEFAULT_BODY_READ_TIMEOUT`]. Each refusal is answered with its
/// status and a short text saying what was wrong and how to allow it:
///
/// | refused | status |
/// |---|---|
/// | a `Host` not on the list (DNS rebinding), or none | `403` (`400` if missing or malformed) |
/// | an `Origin` not on the list, `Origin: null` included | `403` |
/// | a body that is not `application/json` (`text/plain`, a form, none said) | `415` |
/// | a body over the bound | `413` |
/// | a body not all arrived within the timeout | `408`, and the connection closed |
///
/// ```
/// use std::time::Duration;
/// use toolnexus::web::WebGuard;
///
/// // Behind a reverse proxy at chat.example.com, whose pages are served from there too.
/// let guard = WebGuard::new()
///     .allowed_hosts(["chat.example.com"])
///     .allowed_origins(["https://chat.example.com"])
///     .max_body(4 * 1024 * 1024)
///     .body_read_timeout(Duration::from_secs(10));
/// # let _ = guard;
/// ```
#[derive(Debug, Clone)]
pub struct WebGuard {
    pub(crate) hosts: Allowed,
    pub(crate) origins: Allowed,
    pub(crate) body_read_timeout: Duration,
    pub(crate) max_body: usize,
    /// The configuration type the refusals name (`WebGuard`, `HttpOptions`, …), so that a
    /// refusal says which setter allows the request.
    pub(crate) config: &'static str,
}

impl Default for WebGuard {
    fn default() -> Self {
        WebGuard::new()
    }
}

impl WebGuard {
    /// The loopback defaults (see [`WebGuard`]).
    pub fn new() -> Self {
        WebGuard {
            hosts: Allowed::loopback(),
            origins: Allowed::loopback(),
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            max_body: DEFAULT_MAX_BODY,
            config: "WebGuard",
        }
    }

    /// Also accepts requests whose `Host` header names one of these (`"example.com"`, or
    /// `"example.com:8080"` for one port only): the names clients use to reach a server
    /// bound to a non-loopback address, or the name a reverse proxy forwards. Other hosts
    /// get `403 Forbidden`.
    #[must_use]
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.hosts.extend(hosts.into_iter().map(Into::into));
        self
    }

    /// Accepts any `Host` header: only for a server behind a proxy that checks it, since
    /// it gives up the protection against DNS rebinding.
    #[must_use]
    pub fn any_host(mut self) -> Self {
        self.hosts = Allowed::Any;
        self
    }

    /// Also accepts browser requests whose `Origin` is one of these
    /// (`"https://app.example.com"`, `"http://localhost:3000"`, or `"https://host:*"` for
    /// any port). A request with another `Origin`, `Origin: null` included, gets
    /// `403 Forbidden`.
    #[must_use]
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.origins.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Accepts any `Origin`: lets any web page a user visits call the server, so only for
    /// a server that authenticates its callers by other means (and not by cookies).
    #[must_use]
    pub fn any_origin(mut self) -> Self {
        self.origins = Allowed::Any;
        self
    }

    /// Answers `408 Request Timeout`, and closes the connection, when a request's body has
    /// not all arrived this long after its headers: a client that trickles its body in
    /// cannot hold a connection for longer. Default [`DEFAULT_BODY_READ_TIMEOUT`].
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Answers `413 Payload Too Large` to a body over this many bytes. Default
    /// [`DEFAULT_MAX_BODY`].
    #[must_use]
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// The same checks, their refusals naming `config`'s setters (`"HttpOptions"`): for a
    /// surface whose own configuration type wraps these.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn named(mut self, config: &'static str) -> Self {
        self.config = config;
        self
    }
}

//! What an HTTP deployment configures: who may connect, how many sessions and connections,
//! how long they may idle, and whether the server keeps sessions at all.

use std::time::Duration;

use rmcp::transport::StreamableHttpServerConfig;

use crate::web::WebGuard;
use crate::web::{LOOPBACK_HOSTS, LOOPBACK_ORIGINS};

/// The default cap on open sessions ([`HttpOptions::max_sessions`]).
pub const DEFAULT_MAX_SESSIONS: usize = 256;
/// The default idle expiry of a session ([`HttpOptions::session_idle_timeout`]).
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// The default time a client has to send a request's headers
/// ([`HttpOptions::header_read_timeout`]).
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default cap on open connections ([`HttpOptions::max_connections`]).
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;

/// How [`McpServer::serve_http_with`](crate::mcp::McpServer::serve_http_with) serves: the
/// checks on who may connect, the limits that keep a flood of clients from exhausting
/// memory or file descriptors, and the session mode.
///
/// The defaults suit a server on the loopback interface: only loopback `Host` and
/// `Origin` headers (a request without `Origin`, as non-browser clients send, is
/// accepted), at most [`DEFAULT_MAX_SESSIONS`] sessions expiring after
/// [`DEFAULT_SESSION_IDLE_TIMEOUT`] idle, [`DEFAULT_MAX_CONNECTIONS`] connections,
/// [`DEFAULT_HEADER_READ_TIMEOUT`] to send a request's headers and
/// [`DEFAULT_BODY_READ_TIMEOUT`](crate::web::DEFAULT_BODY_READ_TIMEOUT) its body.
///
/// ```
/// use std::time::Duration;
/// use toolnexus::mcp::HttpOptions;
///
/// // Behind a reverse proxy at tools.example.com, with a web app on app.example.com.
/// let options = HttpOptions::new()
///     .allowed_hosts(["tools.example.com"])
///     .allowed_origins(["https://app.example.com"])
///     .max_sessions(1_000)
///     .session_idle_timeout(Duration::from_secs(120));
/// ```
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub(super) config: StreamableHttpServerConfig,
    /// The `Host` and `Origin` allow lists and the body timeout, checked by the guard
    /// every HTTP surface of the crate shares.
    pub(super) web: WebGuard,
    pub(super) max_sessions: usize,
    pub(super) session_idle_timeout: Duration,
    pub(super) header_read_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) stateless: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions::new()
    }
}

impl From<StreamableHttpServerConfig> for HttpOptions {
    /// The SDK's configuration (keep-alive, retry interval, body bound…) with this crate's
    /// limits at their defaults. The configuration's `allowed_hosts` replace the loopback
    /// defaults (an empty list accepts any `Host`); its `allowed_origins`, when not empty,
    /// are accepted beside the loopback origins.
    fn from(config: StreamableHttpServerConfig) -> Self {
        let mut options = HttpOptions::new();
        options.web = if config.allowed_hosts.is_empty() {
            options.web.any_host()
        } else {
            options.web.allowed_hosts(config.allowed_hosts.clone())
        };
        options.web = options.web.allowed_origins(config.allowed_origins.clone());
        HttpOptions { config, ..options }
    }
}

impl HttpOptions {
    /// The defaults (see [`HttpOptions`]).
    pub fn new() -> Self {
        HttpOptions {
            config: StreamableHttpServerConfig::default(),
            web: WebGuard::new().named("HttpOptions"),
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            stateless: false,
        }
    }

    /// Also accepts requests whose `Host` header names one of these (`"example.com"`, or
    /// `"example.com:8080"` for one port only): the names clients use to reach a server
    /// bound to a non-loopback address. Other hosts get `403 Forbidden`.
    #[must_use]
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.web = self.web.allowed_hosts(hosts);
        self
    }

    /// Accepts any `Host` header: only for a server behind a proxy that checks it, since
    /// it gives up the protection against DNS rebinding.
    #[must_use]
    pub fn any_host(mut self) -> Self {
        self.web = self.web.any_host();
        self
    }

    /// Also accepts browser requests whose `Origin` is one of these
    /// (`"https://app.example.com"`, `"http://localhost:3000"`, or `"https://host:*"` for
    /// any port). A request with another `Origin`, `Origin: null` included, gets
    /// `403 Forbidden`, as the MCP transport specification requires.
    #[must_use]
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.web = self.web.allowed_origins(origins);
        self
    }

    /// Accepts any `Origin`: lets any web page a user visits call the tools, so only for
    /// a server that authenticates its callers by other means.
    #[must_use]
    pub fn any_origin(mut self) -> Self {
        self.web = self.web.any_origin();
        self
    }

    /// Caps the open sessions: past it, `initialize` gets `503 Service Unavailable` with a
    /// JSON-RPC error until a session ends (closed by its client with `DELETE`, or expired).
    /// Default [`DEFAULT_MAX_SESSIONS`]; each session holds some tens of kilobytes.
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// Ends a session after this long without a request from its client that does
    /// something (pings and notifications do not count) and with none in flight; its
    /// running calls are cancelled, and the client must `initialize` again. Default
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`].
    #[must_use]
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle_timeout = idle;
        self
    }

    /// Closes a connection whose request headers have not all arrived this long after it
    /// was opened or its previous request was answered. Default
    /// [`DEFAULT_HEADER_READ_TIMEOUT`].
    #[must_use]
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// Answers `408 Request Timeout`, and closes the connection, when a request's body has
    /// not all arrived this long after its headers: a client that trickles its body in
    /// cannot hold a connection for longer. Default [`DEFAULT_BODY_READ_TIMEOUT`](crate::web::DEFAULT_BODY_READ_TIMEOUT).
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.web = self.web.body_read_timeout(timeout);
        self
    }

    /// Caps the open connections: past it, new connections wait to be accepted until one
    /// closes. Default [`DEFAULT_MAX_CONNECTIONS`].
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// Serves without sessions: every request is answered on its own, by a fresh
    /// handler, with a plain JSON response, so any replica behind a load balancer can
    /// answer any request (no sticky sessions needed). There is nothing to resume: a
    /// client whose connection drops retries the call. `GET` and `DELETE` get
    /// `405 Method Not Allowed`, as the transport specification allows.
    #[must_use]
    pub fn stateless(mut self) -> Self {
        self.stateless = true;
        self
    }

    /// Whether the server keeps no sessions (see [`HttpOptions::stateless`]).
    pub fn is_stateless(&self) -> bool {
        self.stateless
    }

    /// The SDK configuration the service is built with, this crate's checks applied.
    pub(super) fn sdk_config(&self, max_body: usize) -> StreamableHttpServerConfig {
        let mut config = self.config.clone();
        config.max_request_body_bytes = config.max_request_body_bytes.min(max_body);
        // The guard in front of the SDK checks them first (`web`); the SDK checks the
        // same lists again.
        config = match self.web.hosts.entries(LOOPBACK_HOSTS) {
            None => config.disable_allowed_hosts(),
            Some(hosts) => config.with_allowed_hosts(hosts),
        };
        config = match self.web.origins.entries(LOOPBACK_ORIGINS) {
            None => config.disable_allowed_origins(),
            Some(origins) => config
                .with_allowed_origins(origins)
                .enforce_origin_validation(),
        };
        if self.stateless {
            config = config
                .with_legacy_session_mode(false)
                .with_json_response(true);
        }
        config
    }
}

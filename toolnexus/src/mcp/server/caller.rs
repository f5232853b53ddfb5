//! Who calls: the MCP session (or connection) and the authenticated principal a request
//! comes from. Tasks, sealed `requestState`s and handshake-era answers are bound to it, so
//! that what one caller was given serves nobody else.
//!
//! - The session is the one a handshake-era client opened with `initialize`: over
//!   streamable HTTP its `Mcp-Session-Id`, which the SDK checked (a request naming an
//!   unknown session never reaches the server); over stdio, and any transport without
//!   HTTP, the connection. Stateless HTTP requests have none, and neither does any MCP
//!   2026-07-28 request: that revision has no sessions (its requests stand alone, on any
//!   connection or replica), so a state or task of a 2026-07-28 client is bound to its
//!   principal, or to nobody.
//! - The principal is what [`McpServer::principal`] names from the request's HTTP
//!   parts: the identity the deployment authenticated. Without it there is none.
//!
//! The binding is a digest of both (128 bits of SHA-256): the session id and the principal
//! are never stored or sealed as such.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use axum::http::request::Parts;
use rmcp::RoleServer;
use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;
use sha2::{Digest as _, Sha256};

use super::McpServer;

/// Names the authenticated principal of a request from its HTTP parts.
pub(super) type Principal = Arc<dyn Fn(&Parts) -> Option<String> + Send + Sync>;

/// How many fallback requests one connection remembers at once (the oldest go first).
const MAX_ISSUED: usize = 64;

/// The caller of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Requester {
    session: Option<String>,
    principal: Option<String>,
}

impl Requester {
    /// The caller of the request `context` carries, served by `server`.
    pub(crate) fn of(server: &McpServer, context: &RequestContext<RoleServer>) -> Requester {
        match context.extensions.get::<Parts>() {
            Some(parts) => Requester {
                session: parts
                    .headers
                    .get("mcp-session-id")
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned),
                principal: server
                    .0
                    .principal
                    .as_ref()
                    .and_then(|name| name(parts))
                    .filter(|principal| !principal.is_empty()),
            },
            None => {
                let sessionless = context
                    .protocol_version()
                    .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
                Requester {
                    session: (!sessionless).then(|| server.2.0.id.clone()),
                    principal: None,
                }
            }
        }
    }

    /// Whether the request came in a session (or on a connection of its own).
    pub(crate) fn has_session(&self) -> bool {
        self.session.is_some()
    }

    /// The binding: 32 hex digits, or `""` for a caller with neither a session nor a
    /// principal (what is bound to nobody is open to whoever holds its id).
    pub(crate) fn binding(&self) -> String {
        if self.session.is_none() && self.principal.is_none() {
            return String::new();
        }
        let mut hasher = Sha256::new();
        hasher.update(b"toolnexus/caller/v1\0");
        for part in [&self.session, &self.principal] {
            match part {
                Some(text) => {
                    hasher.update(b"1");
                    hasher.update((text.len() as u64).to_be_bytes());
                    hasher.update(text.as_bytes());
                }
                None => hasher.update(b"0"),
            }
        }
        let digest = hasher.finalize();
        let mut hex = String::with_capacity(32);
        for byte in &digest[..16] {
            let _ = write!(hex, "{byte:02x}");
        }
        hex
    }
}

impl McpServer {
    /// Names the authenticated principal of each HTTP request: `principal` reads the
    /// request's parts (the `http` crate's `request::Parts`: method, URI, headers, and the
    /// extensions an authentication layer in front of the service set) and returns who the
    /// deployment authenticated, or `None`.
    ///
    /// Tasks and sealed `requestState`s are then bound to the principal as well as to the
    /// session: a `tasks/get`, `tasks/update` or `tasks/cancel` from another principal is
    /// answered as for an unknown task, and a state presented by another principal is
    /// refused, on every replica. Return only what was authenticated (a header is an
    /// identity only behind a proxy that sets it and strips the client's own).
    ///
    /// ```
    /// use toolnexus::Toolkit;
    /// use toolnexus::mcp::McpServer;
    ///
    /// // Behind a gateway that authenticates every request and sets `X-Authenticated-User`.
    /// let server = McpServer::new(Toolkit::new()).principal(|parts| {
    ///     let user = parts.headers.get("x-authenticated-user")?;
    ///     user.to_str().ok().map(str::to_owned)
    /// });
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn principal<F>(self, principal: F) -> Self
    where
        F: Fn(&Parts) -> Option<String> + Send + Sync + 'static,
    {
        let principal: Principal = Arc::new(principal);
        self.update(|inner| inner.principal = Some(principal))
    }
}

/// One connection's (or session's) own state: its id, and the requests its handshake-era
/// client was given in the fallback form, whose answers may come back in
/// `_meta["toolnexus/answer"]`. A fresh one per MCP session.
#[derive(Clone, Default)]
pub(crate) struct Connection(Arc<ConnectionState>);

struct ConnectionState {
    id: String,
    issued: Mutex<HashMap<String, Issue>>,
}

/// A request this connection's client was given: for which call, until when.
struct Issue {
    tool: String,
    args: String,
    expires: Instant,
}

impl Default for ConnectionState {
    fn default() -> Self {
        static PROCESS: OnceLock<String> = OnceLock::new();
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let process = PROCESS.get_or_init(|| uuid::Uuid::new_v4().simple().to_string());
        ConnectionState {
            id: format!("{process}-{}", NEXT.fetch_add(1, Ordering::Relaxed)),
            issued: Mutex::default(),
        }
    }
}

impl Connection {
    fn issued(&self) -> std::sync::MutexGuard<'_, HashMap<String, Issue>> {
        self.0.issued.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Remembers that `caller` was given request `id` by a call of `tool` with arguments
    /// whose digest is `args`, answerable until `ttl` from now. Nothing is remembered for
    /// a caller without a session: there is nowhere its answer could be checked against.
    pub(crate) fn issue(
        &self,
        caller: &Requester,
        id: &str,
        tool: &str,
        args: &str,
        ttl: Duration,
    ) {
        if !caller.has_session() {
            return;
        }
        let now = Instant::now();
        let mut issued = self.issued();
        issued.retain(|_, issue| issue.expires > now);
        if issued.len() >= MAX_ISSUED
            && let Some(oldest) = issued
                .iter()
                .min_by_key(|(_, issue)| issue.expires)
                .map(|(key, _)| key.clone())
        {
            issued.remove(&oldest);
        }
        issued.insert(
            key(caller, id),
            Issue {
                tool: tool.to_owned(),
                args: args.to_owned(),
                expires: now + ttl,
            },
        );
    }

    /// Whether `caller` was given request `id` by a call of the same tool with the same
    /// arguments, and it has not expired; the request is forgotten then (an answer counts
    /// once).
    pub(crate) fn redeem(&self, caller: &Requester, id: &str, tool: &str, args: &str) -> bool {
        if !caller.has_session() {
            return false;
        }
        let key = key(caller, id);
        let mut issued = self.issued();
        let matches = issued.get(&key).is_some_and(|issue| {
            issue.tool == tool && issue.args == args && issue.expires > Instant::now()
        });
        if matches {
            issued.remove(&key);
        }
        matches
    }
}

fn key(caller: &Requester, id: &str) -> String {
    format!("{}\0{id}", caller.binding())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(session: Option<&str>, principal: Option<&str>) -> Requester {
        Requester {
            session: session.map(str::to_owned),
            principal: principal.map(str::to_owned),
        }
    }

    #[test]
    fn the_binding_tells_sessions_and_principals_apart() {
        assert_eq!(caller(None, None).binding(), "");
        let bindings = [
            caller(Some("s1"), None).binding(),
            caller(Some("s2"), None).binding(),
            caller(None, Some("s1")).binding(),
            caller(Some("s1"), Some("alice")).binding(),
            caller(Some("s1"), Some("bob")).binding(),
            caller(Some("s1a"), Some("lice")).binding(),
        ];
        for (i, a) in bindings.iter().enumerate() {
            assert_eq!(a.len(), 32);
            for b in &bindings[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(bindings[0], caller(Some("s1"), None).binding());
    }

    #[test]
    fn an_issued_request_is_answered_once_by_its_own_caller_and_call() {
        let connection = Connection::default();
        let (me, other) = (caller(Some("s1"), None), caller(Some("s2"), None));
        let ttl = Duration::from_secs(60);
        connection.issue(&me, "req-1", "deploy", "digest", ttl);
        assert!(!connection.redeem(&other, "req-1", "deploy", "digest"));
        assert!(!connection.redeem(&me, "req-1", "deploy", "other"));
        assert!(!connection.redeem(&me, "req-1", "undeploy", "digest"));
        assert!(connection.redeem(&me, "req-1", "deploy", "digest"));
        assert!(!connection.redeem(&me, "req-1", "deploy", "digest"));
        // Without a session nothing is remembered, so nothing counts.
        let nobody = caller(None, Some("alice"));
        connection.issue(&nobody, "req-2", "deploy", "digest", ttl);
        assert!(!connection.redeem(&nobody, "req-2", "deploy", "digest"));
        // Expired, and bounded.
        connection.issue(&me, "req-3", "deploy", "digest", Duration::ZERO);
        assert!(!connection.redeem(&me, "req-3", "deploy", "digest"));
        for n in 0..MAX_ISSUED + 10 {
            connection.issue(&me, &format!("r{n}"), "deploy", "digest", ttl);
        }
        assert_eq!(connection.issued().len(), MAX_ISSUED);
        assert!(connection.redeem(&me, &format!("r{}", MAX_ISSUED + 9), "deploy", "digest"));
    }
}

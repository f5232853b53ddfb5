//! Use another MCP server's tools: [`McpClient`].

mod apps;
#[cfg(feature = "mcp-auth")]
mod auth;
mod call;
mod catalog;
mod connect;
mod elicit;
mod error;
mod handler;
mod listing;
mod opening;
mod result;
mod retry;
mod task;

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::RunningService;

use crate::tool::Tool;
use crate::tool::kit::Toolkit;
use crate::tool::request::Answer;
use connect::{Endpoint, Stderr};
use elicit::Parking;
use handler::{Responder, Routing};

#[cfg(feature = "ui")]
pub(crate) use apps::wire_result as view_result;
#[cfg(feature = "mcp-auth")]
pub use auth::{
    AuthorizationHandler, DEFAULT_MAX_STEP_UPS, DEFAULT_REDIRECT_URI, FileTokenStore,
    HeadlessLogin, JwtAlgorithm, MemoryTokenStore, OAuth, StoredCredentials, TokenStore,
};
pub use catalog::{PromptInfo, ResourceInfo, ResourceTemplateInfo, ResourceUpdates};
pub use elicit::{DECLINED, ELICITATION_DATA_KEY};
pub use error::McpClientError;

/// The `_meta` key under which a re-executed call carries its [`Answer`](crate::Answer)
/// to a toolnexus server.
pub const ANSWER_META_KEY: &str = "toolnexus/answer";

/// The answer a call carries in `_meta[ANSWER_META_KEY]`: how a toolnexus server learns
/// the answer to the suspension its tool returned on an earlier call.
pub(crate) fn answer_in(meta: Option<&rmcp::model::RequestMetaObject>) -> Option<Answer> {
    let value = meta?.0.0.get(ANSWER_META_KEY)?;
    serde_json::from_value(value.clone()).ok()
}

/// The default bound on one tool call (see [`McpClientBuilder::timeout`]): 60 seconds.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The default bound on connecting and on `tools/list` (see
/// [`McpClientBuilder::connect_timeout`]): 30 seconds.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a server's elicitation waits for an answer by default (see
/// [`McpClientBuilder::elicitation_timeout`]): 10 minutes.
pub const DEFAULT_ELICITATION_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Debug, Clone)]
struct Options {
    prefix: Option<String>,
    timeout: Duration,
    connect_timeout: Duration,
    elicitation_timeout: Duration,
    reconnect: bool,
    /// Negotiate MCP 2026-07-28 when the server offers it (see `latest_protocol`).
    latest: bool,
}

/// Everything the clones of one client, and the tools it made, share.
struct Shared {
    endpoint: Endpoint,
    options: Options,
    routing: Arc<Routing>,
    parking: Parking,
    connection: tokio::sync::Mutex<Option<RunningService<RoleClient, Responder>>>,
    /// The name and version the server advertised in `initialize`.
    info: OnceLock<(String, String)>,
    /// Every tool name this client handed out (to recognise them in a toolkit).
    names: Mutex<HashSet<String>>,
    connections: std::sync::atomic::AtomicU64,
}

impl Shared {
    /// The server, for error messages: its advertised name, or its command line or URL.
    fn server(&self) -> String {
        match self.info.get() {
            Some((name, _)) => format!("`{name}`"),
            None => self.endpoint.label(),
        }
    }

    fn server_name(&self) -> String {
        match self.info.get() {
            Some((name, _)) => name.clone(),
            None => self.endpoint.label().trim_matches('`').to_owned(),
        }
    }
}

/// A connection to one MCP server, whose tools it lists as [`Tool`]s.
///
/// A client connects to one server, over stdio (a child process it starts) or over
/// streamable HTTP, with the official Rust SDK's client. [`McpClient::tools`] lists the
/// server's tools as ordinary [`Tool`]s: their name, description and input schema as the
/// server gives them (so a toolkit's strict listings and checks apply to them as to any
/// tool), [`Tool::source`] `"mcp"`, and an execution that calls the server.
///
/// ```no_run
/// use toolnexus::mcp::McpClient;
/// use toolnexus::Toolkit;
///
/// # async fn demo() -> Result<(), toolnexus::mcp::McpClientError> {
/// let local = McpClient::spawn("npx", ["-y", "@modelcontextprotocol/server-everything"]).await?;
/// let remote = McpClient::http("https://mcp.example.com/mcp")
///     .bearer_token("secret")
///     .prefix("example")
///     .connect()
///     .await?;
/// let mut toolkit = Toolkit::new();
/// toolkit.extend(local.tools().await?);
/// toolkit.extend(remote.tools().await?);
/// # Ok(())
/// # }
/// ```
///
/// # Results
///
/// A call's result keeps everything the server sent: text becomes
/// [`output`](crate::ToolResult::output), images and audio become
/// [`parts`](crate::ToolResult::parts), embedded resources and resource links are
/// described in the output and kept in `metadata["resources"]` /
/// `metadata["resourceLinks"]`, `structuredContent` is kept in
/// `metadata["structuredContent"]`, `isError` is kept, and a suspension from a toolnexus
/// server (its `_meta["toolnexus/pending"]`) is a pending result again.
///
/// # Elicitation
///
/// When the server sends `elicitation/create` during a call, the call returns a pending
/// result: a [`Request`](crate::Request) of kind `"input"` (a form: `data` is
/// `{"schema": <requestedSchema>}`) or `"authorization"` (with the URL), as the
/// toolnexus contract maps them. The server keeps waiting. When the
/// tool runs again with the [`Answer`](crate::Answer) in [`Context::answer`](crate::Context::answer) — as
/// [`Client::wait_for`](crate::Client::wait_for) and [`resume`](crate::dispatch::resume) do — the
/// answer goes to the server (accept with the answer's data; decline when the answer's
/// reason is [`"declined"`](DECLINED), cancel for any other refusal) and the same call
/// carries on. An answer whose data is a lone value fills a form's only field. A call
/// nobody answers within the [elicitation timeout](McpClientBuilder::elicitation_timeout)
/// is cancelled. The loop does not re-run a tool whose request was declined, so the server
/// hears of a decline when that timeout passes; re-running the tool with the declining
/// answer in its context tells it at once.
///
/// A re-execution whose request is unknown to this client (a resume in a new process)
/// makes the call afresh and gives the answer to its first elicitation; to a toolnexus
/// server it also sends the answer in `_meta["toolnexus/answer"]`.
///
/// # Input required
///
/// With [`McpClientBuilder::latest_protocol`] a server that speaks MCP 2026-07-28 asks by
/// answering a call with `input_required`. The call returns a pending result: the
/// server's own [`Request`](crate::Request) when it is a toolnexus server, else one made
/// from the first elicitation (`"input"` with `data.schema`, or
/// `"authorization"` with the URL). The request's id carries the server's `requestState`,
/// so nothing waits in memory: the re-execution with the [`Answer`](crate::Answer) — in
/// this process or another — retries the call with `inputResponses` and that state (a
/// refusal whose reason is `"declined"` is sent as `decline`, any other as `cancel`).
///
/// # Tasks
///
/// The client declares the tasks extension (`io.modelcontextprotocol/tasks`), so a
/// server may answer a call with a task. The call follows it with `tasks/get` at the
/// server's `pollIntervalMs` (clamped to 50 ms–10 s), within the
/// [call timeout](McpClientBuilder::timeout): `completed` gives the task's result,
/// `failed` and `cancelled` an error result saying so. A task's `input_required` is a
/// pending result as above, whose request id carries the task id bound to this server's
/// command line or URL; the re-execution with the [`Answer`](crate::Answer) — in this
/// process or another — sends it with `tasks/update` and follows the same task on,
/// without calling the tool again. A call that stops following a running task (its
/// context is cancelled, the call timeout passes, its future is dropped) sends
/// `tasks/cancel`.
///
/// # Failure
///
/// A call never hangs and never fails by panicking: past the
/// [call timeout](McpClientBuilder::timeout) it is cancelled and ends with an error
/// result saying so; a server that exits or drops the connection gives an error result
/// saying that, and the next call starts (or reaches) the server again. A server that
/// cannot be restarted gives an error result saying why.
///
/// # Tool lists that change
///
/// A server may send `notifications/tools/list_changed`. [`McpClient::changed`] completes
/// on the next one, and [`McpClient::refresh`] gives a toolkit with this client's tools
/// replaced by the current listing:
///
/// ```no_run
/// # use toolnexus::{mcp::McpClient, Toolkit};
/// # async fn demo(client: McpClient, mut toolkit: Toolkit) -> Result<(), toolnexus::mcp::McpClientError> {
/// client.changed().await;
/// toolkit = client.refresh(&toolkit).await?;
/// # Ok(())
/// # }
/// ```
///
///
/// Cheap to clone; the clones and the tools share the connection. The connection (and a
/// child process) closes when the client, its clones and all its tools are dropped, or
/// on [`McpClient::close`].
#[derive(Clone)]
pub struct McpClient {
    shared: Arc<Shared>,
}

impl McpClient {
    /// Starts `command` with `args` and speaks MCP with it over its stdin and stdout (its
    /// stderr goes to this process's). See [`McpClient::stdio`] for more options.
    pub async fn spawn<I, S>(command: impl AsRef<OsStr>, args: I) -> Result<Self, McpClientError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        McpClient::stdio(command, args).connect().await
    }

    /// Connects to the streamable-HTTP MCP endpoint at `url`. See [`McpClient::http`] for
    /// headers (authentication) and more options.
    ///
    /// `https://` URLs need TLS in `reqwest`, which this crate does not turn on itself:
    /// add `reqwest = { version = "0.13", features = ["rustls"] }` to your Cargo.toml.
    pub async fn connect(url: impl Into<String>) -> Result<Self, McpClientError> {
        McpClient::http(url).connect().await
    }

    /// A builder for a server started as a child process.
    pub fn stdio<I, S>(command: impl AsRef<OsStr>, args: I) -> McpClientBuilder
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        McpClientBuilder::new(Endpoint::Stdio {
            program: command.as_ref().to_owned(),
            args: args.into_iter().map(|a| a.as_ref().to_owned()).collect(),
            env: Vec::new(),
            cwd: None,
            stderr: Stderr::Inherit,
        })
    }

    /// A builder for a streamable-HTTP server at `url`.
    pub fn http(url: impl Into<String>) -> McpClientBuilder {
        McpClientBuilder::new(Endpoint::Http {
            url: url.into(),
            headers: Default::default(),
            bearer: None,
            invalid: None,
            #[cfg(feature = "mcp-auth")]
            oauth: None,
        })
    }

    /// The server's tools, every page of `tools/list` followed, in the server's order.
    ///
    /// Each is a [`Tool`] with [`source`](Tool::source) `"mcp"`, named as the server names
    /// it (sanitized, and after the [prefix](McpClientBuilder::prefix) if there is one),
    /// whose execution calls the server.
    ///
    /// A tool with an MCP Apps view keeps it ([`Tool::ui`]); a tool the server lists for
    /// its views only (`_meta.ui.visibility` without `"model"`) is left out, as the
    /// extension asks of hosts: the model never sees it ([`McpClient::view_tools`] has it).
    pub async fn tools(&self) -> Result<Vec<Tool>, McpClientError> {
        let tools = self.all_tools().await?;
        Ok(tools.into_iter().filter(apps::model_may_call).collect())
    }

    /// Every tool of the server, those listed for its MCP Apps views only included: what
    /// a host that renders the server's views calls for them. Never hand these to a model
    /// ([`McpClient::tools`] is the model's list).
    pub async fn view_tools(&self) -> Result<Vec<Tool>, McpClientError> {
        self.all_tools().await
    }

    async fn all_tools(&self) -> Result<Vec<Tool>, McpClientError> {
        let listed = self.listed().await?;
        Ok(self.tools_of(&listed))
    }

    /// `toolkit` with this client's tools replaced by the server's current listing: the
    /// other tools stay, in their order, and the listed ones follow.
    pub async fn refresh(&self, toolkit: &Toolkit) -> Result<Toolkit, McpClientError> {
        let fresh = self.tools().await?;
        let ours = self
            .shared
            .names
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let kept = toolkit
            .tools()
            .iter()
            .filter(|tool| !(tool.source() == "mcp" && ours.contains(tool.name())))
            .cloned();
        Ok(kept.chain(fresh).collect())
    }

    /// Completes on the server's first `notifications/tools/list_changed` after this
    /// call (the future watches from the moment it is made, before it is awaited).
    pub fn changed(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut watch = self.shared.routing.subscribe();
        async move {
            let _ = watch.changed().await;
        }
    }

    /// How many `notifications/tools/list_changed` the server has sent so far: compare
    /// two readings to see whether the tools changed in between.
    pub fn generation(&self) -> u64 {
        self.shared.routing.generation()
    }

    /// The name and version the server advertised (`serverInfo`).
    pub fn server_info(&self) -> Option<(&str, &str)> {
        self.shared
            .info
            .get()
            .map(|(name, version)| (name.as_str(), version.as_str()))
    }

    /// How many times the client has connected: 1 after the first connection, one more
    /// for every reconnection after the server went away.
    pub fn connections(&self) -> u64 {
        self.shared
            .connections
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many logins (first ones, step-ups) this client has completed.
    #[cfg(feature = "mcp-auth")]
    pub fn logins(&self) -> u32 {
        self.shared
            .endpoint
            .made_login()
            .map_or(0, |login| login.logins())
    }

    /// How many calls are parked on an elicitation, waiting for an answer.
    pub fn waiting_calls(&self) -> usize {
        self.shared.parking.len()
    }

    /// Closes the connection (a child process is asked to exit, then killed). A later call
    /// connects again, unless reconnecting was turned off.
    pub async fn close(&self) {
        let service = self.shared.connection.lock().await.take();
        if let Some(mut service) = service {
            let _ = service.close_with_timeout(Duration::from_secs(5)).await;
        }
    }
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.shared.server())
            .field("prefix", &self.shared.options.prefix)
            .finish_non_exhaustive()
    }
}

/// Options for an [`McpClient`], from [`McpClient::stdio`] or [`McpClient::http`].
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `connect` is awaited"]
pub struct McpClientBuilder {
    endpoint: Endpoint,
    options: Options,
}

impl McpClientBuilder {
    fn new(endpoint: Endpoint) -> Self {
        McpClientBuilder {
            endpoint,
            options: Options {
                prefix: None,
                timeout: DEFAULT_CALL_TIMEOUT,
                connect_timeout: DEFAULT_CONNECT_TIMEOUT,
                elicitation_timeout: DEFAULT_ELICITATION_TIMEOUT,
                reconnect: true,
                latest: false,
            },
        }
    }

    /// Names every tool `PREFIX_NAME` instead of `NAME`, so that two servers with a tool
    /// of the same name can share a toolkit. The server still gets its own name.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.options.prefix = Some(prefix.into());
        self
    }

    /// Bounds every tool call (default [`DEFAULT_CALL_TIMEOUT`]); past it the call is
    /// cancelled on the server and ends with an error result. The deadlines are checked
    /// every quarter of the timeout, at most every second, so a call ends at most that
    /// long after its deadline. A shorter [`Context::with_timeout`](crate::Context::with_timeout) still applies.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// Bounds connecting (the `initialize` handshake) and each `tools/list` (default
    /// [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.options.connect_timeout = timeout;
        self
    }

    /// How long a call parked on an elicitation waits for its answer (default
    /// [`DEFAULT_ELICITATION_TIMEOUT`]); past it, the elicitation is cancelled.
    pub fn elicitation_timeout(mut self, timeout: Duration) -> Self {
        self.options.elicitation_timeout = timeout;
        self
    }

    /// Whether a call after the connection was lost connects again (the default) or
    /// fails with an error result saying the connection is closed.
    pub fn reconnect(mut self, reconnect: bool) -> Self {
        self.options.reconnect = reconnect;
        self
    }

    /// Negotiates MCP revision 2026-07-28 with `server/discover` when the server offers
    /// it, and the `initialize` handshake of earlier revisions otherwise (the default is
    /// that handshake alone). On 2026-07-28 a server asks for input by answering a call
    /// with `input_required`: the call returns a pending result whose
    /// [`Request`](crate::Request) carries the server's `requestState` (see
    /// [`McpClient`]'s "Input required"), so the answer can come from another process.
    pub fn latest_protocol(mut self) -> Self {
        self.options.latest = true;
        self
    }

    /// Sets an environment variable of the child process (stdio only).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        if let Endpoint::Stdio { env, .. } = &mut self.endpoint {
            env.push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        }
        self
    }

    /// Sets the working directory of the child process (stdio only).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Endpoint::Stdio { cwd, .. } = &mut self.endpoint {
            *cwd = Some(dir.into());
        }
        self
    }

    /// Discards the child's standard error instead of passing it through (stdio only).
    pub fn quiet(mut self) -> Self {
        if let Endpoint::Stdio { stderr, .. } = &mut self.endpoint {
            *stderr = Stderr::Null;
        }
        self
    }

    /// Adds an HTTP header to every request (HTTP only): an API key, a
    /// `Authorization: Basic …`. An invalid name or value is reported by
    /// [`connect`](McpClientBuilder::connect).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Endpoint::Http {
            headers, invalid, ..
        } = &mut self.endpoint
        {
            match connect::header(name, value) {
                Ok((name, value)) => {
                    headers.insert(name, value);
                }
                Err(message) => {
                    invalid.get_or_insert(message);
                }
            }
        }
        self
    }

    /// Sends `Authorization: Bearer TOKEN` with every request (HTTP only).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let Endpoint::Http { bearer, .. } = &mut self.endpoint {
            *bearer = Some(token.into());
        }
        self
    }

    /// Logs in to a server that requires MCP authorization (HTTP only): see [`OAuth`].
    /// The login is made when the server first answers `401`, kept in the OAuth
    /// configuration's token store, refreshed, and widened on `403 insufficient_scope`.
    #[cfg(feature = "mcp-auth")]
    pub fn oauth(mut self, login: OAuth) -> Self {
        if let Endpoint::Http { oauth, .. } = &mut self.endpoint {
            *oauth = Some(Box::new((login, Default::default())));
        }
        self
    }

    /// Connects (starting the child process, for stdio) and runs the handshake.
    pub async fn connect(self) -> Result<McpClient, McpClientError> {
        let shared = self.shared();
        shared.peer().await?;
        Ok(McpClient { shared })
    }

    fn shared(self) -> Arc<Shared> {
        Arc::new(Shared {
            endpoint: self.endpoint,
            routing: Routing::new(self.options.elicitation_timeout, self.options.timeout),
            options: self.options,
            parking: Parking::default(),
            connection: tokio::sync::Mutex::new(None),
            info: OnceLock::new(),
            names: Mutex::new(HashSet::new()),
            connections: Default::default(),
        })
    }
}

/// `1.5s`, `250ms`, `2s`.
fn humanize(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

//! The MCP server: [`McpServer`], the SDK's handler over a [`Toolkit`], and what it
//! serves besides tools (tasks, suspensions, resources, prompts, notifications).

pub(crate) mod caller;
pub(crate) mod catalog;
pub(crate) mod convert;
pub(crate) mod elicit;
pub(crate) mod elicit_schema;
pub(crate) mod notify;
mod prompts;
mod resources;
pub(crate) mod seal;
mod serve;
pub(crate) mod spent;
pub(crate) mod task;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};

use crate::tool::context::Context;
use crate::tool::kit::Toolkit;

use catalog::DEFAULT_PAGE_SIZE;
use convert::mcp_tool;
use seal::{DEFAULT_STATE_TTL, StateKey};

use crate::mcp::HttpOptions;
use crate::mcp::trace;
use crate::mcp::transport::protocol;

/// The default bound on one incoming message: a stdio line or an HTTP request body.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 1024 * 1024;

/// The name `initialize` advertises unless [`McpServer::name`] changes it.
pub const DEFAULT_SERVER_NAME: &str = "toolnexus";

/// A [`Toolkit`] served over MCP. Cheap to clone: the toolkit and the tool listing are
/// shared.
///
/// Every call runs through [`Toolkit::execute`], so a failing or panicking tool gives an
/// error result (`isError: true`) and never takes the server down. The request's
/// cancellation (a client's `notifications/cancelled`, its session being closed or timing
/// out, the server shutting down) reaches the tool's [`Context`] as its cancellation token.
/// A dropped HTTP connection alone does not cancel a call: over streamable HTTP the session
/// outlives the connection, and the client can come back for the result (a `GET` with
/// `Last-Event-ID` replays what its stream missed; see [`HttpOptions`]).
#[derive(Clone)]
pub struct McpServer(
    Arc<Inner>,
    notify::SessionLevel,
    caller::Connection,
    Arc<catalog::Subscriber>,
);

#[derive(Clone)]
struct Inner {
    toolkit: Toolkit,
    allowed: Option<HashSet<String>>,
    listing: Vec<rmcp::model::Tool>,
    name: String,
    version: String,
    instructions: Option<String>,
    timeout: Option<Duration>,
    max_message_bytes: usize,
    /// Seals the `requestState` of suspended calls; `None`: the process's random key.
    state_key: Option<StateKey>,
    state_ttl: Duration,
    /// Whether the transport can carry a request to the client during a call (not so in
    /// stateless HTTP, which answers each POST with one JSON response).
    mid_call_requests: bool,
    /// The tasks of long-running tools (`task/`).
    tasks: task::Tasks,
    /// Names the authenticated principal of an HTTP request (`caller.rs`).
    principal: Option<caller::Principal>,
    /// The sealed states whose retry ran (`spent.rs`).
    spent: spent::Spent,
    /// The resources and prompts, and the sessions that hear of their changes.
    live: Arc<catalog::Live>,
    page_size: usize,
}

impl McpServer {
    /// Serves every tool of `toolkit`, advertised as `toolnexus` with this crate's version.
    pub fn new(toolkit: Toolkit) -> Self {
        let mut inner = Inner {
            toolkit,
            allowed: None,
            listing: Vec::new(),
            name: DEFAULT_SERVER_NAME.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
            timeout: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            state_key: None,
            state_ttl: DEFAULT_STATE_TTL,
            mid_call_requests: true,
            tasks: task::Tasks::default(),
            principal: None,
            spent: spent::Memory::shared(),
            live: catalog::Live::new(catalog::Catalog::default()),
            page_size: DEFAULT_PAGE_SIZE,
        };
        inner.relist();
        McpServer(
            Arc::new(inner),
            notify::SessionLevel::default(),
            caller::Connection::default(),
            Arc::default(),
        )
    }

    fn update(self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.0);
        f(&mut inner);
        McpServer(Arc::new(inner), self.1, self.2, self.3)
    }

    /// The same server with the per-session state (the log level, the connection's own
    /// records, subscriptions) of a new session.
    pub(crate) fn for_session(&self) -> Self {
        McpServer(
            Arc::clone(&self.0),
            notify::SessionLevel::default(),
            caller::Connection::default(),
            Arc::default(),
        )
    }

    /// Sets the `serverInfo.name` that `initialize` advertises.
    #[must_use]
    pub fn name(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.update(|inner| inner.name = name)
    }

    /// Sets the `serverInfo.version` that `initialize` advertises.
    #[must_use]
    pub fn version(self, version: impl Into<String>) -> Self {
        let version = version.into();
        self.update(|inner| inner.version = version)
    }

    /// Sets the `instructions` that `initialize` gives the client (how to use the tools).
    #[must_use]
    pub fn instructions(self, instructions: impl Into<String>) -> Self {
        let instructions = instructions.into();
        self.update(|inner| inner.instructions = Some(instructions))
    }

    /// Exposes only the tools with these names. Names that are not in the toolkit are
    /// ignored; a hidden tool is neither listed nor callable (calling it is the same
    /// invalid-params error as calling a tool that does not exist).
    #[must_use]
    pub fn allowed_tools<I, S>(self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let allowed = names.into_iter().map(Into::into).collect();
        self.update(|inner| {
            inner.allowed = Some(allowed);
            inner.relist();
        })
    }

    /// Limits every call to `timeout` (see [`Context::with_timeout`]); past it, the call
    /// ends with an error result saying it timed out.
    #[must_use]
    pub fn timeout(self, timeout: Duration) -> Self {
        self.update(|inner| inner.timeout = Some(timeout))
    }

    /// Bounds one incoming message: a longer stdio line is answered with an invalid-request
    /// error (carrying the request's `id` when it is within the line's first kilobytes; the
    /// connection stays open), a larger HTTP request body is refused with
    /// `413 Payload Too Large`.
    /// Defaults to [`DEFAULT_MAX_MESSAGE_BYTES`] (1 MiB).
    #[must_use]
    pub fn max_message_bytes(self, bytes: usize) -> Self {
        self.update(|inner| inner.max_message_bytes = bytes)
    }

    /// Seals the `requestState` of suspended calls served to MCP 2026-07-28 clients with
    /// `key`. Give every replica of a deployment the same key, so each accepts the states
    /// the others made; without one, the server uses [`StateKey::process`], a random key
    /// of this process (a state then survives neither a restart nor another replica, and
    /// its retry is refused). This is the one place to set it: stdio and HTTP (stateless
    /// or not) seal with it.
    #[must_use]
    pub fn state_key(self, key: StateKey) -> Self {
        self.update(|inner| inner.state_key = Some(key))
    }

    /// How long a sealed `requestState` stays valid (default [`DEFAULT_STATE_TTL`], 10
    /// minutes); a retry after that is refused and the tool does not run.
    #[must_use]
    pub fn state_ttl(self, ttl: Duration) -> Self {
        self.update(|inner| inner.state_ttl = ttl)
    }

    /// The key that seals this server's `requestState`s.
    pub(crate) fn sealing_key(&self) -> StateKey {
        self.0.state_key.clone().unwrap_or_else(StateKey::process)
    }

    /// The server as a stateless HTTP replica serves it: no requests to the client during
    /// a call.
    pub(crate) fn for_http(self, options: &HttpOptions) -> Self {
        if !options.is_stateless() {
            return self;
        }
        self.update(|inner| inner.mid_call_requests = false)
    }

    /// The toolkit being served.
    pub fn toolkit(&self) -> &Toolkit {
        &self.0.toolkit
    }

    /// The `tools/list` entries: every exposed tool, in registration order.
    pub fn tools(&self) -> &[rmcp::model::Tool] {
        &self.0.listing
    }

    /// Whether a tool named `name` is in the toolkit and exposed.
    pub fn exposes(&self, name: &str) -> bool {
        self.0.toolkit.get(name).is_some()
            && self.0.allowed.as_ref().is_none_or(|set| set.contains(name))
    }

    /// The bound on one incoming message (see [`McpServer::max_message_bytes`]).
    pub(crate) fn message_limit(&self) -> usize {
        self.0.max_message_bytes
    }

    fn context(&self, request: &RequestContext<RoleServer>) -> Context {
        let ctx = Context::new()
            .with_call_id(request.id.to_string())
            .with_cancellation(request.ct.clone());
        match self.0.timeout {
            Some(limit) => ctx.with_timeout(limit),
            None => ctx,
        }
    }
}

impl Inner {
    fn relist(&mut self) {
        let allowed = self.allowed.as_ref();
        self.listing = self
            .toolkit
            .tools()
            .iter()
            .filter(|tool| allowed.is_none_or(|set| set.contains(tool.name())))
            // As `Toolkit::to_mcp`: a tool the MCP profile refuses is not listed.
            .filter(|tool| {
                tool.entry(crate::schema::profile::Profile::Mcp)
                    .value
                    .is_some()
            })
            .map(mcp_tool)
            .collect();
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.0.name)
            .field("version", &self.0.version)
            .field(
                "tools",
                &self.0.listing.iter().map(|t| &t.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl ServerHandler for McpServer {
    // Logging is deprecated by SEP-2577 (2026-07-28) and served to earlier versions.
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        // Logging: tools write log lines (`Context::log`); see `notify.rs`.
        let builder = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging();
        // The tasks extension (SEP-2663), when some tool may run as a task.
        let mut capabilities = if self.serves_tasks() {
            builder.enable_tasks().build()
        } else {
            builder.build()
        };
        // Resources, prompts and completions, when the server was given some.
        self.0.live.declare(&mut capabilities);
        // MCP Apps: a tool that names a view declares the extension too.
        if self.0.listing.iter().any(|t| {
            t.meta.as_ref().is_some_and(|m| {
                m.0.get("ui")
                    .is_some_and(|ui| ui.get("resourceUri").is_some())
            })
        }) {
            catalog::declare_apps(&mut capabilities);
        }
        let info = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(&self.0.name, &self.0.version));
        match &self.0.instructions {
            Some(text) => info.with_instructions(text),
            None => info,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.0.listing.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.0
            .listing
            .iter()
            .find(|tool| tool.name == name)
            .cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Boxed: the SDK holds this future inside the tasks it spawns for every request
        // and moves them by value, so its size is copied several times per call (most of
        // a stateless HTTP request's cost, unboxed); a box keeps it a pointer.
        Box::pin(async move {
            let name = request.name.as_ref();
            if !self.exposes(name) {
                return Err(ErrorData::invalid_params(
                    format!("Unknown tool: {name}"),
                    Some(serde_json::json!({ "tool": name })),
                ));
            }
            if let Some(task) = task::start(self, &request, &context).await {
                return task;
            }
            let span = trace::server_span(name, &request, &context);
            let caller = notify::McpCaller::new(&context, &self.1);
            // Started inside the span, so that the tool's own span is its child.
            let call = span.in_scope(|| elicit::call(self, request, context, caller.clone()));
            let response = tracing::Instrument::instrument(call, span.clone()).await;
            // The tool's progress and log notifications go out before its answer.
            caller.drain().await;
            trace::server_responded(&span, &response);
            response
        })
        .await
    }

    /// `tasks/get`: a task of a long-running tool, with its result when it has ended.
    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        task::get(self, request, &context).await
    }

    /// `tasks/update`: the answer to what a task asked; the tool runs on with it.
    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        task::update(self, request, &context).await
    }

    /// `tasks/cancel`: trips the task's cancellation token.
    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        task::cancel(self, request, &context).await
    }

    /// `logging/setLevel`: the session's tools send log lines at `level` and above.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.1.set_level(notify::log_level(request.level));
        Ok(())
    }

    /// Remembers the session's client, to tell it when resources and prompts change.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.met(&context.peer);
    }

    // Resources, prompts and completion: `resources.rs`, `prompts.rs`.
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        self.resource_list(request.as_ref(), &context)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, ErrorData> {
        self.template_list(request.as_ref(), &context)
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        self.resource_read(request, context).await
    }

    #[allow(deprecated)] // Legacy (before 2026-07-28), and served to those clients.
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.resource_subscribe(request.uri, &context)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.resource_unsubscribe(&request.uri, &context)
    }

    fn accepted_subscription_filter(
        &self,
        asked: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(self.accepted_filter(asked))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.listen_until_cancelled(context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        self.prompt_list(request.as_ref(), &context)
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        self.prompt_get(request, context).await
    }

    async fn complete(
        &self,
        request: rmcp::model::CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, ErrorData> {
        self.completion(request, &context)
    }

    /// A request the SDK could not parse into its typed form: one MCP defines with params
    /// of the wrong shape (`tools/call` without a string `name`, say) is invalid params,
    /// anything else an unknown method.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        let method = request.method;
        Err(
            protocol::malformed_params(&method, request.params.as_ref()).unwrap_or_else(|| {
                ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, method, None)
            }),
        )
    }
}

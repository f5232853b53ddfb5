//! Any [`Client`] served as an A2A agent: [`A2aServer`].

mod drive;
mod engine;
mod http;
pub(crate) mod limits;
mod rpc;
pub(crate) mod store;
mod stream;
mod tasks;
mod work;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use engine::TaskEngine;

use crate::a2a::wire::Dialect;
use crate::agent::client::Client;
use crate::tool::kit::Toolkit;
use crate::web::WebGuard;
pub use http::ServedA2a;
pub use limits::{
    DEFAULT_MAX_RUNS, DEFAULT_MAX_RUNS_PER_CALLER, DEFAULT_MAX_STORED_BYTES,
    DEFAULT_MAX_STORED_TASKS, DEFAULT_MAX_UNFINISHED_TASKS_PER_CALLER,
};

/// The name the card gives when none is set (the contract's default).
pub const DEFAULT_NAME: &str = "toolnexus-agent";
/// The version the card gives when none is set (the contract's default).
pub const DEFAULT_VERSION: &str = "0.1.0";
/// The id of the one skill the card lists when none is declared (see
/// [`A2aServer::skill`]).
pub const DEFAULT_SKILL_ID: &str = "run";
/// Where the Agent Card is served, under the router's root.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";
/// The largest request body accepted unless configured: 1 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 1024 * 1024;
/// The largest answer a task may give as its artifact unless configured: 1 MiB.
pub const DEFAULT_MAX_ARTIFACT_BYTES: usize = 1024 * 1024;
/// How long a task (and a conversation) is kept after its last change: 1 hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);
/// How long the runner of a task holds it without renewing: 30 seconds.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// Says who sent a request (the principal), from its head: tasks are then visible only
/// to whoever created them. See [`A2aServer::principal`].
pub type Principal = Arc<dyn Fn(&axum::http::request::Parts) -> Option<String> + Send + Sync>;

/// Turns an incoming message (A2A 1.0 JSON) into the run's prompt. See
/// [`A2aServer::prompt`].
pub type PromptFn = Arc<dyn Fn(&Value) -> String + Send + Sync>;

/// Makes the parts of a completed task's artifact from its run (A2A 1.0 JSON parts). See
/// [`A2aServer::artifact`].
pub type ArtifactFn = Arc<dyn Fn(&crate::RunResult) -> Vec<Value> + Send + Sync>;

/// Says which incoming messages (A2A 1.0 JSON) are answered with a message rather than a
/// task. See [`A2aServer::direct_replies`].
pub type DirectFn = Arc<dyn Fn(&Value) -> bool + Send + Sync>;

/// One skill the card lists.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SkillConfig {
    id: String,
    name: String,
    description: String,
    tags: Vec<String>,
}

/// What the server is configured with.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) client: Client,
    pub(crate) toolkit: Toolkit,
    name: String,
    description: String,
    version: String,
    provider: Option<(String, String)>,
    skills: Vec<SkillConfig>,
    url: Option<String>,
    /// `http://ADDR` of the address [`A2aServer::serve`] bound: the card's endpoint
    /// without [`A2aServer::url`].
    bound: Option<String>,
    pub(crate) principal: Option<Principal>,
    pub(crate) prompt: Option<PromptFn>,
    pub(crate) artifact: Option<ArtifactFn>,
    pub(crate) direct: Option<DirectFn>,
    pub(crate) max_message_bytes: usize,
    pub(crate) max_artifact_bytes: usize,
    pub(crate) ttl: Duration,
    pub(crate) lease: Duration,
    pub(crate) limits: limits::Limits,
    /// The `Host`, `Origin`, content type and body-time checks of every request.
    pub(crate) guard: WebGuard,
}

/// A [`Client`] and its [`Toolkit`] served as an A2A agent: an Agent Card at
/// [`CARD_PATH`] and a JSON-RPC endpoint at the root, for A2A 1.0 and 0.3 clients.
///
/// ```no_run
/// # async fn demo(client: toolnexus::Client, toolkit: toolnexus::Toolkit) -> std::io::Result<()> {
/// use toolnexus::a2a::A2aServer;
///
/// let served = A2aServer::new(client, toolkit)
///     .name("deployer")
///     .skill("deploy", "Deploy", "Deploys a service, after asking for approval.")
///     .serve("127.0.0.1:8080")
///     .await?;
/// println!("card at {}", served.card_url());
/// # served.shutdown().await }
/// ```
///
/// - A message starts a task, whose run is `client.run(<the message's text>, &toolkit)`
///   (or, with a `contextId` the server has seen, the conversation's transcript
///   continued with it). The task is `working` while it runs; `completed` with the run's
///   answer as an artifact; `failed` with the reason when the run stops early; `canceled`
///   after `CancelTask`.
/// - A run that halts on a suspension leaves its task `input-required` (or
///   `auth-required` for an `authorization` request), with the request's prompt as the
///   status message (and the [`Request`](crate::Request) itself in its metadata, under
///   `toolnexus/request`). The client's next message on the same task answers it: its
///   text is the answer (for an approval, `no`, `deny`, `decline`, `reject` or `cancel`
///   declines), or a toolnexus [`Answer`](crate::Answer) in its metadata under
///   `toolnexus/answer`. The run resumes from the halted run kept with the task.
/// - `SendMessage` waits for the task to end or to ask (unless `returnImmediately` /
///   `blocking: false`); `SendStreamingMessage` streams the task, its status updates and
///   its artifact; `GetTask`, `ListTasks`, `CancelTask` and `SubscribeToTask` do what
///   they say. Errors are JSON-RPC errors with A2A's codes: `-32001` for a task that is
///   unknown (or another client's), `-32004` for a message to a task that ended, `-32002`
///   to cancel one, `-32602` for bad parameters, and `-32000` for a limit reached (runs
///   in flight, unfinished tasks per caller, tasks and bytes kept: `with_max_…`).
/// - Every request first passes a [`WebGuard`] ([`web_guard`](A2aServer::web_guard)):
///   loopback `Host`s only unless configured, JSON bodies only, within a size bound and a
///   body timeout.
/// - Without a principal ([`principal`](A2aServer::principal)), callers are
///   anonymous: task ids and contextIds, issued by the server, are what lets a caller
///   back in; `ListTasks` lists one conversation, by its `contextId`; a contextId an
///   anonymous caller chose continues no one's conversation. See the guide's Security
///   section.
/// - Tasks are kept in the client's run store when it has one
///   ([`Client::store`](crate::Client::store), features `sqlite` / `postgres`):
///   a restarted server still has them, and every server on the same database (replicas
///   behind a load balancer) answers for them and continues them, whichever started
///   them. Without a store, they are kept in this process's memory.
/// - The card lists the skills given with [`skill`](A2aServer::skill); with
///   none, one skill [`DEFAULT_SKILL_ID`] that runs any task.
#[derive(Clone)]
pub struct A2aServer(pub(crate) Arc<engine::TaskEngine>);

impl fmt::Debug for A2aServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.0.config;
        f.debug_struct("A2aServer")
            .field("name", &config.name)
            .field("skills", &config.skills)
            .field("url", &config.url)
            .field("principal", &config.principal.is_some())
            .field("max_message_bytes", &config.max_message_bytes)
            .field("max_artifact_bytes", &config.max_artifact_bytes)
            .field("limits", &config.limits)
            .field("guard", &config.guard)
            .finish_non_exhaustive()
    }
}

impl A2aServer {
    /// Serves `client` with `toolkit` under the default card; its tasks are kept in the
    /// client's run store when it has one, else in memory.
    pub fn new(client: Client, toolkit: Toolkit) -> A2aServer {
        let config = Config {
            client,
            toolkit,
            name: DEFAULT_NAME.to_owned(),
            description: String::new(),
            version: DEFAULT_VERSION.to_owned(),
            provider: None,
            skills: Vec::new(),
            url: None,
            bound: None,
            principal: None,
            prompt: None,
            artifact: None,
            direct: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_artifact_bytes: DEFAULT_MAX_ARTIFACT_BYTES,
            ttl: DEFAULT_TASK_TTL,
            lease: DEFAULT_LEASE,
            limits: limits::Limits::default(),
            guard: WebGuard::new(),
        };
        A2aServer(Arc::new(engine::TaskEngine::new(config)))
    }

    fn update(self, f: impl FnOnce(&mut Config)) -> A2aServer {
        let mut engine = Arc::unwrap_or_clone(self.0);
        f(&mut engine.config);
        A2aServer(Arc::new(engine))
    }

    /// The card's `name` (default [`DEFAULT_NAME`]): its callers' tools are named after it.
    #[must_use]
    pub fn name(self, name: impl Into<String>) -> A2aServer {
        let name = name.into();
        self.update(|c| c.name = name)
    }

    /// The card's `description`.
    #[must_use]
    pub fn description(self, description: impl Into<String>) -> A2aServer {
        let description = description.into();
        self.update(|c| c.description = description)
    }

    /// The card's `version` (default [`DEFAULT_VERSION`]).
    #[must_use]
    pub fn version(self, version: impl Into<String>) -> A2aServer {
        let version = version.into();
        self.update(|c| c.version = version)
    }

    /// The card's `provider`.
    #[must_use]
    pub fn provider(self, organization: impl Into<String>, url: impl Into<String>) -> A2aServer {
        let provider = (organization.into(), url.into());
        self.update(|c| c.provider = Some(provider))
    }

    /// Lists a skill on the card (repeat for several). Every skill runs the same client;
    /// the card tells callers what it is good for. Without any, the card lists one,
    /// [`DEFAULT_SKILL_ID`], named and described after the agent.
    #[must_use]
    pub fn skill(
        self,
        id: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> A2aServer {
        let id = id.into();
        let skill = SkillConfig {
            tags: vec![id.clone()],
            id,
            name: name.into(),
            description: description.into(),
        };
        self.update(|c| c.skills.push(skill))
    }

    /// The JSON-RPC endpoint's public URL, for the card (behind a proxy, or for a public
    /// name). Without it the card gives the address [`serve`](A2aServer::serve) bound
    /// (`http://127.0.0.1:8080/`), or, for a [`router`](A2aServer::router) you serve
    /// yourself, `http://localhost/<where the router is mounted>/`: set it then. The
    /// request's `Host` header is never used (a caller names any host there, and the card
    /// is cached).
    #[must_use]
    pub fn url(self, url: impl Into<String>) -> A2aServer {
        let url = url.into();
        self.update(|c| c.url = Some(url))
    }

    /// Says who sent each request, from its head (a header your authentication layer
    /// checked, an extension it inserted): a task is then visible (`GetTask`,
    /// `ListTasks`, `CancelTask`, `SubscribeToTask`, a message to it) only to the
    /// principal that created it; others get `-32001` as for an unknown task.
    /// Conversations (`contextId`) are per principal too. The principal is kept with
    /// the task (in the run store too), and an empty one counts as none. Requests
    /// without one are anonymous: they list tasks only by a `contextId` the server
    /// issued, and count as one caller for the per-caller limits.
    #[must_use]
    pub fn principal<F>(self, principal: F) -> A2aServer
    where
        F: Fn(&axum::http::request::Parts) -> Option<String> + Send + Sync + 'static,
    {
        let principal: Principal = Arc::new(principal);
        self.update(|c| c.principal = Some(principal))
    }

    /// Builds the run's prompt from the incoming message (its A2A 1.0 JSON: `parts`,
    /// `metadata`, `messageId`, …). By default: the text parts, with data parts as JSON
    /// and files named, one per line.
    #[must_use]
    pub fn prompt<F>(self, prompt: F) -> A2aServer
    where
        F: Fn(&Value) -> String + Send + Sync + 'static,
    {
        let prompt: PromptFn = Arc::new(prompt);
        self.update(|c| c.prompt = Some(prompt))
    }

    /// Makes the parts of a completed task's artifact from its run, as A2A 1.0 JSON parts
    /// (`{"text": …}`, `{"data": …}`, `{"url": …, "mediaType": …, "filename": …}`,
    /// `{"raw": <base64>, …}`): files a tool wrote, structured data beside the text. By
    /// default: the run's answer as one text part. A part that is not A2A's fails the
    /// task, saying which.
    #[must_use]
    pub fn artifact<F>(self, artifact: F) -> A2aServer
    where
        F: Fn(&crate::RunResult) -> Vec<Value> + Send + Sync + 'static,
    {
        let artifact: ArtifactFn = Arc::new(artifact);
        self.update(|c| c.artifact = Some(artifact))
    }

    /// Answers the messages `direct` picks (given their A2A 1.0 JSON) with a message
    /// holding the answer's parts instead of a task, as A2A allows for simple exchanges.
    /// A run that suspends or fails is answered with its task all the same.
    #[must_use]
    pub fn direct_replies<F>(self, direct: F) -> A2aServer
    where
        F: Fn(&Value) -> bool + Send + Sync + 'static,
    {
        let direct: DirectFn = Arc::new(direct);
        self.update(|c| c.direct = Some(direct))
    }

    /// The largest request body accepted (default [`DEFAULT_MAX_MESSAGE_BYTES`]); a larger
    /// one gets `413 Payload Too Large`, before it is read whole. (It is the body bound
    /// of the [`WebGuard`], whatever that says.)
    #[must_use]
    pub fn max_message_bytes(self, bytes: usize) -> A2aServer {
        self.update(|c| c.max_message_bytes = bytes)
    }

    /// What every request must pass before it reaches the agent (default
    /// [`WebGuard::new`]): its `Host` among the allowed ones (the loopback names unless
    /// you add the public name a client uses, [`WebGuard::allowed_hosts`]: a guard
    /// against DNS rebinding), its `Origin`, when a browser sends one, among the allowed
    /// ones, a `POST` body sent as `Content-Type: application/json` (so that no page on
    /// another site can start a task with a form or a `text/plain` fetch, which need no
    /// preflight), and all of it arrived within the body timeout
    /// ([`WebGuard::body_read_timeout`], default 30 s; else `408` and the connection
    /// closed). Refusals are HTTP statuses (`400`, `403`, `408`, `413`, `415`) with a
    /// short text saying what to change.
    #[must_use]
    pub fn web_guard(self, guard: WebGuard) -> A2aServer {
        self.update(|c| c.guard = guard)
    }

    /// The largest answer a task may give (default [`DEFAULT_MAX_ARTIFACT_BYTES`]); a run
    /// whose answer is larger fails its task, saying so.
    #[must_use]
    pub fn max_artifact_bytes(self, bytes: usize) -> A2aServer {
        self.update(|c| c.max_artifact_bytes = bytes)
    }

    /// How long a task and a conversation are kept after their last change (default
    /// [`DEFAULT_TASK_TTL`]).
    #[must_use]
    pub fn task_ttl(self, ttl: Duration) -> A2aServer {
        self.update(|c| c.ttl = ttl)
    }

    /// The client the tasks run on.
    pub fn client(&self) -> &Client {
        &self.0.config.client
    }

    /// The toolkit the tasks run with.
    pub fn toolkit(&self) -> &Toolkit {
        &self.0.config.toolkit
    }

    /// The Agent Card, for an endpoint at `url`.
    pub fn card(&self, url: &str) -> Value {
        let config = &self.0.config;
        let url = config.url.as_deref().unwrap_or(url);
        let skills: Vec<Value> = if config.skills.is_empty() {
            let description = if config.description.is_empty() {
                format!("Runs a task with the agent `{}`.", config.name)
            } else {
                config.description.clone()
            };
            vec![json!({
                "id": DEFAULT_SKILL_ID, "name": config.name, "description": description,
                "tags": [DEFAULT_SKILL_ID],
            })]
        } else {
            config
                .skills
                .iter()
                .map(|s| json!({"id": s.id, "name": s.name, "description": s.description, "tags": s.tags}))
                .collect()
        };
        let mut card = json!({
            "name": config.name,
            "description": config.description,
            "version": config.version,
            "supportedInterfaces": [
                {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            ],
            "capabilities": {"streaming": true, "pushNotifications": false, "extendedAgentCard": false},
            "defaultInputModes": ["text/plain", "application/json"],
            "defaultOutputModes": ["text/plain"],
            "skills": skills,
        });
        if let Some((organization, provider_url)) = &config.provider {
            card["provider"] = json!({"organization": organization, "url": provider_url});
        }
        card
    }
}

/// One request being answered.
pub(super) struct RpcCall {
    pub(super) engine: TaskEngine,
    pub(super) owner: Option<String>,
    pub(super) dialect: Dialect,
    pub(super) id: Value,
}

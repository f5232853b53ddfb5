//! Remote A2A agents as tools: [`A2aAgent`].

pub(crate) mod call;
pub(crate) mod http;
mod origin;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::a2a::wire::{Dialect, PeerCard, Skill};
use crate::env;
use crate::tool::Tool;
use crate::tool::def::sanitize_name;
use crate::tool::handler::Dispatch;
use http::{Peer, describe, expand_headers, read_capped};

/// How long a call may take, end to end, unless configured (the contract's 300 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(300_000);

/// How often a task is polled when it is not streamed (the contract's 1 s).
pub const DEFAULT_POLL_EVERY: Duration = Duration::from_millis(1_000);

/// The `source()` of an agent's tools.
pub const SOURCE: &str = "a2a";

/// Why an agent could not be reached or used: its card URL and the reason (header values
/// never appear in it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("A2A agent at {card}: {reason}")]
pub struct A2aError {
    /// The Agent Card's URL.
    pub card: String,
    /// What went wrong.
    pub reason: String,
}

/// What the tools of one agent share.
pub(crate) struct Shared {
    pub(crate) card_url: String,
    pub(crate) card: Value,
    pub(crate) peer: PeerCard,
    pub(crate) transport: Peer,
    pub(crate) timeout: Duration,
    pub(crate) poll_every: Duration,
    pub(crate) streaming: bool,
}

/// A remote A2A agent, reached through its Agent Card; each of its skills is a [`Tool`].
///
/// ```no_run
/// # async fn demo() -> Result<(), toolnexus::a2a::A2aError> {
/// use toolnexus::a2a::A2aAgent;
/// use toolnexus::Toolkit;
///
/// let remote = A2aAgent::connect("http://127.0.0.1:9999/.well-known/agent-card.json").await?;
/// let mut toolkit = Toolkit::new();
/// toolkit.extend(remote.tools());           // `<agent>_<skill>`, source() "a2a"
/// # Ok(()) }
/// ```
///
/// - [`connect`](A2aAgent::connect) fetches the card and checks it: a `name`, `skills`
///   with an `id` (or `name`), and a JSON-RPC interface: the first A2A 1.0 one of
///   `supportedInterfaces`, else a 0.3 one, else a 0.3 card's `url`, else the card's
///   origin (the toolnexus contract's fallback).
/// - Each skill is a tool named `sanitize(card.name)_sanitize(skill.id)`, described by
///   the skill, whose one argument `task` (a string) is sent as a message.
/// - A call follows the task it started: over the event stream when the card offers
///   streaming, by polling `GetTask` otherwise, until the task ends or waits, or the
///   call's time (its [`Context`](crate::Context) timeout, else
///   [`A2aAgentBuilder::timeout`]) runs out. `completed` is a success whose output is the
///   artifacts' text; `failed`, `canceled` and `rejected` are errors
///   (`A2A task ID STATE: message`); running out of time is an error too
///   (`A2A task ID timed out after MSms (state=STATE)`).
/// - `input-required` and `auth-required` are suspensions: a pending
///   [`Request`](crate::Request) (`input`, or `authorization` with the URL the agent
///   gave), whose prompt is the agent's status message, and which carries the task and
///   context ids. Answered, the call runs again and sends the answer as the next message
///   of the same task, then follows it on. A declined request cancels the remote task. A
///   toolnexus peer's own request (an approval, say) comes through as it is, and its
///   answer goes back to it.
/// - Every result's metadata says `{agent, taskId, contextId, state, polls, ms}`.
#[derive(Clone)]
pub struct A2aAgent(Arc<Shared>);

impl fmt::Debug for A2aAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("A2aAgent")
            .field("card", &self.0.card_url)
            .field("name", &self.0.peer.name)
            .field("endpoint", &self.0.peer.endpoint.url)
            .field("streaming", &self.0.streaming)
            .finish_non_exhaustive()
    }
}

/// Configures an [`A2aAgent`] before connecting: headers, time limits, streaming.
#[derive(Clone)]
pub struct A2aAgentBuilder {
    card_url: String,
    headers: Vec<(String, String)>,
    /// Origins besides the card's the headers may go to.
    header_origins: Vec<String>,
    timeout: Duration,
    poll_every: Duration,
    streaming: bool,
}

/// `Debug` names the headers, never their values.
impl fmt::Debug for A2aAgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("A2aAgentBuilder")
            .field("card_url", &self.card_url)
            .field(
                "headers",
                &self.headers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("header_origins", &self.header_origins)
            .field("timeout", &self.timeout)
            .field("poll_every", &self.poll_every)
            .field("streaming", &self.streaming)
            .finish()
    }
}

impl A2aAgentBuilder {
    /// Sends `name: value` with every request (the card's too). `${VAR}` in `value` is
    /// read from the environment on every request; values are never logged.
    ///
    /// Headers are credentials: they go only to the card's origin (scheme, host and
    /// port; see [`allow_header_origin`](Self::allow_header_origin) for another), only
    /// over https or to a loopback host, and never along a redirect to another origin.
    /// [`connect`](Self::connect) fails, saying why, when the card or the endpoint it
    /// gives breaks one of these.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Also sends the configured headers to the endpoint at `url`'s origin, when the card
    /// gives its JSON-RPC endpoint on another origin than its own
    /// (`https://api.example.com` for a card served from `https://example.com`). Still
    /// https only (or a loopback host).
    #[must_use]
    pub fn allow_header_origin(mut self, url: impl Into<String>) -> Self {
        self.header_origins.push(url.into());
        self
    }

    /// Sends `Authorization: Bearer TOKEN` (`${VAR}` expanded as for [`header`](Self::header)).
    #[must_use]
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        let token = token.into();
        self.header("Authorization", format!("Bearer {token}"))
    }

    /// Bounds fetching the card, and each call end to end, unless the call's
    /// [`Context`](crate::Context) has a timeout of its own (default [`DEFAULT_TIMEOUT`]).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How often a task that is not streamed is polled (default [`DEFAULT_POLL_EVERY`]).
    #[must_use]
    pub fn poll_every(mut self, every: Duration) -> Self {
        self.poll_every = every.max(Duration::from_millis(1));
        self
    }

    /// Whether to follow tasks over the event stream when the card offers streaming
    /// (default `true`); `false` polls.
    #[must_use]
    pub fn streaming(mut self, streaming: bool) -> Self {
        self.streaming = streaming;
        self
    }

    /// Fetches and checks the card.
    pub async fn connect(self) -> Result<A2aAgent, A2aError> {
        let fail = |reason: String| A2aError {
            card: self.card_url.clone(),
            reason,
        };
        let card_url = origin::parse(&self.card_url, "the card URL").map_err(fail)?;
        let with_headers = !self.headers.is_empty();
        let mut allowed = vec![origin::origin(&card_url)];
        for extra in &self.header_origins {
            let url = origin::parse(extra, "the header origin").map_err(fail)?;
            allowed.push(origin::origin(&url));
        }
        if with_headers {
            origin::check(&card_url, &allowed, "the card URL").map_err(fail)?;
        }
        let http = reqwest::Client::builder()
            .user_agent(concat!("toolnexus/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(self.timeout.min(Duration::from_secs(30)))
            .redirect(origin::redirects(with_headers))
            .build()
            .map_err(|e| fail(format!("could not set up the HTTP client: {e}")))?;
        let (headers, secrets) = expand_headers(&self.headers).map_err(fail)?;
        let scrub = |text: String| env::scrub(&text, &secrets);
        let response = http
            .get(&self.card_url)
            .headers(headers)
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(self.timeout)
            .send()
            .await
            .map_err(|e| fail(scrub(describe(&e, &self.card_url))))?;
        let status = response.status();
        let text = read_capped(response).await.map_err(|e| fail(scrub(e)))?;
        if !status.is_success() {
            let body: String = text.trim().chars().take(300).collect();
            return Err(fail(scrub(format!("HTTP {}: {body}", status.as_u16()))));
        }
        let card: Value =
            serde_json::from_str(&text).map_err(|e| fail(format!("the card is not JSON: {e}")))?;
        let peer = PeerCard::parse(&card, &self.card_url).map_err(fail)?;
        if with_headers {
            let endpoint =
                origin::parse(&peer.endpoint.url, "the card's endpoint").map_err(fail)?;
            origin::check(&endpoint, &allowed, "the card's endpoint").map_err(fail)?;
        }
        let streaming = self.streaming && peer.streaming;
        let transport = Peer::new(http, peer.endpoint.clone(), self.headers);
        Ok(A2aAgent(Arc::new(Shared {
            card_url: self.card_url,
            card,
            peer,
            transport,
            timeout: self.timeout,
            poll_every: self.poll_every,
            streaming,
        })))
    }
}

impl A2aAgent {
    /// Fetches the Agent Card at `card_url` and checks it, with the defaults (see
    /// [`A2aAgent::builder`] for headers and time limits).
    pub async fn connect(card_url: impl Into<String>) -> Result<A2aAgent, A2aError> {
        A2aAgent::builder(card_url).connect().await
    }

    /// An agent to configure before [`connect`](A2aAgentBuilder::connect).
    pub fn builder(card_url: impl Into<String>) -> A2aAgentBuilder {
        A2aAgentBuilder {
            card_url: card_url.into(),
            headers: Vec::new(),
            header_origins: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            poll_every: DEFAULT_POLL_EVERY,
            streaming: true,
        }
    }

    /// The card's `name` (the prefix of the tools' names, before sanitizing).
    pub fn name(&self) -> &str {
        &self.0.peer.name
    }

    /// The card's `description`.
    pub fn description(&self) -> &str {
        &self.0.peer.description
    }

    /// The card, as fetched.
    pub fn card(&self) -> &Value {
        &self.0.card
    }

    /// The JSON-RPC endpoint the calls go to.
    pub fn endpoint(&self) -> &str {
        &self.0.peer.endpoint.url
    }

    /// The A2A protocol version spoken with the agent: `"1.0"` or `"0.3"`.
    pub fn protocol_version(&self) -> &'static str {
        match self.0.peer.endpoint.dialect {
            Dialect::V1 => "1.0",
            Dialect::V03 => "0.3",
        }
    }

    /// Whether calls follow their task over the event stream (the card offers streaming
    /// and [`A2aAgentBuilder::streaming`] is on) rather than by polling.
    pub fn is_streaming(&self) -> bool {
        self.0.streaming
    }

    /// One tool per skill of the card, in the card's order.
    pub fn tools(&self) -> Vec<Tool> {
        self.0
            .peer
            .skills
            .iter()
            .map(|skill| skill_tool(&self.0, skill))
            .collect()
    }
}

/// The schema of every skill's tool: one required string, the task.
pub(crate) fn task_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "task": {
                "type": "string",
                "description": "The task to send to the agent, in natural language."
            }
        },
        "required": ["task"],
        "additionalProperties": false
    })
}

fn skill_tool(shared: &Arc<Shared>, skill: &Skill) -> Tool {
    let name = format!(
        "{}_{}",
        sanitize_name(&shared.peer.name),
        sanitize_name(&skill.id)
    );
    let label = name.clone();
    let shared = Arc::clone(shared);
    Tool::from_handler(
        name,
        skill.description.clone(),
        task_schema(),
        SOURCE,
        Box::new(move |args, ctx| match args.into_value(&label) {
            Ok(args) => {
                let shared = Arc::clone(&shared);
                Dispatch::Future(Box::pin(
                    async move { call::execute(&shared, args, ctx).await },
                ))
            }
            Err(error) => Dispatch::Ready(error.into()),
        }),
    )
}

//! The runtime's values: [`Handle`]s and their [`HandleState`], [`Budget`]s and the
//! [`Limit`] that stopped a run, inbox items, and the [`TaskResult`] every wait gives.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::tool::request::Request;

/// A live agent in a [`Runtime`](super::Runtime): a capability, by its deterministic,
/// parent-scoped id (`root/lead.1/explore.2`). Post to and wake what you hold; wait for
/// what you spawned.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle(pub(crate) Arc<str>);

impl Handle {
    /// The handle's id path, `/`-separated.
    pub fn id(&self) -> &str {
        &self.0
    }

    /// The id path's segments (`["root", "lead.1"]`), as a suspension's `data.path`
    /// carries them.
    pub fn path(&self) -> Vec<String> {
        self.0.split('/').map(str::to_owned).collect()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Handle({})", self.0)
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a handle stands: `idle → running → (idle | suspended | closed)`, and
/// `suspended → running` only by the answer to its request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HandleState {
    /// Waiting for a wake; posts queue in its inbox.
    Idle,
    /// A turn is running.
    Running,
    /// Its turn halted on a request; only the answer moves it on.
    Suspended,
    /// Closed: accepts nothing, its last result stays readable.
    Closed,
}

impl fmt::Display for HandleState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HandleState::Idle => "idle",
            HandleState::Running => "running",
            HandleState::Suspended => "suspended",
            HandleState::Closed => "closed",
        })
    }
}

/// The closed vocabulary of a [`TaskResult`]'s status, spelled as the contract spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    /// The agent gave its final answer.
    Done,
    /// The agent's turn halted on a request ([`TaskResult::pending`]).
    Pending,
    /// A limit stopped it ([`TaskResult::limit`] names which).
    Incomplete,
    /// [`Runtime::interrupt`](super::Runtime::interrupt) aborted its turn.
    Interrupted,
    /// The handle was closed.
    Closed,
    /// A [`wait`](super::Runtime::wait) timed out; the agent runs on.
    Timeout,
    /// The run failed (the model, or the runtime); [`TaskResult::text`] says how.
    Error,
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = serde_json::to_value(self).ok();
        f.write_str(s.as_ref().and_then(|v| v.as_str()).unwrap_or("error"))
    }
}

/// The budget dimension that stopped a run, spelled as the contract's `Budget` fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Limit {
    /// Model turns within one wake ([`Budget::max_turns`]).
    #[serde(rename = "maxTurns")]
    MaxTurns,
    /// Tokens, across the tree ([`Budget::max_tokens`]).
    #[serde(rename = "maxTokens")]
    MaxTokens,
    /// Tool calls, across the tree ([`Budget::max_tool_calls`]).
    #[serde(rename = "maxToolCalls")]
    MaxToolCalls,
    /// Wall time since spawn ([`Budget::max_wall_ms`]).
    #[serde(rename = "maxWallMs")]
    MaxWallMs,
    /// How deep the tree may grow ([`Budget::max_depth`]).
    #[serde(rename = "maxDepth")]
    MaxDepth,
    /// How many children one handle may spawn ([`Budget::max_children`]).
    #[serde(rename = "maxChildren")]
    MaxChildren,
    /// Running children per parent ([`Budget::max_concurrent`]).
    #[serde(rename = "maxConcurrent")]
    MaxConcurrent,
    /// A [`wait`](super::Runtime::wait) ran out of time.
    #[serde(rename = "timeout")]
    Timeout,
    /// The agent's [completion gate](super::Completion) did not pass in its attempts.
    #[serde(rename = "completion")]
    Completion,
}

impl Limit {
    /// The contract's spelling (`maxTokens`).
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::MaxTurns => "maxTurns",
            Limit::MaxTokens => "maxTokens",
            Limit::MaxToolCalls => "maxToolCalls",
            Limit::MaxWallMs => "maxWallMs",
            Limit::MaxDepth => "maxDepth",
            Limit::MaxChildren => "maxChildren",
            Limit::MaxConcurrent => "maxConcurrent",
            Limit::Timeout => "timeout",
            Limit::Completion => "completion",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A hierarchical budget. Unset dimensions inherit (the pools: tokens, tool calls) or
/// take the runtime's defaults ([`DEFAULT_MAX_TURNS`], [`DEFAULT_MAX_CONCURRENT`],
/// [`DEFAULT_MAX_DEPTH`]). At spawn a child's pools are carved as `min(own, parent's
/// remaining)`; every turn's usage drains the pools of the handle and all its ancestors.
/// Money is left out: convert usage to cost in the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Budget {
    /// Model turns per wake.
    pub max_turns: Option<u32>,
    /// Tokens this handle and its subtree may spend.
    pub max_tokens: Option<u64>,
    /// Tool calls this handle and its subtree may make.
    pub max_tool_calls: Option<u64>,
    /// Milliseconds from spawn after which no turn starts (nor continues).
    pub max_wall_ms: Option<u64>,
    /// Children this handle may spawn.
    pub max_children: Option<u32>,
    /// Children of this handle that may run at once (more wakes queue, first come first
    /// served).
    pub max_concurrent: Option<u32>,
    /// The depth below which this handle may not spawn.
    pub max_depth: Option<u32>,
}

/// Model turns per wake when the budget does not say.
pub const DEFAULT_MAX_TURNS: u32 = 6;
/// Running children per parent when the budget does not say.
pub const DEFAULT_MAX_CONCURRENT: u32 = 8;
/// Tree depth when the budget does not say.
pub const DEFAULT_MAX_DEPTH: u32 = 3;

impl Budget {
    /// An empty budget (everything inherited or defaulted).
    pub fn new() -> Self {
        Budget::default()
    }
    /// Sets [`max_turns`](Budget::max_turns).
    #[must_use]
    pub fn max_turns(mut self, n: u32) -> Self {
        self.max_turns = Some(n);
        self
    }
    /// Sets [`max_tokens`](Budget::max_tokens).
    #[must_use]
    pub fn max_tokens(mut self, n: u64) -> Self {
        self.max_tokens = Some(n);
        self
    }
    /// Sets [`max_tool_calls`](Budget::max_tool_calls).
    #[must_use]
    pub fn max_tool_calls(mut self, n: u64) -> Self {
        self.max_tool_calls = Some(n);
        self
    }
    /// Sets [`max_wall_ms`](Budget::max_wall_ms).
    #[must_use]
    pub fn max_wall_ms(mut self, ms: u64) -> Self {
        self.max_wall_ms = Some(ms);
        self
    }
    /// Sets [`max_children`](Budget::max_children).
    #[must_use]
    pub fn max_children(mut self, n: u32) -> Self {
        self.max_children = Some(n);
        self
    }
    /// Sets [`max_concurrent`](Budget::max_concurrent).
    #[must_use]
    pub fn max_concurrent(mut self, n: u32) -> Self {
        self.max_concurrent = Some(n);
        self
    }
    /// Sets [`max_depth`](Budget::max_depth).
    #[must_use]
    pub fn max_depth(mut self, n: u32) -> Self {
        self.max_depth = Some(n);
        self
    }

    /// `over`'s set fields over this budget's.
    pub(crate) fn merged(self, over: Budget) -> Budget {
        Budget {
            max_turns: over.max_turns.or(self.max_turns),
            max_tokens: over.max_tokens.or(self.max_tokens),
            max_tool_calls: over.max_tool_calls.or(self.max_tool_calls),
            max_wall_ms: over.max_wall_ms.or(self.max_wall_ms),
            max_children: over.max_children.or(self.max_children),
            max_concurrent: over.max_concurrent.or(self.max_concurrent),
            max_depth: over.max_depth.or(self.max_depth),
        }
    }
}

/// One unsolicited delivery: who sent it (a handle path, or `external`), on which
/// channel (`peer`, `timer`, `external`, …), and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxItem {
    /// The sender: a handle's id path, `clock` for a timer, or `external`.
    pub from: String,
    /// The channel it came on; `timer` items coalesce into one counted entry.
    pub channel: String,
    /// What it says.
    pub text: String,
}

impl InboxItem {
    /// An item from `from` on `channel`.
    pub fn new(
        from: impl Into<String>,
        channel: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        InboxItem {
            from: from.into(),
            channel: channel.into(),
            text: text.into(),
        }
    }

    /// An item from outside the tree (`from: external`, `channel: external`).
    pub fn external(text: impl Into<String>) -> Self {
        InboxItem::new("external", "external", text)
    }

    /// A timer tick (`from: clock`, `channel: timer`).
    pub fn tick() -> Self {
        InboxItem::new("clock", "timer", "tick")
    }
}

/// What crosses a handle boundary, whatever happened: never a panic or an `Err`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskResult {
    /// The final answer (done), the request's prompt (pending), or what went wrong.
    pub text: String,
    /// Whether it failed (every status but `done` and `pending`).
    pub is_error: bool,
    /// How it ended.
    pub status: TaskStatus,
    /// The request it halted on (status `pending`), its `data.path` the handle's path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Request>,
    /// The handle's own model turns so far (they do not roll up).
    pub turns: u32,
    /// Tokens spent by the handle and its subtree so far.
    pub total_tokens: u64,
    /// Tokens spent by the handle alone.
    pub own_tokens: u64,
    /// The limit that stopped it (status `incomplete`, or `timeout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Limit>,
}

impl TaskResult {
    /// An `error` result that did no work: `text` says why.
    pub(crate) fn error(text: impl Into<String>) -> TaskResult {
        TaskResult {
            text: text.into(),
            is_error: true,
            status: TaskStatus::Error,
            pending: None,
            turns: 0,
            total_tokens: 0,
            own_tokens: 0,
            limit: None,
        }
    }

    /// Whether the status is `done`.
    pub fn is_done(&self) -> bool {
        self.status == TaskStatus::Done
    }
}

/// A refused [`spawn`](super::Runtime::spawn), saying why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SpawnError {
    /// What went wrong.
    pub message: String,
    /// The budget dimension that refused it, if one did.
    pub limit: Option<Limit>,
}

/// A refused verb ([`post`](super::Runtime::post), [`wake`](super::Runtime::wake),
/// [`resume`](super::Runtime::resume)), saying why and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    /// The handle's inbox holds `cap` items already: the post was refused.
    #[error("inbox full: {handle} holds {cap} items (the runtime's cap)")]
    InboxFull {
        /// The handle.
        handle: String,
        /// The runtime's inbox cap.
        cap: usize,
    },
    /// The handle is closed.
    #[error("{handle} is closed")]
    Closed {
        /// The handle.
        handle: String,
    },
    /// No such handle in this runtime.
    #[error("no handle {handle} in this runtime")]
    Unknown {
        /// The id given.
        handle: String,
    },
    /// No suspended handle holds the request this answer is for.
    #[error(
        "no suspended handle holds request {answer} (pending: {listed})",
        listed = listed(.pending)
    )]
    NoSuchRequest {
        /// The answer's id.
        answer: String,
        /// The ids of the requests suspended handles do hold.
        pending: Vec<String>,
    },
}

/// The pending request ids, joined by commas (`none` for none).
fn listed(pending: &[String]) -> String {
    if pending.is_empty() {
        "none".to_owned()
    } else {
        pending.join(", ")
    }
}

/// What a [`wake`](super::Runtime::wake) did.
#[derive(Debug, Clone, PartialEq)]
pub enum Woken {
    /// A turn started.
    Started,
    /// The parent's `maxConcurrent` children are running: the wake waits its turn (first
    /// come, first served).
    Queued,
    /// A turn is already running (or the handle is suspended): the inbox drains at the
    /// next wake, and the prompt (if any) was not delivered.
    Busy,
    /// The wake was refused by the budget; the handle settled with this `incomplete`
    /// result.
    Settled(Box<TaskResult>),
}

/// A read-only view of a handle ([`Runtime::list`](super::Runtime::list),
/// [`Runtime::inspect`](super::Runtime::inspect)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandleView {
    /// The handle's id path.
    pub id: String,
    /// Its state.
    pub state: HandleState,
    /// Tokens spent by it and its subtree.
    pub tokens: u64,
    /// Items waiting in its inbox.
    pub inbox: usize,
}

//! Long-running tools as MCP tasks: the `io.modelcontextprotocol/tasks` extension
//! (SEP-2663, the form of MCP 2026-07-28 that rmcp 3.11 implements).
//!
//! A call to a tool marked [`Tool::with_task`](crate::Tool::with_task) (`#[tool(task)]`)
//! from a client that declares the extension on its request is answered at once with a
//! task (`resultType: "task"`); the tool runs in the background and the task's rows say
//! where it stands. Other clients, and other tools, get the ordinary synchronous call.
//!
//! - `tasks/get` reads the task from its backend (memory, or the run store shared by
//!   every replica): `working`, `input_required` with the tool's request as an
//!   elicitation, or the final `CallToolResult`, failure or cancellation.
//! - `tasks/update` answers the request: the tool runs again with the
//!   [`Answer`](crate::Answer), as a suspended call does.
//! - `tasks/cancel` trips the running tool's cancellation token (on whichever replica runs
//!   it: the runner renews its lease every third of it and reads the flag then).
//!
//! A runner holds its task with a lease ([`DEFAULT_TASK_LEASE`]); a `working` task whose
//! lease lapsed (its server was killed or restarted) is reported `failed`, saying so: the
//! tool is not started again behind the client's back (see the README for why).

mod backend;
mod methods;
pub(crate) mod record;
mod run;
use crate::time;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use backend::Backend;

use super::McpServer;

/// How long a task is kept after it was created, unless [`McpServer::with_task_ttl`] says
/// otherwise: 1 hour. Past it, the task is deleted and its id is unknown.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// The `pollIntervalMs` a task suggests to its client, unless
/// [`McpServer::with_task_poll_interval`] says otherwise: 1 second.
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// How long a runner holds a task without renewing it, unless
/// [`McpServer::with_task_lease`] says otherwise: 30 seconds. It renews every third of
/// it; a task whose lease lapsed is reported failed.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(30);

/// The server's tasks: where they are kept, which ones run here, and their timings.
#[derive(Clone, Debug)]
pub(super) struct Tasks {
    backend: Backend,
    /// The cancellation tokens of the tasks this process runs.
    live: Arc<Mutex<HashMap<String, CancellationToken>>>,
    /// This process's name as a runner (random).
    owner: Arc<str>,
    ttl: Duration,
    poll: Duration,
    lease: Duration,
}

impl Default for Tasks {
    fn default() -> Self {
        Tasks {
            backend: Backend::default(),
            live: Arc::default(),
            owner: uuid::Uuid::new_v4().simple().to_string().into(),
            ttl: DEFAULT_TASK_TTL,
            poll: DEFAULT_TASK_POLL_INTERVAL,
            lease: DEFAULT_TASK_LEASE,
        }
    }
}

fn ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX / 4)
}

impl Tasks {
    fn poll_ms(&self) -> u64 {
        u64::try_from(self.poll.as_millis()).unwrap_or(u64::MAX)
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl McpServer {
    /// Keeps the tasks of long-running tools in `store`'s database instead of this
    /// process's memory: every replica on the same database answers `tasks/get` for any
    /// task, and a restarted server still has them (the ones that were running are
    /// reported failed, saying why). Without it, tasks live in memory: they die with the
    /// process, and another replica does not know them.
    #[cfg(feature = "__store")]
    #[must_use]
    pub fn with_task_store<S: crate::store::RunStore>(self, store: &S) -> Self {
        let rows = crate::store::tasks::TaskRows::of(store);
        self.update(|inner| inner.tasks.backend = Backend::Store(rows))
    }

    /// How long a task is kept after its creation (its `ttlMs`; default
    /// [`DEFAULT_TASK_TTL`]). Expired tasks are swept when new ones are created.
    #[must_use]
    pub fn with_task_ttl(self, ttl: Duration) -> Self {
        self.update(|inner| inner.tasks.ttl = ttl)
    }

    /// The `pollIntervalMs` tasks suggest (default [`DEFAULT_TASK_POLL_INTERVAL`]).
    #[must_use]
    pub fn with_task_poll_interval(self, interval: Duration) -> Self {
        self.update(|inner| inner.tasks.poll = interval)
    }

    /// How long a runner holds a task without renewing it (default
    /// [`DEFAULT_TASK_LEASE`]): the longest a killed server's task stays `working`
    /// before it is reported failed, and three times the delay before a `tasks/cancel`
    /// received by another replica reaches the tool.
    #[must_use]
    pub fn with_task_lease(self, lease: Duration) -> Self {
        let lease = lease.max(Duration::from_millis(30));
        self.update(|inner| inner.tasks.lease = lease)
    }

    /// Whether any exposed tool may run as a task (then `initialize` / `server/discover`
    /// advertise the tasks extension).
    pub(super) fn serves_tasks(&self) -> bool {
        self.0
            .toolkit
            .tools()
            .iter()
            .any(|tool| tool.is_task() && self.exposes(tool.name()))
    }
}

pub(super) use methods::{cancel, get, start, update};

//! Long-running tools as MCP tasks: the `io.modelcontextprotocol/tasks` extension
//! (SEP-2663, the form of MCP 2026-07-28 that rmcp 3.11 implements).
//!
//! A call to a tool marked [`Tool::with_task`](crate::Tool::with_task) (`#[tool(task)]`)
//! from a client that declares the extension on its request is answered at once with a
//! task (`resultType: "task"`); the tool runs in the background and the task's rows say
//! where it stands. Other clients, and other tools, get the ordinary synchronous call.
//!
//! - `tasks/get` reads the task from its storage (memory, or the run store shared by
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
//!
//! A task belongs to the caller that created it (its session and principal, see
//! `caller.rs`): `tasks/*` from anyone else is answered as for an unknown id. Each caller
//! may have [`DEFAULT_MAX_TASKS_PER_CALLER`] unfinished tasks, callers with neither a
//! session nor a principal [`DEFAULT_MAX_ANONYMOUS_TASKS`] between them, and the process
//! runs at most [`DEFAULT_MAX_RUNNING_TASKS`] at once. Finished tasks are kept up to
//! [`DEFAULT_MAX_FINISHED_TASKS`] and [`DEFAULT_MAX_FINISHED_TASK_BYTES`] (the oldest go
//! first), and a timer deletes expired tasks.

mod methods;
pub(crate) mod record;
mod run;
pub(crate) mod storage;
pub(crate) use crate::time;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use storage::{Memory, TaskStorage};

use super::McpServer;

/// How long a task is kept after it was created, unless [`McpServer::task_ttl`] says
/// otherwise: 1 hour. Past it, the task is deleted and its id is unknown.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// The `pollIntervalMs` a task suggests to its client, unless
/// [`McpServer::task_poll_interval`] says otherwise: 1 second.
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// How long a runner holds a task without renewing it, unless
/// [`McpServer::task_lease`] says otherwise: 30 seconds. It renews every third of
/// it; a task whose lease lapsed is reported failed.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(30);

/// How often expired tasks (and the records of expired `requestState`s) are deleted,
/// unless [`McpServer::task_sweep_interval`] says otherwise: every minute.
pub const DEFAULT_TASK_SWEEP_INTERVAL: Duration = Duration::from_secs(60);

/// How many unfinished tasks (`working` or `input_required`) one caller (a session, a
/// principal) may have, unless [`McpServer::max_tasks_per_caller`] says otherwise: 32.
pub const DEFAULT_MAX_TASKS_PER_CALLER: usize = 32;

/// How many tasks one server process runs at once, unless
/// [`McpServer::max_running_tasks`] says otherwise: 256.
pub const DEFAULT_MAX_RUNNING_TASKS: usize = 256;

/// How many unfinished tasks the callers with neither a session nor a principal may have
/// between them (they cannot be told apart), unless
/// [`McpServer::max_anonymous_tasks`] says otherwise: 64.
pub const DEFAULT_MAX_ANONYMOUS_TASKS: usize = 64;

/// How many finished tasks (completed, failed or cancelled) are kept before their time to
/// live, unless [`McpServer::max_finished_tasks`] says otherwise: 1024. Past it, the
/// oldest finished task is deleted.
pub const DEFAULT_MAX_FINISHED_TASKS: usize = 1024;

/// How many bytes the finished tasks kept may hold between them (arguments, status
/// messages and results), unless [`McpServer::max_finished_task_bytes`] says
/// otherwise: 64 MiB. Past it, the oldest finished tasks are deleted.
pub const DEFAULT_MAX_FINISHED_TASK_BYTES: u64 = 64 * 1024 * 1024;

/// The server's tasks: where they are kept, which ones run here, and their timings.
#[derive(Clone, Debug)]
pub(super) struct Tasks {
    storage: Arc<dyn TaskStorage>,
    /// The cancellation tokens of the tasks this process runs.
    live: Arc<Mutex<HashMap<String, CancellationToken>>>,
    /// This process's name as a runner (random).
    owner: Arc<str>,
    ttl: Duration,
    poll: Duration,
    lease: Duration,
    sweep: Duration,
    max_per_caller: usize,
    max_running: usize,
    max_anonymous: usize,
    /// The bound on the finished tasks kept.
    finished: Finished,
    sweeper: Sweeper,
}

/// How many finished tasks a storage keeps, and how many bytes they may hold: past
/// either, the oldest finished are deleted (the newest one is always kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Finished {
    pub(crate) count: usize,
    pub(crate) bytes: u64,
}

impl Default for Tasks {
    fn default() -> Self {
        Tasks {
            storage: Memory::shared(),
            live: Arc::default(),
            owner: uuid::Uuid::new_v4().simple().to_string().into(),
            ttl: DEFAULT_TASK_TTL,
            poll: DEFAULT_TASK_POLL_INTERVAL,
            lease: DEFAULT_TASK_LEASE,
            sweep: DEFAULT_TASK_SWEEP_INTERVAL,
            max_per_caller: DEFAULT_MAX_TASKS_PER_CALLER,
            max_running: DEFAULT_MAX_RUNNING_TASKS,
            max_anonymous: DEFAULT_MAX_ANONYMOUS_TASKS,
            finished: Finished {
                count: DEFAULT_MAX_FINISHED_TASKS,
                bytes: DEFAULT_MAX_FINISHED_TASK_BYTES,
            },
            sweeper: Sweeper::default(),
        }
    }
}

/// Whether the sweeping timer of one server runs. A server rebuilt by a `with_…` method
/// starts its own (the old one stops with the old server).
#[derive(Debug, Default)]
struct Sweeper(AtomicBool);

impl Clone for Sweeper {
    fn clone(&self) -> Self {
        Sweeper::default()
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

    /// Takes one of this process's runner places for task `id`: its cancellation token,
    /// `None` when the task already runs here, or `Err(limit)` when every place is taken.
    fn reserve(&self, id: &str) -> Result<Option<CancellationToken>, usize> {
        let mut live = self.live();
        if live.contains_key(id) {
            return Ok(None);
        }
        if live.len() >= self.max_running {
            return Err(self.max_running);
        }
        let token = CancellationToken::new();
        live.insert(id.to_owned(), token.clone());
        Ok(Some(token))
    }

    /// Gives back a place taken for a task that did not start after all.
    fn release(&self, id: &str) {
        self.live().remove(id);
    }

    /// Deletes the oldest finished tasks past the bound (after a task ended).
    async fn trim_finished(&self) {
        match self.storage.trim(self.finished).await {
            Ok(0) => {}
            Ok(trimmed) => tracing::debug!(trimmed, "the oldest finished tasks were deleted"),
            Err(why) => tracing::warn!(%why, "finished tasks were not trimmed"),
        }
    }
}

impl McpServer {
    /// Keeps the tasks in `tasks` and the spent states in `spent` (a run store's,
    /// shared by the replicas on its database: `McpServer::store`).
    #[cfg(feature = "__store")]
    pub(crate) fn keep_in(
        self,
        tasks: Arc<dyn TaskStorage>,
        spent: Arc<dyn crate::mcp::server::spent::SpentStorage>,
    ) -> Self {
        self.update(|inner| {
            inner.tasks.storage = tasks;
            inner.spent = spent;
        })
    }

    /// How long a task is kept after its creation (its `ttlMs`; default
    /// [`DEFAULT_TASK_TTL`]). Expired tasks are deleted by a timer (see
    /// [`McpServer::task_sweep_interval`]).
    #[must_use]
    pub fn task_ttl(self, ttl: Duration) -> Self {
        self.update(|inner| inner.tasks.ttl = ttl)
    }

    /// How often expired tasks, and the records of spent `requestState`s that have
    /// expired, are deleted (default [`DEFAULT_TASK_SWEEP_INTERVAL`]). The timer starts
    /// with the server's first task or retry.
    #[must_use]
    pub fn task_sweep_interval(self, every: Duration) -> Self {
        let every = every.max(Duration::from_millis(10));
        self.update(|inner| inner.tasks.sweep = every)
    }

    /// How many unfinished tasks (`working` or `input_required`) one caller may have
    /// (default [`DEFAULT_MAX_TASKS_PER_CALLER`]); past it, a call that would start a
    /// task is refused with a JSON-RPC error (`data.reason: "task_limit"`) and the tool
    /// does not run. A caller is a session, an authenticated principal (see
    /// [`McpServer::principal`]), or both; calls with neither (stateless HTTP, or
    /// MCP 2026-07-28, without a principal) share [`McpServer::max_anonymous_tasks`].
    #[must_use]
    pub fn max_tasks_per_caller(self, limit: usize) -> Self {
        self.update(|inner| inner.tasks.max_per_caller = limit)
    }

    /// How many unfinished tasks the callers with neither a session nor a principal may
    /// have between them (default [`DEFAULT_MAX_ANONYMOUS_TASKS`]): such callers cannot be
    /// told apart, so they share one allowance. Past it, a call from one of them that would
    /// start a task is refused with a JSON-RPC error (`data.reason: "task_limit"`,
    /// `data.scope: "anonymous"`) and the tool does not run. Name the principal
    /// ([`McpServer::principal`]) to give each authenticated caller a limit of its own.
    #[must_use]
    pub fn max_anonymous_tasks(self, limit: usize) -> Self {
        self.update(|inner| inner.tasks.max_anonymous = limit)
    }

    /// How many finished tasks (completed, failed or cancelled) are kept before their time
    /// to live (default [`DEFAULT_MAX_FINISHED_TASKS`]): when a task ends past it, the
    /// finished tasks that ended first are deleted, and their ids read as unknown. The task
    /// that ended last is always kept. With [`McpServer::store`] the bound is the
    /// store's, shared by every replica on it.
    #[must_use]
    pub fn max_finished_tasks(self, limit: usize) -> Self {
        self.update(|inner| inner.tasks.finished.count = limit)
    }

    /// How many bytes the finished tasks kept may hold between them: their arguments,
    /// status messages and results (default [`DEFAULT_MAX_FINISHED_TASK_BYTES`]). When a
    /// task ends past it, the finished tasks that ended first are deleted until the rest
    /// fit; the task that ended last is always kept.
    #[must_use]
    pub fn max_finished_task_bytes(self, bytes: u64) -> Self {
        self.update(|inner| inner.tasks.finished.bytes = bytes)
    }

    /// How many tasks this process runs at once (default [`DEFAULT_MAX_RUNNING_TASKS`]);
    /// past it, a call that would start a task, or an answer that would run one again, is
    /// refused with a JSON-RPC error (`data.reason: "task_limit"`) until one ends.
    #[must_use]
    pub fn max_running_tasks(self, limit: usize) -> Self {
        self.update(|inner| inner.tasks.max_running = limit)
    }

    /// Starts the timer that deletes expired tasks and the records of expired spent
    /// states, once per server (it stops when the server is dropped). Without a Tokio
    /// runtime it does nothing.
    pub(super) fn keep_swept(&self) {
        let tasks = &self.0.tasks;
        if tasks.sweeper.0.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tasks.sweeper.0.store(false, Ordering::Release);
            return;
        };
        let server = Arc::downgrade(&self.0);
        let every = tasks.sweep;
        runtime.spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(inner) = server.upgrade() else {
                    return;
                };
                match inner.tasks.storage.sweep().await {
                    Ok(0) => {}
                    Ok(swept) => tracing::debug!(swept, "expired tasks deleted"),
                    Err(why) => tracing::warn!(%why, "expired tasks were not swept"),
                }
                if let Err(why) = inner.spent.sweep().await {
                    tracing::warn!(%why, "spent request states were not swept");
                }
            }
        });
    }

    /// The `pollIntervalMs` tasks suggest (default [`DEFAULT_TASK_POLL_INTERVAL`]).
    #[must_use]
    pub fn task_poll_interval(self, interval: Duration) -> Self {
        self.update(|inner| inner.tasks.poll = interval)
    }

    /// How long a runner holds a task without renewing it (default
    /// [`DEFAULT_TASK_LEASE`]): the longest a killed server's task stays `working`
    /// before it is reported failed, and three times the delay before a `tasks/cancel`
    /// received by another replica reaches the tool.
    #[must_use]
    pub fn task_lease(self, lease: Duration) -> Self {
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

//! What one caller, and all of them together, may hold of a served agent: runs in
//! flight, tasks that have not ended, and the tasks (and conversations) kept at all.
//!
//! A caller is its principal ([`A2aServer::principal`]); the callers with none are
//! one caller together, so that anonymous traffic cannot take more than one caller's
//! share.

use super::A2aServer;
use crate::a2a::wire::{RpcError, codes};

/// How many runs may be in flight in this process at once unless configured: 64.
pub const DEFAULT_MAX_RUNS: usize = 64;
/// How many runs one caller may have in flight in this process at once unless
/// configured: 8.
pub const DEFAULT_MAX_RUNS_PER_CALLER: usize = 8;
/// How many tasks that have not ended (submitted, working, or waiting for an answer) one
/// caller may have unless configured: 32.
pub const DEFAULT_MAX_UNFINISHED_TASKS_PER_CALLER: usize = 32;
/// How many tasks are kept at most unless configured: 10 000.
pub const DEFAULT_MAX_STORED_TASKS: usize = 10_000;
/// How many bytes of tasks (their JSON, the halted runs they wait on, and the
/// conversations' transcripts) are kept at most unless configured: 64 MiB.
pub const DEFAULT_MAX_STORED_BYTES: u64 = 64 * 1024 * 1024;

/// The caps, as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) runs: usize,
    pub(crate) runs_per_caller: usize,
    pub(crate) unfinished_per_caller: usize,
    pub(crate) stored_tasks: usize,
    pub(crate) stored_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            runs: DEFAULT_MAX_RUNS,
            runs_per_caller: DEFAULT_MAX_RUNS_PER_CALLER,
            unfinished_per_caller: DEFAULT_MAX_UNFINISHED_TASKS_PER_CALLER,
            stored_tasks: DEFAULT_MAX_STORED_TASKS,
            stored_bytes: DEFAULT_MAX_STORED_BYTES,
        }
    }
}

/// The error a request over a limit gets: `-32000`, saying which limit, its setter and
/// what to do, with the limit's `scope` and value in the `ErrorInfo`'s metadata.
pub(crate) fn refused(message: String, scope: &'static str, limit: u64) -> RpcError {
    RpcError::new(codes::LIMIT_REACHED, format!("Limit reached: {message}"))
        .with_metadata("scope", scope)
        .with_metadata("limit", limit.to_string())
}

/// The caller, as a refusal names it.
pub(crate) fn who(owner: Option<&str>) -> String {
    match owner {
        Some(principal) => format!("principal `{principal}`"),
        None => "the callers without a principal (counted together)".to_owned(),
    }
}

impl A2aServer {
    /// How many runs may be in flight in this process at once (default
    /// [`DEFAULT_MAX_RUNS`]): a message that would start or resume one more gets
    /// `-32000` and starts nothing. A task waiting for an answer is not in flight.
    #[must_use]
    pub fn max_runs(self, runs: usize) -> A2aServer {
        self.update(|c| c.limits.runs = runs)
    }

    /// How many runs one caller (a principal, or all callers without one together) may
    /// have in flight in this process at once (default [`DEFAULT_MAX_RUNS_PER_CALLER`]);
    /// over it, `-32000`.
    #[must_use]
    pub fn max_runs_per_caller(self, runs: usize) -> A2aServer {
        self.update(|c| c.limits.runs_per_caller = runs)
    }

    /// How many tasks that have not ended (submitted, working, `input-required`,
    /// `auth-required`) one caller (a principal, or all callers without one together)
    /// may have (default [`DEFAULT_MAX_UNFINISHED_TASKS_PER_CALLER`]). A message that
    /// would start one more gets `-32000` and starts nothing; answering or cancelling a
    /// waiting task makes room. Counted in the store, so across replicas.
    #[must_use]
    pub fn max_unfinished_tasks_per_caller(self, tasks: usize) -> A2aServer {
        self.update(|c| c.limits.unfinished_per_caller = tasks)
    }

    /// How many tasks are kept at most, all callers together (default
    /// [`DEFAULT_MAX_STORED_TASKS`]). Before a task starts, the tasks that ended (and
    /// conversations) are deleted, the least recently changed first, until there is room;
    /// when only tasks that have not ended are left, the message gets `-32000`. This
    /// bounds the store besides the time to live ([`task_ttl`](A2aServer::task_ttl)).
    #[must_use]
    pub fn max_stored_tasks(self, tasks: usize) -> A2aServer {
        self.update(|c| c.limits.stored_tasks = tasks)
    }

    /// How many bytes of tasks are kept at most, all callers together: their JSON, the
    /// halted runs they wait on and the conversations' transcripts (default
    /// [`DEFAULT_MAX_STORED_BYTES`]). Room is made as for
    /// [`max_stored_tasks`](A2aServer::max_stored_tasks): what ended goes
    /// first, the least recently changed first; a task that has not ended is never
    /// deleted to make room, and a new one is refused (`-32000`) instead.
    #[must_use]
    pub fn max_stored_bytes(self, bytes: u64) -> A2aServer {
        self.update(|c| c.limits.stored_bytes = bytes)
    }
}

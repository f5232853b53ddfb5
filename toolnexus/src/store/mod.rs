//! Durable runs: every model turn and every settled tool call recorded in a database, so
//! a run survives its process, a parked run is answered from any worker, and a settled
//! call never runs twice.
//!
//! One store, [`RunStore`], over two backends behind cargo features:
//! [`RunStore::sqlite`] (feature `sqlite`, one file in WAL mode, or `:memory:`; the SQLite
//! library is bundled, nothing to install) and [`RunStore::postgres`] (feature
//! `postgres`, for many workers on many machines). Both open
//! with their schema migrated to the newest version, and refuse a database written by a
//! newer toolnexus.
//!
//! ```no_run
//! # #[cfg(feature = "sqlite")]
//! # async fn demo(model: toolnexus::ScriptedModel, toolkit: toolnexus::Toolkit) -> Result<(), toolnexus::store::StoreError> {
//! use toolnexus::Client;
//! use toolnexus::store::RunStore;
//!
//! let store = RunStore::sqlite("runs.db").await?;
//! let client = Client::new(model).store(store.clone());
//! let run = client.run("Deploy the service", &toolkit).await;      // checkpointed
//! for waiting in store.pending().await? {                          // across runs
//!     println!("{} asks: {}", waiting.run_id, waiting.prompt);
//! }
//! let recovered = client.recover(&toolkit).await?;                 // runs whose worker died
//! # let _ = (run, recovered); Ok(()) }
//! ```
//!
//! # The guarantee
//!
//! Before a tool call runs, the store records that it started (a fresh turn's calls all
//! at once, with the turn's checkpoint); after it, its result, in
//! one transaction with its place in the transcript. A call whose result is recorded is
//! **settled: it runs exactly once**, whatever crashes later; recovery feeds its recorded
//! result to the model. A call that was running when its worker died (started, not
//! settled) **runs again, at least once**, with the same call id:
//! [`Context::idempotency_key`](crate::Context::idempotency_key) is the same on every
//! attempt, so a tool can dedupe against the system it changes. A model turn is recorded
//! as soon as it asks for tools; a crash during the model call itself asks the model again.
//!
//! One worker drives a run at a time: it holds the run's lease, renewed while it runs
//! ([`Client::lease`](crate::Client::lease), 30 s by default). Another worker that tries
//! gets [`StoreError::HeldByAnotherWorker`]; once the lease expires (its worker died),
//! [`Client::recover`](crate::Client::recover) on any worker takes the run over.
//!
//! # Requests several runs wait on
//!
//! Runs that make the same call ask the same request (an approval's id is a digest of
//! the call): each parks on its own. [`Client::answer`](crate::Client::answer) answers by
//! the request id alone while one run waits on it; when several do, it refuses with
//! [`StoreError::AmbiguousRequest`], and [`AnswerRequest::run`](crate::agent::AnswerRequest::run)
//! names the run ([`PendingRequest::run_id`]).
//!
//! # Retention
//!
//! The store deletes nothing by itself. [`RunStore::purge`] deletes the runs that
//! finished before a given age, with their requests, the MCP and A2A tasks that ended
//! before it, and the sessions (a UI's threads among them) nobody wrote to since; runs
//! still running or parked are kept whatever their age. [`RunStore::purge_unanswered`]
//! deletes, on an age of its own, the parked runs nobody answered. Call them on a timer
//! with [`DEFAULT_RETENTION`] (30 days) or ages of your own:
//!
//! ```no_run
//! # async fn demo(store: toolnexus::store::RunStore) -> Result<(), toolnexus::store::StoreError> {
//! use std::time::Duration;
//! use toolnexus::store::DEFAULT_RETENTION;
//! let purged = store.purge(DEFAULT_RETENTION).await?;
//! println!("{} runs, {} tasks, {} sessions deleted", purged.runs, purged.tasks, purged.sessions);
//! let abandoned = store.purge_unanswered(Duration::from_secs(90 * 86_400)).await?;
//! println!("{} parked runs nobody answered deleted", abandoned.parked);
//! # Ok(()) }
//! ```

mod a2a_tasks;
mod appended;
mod db;
mod handles;
mod inbox;
mod journal;
pub(crate) mod mcp_tasks;
#[cfg(feature = "postgres")]
mod postgres;
mod retention;
mod runs;
mod schema;
mod sessions;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use crate::agent::journal::session::Session;
pub use crate::agent::journal::{DEFAULT_LEASE, StoreError};
pub use inbox::{PendingPage, PendingRequest};
pub use retention::{DEFAULT_RETENTION, Purged};

use crate::agent::run::RunResult;
use runs::SqlEngine;

/// The largest page [`RunStore::pending`] reads at once.
const PAGE: usize = 500;

/// The run store: the runs, their requests, sessions and task rows in one database,
/// SQLite ([`RunStore::sqlite`]) or PostgreSQL ([`RunStore::postgres`]). Hand one to
/// [`Client::store`](crate::Client::store); keep a clone to list what waits.
/// Cheap to clone; clones share the connections.
///
/// Its methods here are the store's reading side; what the loop writes goes through the
/// [`Journal`](crate::agent::Journal) it also is.
#[derive(Clone, Debug)]
pub struct RunStore {
    engine: SqlEngine,
}

impl RunStore {
    /// The store's engine, whichever the database.
    pub(crate) fn engine(&self) -> &SqlEngine {
        &self.engine
    }

    /// Every request waiting for a human, across runs, oldest first. Requests past their
    /// `expires_at` are answered as expired on the way (whoever looks first), their runs
    /// left to [`Client::recover`](crate::Client::recover), and not listed.
    pub async fn pending(&self) -> Result<Vec<PendingRequest>, StoreError> {
        let mut all = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.engine.pending_page(PAGE, after.as_deref()).await?;
            all.extend(page.requests);
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// Up to `limit` waiting requests, oldest first, after the cursor `after` (the
    /// [`next`](PendingPage::next) of the page before; `None` for the first page).
    pub async fn pending_page(
        &self,
        limit: usize,
        after: Option<&str>,
    ) -> Result<PendingPage, StoreError> {
        self.engine.pending_page(limit, after).await
    }

    /// The result run `run_id` ended with (for a parked run, the result it halted with);
    /// `None` while it is still running. [`StoreError::UnknownRun`] for an id never stored.
    pub async fn result(&self, run_id: &str) -> Result<Option<RunResult>, StoreError> {
        self.engine.result(run_id).await
    }

    /// Deletes what ended more than `older_than` ago, in one transaction: finished runs
    /// (with their requests), MCP tasks that completed, failed or were cancelled, and
    /// served A2A tasks that completed, failed, were canceled or rejected (with the A2A
    /// conversations last continued before then), and sessions last written before then
    /// (with all their messages: a UI's threads are sessions too), and durable agent
    /// runtimes whose handles were all last written before then, none running or
    /// suspended (as a session, an idle runtime nobody woke for that long is deleted), by
    /// the database's clock; also tasks and conversations past their time to live. Runs
    /// still running or
    /// parked, and tasks still working or waiting, are kept whatever their age (parked
    /// runs have [`RunStore::purge_unanswered`]). The store deletes nothing by itself: call
    /// this on a timer, with [`DEFAULT_RETENTION`] (30 days) or an age of your own. Gives
    /// back how many of each it deleted.
    pub async fn purge(&self, older_than: std::time::Duration) -> Result<Purged, StoreError> {
        self.engine.purge(older_than).await
    }

    /// Deletes, in one transaction, the runs parked (waiting for a human) since more than
    /// `older_than` ago, by the database's clock, with their requests: the questions
    /// nobody answered, which would otherwise wait forever (a request with an
    /// `expires_at` is answered as expired instead, see [`RunStore::pending`]). Their ids
    /// are then unknown ([`StoreError::UnknownRun`]), and an answer to one of their
    /// requests finds nothing waiting. Durable agent runtimes waiting on a request since
    /// then (a suspended handle, none running, nothing written since) go with them, all
    /// their handles ([`Purged::agent_runtimes`]). Gives back how many runs
    /// ([`Purged::parked`]), requests and runtimes it deleted.
    pub async fn purge_unanswered(
        &self,
        older_than: std::time::Duration,
    ) -> Result<Purged, StoreError> {
        self.engine.purge_unanswered(older_than).await
    }
}

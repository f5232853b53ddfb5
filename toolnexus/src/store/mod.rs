//! Durable runs: every model turn and every settled tool call recorded in a database, so
//! a run survives its process, a parked run is answered from any worker, and a settled
//! call never runs twice.
//!
//! Two backends, behind cargo features: [`SqliteStore`] (feature `sqlite`, one file in
//! WAL mode, or `:memory:`; the SQLite library is bundled, nothing to install) and
//! [`PostgresStore`] (feature `postgres`, for many workers on many machines). Both open
//! with their schema migrated to the newest version, and refuse a database written by a
//! newer toolnexus.
//!
//! ```no_run
//! # #[cfg(feature = "sqlite")]
//! # async fn demo(model: toolnexus::ScriptedModel, toolkit: toolnexus::Toolkit) -> Result<(), toolnexus::store::StoreError> {
//! use toolnexus::Client;
//! use toolnexus::store::SqliteStore;
//!
//! let store = SqliteStore::open("runs.db").await?;
//! let client = Client::new(model).with_store(store.clone());
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
//! [`StoreError::AmbiguousRequest`], and [`Client::answer_run`](crate::Client::answer_run)
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
//! # async fn demo(store: impl toolnexus::store::RunStore) -> Result<(), toolnexus::store::StoreError> {
//! use std::time::Duration;
//! use toolnexus::store::{DEFAULT_RETENTION, RunStore};
//! let purged = store.purge(DEFAULT_RETENTION).await?;
//! println!("{} runs, {} tasks, {} sessions deleted", purged.runs, purged.tasks, purged.sessions);
//! let abandoned = store.purge_unanswered(Duration::from_secs(90 * 86_400)).await?;
//! println!("{} parked runs nobody answered deleted", abandoned.parked);
//! # Ok(()) }
//! ```

mod a2a_tasks;
mod appended;
mod db;
mod inbox;
mod journal;
#[cfg(feature = "postgres")]
mod postgres;
mod reads;
mod retention;
mod runs;
mod schema;
mod sessions;
#[cfg(feature = "sqlite")]
mod sqlite;
pub(crate) mod tasks;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;

pub use crate::agent::journal::session::Session;
pub use crate::agent::journal::{DEFAULT_LEASE, StoreError};
pub use inbox::{PendingPage, PendingRequest};
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use retention::{DEFAULT_RETENTION, Purged};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use crate::agent::journal::Journal;
use crate::agent::run::RunResult;
use runs::Engine;

/// The largest page [`RunStore::pending`] reads at once.
const PAGE: usize = 500;

/// A database that keeps runs: [`SqliteStore`] or [`PostgresStore`]. Hand one to
/// [`Client::with_store`](crate::Client::with_store); keep a clone to list what waits.
///
/// The trait is sealed (the two backends share one engine); its methods are the store's
/// reading side, which each store also has as its own methods (so `store.pending()` needs
/// no import). What the loop writes goes through the journal every store also is.
pub trait RunStore: Journal + sealed::Sealed {
    /// Every request waiting for a human, across runs, oldest first. Requests past their
    /// `expires_at` are answered as expired on the way (whoever looks first), their runs
    /// left to [`Client::recover`](crate::Client::recover), and not listed.
    fn pending(&self) -> BoxFuture<'_, Result<Vec<PendingRequest>, StoreError>> {
        async move {
            let mut all = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let page = self.engine().pending_page(PAGE, after.as_deref()).await?;
                all.extend(page.requests);
                match page.next {
                    Some(next) => after = Some(next),
                    None => return Ok(all),
                }
            }
        }
        .boxed()
    }

    /// Up to `limit` waiting requests, oldest first, after the cursor `after` (the
    /// [`next`](PendingPage::next) of the page before; `None` for the first page).
    fn pending_page<'a>(
        &'a self,
        limit: usize,
        after: Option<&'a str>,
    ) -> BoxFuture<'a, Result<PendingPage, StoreError>> {
        self.engine().pending_page(limit, after).boxed()
    }

    /// The result run `run_id` ended with (for a parked run, the result it halted with);
    /// `None` while it is still running. [`StoreError::UnknownRun`] for an id never stored.
    fn result<'a>(
        &'a self,
        run_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<RunResult>, StoreError>> {
        self.engine().result(run_id).boxed()
    }

    /// Deletes what ended more than `older_than` ago, in one transaction: finished runs
    /// (with their requests), MCP tasks that completed, failed or were cancelled, and
    /// served A2A tasks that completed, failed, were canceled or rejected (with the A2A
    /// conversations last continued before then), and sessions last written before then
    /// (with all their messages: a UI's threads are sessions too), by the database's
    /// clock; also tasks and conversations past their time to live. Runs still running or
    /// parked, and tasks still working or waiting, are kept whatever their age (parked
    /// runs have [`RunStore::purge_unanswered`]). The store deletes nothing by itself: call
    /// this on a timer, with [`DEFAULT_RETENTION`] (30 days) or an age of your own. Gives
    /// back how many of each it deleted.
    fn purge(&self, older_than: std::time::Duration) -> BoxFuture<'_, Result<Purged, StoreError>> {
        self.engine().purge(older_than).boxed()
    }

    /// Deletes, in one transaction, the runs parked (waiting for a human) since more than
    /// `older_than` ago, by the database's clock, with their requests: the questions
    /// nobody answered, which would otherwise wait forever (a request with an
    /// `expires_at` is answered as expired instead, see [`RunStore::pending`]). Their ids
    /// are then unknown ([`StoreError::UnknownRun`]), and an answer to one of their
    /// requests finds nothing waiting. Gives back how many runs ([`Purged::parked`]) and
    /// requests it deleted.
    fn purge_unanswered(
        &self,
        older_than: std::time::Duration,
    ) -> BoxFuture<'_, Result<Purged, StoreError>> {
        self.engine().purge_unanswered(older_than).boxed()
    }
}

mod sealed {
    /// Only this crate's stores: they share [`Engine`](super::Engine).
    pub trait Sealed {
        fn engine(&self) -> &super::Engine;
    }
}

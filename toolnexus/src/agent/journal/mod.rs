//! Durability as a layer under the loop: the [`Journal`] a run store implements, the
//! record one durable run writes through it, and the client's entry points that take a
//! run up from the store (answering, recovering, sessions).
//!
//! The loop knows only this trait: a run with no store passes `None` where a durable one
//! passes its [`RunRecord`](record::RunRecord), and nothing here names a database.
//! `toolnexus::store` implements the trait for its backends, as sqlx's drivers implement
//! its backend seam: one object-safe trait whose methods return boxed futures.

// Without a store feature nothing implements the trait, and the record is never made:
// the loop still carries an `Option` of it, always `None`.
#![cfg_attr(not(feature = "__store"), allow(dead_code, unreachable_pub))]

#[cfg(feature = "__store")]
pub(crate) mod durable;
pub(crate) mod error;
pub(crate) mod record;
#[cfg(feature = "__store")]
pub(crate) mod session;

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::agent::message::Message;
use crate::agent::run::RunResult;
use crate::tool::request::{Answer, Request};

pub use error::StoreError;

/// The default [`Client::lease`](crate::Client::lease).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// A client's store settings ([`Client::with_store`](crate::Client::with_store)).
#[derive(Clone, Debug)]
pub(crate) struct Durable {
    pub(crate) store: std::sync::Arc<dyn Journal>,
    pub(crate) lease: Duration,
    pub(crate) run_id: Option<String>,
}

/// What a [`Journal`] method gives back, once the store answered.
pub(crate) type Stored<'a, T> = BoxFuture<'a, Result<T, StoreError>>;

/// Where durable runs are kept: the seam between the loop and a run store.
///
/// [`Client::with_store`](crate::Client::with_store) takes any journal; the loop writes
/// to it at its three points (a model turn that asked for tools, a call about to run, a
/// call's result), renews the run's lease while it drives it, records how the run ended,
/// and takes runs up from it again (answering a parked run, recovering an orphaned one,
/// continuing a session).
///
/// The trait is sealed: the run stores of `toolnexus::store` (`SqliteStore`,
/// `PostgresStore`, features `sqlite` and `postgres`) implement it, and its methods are
/// the loop's own protocol with them, not API.
pub trait Journal: sealed::Sealed + Send + Sync + fmt::Debug + 'static {
    /// Records a new run `run` on `transcript`, leased to `token` for `lease`.
    #[doc(hidden)]
    fn create<'a>(
        &'a self,
        run: &'a str,
        transcript: &'a [Message],
        token: &'a str,
        lease: Duration,
    ) -> Stored<'a, ()>;

    /// Extends the lease `token` holds on run `run`.
    #[doc(hidden)]
    fn renew<'a>(&'a self, run: &'a str, token: &'a str, lease: Duration) -> Stored<'a, ()>;

    /// Records the transcript, whose message at `at` is a model turn that asked for
    /// tools, with that turn's `calls` as started, all at once. The messages before
    /// `from` are recorded already and unchanged since: a store may write only the
    /// others.
    #[doc(hidden)]
    fn checkpoint<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        transcript: &'a [Message],
        at: usize,
        from: usize,
        calls: &'a [&'a str],
    ) -> Stored<'a, ()>;

    /// Records that call `call` of the turn at `at` is about to run.
    #[doc(hidden)]
    fn started<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        at: usize,
        call: &'a str,
    ) -> Stored<'a, ()>;

    /// Records the tool message of call `call` of the turn at `at`: the call is settled.
    #[doc(hidden)]
    fn settled<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        at: usize,
        call: &'a str,
        message: &'a Message,
    ) -> Stored<'a, ()>;

    /// Records how the run ended (parked on `parked`, when there are any) and releases
    /// its lease.
    #[doc(hidden)]
    fn finish<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        result: &'a RunResult,
        parked: &'a [Parked<'a>],
    ) -> Stored<'a, ()>;

    /// Records `answer` for the request of its id and takes the lease of the run that
    /// asked, in one step: the run `run` when given, else the one run waiting on that id.
    #[doc(hidden)]
    fn answer<'a>(
        &'a self,
        run: Option<&'a str>,
        answer: &'a Answer,
        token: &'a str,
        lease: Duration,
    ) -> Stored<'a, Answered>;

    /// Runs whose worker lost its lease, oldest first, at most `limit`.
    #[doc(hidden)]
    fn orphans(&self, limit: i64) -> Stored<'_, Vec<String>>;

    /// Takes the lease of run `run`, whose worker lost it, and loads the run.
    #[doc(hidden)]
    fn take_over<'a>(&'a self, run: &'a str, token: &'a str, lease: Duration)
    -> Stored<'a, Loaded>;

    /// The messages of session `session`, oldest first.
    #[doc(hidden)]
    fn session_messages<'a>(&'a self, session: &'a str) -> Stored<'a, Vec<Message>>;

    /// Keeps the first `keep` messages of session `session` and appends `messages`.
    #[doc(hidden)]
    fn session_replace_tail<'a>(
        &'a self,
        session: &'a str,
        keep: usize,
        stored: Option<usize>,
        messages: &'a [Message],
    ) -> Stored<'a, ()>;

    /// Keeps the last `keep` messages of session `session`.
    #[doc(hidden)]
    fn session_trim<'a>(&'a self, session: &'a str, keep: usize) -> Stored<'a, ()>;

    /// Another part of the same store, asked for by its type: what a layer above the
    /// loop keeps in the same database (the tasks of a served A2A agent), reached through
    /// the store a client was given while the loop names none of it. The part comes back
    /// boxed as the type asked for (`TypeId::of::<T>()` gives a `Box<T>`); `None` when
    /// this store has no such part.
    #[doc(hidden)]
    fn part(&self, of: std::any::TypeId) -> Option<Box<dyn std::any::Any + Send>> {
        let _ = of;
        None
    }
}

/// A run as a worker takes it up: the transcript rebuilt from the checkpoint and the
/// settled calls, the calls that were started and not settled, and the answers recorded
/// for its requests.
#[doc(hidden)]
#[derive(Debug)]
pub struct Loaded {
    pub(crate) transcript: Vec<Message>,
    pub(crate) in_flight: usize,
    pub(crate) answers: Vec<Answer>,
}

/// A run taken up by an answer: its id, the run, and the answer given (an expired
/// request's is a decline saying so).
#[doc(hidden)]
#[derive(Debug)]
pub struct Answered {
    pub(crate) run: String,
    pub(crate) loaded: Loaded,
    pub(crate) given: Answer,
}

impl Answered {
    /// A run taken up by `given`.
    pub(crate) fn new(run: String, loaded: Loaded, given: Answer) -> Self {
        Answered { run, loaded, given }
    }
}

/// A parked call: which call, which tool, what it waits on.
#[doc(hidden)]
#[derive(Debug)]
pub struct Parked<'a> {
    pub(crate) call_id: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) request: &'a Request,
}

pub(crate) mod sealed {
    /// Only this crate's run stores implement [`Journal`](super::Journal).
    pub trait Sealed {}
}

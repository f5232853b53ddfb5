//! Durability as a layer under the loop: the [`Journal`] a run store implements, the
//! record one durable run writes through it, and the client's entry points that take a
//! run up from the store (answering, recovering, sessions).
//!
//! The loop knows only this trait: a run with no store passes `None` where a durable one
//! passes its [`RunRecord`](record::RunRecord), and nothing here names a database.
//! `toolnexus::store` implements the trait for its backends, as sqlx's drivers implement
//! its backend seam: one object-safe trait whose methods return boxed futures.

pub(crate) mod durable;
pub(crate) mod error;
pub(crate) mod record;
pub(crate) mod session;

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::agent::run::RunResult;
use crate::model::message::Message;
use crate::tool::request::{Answer, Request};

pub use error::StoreError;

/// The default [`Client::lease`](crate::Client::lease) (`toolnexus::store::DEFAULT_LEASE`).
#[cfg_attr(not(feature = "__store"), allow(unreachable_pub))]
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// A client's store settings ([`Client::store`](crate::Client::store)).
#[derive(Clone, Debug)]
pub(crate) struct Durable {
    pub(crate) store: std::sync::Arc<dyn Journal>,
    pub(crate) lease: Duration,
    pub(crate) run_id: Option<String>,
}

/// What a [`Journal`] method gives back, once the store answered.
pub type Stored<'a, T> = BoxFuture<'a, Result<T, StoreError>>;

/// Where durable runs are kept: the seam between the loop and a run store.
///
/// [`Client::store`](crate::Client::store) takes any journal; the loop writes
/// to it at its three points (a model turn that asked for tools, a call about to run, a
/// call's result), renews the run's lease while it drives it, records how the run ended,
/// and takes runs up from it again (answering a parked run, recovering an orphaned one,
/// continuing a session).
///
/// `toolnexus::store::RunStore` (SQLite or PostgreSQL, features `sqlite` and `postgres`)
/// implements it; another engine implements it the same way. The
/// protocol an implementation keeps:
///
/// - **One writer per run.** `create`, `answer` and `take_over` give the run's lease to
///   the caller's `token` for `lease`; every other write names the token and fails with
///   [`StoreError::LeaseLost`] once another token holds the run (or it ended), writing
///   nothing. `renew` extends it; `finish` releases it.
/// - **Atomic writes.** Each method is all or nothing: a `checkpoint` records the
///   transcript and its turn's calls as started together; `finish` records the end and
///   the requests it parked on together; `answer` records the answer and takes the lease
///   together (each request is answered once: [`StoreError::AlreadyAnswered`]).
/// - **Loading gives back what was written.** `take_over` and `answer` give the
///   transcript as of the last checkpoint or end, with the result message of each call
///   settled since appended in the order of its turn's calls, how many calls were started
///   and not settled (they run again), and the answers recorded for the run's requests.
/// - **Appending is allowed.** The messages of a checkpoint before its `from` are the
///   ones already recorded, unchanged: a store may write only the others.
///
/// An engine whose own journal replays model turns and tool calls (Restate,
/// `toolnexus::restate`, feature `restate`) needs no `Journal`: it wraps the client's
/// model and tools instead, each turn and call one step of its journal.
pub trait Journal: Send + Sync + fmt::Debug + 'static {
    /// Records a new run `run` on `transcript`, leased to `token` for `lease`.
    fn create<'a>(
        &'a self,
        run: &'a str,
        transcript: &'a [Message],
        token: &'a str,
        lease: Duration,
    ) -> Stored<'a, ()>;

    /// Extends the lease `token` holds on run `run`.
    fn renew<'a>(&'a self, run: &'a str, token: &'a str, lease: Duration) -> Stored<'a, ()>;

    /// Records the transcript, whose message at `at` is a model turn that asked for
    /// tools, with that turn's `calls` as started, all at once. The messages before
    /// `from` are recorded already and unchanged since: a store may write only the
    /// others.
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
    fn started<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        at: usize,
        call: &'a str,
    ) -> Stored<'a, ()>;

    /// Records the tool message of call `call` of the turn at `at`: the call is settled.
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
    fn finish<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        result: &'a RunResult,
        parked: &'a [Parked<'a>],
    ) -> Stored<'a, ()>;

    /// Records `answer` for the request of its id and takes the lease of the run that
    /// asked, in one step: the run `run` when given, else the one run waiting on that id.
    fn answer<'a>(
        &'a self,
        run: Option<&'a str>,
        answer: &'a Answer,
        token: &'a str,
        lease: Duration,
    ) -> Stored<'a, Answered>;

    /// Runs whose worker lost its lease, oldest first, at most `limit`.
    fn orphans(&self, limit: i64) -> Stored<'_, Vec<String>>;

    /// Takes the lease of run `run`, whose worker lost it, and loads the run.
    fn take_over<'a>(&'a self, run: &'a str, token: &'a str, lease: Duration)
    -> Stored<'a, Loaded>;

    /// The messages of session `session`, oldest first.
    fn session_messages<'a>(&'a self, session: &'a str) -> Stored<'a, Vec<Message>>;

    /// Keeps the first `keep` messages of session `session` and appends `messages`.
    fn session_replace_tail<'a>(
        &'a self,
        session: &'a str,
        keep: usize,
        stored: Option<usize>,
        messages: &'a [Message],
    ) -> Stored<'a, ()>;

    /// Keeps the last `keep` messages of session `session`.
    fn session_trim<'a>(&'a self, session: &'a str, keep: usize) -> Stored<'a, ()>;

    /// Another part of the same store, asked for by its type: what a layer above the
    /// loop keeps in the same database (the tasks of a served A2A agent), reached through
    /// the store a client was given while the loop names none of it. The part comes back
    /// boxed as the type asked for (`TypeId::of::<T>()` gives a `Box<T>`); `None` when
    /// this store has no such part.
    fn part(&self, of: std::any::TypeId) -> Option<Box<dyn std::any::Any + Send>> {
        let _ = of;
        None
    }
}

/// A run as a worker takes it up: the transcript rebuilt from the checkpoint and the
/// settled calls, the calls that were started and not settled, and the answers recorded
/// for its requests.
#[derive(Debug)]
#[non_exhaustive]
pub struct Loaded {
    pub(crate) transcript: Vec<Message>,
    pub(crate) in_flight: usize,
    pub(crate) answers: Vec<Answer>,
}

impl Loaded {
    /// The run standing at `transcript` (the settled calls' messages appended after their
    /// turn), with `in_flight` calls started and not settled, and the `answers` recorded
    /// for its requests.
    pub fn new(transcript: Vec<Message>, in_flight: usize, answers: Vec<Answer>) -> Self {
        Loaded {
            transcript,
            in_flight,
            answers,
        }
    }
}

/// A run taken up by an answer: its id, the run, and the answer given (an expired
/// request's is a decline saying so).
#[derive(Debug)]
#[non_exhaustive]
pub struct Answered {
    pub(crate) run: String,
    pub(crate) loaded: Loaded,
    pub(crate) given: Answer,
}

impl Answered {
    /// Run `run`, loaded as `loaded`, taken up by `given`.
    pub fn new(run: String, loaded: Loaded, given: Answer) -> Self {
        Answered { run, loaded, given }
    }
}

/// A parked call: which call, which tool, what it waits on.
#[derive(Debug)]
pub struct Parked<'a> {
    pub(crate) call_id: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) request: &'a Request,
}

impl<'a> Parked<'a> {
    /// The id of the parked call.
    pub fn call_id(&self) -> &'a str {
        self.call_id
    }

    /// The name of the tool called.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// The request the call waits on.
    pub fn request(&self) -> &'a Request {
        self.request
    }
}

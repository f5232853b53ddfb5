//! [`StoreError`]: everything a run store can refuse or fail at, each saying what and where.
//! It is the [`Journal`](super::Journal)'s error, so the loop's layer defines it; a store
//! hands its driver's error over as the `source` of [`StoreError::Unavailable`].

use std::fmt;

/// Why a run store operation failed. Every variant names the run, request or row it is
/// about; none of them leaves anything half-written (each write is one transaction, and a
/// failed one keeps the checkpoint before it).
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The database could not be reached, opened, or answered in time (a locked SQLite
    /// file past its busy timeout, a PostgreSQL server that is down).
    Unavailable {
        /// What the store was doing.
        doing: String,
        /// The driver's error (sqlx's, for the stores of `toolnexus::store`).
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The database holds a schema newer than this version of toolnexus knows.
    NewerSchema {
        /// The schema version found in the database.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// A row was written by a newer version of toolnexus (its format column is higher
    /// than this build reads).
    NewerFormat {
        /// Which row (`run <id>`, `session <id>`).
        row: String,
        /// The row's format version.
        found: i64,
        /// The newest format this build reads.
        known: i64,
    },
    /// A row could not be read back (its JSON is damaged, or a column is missing).
    Corrupted {
        /// Which row and column.
        row: String,
        /// What was wrong with it.
        message: String,
    },
    /// No run has this id.
    UnknownRun(String),
    /// No request has this id.
    UnknownRequest(String),
    /// The request was already answered (or answered as expired); the answer is refused.
    AlreadyAnswered {
        /// The request.
        request: String,
        /// The run that asked it.
        run: String,
    },
    /// Another worker holds the run's lease: it is driving the run now.
    HeldByAnotherWorker {
        /// The run.
        run: String,
    },
    /// This worker's lease on the run expired and another worker took the run over; the
    /// write was refused.
    LeaseLost {
        /// The run.
        run: String,
    },
    /// Several runs wait on a request with this id (a deterministic approval id, asked by
    /// runs that made the same call): answer it for one of them with
    /// [`AnswerRequest::run`](crate::agent::AnswerRequest::run).
    AmbiguousRequest {
        /// The request id.
        request: String,
        /// The runs waiting on it.
        runs: Vec<String>,
    },
    /// The client has no store: call [`Client::store`](crate::Client::store) first.
    NoStore,
    /// A run with this id exists already.
    RunExists(String),
    /// The run is not in a state that allows the operation (e.g. answering a finished run).
    WrongState {
        /// The run.
        run: String,
        /// Its state.
        status: String,
        /// What was attempted.
        wanted: String,
    },
    /// A conversation grew past the bound of the store that keeps it (a
    /// [bounded](crate::agent::InMemoryConversations::bounded) one): it is kept no more,
    /// and takes no more runs.
    TooLong {
        /// The conversation.
        conversation: String,
        /// How long its messages grew, in bytes of JSON.
        bytes: usize,
        /// The store's bound.
        limit: usize,
    },
}

impl StoreError {
    /// What to make of a driver's error while `doing` something.
    #[cfg_attr(not(feature = "__store"), allow(dead_code))] // the stores' own
    pub(crate) fn unavailable<E>(doing: impl Into<String>) -> impl FnOnce(E) -> StoreError
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let doing = doing.into();
        move |source| StoreError::Unavailable {
            doing,
            source: Box::new(source),
        }
    }

    #[cfg_attr(not(feature = "__store"), allow(dead_code))] // the stores' own
    pub(crate) fn corrupted(row: impl Into<String>, message: impl fmt::Display) -> StoreError {
        StoreError::Corrupted {
            row: row.into(),
            message: message.to_string(),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Unavailable { doing, source } => {
                write!(f, "run store unavailable while {doing}: {source}")
            }
            StoreError::NewerSchema { found, known } => write!(
                f,
                "the run store's schema is version {found}, newer than the {known} this \
                 toolnexus knows: upgrade toolnexus"
            ),
            StoreError::NewerFormat { row, found, known } => write!(
                f,
                "{row} was written in format {found}, newer than the {known} this toolnexus \
                 reads: upgrade toolnexus"
            ),
            StoreError::Corrupted { row, message } => {
                write!(f, "{row} is corrupted: {message}")
            }
            StoreError::UnknownRun(id) => write!(f, "no run `{id}` in the run store"),
            StoreError::UnknownRequest(id) => write!(f, "no request `{id}` in the run store"),
            StoreError::AlreadyAnswered { request, run } => {
                write!(f, "request `{request}` of run `{run}` was already answered")
            }
            StoreError::HeldByAnotherWorker { run } => write!(
                f,
                "run `{run}` is held by another worker (its lease has not expired)"
            ),
            StoreError::LeaseLost { run } => write!(
                f,
                "this worker's lease on run `{run}` expired and another worker took it over"
            ),
            StoreError::AmbiguousRequest { request, runs } => write!(
                f,
                "{} runs wait on request `{request}` ({}): answer it for one of them with \
                 Client::answer(..).run(run_id)",
                runs.len(),
                runs.iter()
                    .map(|r| format!("`{r}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            StoreError::NoStore => {
                f.write_str("this client has no run store: give it one with Client::store")
            }
            StoreError::RunExists(id) => write!(f, "a run `{id}` is already in the run store"),
            StoreError::WrongState {
                run,
                status,
                wanted,
            } => write!(f, "cannot {wanted} run `{run}`: it is {status}"),
            StoreError::TooLong {
                conversation,
                bytes,
                limit,
            } => write!(
                f,
                "conversation `{conversation}` reached {bytes} bytes, past the limit of \
                 {limit} of the store that keeps it; start a new conversation"
            ),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Unavailable { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

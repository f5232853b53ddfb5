//! [`StoreError`]: everything a run store can refuse or fail at, each saying what and where.
//! It is the [`Journal`](super::Journal)'s error, so the loop's layer defines it; a store
//! hands its driver's error over as the `source` of [`StoreError::Unavailable`].

use std::fmt;

/// Why a run store operation failed. Every variant names the run, request or row it is
/// about; none of them leaves anything half-written (each write is one transaction, and a
/// failed one keeps the checkpoint before it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database could not be reached, opened, or answered in time (a locked SQLite
    /// file past its busy timeout, a PostgreSQL server that is down).
    #[error("run store unavailable while {doing}: {source}")]
    Unavailable {
        /// What the store was doing.
        doing: String,
        /// The driver's error (sqlx's, for the stores of `toolnexus::store`).
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The database holds a schema newer than this version of toolnexus knows.
    #[error(
        "the run store's schema is version {found}, newer than the {known} this toolnexus knows: upgrade toolnexus"
    )]
    NewerSchema {
        /// The schema version found in the database.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// A row was written by a newer version of toolnexus (its format column is higher
    /// than this build reads).
    #[error(
        "{row} was written in format {found}, newer than the {known} this toolnexus reads: upgrade toolnexus"
    )]
    NewerFormat {
        /// Which row (`run <id>`, `session <id>`).
        row: String,
        /// The row's format version.
        found: i64,
        /// The newest format this build reads.
        known: i64,
    },
    /// A row could not be read back (its JSON is damaged, or a column is missing).
    #[error("{row} is corrupted: {message}")]
    Corrupted {
        /// Which row and column.
        row: String,
        /// What was wrong with it.
        message: String,
    },
    /// No run has this id.
    #[error("no run `{0}` in the run store")]
    UnknownRun(String),
    /// No request has this id.
    #[error("no request `{0}` in the run store")]
    UnknownRequest(String),
    /// The request was already answered (or answered as expired); the answer is refused.
    #[error("request `{request}` of run `{run}` was already answered")]
    AlreadyAnswered {
        /// The request.
        request: String,
        /// The run that asked it.
        run: String,
    },
    /// Another worker holds the run's lease: it is driving the run now.
    #[error("run `{run}` is held by another worker (its lease has not expired)")]
    HeldByAnotherWorker {
        /// The run.
        run: String,
    },
    /// This worker's lease on the run expired and another worker took the run over; the
    /// write was refused.
    #[error("this worker's lease on run `{run}` expired and another worker took it over")]
    LeaseLost {
        /// The run.
        run: String,
    },
    /// Several runs wait on a request with this id (a deterministic approval id, asked by
    /// runs that made the same call): answer it for one of them with
    /// [`AnswerRequest::run`](crate::agent::AnswerRequest::run).
    #[error(
        "{n} runs wait on request `{request}` ({listed}): answer it for one of them with Client::answer(..).run(run_id)",
        n = .runs.len(),
        listed = quoted(.runs)
    )]
    AmbiguousRequest {
        /// The request id.
        request: String,
        /// The runs waiting on it.
        runs: Vec<String>,
    },
    /// The client has no store: call [`Client::store`](crate::Client::store) first.
    #[error("this client has no run store: give it one with Client::store")]
    NoStore,
    /// A run with this id exists already.
    #[error("a run `{0}` is already in the run store")]
    RunExists(String),
    /// The run is not in a state that allows the operation (e.g. answering a finished run).
    #[error("cannot {wanted} run `{run}`: it is {status}")]
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
    #[error(
        "conversation `{conversation}` reached {bytes} bytes, past the limit of {limit} of the store that keeps it; start a new conversation"
    )]
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

/// `runs` in backquotes, joined by commas (`AmbiguousRequest`'s list).
fn quoted(runs: &[String]) -> String {
    runs.iter()
        .map(|r| format!("`{r}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::StoreError;

    #[test]
    fn each_error_says_what_went_wrong_and_keeps_its_cause() {
        let io = std::io::Error::other("disk gone");
        let unavailable = StoreError::unavailable("writing run r1")(io);
        assert_eq!(
            unavailable.to_string(),
            "run store unavailable while writing run r1: disk gone"
        );
        assert_eq!(unavailable.source().unwrap().to_string(), "disk gone");
        let ambiguous = StoreError::AmbiguousRequest {
            request: "q".to_owned(),
            runs: vec!["a".to_owned(), "b".to_owned()],
        };
        assert_eq!(
            ambiguous.to_string(),
            "2 runs wait on request `q` (`a`, `b`): answer it for one of them with \
             Client::answer(..).run(run_id)"
        );
        assert!(ambiguous.source().is_none());
        let schema = StoreError::NewerSchema { found: 9, known: 4 };
        assert_eq!(
            schema.to_string(),
            "the run store's schema is version 9, newer than the 4 this toolnexus knows: \
             upgrade toolnexus"
        );
        let long = StoreError::TooLong {
            conversation: "c".to_owned(),
            bytes: 300,
            limit: 200,
        };
        assert_eq!(
            long.to_string(),
            "conversation `c` reached 300 bytes, past the limit of 200 of the store that keeps \
             it; start a new conversation"
        );
        assert_eq!(
            StoreError::corrupted("run r1", "bad JSON").to_string(),
            "run r1 is corrupted: bad JSON"
        );
    }
}

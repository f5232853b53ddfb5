//! Resuming a halted run: [`Halted`] (what is resumed), [`resume`] (its tools only, from
//! serialized data alone) and why resuming can fail.

use crate::agent::compaction::Compacted;
use crate::agent::run::{CallRecord, RunResult};
use crate::model::message::Message;

/// A run that halted on a request, to resume with the answer to it
/// ([`Client::resume`](crate::Client::resume), [`dispatch::resume`](crate::dispatch::resume)):
/// a [`RunResult`] as a run returned it, or as read back from its JSON in another
/// process, or the run's transcript alone.
///
/// From a `RunResult` it keeps the run's [compaction](RunResult::compacted) and id too
/// (a run of an in-memory conversation, [`Client::ask`](crate::Client::ask), brings its
/// conversation up to date when resumed).
#[derive(Debug, Clone, PartialEq)]
pub struct Halted {
    pub(crate) transcript: Vec<Message>,
    pub(crate) compacted: Option<Compacted>,
    pub(crate) id: Option<String>,
}

impl From<RunResult> for Halted {
    fn from(run: RunResult) -> Halted {
        Halted {
            transcript: run.messages,
            compacted: run.compacted,
            id: run.id,
        }
    }
}

impl From<&RunResult> for Halted {
    fn from(run: &RunResult) -> Halted {
        Halted {
            transcript: run.messages.clone(),
            compacted: run.compacted.clone(),
            id: run.id.clone(),
        }
    }
}

impl From<Vec<Message>> for Halted {
    fn from(transcript: Vec<Message>) -> Halted {
        Halted {
            transcript,
            compacted: None,
            id: None,
        }
    }
}

/// A halted turn, finished as far as it goes without a model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Resumed {
    /// The transcript, with one tool message per call of the halted turn (or, when
    /// [`pending`](Resumed::pending) is set, one per call that got that far).
    pub transcript: Vec<Message>,
    /// The calls run or resolved by the resume.
    pub calls: Vec<CallRecord>,
    /// Another call of the same turn that is still suspended: answer it and resume again.
    pub pending: Option<crate::tool::request::Request>,
}

/// Why a halted run could not be resumed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The transcript does not end in a turn of tool calls, so nothing is halted.
    #[error("the transcript does not end in a turn of tool calls: nothing to resume")]
    NotHalted,
    /// No call of the transcript's last turn is waiting on this request.
    #[error("no tool call of the transcript's last turn is waiting on request `{request}`")]
    UnknownRequest {
        /// The id of the request.
        request: String,
    },
}

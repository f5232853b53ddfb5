//! Resuming a halted run: [`Halted`] (what is resumed), [`resume`] (its tools only, from
//! serialized data alone) and why resuming can fail.

use std::fmt;

use crate::agent::compaction::Compacted;
use crate::agent::run::{CallRecord, RunResult};
use crate::agent::turn::{Env, Played, ToolOptions, ToolTurn};
use crate::model::message::Message;
use crate::tool::kit::Toolkit;
use crate::tool::request::Answer;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeError {
    /// The transcript does not end in a turn of tool calls, so nothing is halted.
    NotHalted,
    /// No call of the transcript's last turn is waiting on this request.
    UnknownRequest {
        /// The id of the request.
        request: String,
    },
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeError::NotHalted => f.write_str(
                "the transcript does not end in a turn of tool calls: nothing to resume",
            ),
            ResumeError::UnknownRequest { request } => write!(
                f,
                "no tool call of the transcript's last turn is waiting on request `{request}`"
            ),
        }
    }
}

impl std::error::Error for ResumeError {}

/// Finishes the turn a run halted on, in a new process if need be, from serialized data
/// alone: the halted run (or its transcript) and the answer to the request it waits on,
/// found by the answer's id.
///
/// The call parked on that request runs again with the answer in
/// [`Context::answer`](crate::Context::answer) (or gets `declined/expired: <prompt>` when
/// the answer declines); calls of the turn that never ran are run now. Every call then has
/// exactly one tool message, unless another call of the turn is still suspended: then
/// [`Resumed::pending`] holds its request, to answer and resume with in turn. No user
/// message is added.
///
/// This runs tools only; [`Client::resume`](crate::Client::resume) also lets the model
/// continue afterwards.
pub async fn resume(
    halted: impl Into<Halted>,
    answer: Answer,
    toolkit: &Toolkit,
) -> Result<Resumed, ResumeError> {
    let mut transcript = halted.into().transcript;
    let (mut turn, halted) = halted_turn(&transcript, &answer.id)?;
    let opts = ToolOptions::default();
    let env = Env {
        toolkit,
        opts: &opts,
        cancel: None,
        builtin: None,
        record: None,
    };
    turn.answer(halted, answer, &env).await;
    // Without `wait_for` nothing can fail: the turn settles or halts again.
    let pending = match turn.play(&env).await {
        Played::Settled => None,
        Played::Halted(request) | Played::Failed { request, .. } => Some(request),
    };
    turn.write(&mut transcript);
    Ok(Resumed {
        transcript,
        calls: turn.records().collect(),
        pending,
    })
}

/// The turn `transcript` halted on, and the index of the call parked on the request
/// `id`.
pub(crate) fn halted_turn(
    transcript: &[Message],
    id: &str,
) -> Result<(ToolTurn, usize), ResumeError> {
    let turn = ToolTurn::open(transcript).ok_or(ResumeError::NotHalted)?;
    let halted = turn
        .parked_on(id)
        .ok_or_else(|| ResumeError::UnknownRequest {
            request: id.to_owned(),
        })?;
    Ok((turn, halted))
}

//! What a before-turn hook is shown ([`TurnStart`]) and decides ([`TurnDecision`]); the
//! loop puts the decision in place in `before_turn.rs`.

use crate::model::message::Message;
use crate::tool::kit::Toolkit;

/// What a [before-turn hook](crate::agent::Hooks::before_turn) is shown: the turn about to be asked.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct TurnStart<'a> {
    /// The model turn, 1-based within the run (the Python port counts from 0).
    pub turn: u32,
    /// The model's name as its provider knows it ([`ModelInfo::name`](crate::model::ModelInfo::name)),
    /// when it has one.
    pub model: Option<&'a str>,
    /// The run's working transcript, as earlier turns and hooks left it.
    pub messages: &'a [Message],
    /// The tools the model is about to be offered.
    pub tools: &'a Toolkit,
}

/// What a [before-turn hook](crate::agent::Hooks::before_turn) decides about a turn.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum TurnDecision {
    /// Ask the model as planned.
    #[default]
    Continue,
    /// Replace the working transcript (`messages`) and/or the tools offered (`tools`)
    /// before the model is asked. A replaced transcript is the run's from then on (it is
    /// what [`RunResult::messages`](crate::RunResult::messages) holds; the canonical use is
    /// compaction); replaced tools are offered for this turn and the ones after it. Tool
    /// calls still run against the run's toolkit.
    Replace {
        /// The new transcript, if replaced.
        messages: Option<Vec<Message>>,
        /// The new tools, if replaced (boxed: a toolkit is large, and most decisions are
        /// not replacements).
        tools: Option<Box<Toolkit>>,
    },
    /// Stop the run before the model is asked: it ends
    /// [incomplete](crate::RunStatus::Incomplete) with
    /// [`StopReason::Aborted`](crate::agent::StopReason::Aborted) carrying `reason`.
    Abort {
        /// Why, in words for whoever reads the result.
        reason: String,
    },
}

impl TurnDecision {
    /// Replaces the working transcript with `messages`.
    pub fn messages(messages: Vec<Message>) -> Self {
        TurnDecision::Replace {
            messages: Some(messages),
            tools: None,
        }
    }

    /// Offers `tools` to the model from this turn on.
    pub fn tools(tools: Toolkit) -> Self {
        TurnDecision::Replace {
            messages: None,
            tools: Some(Box::new(tools)),
        }
    }

    /// Aborts the run, saying why.
    pub fn abort(reason: impl Into<String>) -> Self {
        TurnDecision::Abort {
            reason: reason.into(),
        }
    }
}

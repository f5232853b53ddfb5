//! [`UsageLimits`]: caps on what one run may spend (tokens, model requests, tool calls),
//! and the checks the loop makes against them.

use serde::{Deserialize, Serialize};

use crate::agent::run::{RunResult, StopReason};
use crate::model::cost::Cost;

/// Caps on what one run may spend. A run past one stops
/// [incomplete](crate::RunStatus::Incomplete), with a [`StopReason`] naming the cap,
/// as [`max_turns`](crate::Client::max_turns) does.
///
/// - [`total_tokens`](UsageLimits::total_tokens): the model is not asked again once the
///   run's [`Usage::total_tokens`](crate::Usage::total_tokens) (a summarizing model's
///   included) reached it ([`StopReason::TokenLimit`]). The turn that crosses the cap is
///   not undone: a run spends at most one turn's tokens past it.
/// - [`requests`](UsageLimits::requests): the model is asked at most this many times
///   ([`StopReason::RequestLimit`]).
/// - [`tool_calls`](UsageLimits::tool_calls): at most this many tool calls run; a turn
///   whose calls would go past it runs none of them, each answered `not run: …` so the
///   transcript stays balanced ([`StopReason::ToolCallLimit`]).
///
/// Like [`max_turns`](crate::Client::max_turns), the caps are per run: a
/// [resumed](crate::Client::resume) run starts afresh.
///
/// ```
/// use toolnexus::agent::UsageLimits;
/// use toolnexus::{Client, ScriptedModel};
///
/// let client = Client::new(ScriptedModel::default())
///     .usage_limits(UsageLimits::new().total_tokens(50_000).requests(20).tool_calls(40));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UsageLimits {
    /// The most tokens (prompt and completion) the run may spend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// The most model requests the run may make.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u32>,
    /// The most tool calls the run may run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<u32>,
    /// The most the run may spend, in money (see [`UsageLimits::cost`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// The most a conversation by id may spend across its runs (see
    /// [`UsageLimits::conversation_cost`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_cost: Option<Cost>,
}

impl UsageLimits {
    /// No caps.
    pub fn new() -> Self {
        UsageLimits::default()
    }

    /// Caps the tokens the run spends.
    #[must_use]
    pub fn total_tokens(mut self, tokens: u64) -> Self {
        self.total_tokens = Some(tokens);
        self
    }

    /// Caps the model requests the run makes.
    #[must_use]
    pub fn requests(mut self, requests: u32) -> Self {
        self.requests = Some(requests);
        self
    }

    /// Caps the tool calls the run runs.
    #[must_use]
    pub fn tool_calls(mut self, calls: u32) -> Self {
        self.tool_calls = Some(calls);
        self
    }

    /// Caps what the run spends, in money: the model is not asked again when what the
    /// run spent plus the estimate of the next request would pass `cost`
    /// ([`StopReason::SpendLimit`]).
    ///
    /// The estimate of the next request is the dearest model turn of the run so far
    /// (nothing before the first, so a run always makes its first request unless its
    /// conversation's cap is already reached). A request dearer than every one before
    /// it can therefore pass the cap by the difference: a transcript grows by what the
    /// last turn and its tool results added. Turns are priced by the client's
    /// [`PriceTable`](crate::model::PriceTable) ([`Client::prices`](crate::Client::prices); the shipped list
    /// prices when none is set); a model it has no price for counts nothing. The
    /// summarizing model of [compaction](crate::Client::compaction) is not priced.
    #[must_use]
    pub fn cost(mut self, cost: Cost) -> Self {
        self.cost = Some(cost);
        self
    }

    /// Caps what a conversation by id ([`Client::ask`](crate::Client::ask)) spends across its runs, with the
    /// rule of [`UsageLimits::cost`]. The spend is counted by the client, in memory: a
    /// new client (a restart) starts every conversation afresh, and a client with a run
    /// store counts per run only.
    #[must_use]
    pub fn conversation_cost(mut self, cost: Cost) -> Self {
        self.conversation_cost = Some(cost);
        self
    }

    /// Why `run` may not ask the model again, if it may not.
    pub(crate) fn before_request(&self, run: &RunResult) -> Option<StopReason> {
        if let Some(limit) = self.requests
            && run.turns >= limit
        {
            return Some(StopReason::RequestLimit { limit });
        }
        if let Some(limit) = self.total_tokens
            && run.usage.total_tokens() >= limit
        {
            return Some(StopReason::TokenLimit { limit });
        }
        None
    }

    /// Why `run` may not run `more` tool calls, if it may not.
    pub(crate) fn before_calls(&self, run: &RunResult, more: usize) -> Option<StopReason> {
        let limit = self.tool_calls?;
        (run.tool_calls.len() + more > limit as usize)
            .then_some(StopReason::ToolCallLimit { limit })
    }
}

/// A duration as a person reads it in a message: whole seconds, or milliseconds.
pub(crate) fn humanize(d: std::time::Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

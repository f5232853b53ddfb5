//! The spend caps' checks: what a run and a conversation spent, priced with the client's
//! [`PriceTable`](crate::model::PriceTable).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::agent::limits::UsageLimits;
use crate::agent::run::{RunResult, SpendScope, StopReason};
use crate::model::Reply;
use crate::model::cost::Cost;

/// What the conversations of a client spent, by id (for
/// [`UsageLimits::conversation_cost`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Ledger(Arc<Mutex<HashMap<String, Cost>>>);

impl Ledger {
    pub(crate) fn spent(&self, id: &str) -> Cost {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(id).copied().unwrap_or_default()
    }

    pub(crate) fn add(&self, id: &str, cost: Cost) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *map.entry(id.to_owned()).or_default() += cost;
    }
}

tokio::task_local! {
    /// What the conversation a run continues spent before it.
    pub(crate) static SPENT_BEFORE: Cost;
}

/// What a run knows of its spend between requests: the dearest model turn so far (the
/// estimate of the next), and what its conversation spent before it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Spend {
    dearest: Cost,
    before: Cost,
}

impl Spend {
    /// A run's spend, its conversation's earlier spend read from the task.
    pub(crate) fn start() -> Spend {
        Spend {
            dearest: Cost::ZERO,
            before: SPENT_BEFORE.try_with(|c| *c).unwrap_or_default(),
        }
    }

    /// Notes a model turn's cost.
    pub(crate) fn turn(&mut self, reply: &Reply) {
        self.dearest = self.dearest.max(reply.usage.cost.unwrap_or_default());
    }

    /// Why `run` may not make its next request, if a spend cap forbids it: what it spent
    /// plus the estimate of the next request (its dearest model turn so far) would pass
    /// the cap.
    pub(crate) fn check(&self, limits: &UsageLimits, run: &RunResult) -> Option<StopReason> {
        let spent = run.usage.cost.unwrap_or_default();
        let next = spent + self.dearest;
        if let Some(limit) = limits.cost
            && (next > limit || spent >= limit)
        {
            return Some(StopReason::SpendLimit {
                limit,
                spent,
                scope: SpendScope::Run,
            });
        }
        if let Some(limit) = limits.conversation_cost
            && (self.before + next > limit || self.before + spent >= limit)
        {
            return Some(StopReason::SpendLimit {
                limit,
                spent: self.before + spent,
                scope: SpendScope::Conversation,
            });
        }
        None
    }
}

//! The before-turn hooks in a run: the loop asks them about the turn it is about to ask
//! the model, and puts what they replace in place ([`TurnDecision`]).
//!
//! [`TurnDecision`]: crate::agent::TurnDecision

use crate::agent::client::Client;
use crate::agent::drive::Stop;
use crate::agent::listed::{Listed, Offered};
use crate::agent::run::{RunResult, StopReason};
use crate::tool::kit::Toolkit;

impl Client {
    /// Runs the before-turn hooks on the turn about to be asked, putting what they
    /// replace in place; the reason to stop when one aborts (or panics, or the run is
    /// stopped meanwhile).
    pub(crate) async fn turn_hooks(
        &self,
        run: &mut RunResult,
        listed: &Listed<'_>,
        tools: &mut Option<Toolkit>,
        stop: &Stop,
    ) -> Option<StopReason> {
        let hooks = &self.tools.hooks;
        if !hooks.on_turns() {
            return None;
        }
        let replaced = {
            let offered = match &*tools {
                Some(tools) => Offered::Whole(tools),
                None => listed.for_turn(&run.messages),
            };
            let model = self.model.describe().name;
            let asked = hooks.before_turn(run.turns, model, &run.messages, &offered);
            match stop.guard(Box::pin(asked)).await {
                Ok(Ok(replaced)) => replaced,
                Ok(Err(reason)) | Err(reason) => return Some(reason),
            }
        };
        if let Some(messages) = replaced.messages {
            run.messages = messages;
        }
        if let Some(replaced) = replaced.tools {
            *tools = Some(*replaced);
        }
        None
    }
}

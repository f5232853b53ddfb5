//! Compaction in the loop: [`Compacted`], what a run's model is shown instead of its full
//! transcript, and [`Window`], the step before each model turn that keeps it under the
//! budget.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::agent::compaction::Compaction;
use crate::agent::run::StopReason;
use crate::model::Usage;
use crate::model::message::Message;

/// The user turn a compacted transcript gets after its summary when what follows does
/// not start with one (the tail is empty, or starts with the model's own turn after an
/// empty tail): every provider then gets a conversation that starts with the user, as
/// Anthropic's, Gemini's and Bedrock's APIs require. It is only shown to the model; the
/// compactor never counts it as a place to start a tail.
pub const CONTINUE: &str = "Continue from the summary of the conversation so far.";

/// How a run's transcript was compacted: the model is shown [`head`](Compacted::head)
/// (the leading system prompt, the summary, the reminder), then the transcript from
/// [`from`](Compacted::from) on.
///
/// Kept on [`RunResult::compacted`](crate::RunResult::compacted), so that a halted run,
/// serialized and resumed, goes on from the same compaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Compacted {
    head: Vec<Message>,
    from: usize,
}

impl Compacted {
    /// What the model is shown before the kept tail: the leading system prompt (when the
    /// transcript has one), the summary, the reminder (with
    /// [`flush_to_memory`](crate::Compaction::flush_to_memory)).
    pub fn head(&self) -> &[Message] {
        &self.head
    }

    /// Where in the full transcript the kept tail starts.
    pub fn from(&self) -> usize {
        self.from
    }

    /// The summary's text (after [`SUMMARY_PREFIX`](super::SUMMARY_PREFIX)).
    pub fn summary(&self) -> Option<&str> {
        self.head
            .iter()
            .rev()
            .find_map(|m| m.text()?.strip_prefix(super::SUMMARY_PREFIX))
    }

    /// The compacted transcript, as the compactor sees it: the head, then `transcript`
    /// from [`from`](Compacted::from) on.
    pub fn apply(&self, transcript: &[Message]) -> Vec<Message> {
        let tail = transcript.get(self.from..).unwrap_or_default();
        let mut out = Vec::with_capacity(self.head.len() + tail.len());
        out.extend_from_slice(&self.head);
        out.extend_from_slice(tail);
        out
    }

    /// What the model is shown: [`apply`](Compacted::apply), with the [`CONTINUE`] user
    /// turn after the head when the tail does not start with a user turn.
    pub fn view(&self, transcript: &[Message]) -> Vec<Message> {
        let tail = transcript.get(self.from..).unwrap_or_default();
        let mut out = Vec::with_capacity(self.head.len() + tail.len() + 1);
        out.extend_from_slice(&self.head);
        if !matches!(tail.first(), Some(Message::User { .. })) {
            out.push(Message::user(CONTINUE));
        }
        out.extend_from_slice(tail);
        out
    }

    /// Whether this compaction fits `transcript` (a state read back with a transcript
    /// that is not its own is dropped).
    fn fits(&self, transcript: &[Message]) -> bool {
        self.from <= transcript.len()
    }
}

/// What one compaction did, for the event and the span.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Report {
    /// How many messages were summarized.
    pub(crate) summarized: usize,
    /// The estimate of what the model was about to be shown, and of what it is shown.
    pub(crate) before: usize,
    pub(crate) after: usize,
    /// What writing the summary cost.
    pub(crate) usage: Usage,
}

/// Compaction for one run: the client's settings, the run's state.
pub(crate) struct Window<'c> {
    compaction: &'c Compaction,
}

impl<'c> Window<'c> {
    pub(crate) fn new(compaction: &'c Compaction) -> Window<'c> {
        Window { compaction }
    }

    /// What the next model turn is shown, given the run's full `transcript` and its
    /// compaction so far (`state`, updated when this turn compacts): the transcript
    /// itself while no compaction happened and it is within the budget.
    pub(crate) async fn view<'t>(
        &self,
        transcript: &'t [Message],
        state: &mut Option<Compacted>,
    ) -> Result<(Cow<'t, [Message]>, Option<Report>), StopReason> {
        if state.as_ref().is_some_and(|s| !s.fits(transcript)) {
            *state = None;
        }
        let shown: Cow<'t, [Message]> = match state.as_ref() {
            None => Cow::Borrowed(transcript),
            Some(state) => Cow::Owned(state.view(transcript)),
        };
        let before = self.compaction.count(&shown);
        if before <= self.compaction.max_tokens() {
            return Ok((shown, None));
        }
        let working: Cow<'_, [Message]> = match state.as_ref() {
            None => Cow::Borrowed(transcript),
            Some(state) => Cow::Owned(state.apply(transcript)),
        };
        let Some(plan) = self.compaction.plan(&working) else {
            return Ok((shown, None));
        };
        let kept = state.as_ref().map_or(0, |s| s.head.len());
        let from = state.as_ref().map_or(0, |s| s.from);
        if plan.split < kept {
            // The tail starts at a user turn, never inside the head: nothing to do.
            return Ok((shown, None));
        }
        let older = &working[plan.head..plan.split];
        let (summary, usage) =
            self.compaction
                .summary(older)
                .await
                .map_err(|error| StopReason::Compaction {
                    message: error.to_string(),
                })?;
        let mut head = working[..plan.head].to_vec();
        head.push(super::split::summary_message(&summary));
        if self.compaction.flush_to_memory {
            head.push(Message::system(super::FLUSH_REMINDER));
        }
        let compacted = Compacted {
            head,
            from: from + (plan.split - kept),
        };
        let view = compacted.view(transcript);
        let report = Report {
            summarized: older.len(),
            before,
            after: self.compaction.count(&view),
            usage,
        };
        *state = Some(compacted);
        Ok((Cow::Owned(view), Some(report)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::ToolCall;
    use crate::tool::result::ToolResult;

    fn agentic(turns: usize) -> Vec<Message> {
        let mut transcript = vec![Message::system("sys"), Message::user("do the thing")];
        for i in 0..turns {
            let id = format!("c{i}");
            transcript.push(Message::tool_calls(
                None,
                vec![ToolCall::new(&id, "lookup", "{}")],
            ));
            transcript.push(Message::tool_result(&id, &ToolResult::ok("x".repeat(400))));
        }
        transcript
    }

    #[tokio::test]
    async fn an_agentic_run_stays_under_the_budget() {
        let compaction = Compaction::new(1_000).summarize(|older| format!("{} msgs", older.len()));
        let window = Window::new(&compaction);
        let mut state = None;
        let mut transcript = agentic(1);
        let mut compactions = 0;
        for turn in 1..60 {
            let (view, report) = window.view(&transcript, &mut state).await.unwrap();
            assert!(compaction.count(&view) <= 1_000, "turn {turn}");
            // Every tool result follows the call it answers.
            for (i, m) in view.iter().enumerate() {
                if let Some(id) = m.tool_call_id() {
                    assert!(
                        view[..i]
                            .iter()
                            .any(|a| a.calls().iter().any(|c| c.id == id))
                    );
                }
            }
            // The conversation starts with the user.
            let first = view.iter().find(|m| !matches!(m, Message::System { .. }));
            assert!(matches!(first, Some(Message::User { .. })));
            compactions += usize::from(report.is_some());
            let id = format!("t{turn}");
            transcript.push(Message::tool_calls(
                None,
                vec![ToolCall::new(&id, "lookup", "{}")],
            ));
            transcript.push(Message::tool_result(&id, &ToolResult::ok("x".repeat(400))));
        }
        assert!(compactions > 3);
        assert_eq!(state.unwrap().head()[0], Message::system("sys"));
    }

    #[tokio::test]
    async fn under_the_budget_the_transcript_itself_is_shown() {
        let compaction = Compaction::new(10_000);
        let transcript = agentic(3);
        let mut state = None;
        let (view, report) = Window::new(&compaction)
            .view(&transcript, &mut state)
            .await
            .unwrap();
        assert!(matches!(view, Cow::Borrowed(_)));
        assert!(report.is_none() && state.is_none());
    }
}

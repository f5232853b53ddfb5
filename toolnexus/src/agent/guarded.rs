//! Guardrails in a run: where the loop runs each stage's [`Guardrail`]s, holds back text
//! while they decide, and stops on a trip.

use std::borrow::Cow;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::{Either, select};

use crate::agent::client::Client;
use crate::agent::events::{Event, events};
use crate::agent::guardrail::{Check, Guardrail, Stage, Subject};
use crate::agent::run::{RunResult, StopReason};
use crate::model::Reply;
use crate::model::message::{Message, ToolCall};

/// A trip: the guardrail's name and why.
type Tripped = (Arc<str>, String);

impl Client {
    fn guards(&self, stage: Stage, concurrent: bool) -> impl Iterator<Item = &Guardrail> {
        (self.options.guardrails.iter()).filter(move |g| {
            g.stage == stage && (stage != Stage::Input || g.concurrent == concurrent)
        })
    }

    /// Whether text deltas are held back until a turn is known (an output guardrail,
    /// or a concurrent input one on the first turn).
    pub(crate) fn withholds(&self, turn: u32) -> bool {
        self.guards(Stage::Output, false).next().is_some()
            || (turn == 1 && self.guards(Stage::Input, true).next().is_some())
    }

    /// The stop of a trip, announced.
    fn tripped(&self, turn: u32, stage: Stage, (name, reason): Tripped) -> StopReason {
        events(&self.tools.listener).emit(Event::GuardrailTripped {
            turn,
            name: Cow::Borrowed(&name),
            stage,
            reason: Cow::Borrowed(&reason),
        });
        StopReason::Guardrail {
            name: name.to_string(),
            stage,
            reason,
        }
    }

    /// Runs the guardrails of `stage` on `text` in order: the text they leave, or a trip.
    async fn text(
        &self,
        stage: Stage,
        concurrent: bool,
        text: &str,
    ) -> Result<Option<String>, Tripped> {
        let mut rewritten: Option<String> = None;
        for guard in self.guards(stage, concurrent) {
            let current = rewritten.as_deref().unwrap_or(text).to_owned();
            match guard.run(Subject::Text(current)).await {
                Check::Pass => {}
                Check::Rewrite(_) if concurrent => {
                    let why =
                        "a concurrent guardrail cannot rewrite the prompt the model already has";
                    return Err((Arc::clone(&guard.name), why.to_owned()));
                }
                Check::Rewrite(text) => rewritten = Some(text),
                Check::Trip(reason) => return Err((Arc::clone(&guard.name), reason)),
            }
        }
        Ok(rewritten)
    }

    /// The input guardrails (not concurrent) on a fresh run's prompt: rewrites it in
    /// place, or the stop of a trip.
    pub(crate) async fn guard_input(&self, run: &mut RunResult) -> Option<StopReason> {
        self.guards(Stage::Input, false).next()?;
        let Some(Message::User { content }) = run.messages.last_mut() else {
            return None;
        };
        let text = content.text().into_owned();
        match self.text(Stage::Input, false, &text).await {
            Ok(Some(text)) => content.replace_text(text),
            Ok(None) => {}
            Err(trip) => return Some(self.tripped(0, Stage::Input, trip)),
        }
        None
    }

    /// The first model turn of a fresh run, alongside the concurrent input guardrails
    /// on its prompt (see [`Guardrail::concurrent`]).
    pub(crate) async fn alongside<F>(
        &self,
        prompt: Option<&str>,
        turn: F,
    ) -> Result<Reply, StopReason>
    where
        F: Future<Output = Result<Reply, StopReason>>,
    {
        let Some(prompt) = prompt.filter(|_| self.guards(Stage::Input, true).next().is_some())
        else {
            return turn.await;
        };
        let guard = std::pin::pin!(self.text(Stage::Input, true, prompt));
        let turn = std::pin::pin!(turn);
        let (verdict, reply) = match select(guard, turn).await {
            Either::Left((verdict, turn)) => match verdict {
                Err(trip) => return Err(self.tripped(1, Stage::Input, trip)),
                Ok(_) => return turn.await,
            },
            Either::Right((reply, guard)) => (guard.await, reply),
        };
        match verdict {
            Err(trip) => Err(self.tripped(1, Stage::Input, trip)),
            Ok(_) => reply,
        }
    }

    /// The output guardrails on a final answer, then the held-back text released: the
    /// answer rewritten in `reply`, or the stop of a trip (the reply's text removed).
    pub(crate) async fn guard_output(
        &self,
        turn: u32,
        reply: &mut Reply,
        held: &Held,
    ) -> Option<StopReason> {
        let mut stop = None;
        if reply.tool_calls.is_empty()
            && let Some(text) = &reply.content
        {
            match self.text(Stage::Output, false, text).await {
                Ok(Some(text)) => {
                    held.replace(text.clone());
                    reply.content = Some(text);
                }
                Ok(None) => {}
                Err(trip) => {
                    reply.content = None;
                    held.replace(String::new());
                    stop = Some(self.tripped(turn, Stage::Output, trip));
                }
            }
        }
        let text = held.take();
        if !text.is_empty() {
            events(&self.tools.listener).emit(Event::TextDelta {
                turn,
                text: Cow::Borrowed(&text),
            });
        }
        stop
    }

    /// The tool-call guardrails on a turn's calls: the calls as they run (rewritten), and
    /// the stop of a trip.
    pub(crate) async fn guard_calls(
        &self,
        turn: u32,
        calls: Vec<ToolCall>,
    ) -> (Vec<ToolCall>, Option<StopReason>) {
        if self.guards(Stage::ToolCall, false).next().is_none() {
            return (calls, None);
        }
        let mut out = Vec::with_capacity(calls.len());
        let mut calls = calls.into_iter();
        while let Some(mut call) = calls.next() {
            for guard in self.guards(Stage::ToolCall, false) {
                match guard.run(Subject::Call(call.clone())).await {
                    Check::Pass => {}
                    Check::Rewrite(arguments) => call.arguments = arguments,
                    Check::Trip(reason) => {
                        out.push(call);
                        out.extend(calls);
                        let trip = (Arc::clone(&guard.name), reason);
                        return (out, Some(self.tripped(turn, Stage::ToolCall, trip)));
                    }
                }
            }
            out.push(call);
        }
        (out, None)
    }

    /// The tool-result guardrails on the calls recorded from `from` on: their results
    /// rewritten (in the records and the transcript), or the stop of a trip.
    pub(crate) async fn guard_results(
        &self,
        run: &mut RunResult,
        from: usize,
    ) -> Option<StopReason> {
        self.guards(Stage::ToolResult, false).next()?;
        for i in from..run.tool_calls.len() {
            for guard in self.guards(Stage::ToolResult, false) {
                let record = &run.tool_calls[i];
                let subject = Subject::Result(record.call.clone(), record.result.clone());
                match guard.run(subject).await {
                    Check::Pass => {}
                    Check::Rewrite(output) => {
                        let id = run.tool_calls[i].call.id.clone();
                        run.tool_calls[i].result.output.clone_from(&output);
                        for message in run.messages.iter_mut().rev() {
                            if let Message::Tool {
                                tool_call_id,
                                content,
                                ..
                            } = message
                                && *tool_call_id == id
                            {
                                content.clone_from(&output);
                                break;
                            }
                        }
                    }
                    Check::Trip(reason) => {
                        let turn = run.tool_calls[i].turn;
                        return Some(self.tripped(
                            turn,
                            Stage::ToolResult,
                            (Arc::clone(&guard.name), reason),
                        ));
                    }
                }
            }
        }
        None
    }
}

/// A turn's text deltas, held back while its guardrails decide.
#[derive(Debug, Default)]
pub(crate) struct Held(Mutex<String>);

impl Held {
    pub(crate) fn push(&self, text: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_str(text);
    }

    fn replace(&self, text: String) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = text;
    }

    fn take(&self) -> String {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

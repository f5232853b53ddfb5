//! One assistant turn's tool calls: running them, resolving their suspensions, writing
//! their results into the transcript; and [`resume`], which finishes a halted turn from
//! serialized data alone.

use std::collections::HashSet;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;
use futures_util::future::{BoxFuture, join_all};

use crate::agent::message::{Message, ToolCall};
use crate::agent::run::{CallRecord, CallStatus};
use crate::tool::context::Context;
use crate::tool::request::{Answer, Request};
use crate::tool::result::ToolResult;
use crate::tool::toolkit::Toolkit;

/// The host slot that answers a [`Request`] while the run waits.
pub(crate) type WaitFor = dyn Fn(Request) -> BoxFuture<'static, Answer> + Send + Sync;

/// How the calls of a turn are run.
#[derive(Clone, Default)]
pub(crate) struct ToolOptions {
    pub(crate) wait_for: Option<Arc<WaitFor>>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) sequential: bool,
}

enum State {
    /// Not executed yet (a sequential turn halted before it).
    NotRun,
    /// Suspended, waiting on `Slot::request`.
    Parked(ToolResult),
    /// Has the result the model will see.
    Finished(ToolResult, CallStatus),
}

struct Slot {
    call: ToolCall,
    state: State,
    request: Option<Request>,
    answer: Option<Answer>,
    /// Executed or resolved by this run (and so reported in its records).
    touched: bool,
}

impl Slot {
    fn settle(&mut self, result: ToolResult) {
        self.touched = true;
        match result.pending_request() {
            Some(request) => {
                self.request = Some(request);
                self.state = State::Parked(result);
            }
            None => {
                let status = if result.is_error {
                    CallStatus::Error
                } else {
                    CallStatus::Ok
                };
                self.state = State::Finished(result, status);
            }
        }
    }

    fn finish(&mut self, result: ToolResult, status: CallStatus) {
        self.touched = true;
        self.state = State::Finished(result, status);
    }

    fn prompt(&self) -> &str {
        self.request.as_ref().map_or("", |r| r.prompt.as_str())
    }
}

/// The tool calls of one assistant message, at index `at` of the transcript.
pub(crate) struct Turn {
    at: usize,
    number: u32,
    slots: Vec<Slot>,
}

impl Turn {
    /// A turn about to run `calls`, which the model made on its turn `number`. Empty and
    /// repeated call ids are replaced, so that every tool message answers exactly one call.
    pub(crate) fn fresh(at: usize, number: u32, calls: Vec<ToolCall>) -> Turn {
        let mut seen = HashSet::new();
        let slots = calls
            .into_iter()
            .enumerate()
            .map(|(index, mut call)| {
                if call.id.is_empty() || seen.contains(&call.id) {
                    let mut id = format!("call_{number}_{index}");
                    while seen.contains(&id) {
                        id.push('_');
                    }
                    call.id = id;
                }
                seen.insert(call.id.clone());
                Slot {
                    call,
                    state: State::NotRun,
                    request: None,
                    answer: None,
                    touched: false,
                }
            })
            .collect();
        Turn { at, number, slots }
    }

    /// The turn the transcript ends in, when it ends in tool calls and their results.
    /// Calls without a tool message are not run yet; calls whose message holds a pending
    /// request are parked on it.
    pub(crate) fn open(transcript: &[Message]) -> Option<Turn> {
        let at = transcript
            .iter()
            .rposition(|m| !matches!(m, Message::Tool { .. }))?;
        let calls = transcript[at].calls();
        if calls.is_empty() {
            return None;
        }
        let answers = &transcript[at + 1..];
        let slots = calls
            .iter()
            .map(|call| {
                let message = answers.iter().find_map(|m| match m {
                    Message::Tool {
                        tool_call_id,
                        content,
                        is_error,
                        parts,
                        pending,
                    } if *tool_call_id == call.id => Some((content, *is_error, parts, pending)),
                    _ => None,
                });
                let (state, request) = match message {
                    None => (State::NotRun, None),
                    Some((_, _, _, Some(request))) => {
                        let request = Request::clone(request);
                        (
                            State::Parked(ToolResult::pending(request.clone())),
                            Some(request),
                        )
                    }
                    Some((content, is_error, parts, None)) => {
                        let result = ToolResult {
                            output: content.clone(),
                            is_error,
                            parts: parts.clone(),
                            metadata: None,
                        };
                        let status = if is_error {
                            CallStatus::Error
                        } else {
                            CallStatus::Ok
                        };
                        (State::Finished(result, status), None)
                    }
                };
                Slot {
                    call: call.clone(),
                    state,
                    request,
                    answer: None,
                    touched: false,
                }
            })
            .collect();
        Some(Turn {
            at,
            number: 0,
            slots,
        })
    }

    /// Whether some call has no result yet (not run, or parked).
    pub(crate) fn is_open(&self) -> bool {
        self.slots
            .iter()
            .any(|s| !matches!(s.state, State::Finished(..)))
    }

    /// Runs the calls not run yet, then resolves suspensions in call order through
    /// `wait_for`. Without `wait_for`, stops at the first suspension and returns its
    /// request: the turn is halted. In sequential mode each call runs (and its suspension
    /// is resolved) before the next starts.
    pub(crate) async fn play(&mut self, toolkit: &Toolkit, opts: &ToolOptions) -> Option<Request> {
        if !opts.sequential {
            let waiting: Vec<usize> = (0..self.slots.len())
                .filter(|&i| matches!(self.slots[i].state, State::NotRun))
                .collect();
            let results = join_all(
                waiting
                    .iter()
                    .map(|&i| execute(toolkit, &self.slots[i].call, None, opts)),
            )
            .await;
            for (i, result) in waiting.into_iter().zip(results) {
                self.slots[i].settle(result);
            }
        }
        for i in 0..self.slots.len() {
            if matches!(self.slots[i].state, State::NotRun) {
                let result = execute(toolkit, &self.slots[i].call, None, opts).await;
                self.slots[i].settle(result);
            }
            if let State::Parked(_) = self.slots[i].state {
                let Some(request) = self.slots[i].request.clone() else {
                    continue; // Parked always holds its request.
                };
                let Some(wait_for) = &opts.wait_for else {
                    return Some(request);
                };
                match AssertUnwindSafe(async { wait_for(request).await })
                    .catch_unwind()
                    .await
                {
                    Ok(answer) => self.apply(i, answer, toolkit, opts).await,
                    Err(_) => {
                        let text =
                            format!("unresolved: {} (wait_for panicked)", self.slots[i].prompt());
                        self.slots[i].finish(ToolResult::error(text), CallStatus::Unresolved);
                    }
                }
            }
        }
        None
    }

    /// Resolves the parked call `i` with `answer`: re-runs it once with the answer in its
    /// context, or feeds back `declined/expired: <prompt>` when the answer is negative.
    async fn apply(&mut self, i: usize, answer: Answer, toolkit: &Toolkit, opts: &ToolOptions) {
        let slot = &mut self.slots[i];
        let prompt = slot.prompt().to_owned();
        let expected = slot
            .request
            .as_ref()
            .map(|r| r.id.clone())
            .unwrap_or_default();
        slot.answer = Some(answer.clone());
        if answer.id != expected {
            let text = format!(
                "unresolved: {prompt} (the answer is for request {}, not {expected})",
                answer.id
            );
            slot.finish(ToolResult::error(text), CallStatus::Unresolved);
        } else if !answer.ok {
            slot.finish(
                ToolResult::error(format!("declined/expired: {prompt}")),
                CallStatus::Declined,
            );
        } else {
            let result = execute(toolkit, &slot.call, Some(answer), opts).await;
            if result.is_pending() {
                slot.finish(
                    ToolResult::error(format!("unresolved: {prompt}")),
                    CallStatus::Unresolved,
                );
            } else {
                slot.settle(result);
            }
        }
    }

    /// Gives every unfinished call an explicit error result, so the turn is balanced
    /// without running anything (used when a new prompt abandons a halted turn).
    pub(crate) fn abandon(&mut self) {
        for slot in &mut self.slots {
            let text = match slot.state {
                State::Finished(..) => continue,
                State::NotRun => format!(
                    "not run: {} was skipped when the run halted",
                    slot.call.name
                ),
                State::Parked(_) => format!("unanswered: {}", slot.prompt()),
            };
            slot.state = State::Finished(ToolResult::error(text), CallStatus::Unresolved);
        }
    }

    /// Replaces the messages after the turn's assistant message with one tool message per
    /// call that has a result (or is parked), in call order.
    pub(crate) fn write(&self, transcript: &mut Vec<Message>) {
        transcript.truncate(self.at + 1);
        for slot in &self.slots {
            match &slot.state {
                State::NotRun => {}
                State::Parked(result) => {
                    let pending = slot.request.as_ref();
                    transcript.push(Message::tool_message(&slot.call.id, result, pending));
                }
                State::Finished(result, _) => {
                    transcript.push(Message::tool_message(&slot.call.id, result, None));
                }
            }
        }
    }

    /// The calls this turn executed or resolved, in call order.
    pub(crate) fn records(&self) -> impl Iterator<Item = CallRecord> + '_ {
        self.slots.iter().filter(|s| s.touched).filter_map(|slot| {
            let (result, status) = match &slot.state {
                State::NotRun => return None,
                State::Parked(result) => (result.clone(), CallStatus::Pending),
                State::Finished(result, status) => (result.clone(), *status),
            };
            Some(CallRecord {
                turn: self.number,
                call: slot.call.clone(),
                result,
                status,
                request: slot.request.clone(),
                answer: slot.answer.clone(),
            })
        })
    }

    /// The calls, as finally numbered (for the assistant message).
    pub(crate) fn calls(&self) -> Vec<ToolCall> {
        self.slots.iter().map(|s| s.call.clone()).collect()
    }
}

async fn execute(
    toolkit: &Toolkit,
    call: &ToolCall,
    answer: Option<Answer>,
    opts: &ToolOptions,
) -> ToolResult {
    let mut ctx = Context::new().with_call_id(call.id.as_str());
    if let Some(timeout) = opts.timeout {
        ctx = ctx.with_timeout(timeout);
    }
    if let Some(answer) = answer {
        ctx = ctx.with_answer(answer);
    }
    toolkit.execute_json(&call.name, &call.arguments, ctx).await
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
    pub pending: Option<Request>,
}

/// Why a halted run could not be resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResumeError {
    /// The answer's id is not the request's id.
    AnswerMismatch {
        /// The id of the request being resumed.
        request: String,
        /// The id the answer carries.
        answer: String,
    },
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
            ResumeError::AnswerMismatch { request, answer } => write!(
                f,
                "the answer is for request `{answer}`, but the run is waiting on request `{request}`"
            ),
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
/// alone: the transcript, the request and its answer.
///
/// The answer's id must be the request's id. The call parked on the request runs again
/// with the answer in [`Context::answer`] (or gets `declined/expired: <prompt>` when the
/// answer declines); calls of the turn that never ran are run now. Every call then has
/// exactly one tool message, unless another call of the turn is still suspended: then
/// [`Resumed::pending`] holds its request, to answer and resume with in turn. No user
/// message is added.
///
/// This runs tools only; [`Client::resume`](crate::Client::resume) also lets the model
/// continue afterwards.
pub async fn resume(
    toolkit: &Toolkit,
    transcript: Vec<Message>,
    request: &Request,
    answer: Answer,
) -> Result<Resumed, ResumeError> {
    resume_with(
        toolkit,
        transcript,
        request,
        answer,
        &ToolOptions::default(),
    )
    .await
}

pub(crate) async fn resume_with(
    toolkit: &Toolkit,
    mut transcript: Vec<Message>,
    request: &Request,
    answer: Answer,
    opts: &ToolOptions,
) -> Result<Resumed, ResumeError> {
    if answer.id != request.id {
        return Err(ResumeError::AnswerMismatch {
            request: request.id.clone(),
            answer: answer.id,
        });
    }
    let mut turn = Turn::open(&transcript).ok_or(ResumeError::NotHalted)?;
    let halted = turn
        .slots
        .iter()
        .position(|s| {
            matches!(s.state, State::Parked(_))
                && s.request.as_ref().is_some_and(|r| r.id == request.id)
        })
        .ok_or_else(|| ResumeError::UnknownRequest {
            request: request.id.clone(),
        })?;
    turn.apply(halted, answer, toolkit, opts).await;
    let pending = turn.play(toolkit, opts).await;
    turn.write(&mut transcript);
    Ok(Resumed {
        transcript,
        calls: turn.records().collect(),
        pending,
    })
}

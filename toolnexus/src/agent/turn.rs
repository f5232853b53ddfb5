//! One assistant turn's tool calls: running them (through the hooks), resolving their
//! suspensions concurrently, writing their results into the transcript.

use std::borrow::Cow;
use std::sync::Arc;

use futures_util::future::join_all;
use rustc_hash::FxHashSet;

use crate::agent::as_tool;
use crate::agent::events::{Event, Events};
use crate::agent::hooks::Gate;
use crate::agent::in_order::InOrder;
use crate::agent::options::Env;
use crate::agent::resume::ResumeError;
use crate::agent::run::{CallRecord, CallStatus};
use crate::agent::wait::{Waited, wait};
use crate::model::message::{Message, ToolCall};
use crate::tool::context::Context;
use crate::tool::request::{Answer, Request};
use crate::tool::result::ToolResult;

/// How far [`ToolTurn::play`] got.
pub(crate) enum Played {
    /// Every call has its result.
    Settled,
    /// A call suspended with no `wait_for` to ask: the turn is halted on its request (the
    /// first such call in call order).
    Halted(Request),
    /// `wait_for` failed on this request (the first such call in call order); that call
    /// stays parked.
    Failed { request: Request, message: String },
}

enum SlotState {
    /// Not executed yet (a sequential turn halted before it, or a stopped run).
    NotRun,
    /// Suspended, waiting on `Slot::request`.
    Parked(ToolResult),
    /// Has the result the model will see.
    Finished(ToolResult, CallStatus),
}

struct Slot {
    call: ToolCall,
    state: SlotState,
    request: Option<Request>,
    answer: Option<Answer>,
    /// Executed or resolved by this run (and so reported in its records).
    touched: bool,
    /// The id the model gave this call, when an earlier call of the turn has it too.
    duplicate: Option<String>,
}

impl Slot {
    /// Takes the result of an execution: parked if it suspended, finished otherwise.
    fn settle(&mut self, result: ToolResult, denied: bool, turn: u32, events: Events<'_>) {
        self.touched = true;
        if denied {
            return self.finish(result, CallStatus::Denied, turn, events);
        }
        match result.pending_request() {
            Some(request) => {
                self.request = Some(request);
                self.state = SlotState::Parked(result);
            }
            None => {
                let status = if result.is_error {
                    CallStatus::Error
                } else {
                    CallStatus::Ok
                };
                self.finish(result, status, turn, events);
            }
        }
    }

    fn finish(&mut self, result: ToolResult, status: CallStatus, turn: u32, events: Events<'_>) {
        self.touched = true;
        if events.is_on() {
            events.emit(Event::ToolCallFinished {
                turn,
                call: Cow::Borrowed(&self.call),
                result: Cow::Borrowed(&result),
                status,
            });
        }
        self.state = SlotState::Finished(result, status);
    }

    fn prompt(&self) -> &str {
        self.request.as_ref().map_or("", |r| r.prompt.as_str())
    }
}

/// The tool calls of one assistant message, at index `at` of the transcript.
pub(crate) struct ToolTurn {
    at: usize,
    number: u32,
    slots: Vec<Slot>,
}

impl ToolTurn {
    /// A turn about to run `calls`, which the model made on its turn `number`. Empty and
    /// repeated call ids are replaced, so that every tool message answers exactly one call;
    /// a call that repeats an earlier call's id is not run (it may be the same call sent
    /// twice): its result is an error telling the model so.
    pub(crate) fn fresh(at: usize, number: u32, calls: Vec<ToolCall>) -> ToolTurn {
        let mut seen = FxHashSet::default();
        let slots = calls
            .into_iter()
            .enumerate()
            .map(|(index, mut call)| {
                let duplicate = seen.contains(&call.id).then(|| call.id.clone());
                if call.id.is_empty() || duplicate.is_some() {
                    let mut id = format!("call_{number}_{index}");
                    while seen.contains(&id) {
                        id.push('_');
                    }
                    call.id = id;
                }
                seen.insert(call.id.clone());
                Slot {
                    call,
                    state: SlotState::NotRun,
                    request: None,
                    answer: None,
                    touched: false,
                    duplicate,
                }
            })
            .collect();
        ToolTurn { at, number, slots }
    }

    /// The turn the transcript ends in, when it ends in tool calls and their results.
    /// Calls without a tool message are not run yet; calls whose message holds a pending
    /// request are parked on it.
    pub(crate) fn open(transcript: &[Message]) -> Option<ToolTurn> {
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
                        ..
                    } if *tool_call_id == call.id => Some((content, *is_error, parts, pending)),
                    _ => None,
                });
                let (state, request) = match message {
                    None => (SlotState::NotRun, None),
                    Some((_, _, _, Some(request))) => {
                        let request = Request::clone(request);
                        (
                            SlotState::Parked(ToolResult::pending(request.clone())),
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
                        (SlotState::Finished(result, status), None)
                    }
                };
                Slot {
                    call: call.clone(),
                    state,
                    request,
                    answer: None,
                    touched: false,
                    duplicate: None,
                }
            })
            .collect();
        Some(ToolTurn {
            at,
            number: 0,
            slots,
        })
    }

    /// Whether some call has no result yet (not run, or parked).
    pub(crate) fn is_open(&self) -> bool {
        self.slots
            .iter()
            .any(|s| !matches!(s.state, SlotState::Finished(..)))
    }

    /// Runs the calls not run yet and resolves their suspensions through `wait_for`,
    /// each call independently of the others: concurrently by default, so that two
    /// suspensions are answered at the same time; one call after the other (each resolved
    /// before the next starts) in sequential mode. Results stay in call order.
    pub(crate) async fn play(&mut self, env: &Env<'_>) -> Played {
        let number = self.number;
        if env.opts.sequential {
            for slot in &mut self.slots {
                // Boxed: inline, one call's future would make every turn's future (and
                // the loop's, which holds it) that much larger, sequential or not.
                let played = Box::pin(drive(slot, number, env)).await;
                if !matches!(played, Played::Settled) {
                    return played;
                }
            }
            return Played::Settled;
        }
        // Results are reported in call order, whichever call finishes first.
        let ordered = InOrder::of(env, self.slots.iter().map(|slot| &slot.call));
        let env = &ordered.as_ref().map_or(*env, |ordered| ordered.env(env));
        let steps = join_all(self.slots.iter_mut().map(|slot| drive(slot, number, env))).await;
        ordered.inspect(InOrder::flush);
        steps
            .into_iter()
            .find(|played| !matches!(played, Played::Settled))
            .unwrap_or(Played::Settled)
    }

    /// The request call `i` is parked on (or was, once resolved).
    pub(crate) fn request(&self, i: usize) -> Option<&Request> {
        self.slots.get(i)?.request.as_ref()
    }

    /// The call parked on the request `id`, if any.
    pub(crate) fn parked_on(&self, id: &str) -> Option<usize> {
        self.slots.iter().position(|s| {
            matches!(s.state, SlotState::Parked(_))
                && s.request.as_ref().is_some_and(|r| r.id == id)
        })
    }

    /// Resolves the parked call `i` with `answer` (see [`resolve`]).
    pub(crate) async fn answer(&mut self, i: usize, answer: Answer, env: &Env<'_>) {
        resolve(&mut self.slots[i], answer, self.number, env).await;
    }

    /// Gives every unfinished call an explicit result after the run stopped (`why`) in
    /// the middle of the turn: `cancelled: …` for a call that had not finished,
    /// `unanswered: <prompt> (…)` for one waiting on its request.
    pub(crate) fn interrupt(&mut self, why: &str, env: &Env<'_>) {
        for slot in &mut self.slots {
            let text = match slot.state {
                SlotState::Finished(..) => continue,
                SlotState::NotRun => format!("cancelled: {} did not finish: {why}", slot.call.name),
                SlotState::Parked(_) => format!("unanswered: {} ({why})", slot.prompt()),
            };
            slot.finish(
                ToolResult::error(text),
                CallStatus::Cancelled,
                self.number,
                env.events(),
            );
        }
    }

    /// Gives every unfinished call an explicit error result, so the turn is balanced
    /// without running anything (used when a new prompt abandons a halted turn).
    pub(crate) fn abandon(&mut self) {
        for slot in &mut self.slots {
            let text = match slot.state {
                SlotState::Finished(..) => continue,
                SlotState::NotRun => format!(
                    "not run: {} was skipped when the run halted",
                    slot.call.name
                ),
                SlotState::Parked(_) => format!("unanswered: {}", slot.prompt()),
            };
            slot.state = SlotState::Finished(ToolResult::error(text), CallStatus::Unresolved);
        }
    }

    /// Replaces the messages after the turn's assistant message with one tool message per
    /// call that has a result (or is parked), in call order.
    pub(crate) fn write(&self, transcript: &mut Vec<Message>) {
        transcript.truncate(self.at + 1);
        for slot in &self.slots {
            match &slot.state {
                SlotState::NotRun => {}
                SlotState::Parked(result) => {
                    let pending = slot.request.as_ref();
                    transcript.push(Message::tool_message(&slot.call, result, pending));
                }
                SlotState::Finished(result, _) => {
                    transcript.push(Message::tool_message(&slot.call, result, None));
                }
            }
        }
    }

    /// The calls this turn executed or resolved, in call order.
    pub(crate) fn records(&self) -> impl Iterator<Item = CallRecord> + '_ {
        self.slots.iter().filter(|s| s.touched).filter_map(|slot| {
            let (result, status) = match &slot.state {
                SlotState::NotRun => return None,
                SlotState::Parked(result) => (result.clone(), CallStatus::Pending),
                SlotState::Finished(result, status) => (result.clone(), *status),
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

/// Takes one call as far as it goes: runs it if it has not run, then, if it suspended,
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

/// asks `wait_for` and resolves it with the answer.
async fn drive(slot: &mut Slot, turn: u32, env: &Env<'_>) -> Played {
    if let (SlotState::NotRun, Some(id)) = (&slot.state, &slot.duplicate) {
        let text = format!(
            "not run: the call id `{id}` repeats an earlier call of this turn; \
             if {} should run again, call it with a unique id",
            slot.call.name
        );
        slot.finish(
            ToolResult::error(text),
            CallStatus::Error,
            turn,
            env.events(),
        );
        return Played::Settled;
    }
    if matches!(slot.state, SlotState::NotRun) {
        let (result, denied) = run_call(&slot.call, None, turn, env).await;
        slot.settle(result, denied, turn, env.events());
    }
    if !matches!(slot.state, SlotState::Parked(_)) {
        return Played::Settled;
    }
    // Boxed: a suspension is rare, and the future of every call stays small without it.
    Box::pin(suspended(slot, turn, env)).await
}

/// Takes a suspended call further: halts on it, or asks `wait_for` and resolves it.
async fn suspended(slot: &mut Slot, turn: u32, env: &Env<'_>) -> Played {
    let Some(request) = slot.request.clone() else {
        return Played::Settled; // Parked always holds its request.
    };
    env.events().emit(Event::Pending {
        turn,
        call: Cow::Borrowed(&slot.call),
        request: Cow::Borrowed(&request),
    });
    let Some(wait_for) = &env.opts.wait_for else {
        return Played::Halted(request);
    };
    match wait(wait_for.as_ref(), &request, env.opts.wait_timeout).await {
        Waited::Answer(answer) => {
            resolve(slot, answer, turn, env).await;
            if let SlotState::Parked(_) = slot.state {
                // A script (code mode) parks again, on its next request.
                return Box::pin(suspended(slot, turn, env)).await;
            }
        }
        Waited::Panicked => {
            let text = format!("unresolved: {} (wait_for panicked)", slot.prompt());
            slot.finish(
                ToolResult::error(text),
                CallStatus::Unresolved,
                turn,
                env.events(),
            );
        }
        Waited::Failed(message) => return Played::Failed { request, message },
    }
    Played::Settled
}

/// Resolves a parked call with `answer`: re-runs it once with the answer in its context,
/// or feeds back `declined/expired: <prompt>` when the answer is negative.
async fn resolve(slot: &mut Slot, answer: Answer, turn: u32, env: &Env<'_>) {
    let events = env.events();
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
        slot.finish(
            ToolResult::error(text),
            CallStatus::Unresolved,
            turn,
            events,
        );
    } else if !answer.ok && !as_tool::carries_state(slot.request.as_ref()) {
        // (An agent run as a tool takes its decline down to the inner call that asked.)
        let text = format!("declined/expired: {prompt}");
        slot.finish(ToolResult::error(text), CallStatus::Declined, turn, events);
    } else {
        let resumed = Box::new((answer, slot.request.clone()));
        let (result, denied) = run_call(&slot.call, Some(resumed), turn, env).await;
        if result.is_pending() && !denied && !as_tool::parks_again(&result, &expected) {
            let text = format!("unresolved: {prompt}");
            slot.finish(
                ToolResult::error(text),
                CallStatus::Unresolved,
                turn,
                events,
            );
        } else {
            slot.settle(result, denied, turn, events);
        }
    }
}

/// The answer a re-run call gets, with the request it answers. Boxed: it is passed down
/// through every layer of a call, whose futures would each hold it by value.
type Rerun = Box<(Answer, Option<Request>)>;

/// Executes one call through the hooks, and records its result in a durable run's
/// record. `true` when a before-tool hook denied it.
async fn run_call(
    call: &ToolCall,
    answer: Option<Rerun>,
    turn: u32,
    env: &Env<'_>,
) -> (ToolResult, bool) {
    let start = std::time::Instant::now();
    let Some(record) = env.record else {
        let (mut result, denied) = hooked(call, answer, turn, env).await;
        crate::agent::trace::keep_context(&mut result);
        metered(call, &result, start, env);
        return (result, denied);
    };
    let (mut result, denied) = Box::pin(hooked(call, answer, turn, env)).await;
    crate::agent::trace::keep_context(&mut result);
    if !denied {
        Box::pin(record.settled(&call.id, &result)).await;
    }
    metered(call, &result, start, env);
    (result, denied)
}

/// The `tool` metric record of `call`, its source read from the tool that ran it.
fn metered(call: &ToolCall, result: &ToolResult, start: std::time::Instant, env: &Env<'_>) {
    let tool = (env.builtin.filter(|tool| tool.name() == call.name))
        .or_else(|| env.toolkit.get(&call.name));
    let source = tool.map_or("custom", |t| t.source());
    env.opts.meter.tool_called(call, source, result, start);
}

/// Executes one call through the hooks. `true` when a before-tool hook denied it.
///
/// Hooks that are plain functions run inline: with only those, a call makes no future
/// beyond the tool's own (the loop's per-call overhead stays near that of no hooks).
async fn hooked(
    call: &ToolCall,
    answer: Option<Rerun>,
    turn: u32,
    env: &Env<'_>,
) -> (ToolResult, bool) {
    let hooks = &env.opts.hooks;
    if !hooks.on_tools() {
        env.events().emit(Event::ToolCallStarted {
            turn,
            call: Cow::Borrowed(call),
        });
        return (execute(call, answer, env).await, false);
    }
    let gate = match hooks.before_tool_now(call) {
        Some(gate) => gate,
        // Boxed: only an async hook gets here, and inline it would grow every call's future.
        None => Box::pin(hooks.before_tool(call)).await,
    };
    let call = match gate {
        Gate::Run(call) => call,
        Gate::Deny(reason) => return (ToolResult::error(format!("denied: {reason}")), true),
        Gate::Answer(result) => return (result, false),
    };
    env.events().emit(Event::ToolCallStarted {
        turn,
        call: Cow::Borrowed(&call),
    });
    let mut result = execute(&call, answer, env).await;
    if !hooks.after_tool_now(&call, &mut result) {
        Box::pin(hooks.after_tool(&call, &mut result)).await;
    }
    (result, false)
}

async fn execute(call: &ToolCall, answer: Option<Rerun>, env: &Env<'_>) -> ToolResult {
    let mut ctx = Context::new().with_call_id(call.id.as_str());
    if let Some(timeout) = env.opts.timeout {
        ctx = ctx.with_timeout(timeout);
    }
    if let Some(resumed) = answer {
        let (answer, request) = *resumed;
        ctx = ctx.with_answer(answer);
        if let Some(request) = request {
            ctx = ctx.with_request(request);
        }
    }
    if let Some(token) = env.cancel {
        ctx = ctx.with_cancellation(token.clone());
    }
    if let Some(caller) = &env.opts.caller {
        ctx = ctx.with_caller(Arc::clone(caller));
    }
    if let Some(record) = env.record {
        // Boxed: only a durable run gets here, and inline the store's future would grow
        // every call's.
        match Box::pin(record.started(&call.id)).await {
            Ok(key) => ctx = ctx.with_idempotency_key(key),
            Err(text) => return ToolResult::error(text),
        }
    }
    match env.builtin.filter(|tool| tool.name() == call.name) {
        Some(tool) => tool.execute_json(&call.arguments, ctx).await,
        None => {
            env.toolkit
                .execute_json(&call.name, &call.arguments, ctx)
                .await
        }
    }
}

//! The loop itself: model turns and tool turns until an answer, a halt or a stop; and
//! [`Stop`], the run's deadline and cancellation.

use std::borrow::Cow;
use std::future::{Future, pending};
use std::panic::AssertUnwindSafe;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;
use futures_util::future::{Either, select};
use tokio::time::Instant;
use tracing::Instrument as _;

use crate::agent::as_tool;
use crate::agent::client::Client;
use crate::agent::compaction::{Compacted, Window};
use crate::agent::events::{Event, Events, events};
use crate::agent::guarded::Held;
use crate::agent::journal::record::RunRecord;
use crate::agent::listed::{Listed, Offered};
use crate::agent::options::Env;
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::agent::spend::Spend;
use crate::agent::trace;
use crate::agent::turn::{Played, ToolTurn};
use crate::agent::typed::{OutputCheck, Verdict};
use crate::model::message::Message;
use crate::model::request::ModelRequest;
use crate::model::{Delta, DeltaSink, ModelError, Reply};
use crate::tool::context::CancellationToken;
use crate::tool::kit::Toolkit;
use crate::tool::request::Answer;

/// A turn left open by an earlier run, to finish before the model is asked again; with
/// the answer to give its parked call `usize` first, when resuming.
pub(crate) struct Opened {
    pub(crate) turn: ToolTurn,
    pub(crate) answer: Option<(usize, Answer)>,
    /// The compaction the halted run stood at, when it had one.
    pub(crate) compacted: Option<Compacted>,
}

impl Client {
    /// Runs the loop on `transcript` (finishing `open` first) and reports the end.
    pub(crate) async fn drive(
        &self,
        transcript: Vec<Message>,
        toolkit: &Toolkit,
        open: Option<Opened>,
    ) -> RunResult {
        self.drive_with(transcript, toolkit, open, None).await
    }

    /// [`Client::drive`], recording the run in `record` when it is durable.
    pub(crate) async fn drive_with(
        &self,
        transcript: Vec<Message>,
        toolkit: &Toolkit,
        open: Option<Opened>,
        record: Option<&RunRecord>,
    ) -> RunResult {
        let started = std::time::Instant::now();
        let mut open = open;
        let mut run = RunResult::empty(transcript);
        run.compacted = open.as_mut().and_then(|o| o.compacted.take());
        let stop = Stop::new(self.cancellation.as_ref(), self.run_timeout);
        let resumed = open.as_ref().and_then(|o| o.answer.as_ref());
        let span = trace::run_span(self, resumed.map(|(_, answer)| answer.id.as_str()));
        if let (Some(open), Some((i, _))) = (&open, resumed) {
            let halted = open.turn.request(*i).and_then(|r| r.trace.as_deref());
            trace::link_to_halted(&span, halted);
        }
        // Boxed, as `reopen`'s future is: a run that finishes an open turn is rare.
        let open = open.map(Box::new);
        // Boxed: the loop's future is large, and `instrument` (and each await above it)
        // would otherwise move it by value; a pointer moves instead (BENCHMARKS.md,
        // "No subscriber: instruction counts against the code before tracing").
        // With no one to see it (`Span::none()`), the span is not entered on every poll.
        let steps = Box::pin(self.steps(&mut run, toolkit, &stop, open, record));
        let steps = if span.is_none() {
            Either::Left(steps)
        } else {
            Either::Right(steps.instrument(span.clone()))
        };
        match &self.tools.listener {
            // Agents run as tools below this run forward their events to its listener.
            Some(listener) => {
                let scope = as_tool::AgentScope {
                    listener: Some(Arc::clone(listener)),
                    ..as_tool::current()
                };
                as_tool::SCOPE.scope(scope, steps).await;
            }
            None => steps.await,
        }
        trace::run_ended(&span, &run);
        let model = self.model.describe().name.unwrap_or_default();
        self.tools.meter.run_ended(&run, model, started);
        let events = events(&self.tools.listener);
        if run.status == RunStatus::Done && run.turns > 0 {
            events.emit(Event::Usage { usage: run.usage });
        }
        events.emit(Event::RunFinished {
            run: Cow::Borrowed(&run),
        });
        run
    }

    async fn steps(
        &self,
        run: &mut RunResult,
        toolkit: &Toolkit,
        stop: &Stop,
        open: Option<Box<Opened>>,
        record: Option<&RunRecord>,
    ) {
        let listed = Listed::new(self, toolkit);
        let env = Env {
            toolkit,
            opts: &self.tools,
            cancel: stop.token(),
            builtin: listed.builtin(),
            record,
        };
        let window = self.options.compaction.as_deref().map(Window::new);
        let limits = self.options.limits;
        let mut spend = Spend::start();
        let mut output = (self.options.output.as_deref())
            .map(|spec| OutputCheck::new(spec, self.options.output_retries));
        // Boxed: a run finishes an open turn once at most, and inline, the futures of
        // answering and playing it would make every run's future larger.
        if let Some(open) = open {
            let from = run.tool_calls.len();
            if Box::pin(reopen(run, open, stop, &env)).await || output_given(&mut output, run, from)
            {
                return;
            }
        }
        let fresh = run.turns == 0 && run.tool_calls.is_empty();
        if fresh && let Some(reason) = self.guard_input(run).await {
            run.status = RunStatus::Incomplete { reason };
            return;
        }
        let mut notes = TurnNotes::default();
        // The tools a before-turn hook put in place of the run's, from its turn on.
        let mut tools: Option<Toolkit> = None;
        loop {
            if run.turns >= self.max_turns {
                let reason = StopReason::MaxTurns {
                    limit: self.max_turns,
                };
                run.status = RunStatus::Incomplete { reason };
                return;
            }
            let capped = limits
                .before_request(run)
                .or_else(|| spend.check(&limits, run));
            if let Some(reason) = stop.check().or(capped) {
                run.status = RunStatus::Incomplete { reason };
                return;
            }
            run.turns += 1;
            if let Some(reason) = self.turn_hooks(run, &listed, &mut tools, stop).await {
                run.status = RunStatus::Incomplete { reason };
                return;
            }
            let offered = match &tools {
                Some(tools) => Offered::Whole(tools),
                None => listed.for_turn(&run.messages),
            };
            // What the turn started from, to rewind to if it halts.
            let rewind = window.as_ref().map(|_| run.compacted.clone());
            let reply = {
                let (shown, compacted) = match &window {
                    None => (Cow::Borrowed(run.messages.as_slice()), None),
                    Some(window) => {
                        let viewed = Box::pin(window.view(&run.messages, &mut run.compacted));
                        match stop.guard(viewed).await {
                            Ok(Ok(viewed)) => viewed,
                            Ok(Err(reason)) | Err(reason) => {
                                run.status = RunStatus::Incomplete { reason };
                                return;
                            }
                        }
                    }
                };
                if let Some(report) = &compacted {
                    run.usage += report.usage;
                    events(&self.tools.listener).emit(Event::Compacted {
                        turn: run.turns,
                        summarized: report.summarized,
                        tokens_before: report.before,
                        tokens_after: report.after,
                    });
                }
                let compacted = compacted.map(|r| (r.summarized, r.after));
                let prompt = match shown.last() {
                    Some(Message::User { content }) if fresh && run.turns == 1 => {
                        Some(content.text())
                    }
                    _ => None,
                };
                let asked = self.model_turn(
                    run.turns,
                    &shown,
                    &offered,
                    compacted,
                    prompt.as_deref(),
                    &mut notes,
                );
                match stop.guard(asked).await {
                    Ok(Ok(reply)) => reply,
                    Ok(Err(reason)) | Err(reason) => {
                        run.status = RunStatus::Incomplete { reason };
                        return;
                    }
                }
            };
            run.usage += reply.usage;
            spend.turn(&reply);
            // The contract's `model` is the name the request carried (as the Python port
            // reports it); a model made of others names the one that answered.
            run.model = notes.named.take().or_else(|| reply.model.clone());
            if let Some(reason) = notes.tripped.take() {
                run.status = RunStatus::Incomplete { reason };
                return;
            }
            run.text = reply.content.clone().unwrap_or_default();
            if reply.tool_calls.is_empty() {
                run.messages.push(Message::Assistant {
                    content: reply.content,
                    tool_calls: Vec::new(),
                    native: reply.native,
                });
                match output.as_mut().map(|check| check.answer(&run.text)) {
                    None => return,
                    Some(Verdict::Done(text)) => {
                        run.text = text;
                        return;
                    }
                    Some(Verdict::Retry(text)) => {
                        run.messages.push(Message::user(text));
                        continue;
                    }
                    Some(Verdict::Fail(reason)) => {
                        run.status = RunStatus::Incomplete { reason };
                        return;
                    }
                }
            }
            let asked_for = reply.tool_calls.len();
            let (calls, guarded) = self.guard_calls(run.turns, reply.tool_calls).await;
            let mut turn = ToolTurn::fresh(run.messages.len(), run.turns, calls);
            run.messages.push(Message::Assistant {
                content: reply.content,
                tool_calls: turn.calls(),
                native: reply.native,
            });
            if let Some(Err(reason)) = checkpoint(record, &run.messages).await {
                end_of_turn(run, turn, Err(reason), &env);
                return;
            }
            if let Some(reason) = guarded.or_else(|| limits.before_calls(run, asked_for)) {
                end_of_turn(run, turn, Err(reason), &env);
                return;
            }
            let from = run.tool_calls.len();
            let played = stop.guard(turn.play(&env)).await;
            if end_of_turn(run, turn, played, &env) {
                // A halted turn is rewound whole, its compaction included: the resumed
                // run compacts again.
                let halted = matches!(
                    run.status,
                    RunStatus::Pending
                        | RunStatus::Incomplete {
                            reason: StopReason::WaitFor { .. }
                        }
                );
                if let Some(before) = rewind.filter(|_| halted) {
                    run.compacted = before;
                }
                return;
            }
            if let Some(reason) = self.guard_results(run, from).await {
                run.status = RunStatus::Incomplete { reason };
                return;
            }
            if output_given(&mut output, run, from) {
                return;
            }
        }
    }

    /// One model turn between its hooks; a panicking model is a model error, not a crash.
    /// `compacted` is what compaction did before it (for its span).
    /// `prompt` is the fresh run's prompt on its first turn (for concurrent input
    /// guardrails); an output guardrail's trip goes to `notes.tripped`.
    async fn model_turn(
        &self,
        turn: u32,
        transcript: &[Message],
        toolkit: &Toolkit,
        compacted: Option<(usize, usize)>,
        prompt: Option<&str>,
        notes: &mut TurnNotes,
    ) -> Result<Reply, StopReason> {
        let hooks = &self.tools.hooks;
        let events = events(&self.tools.listener);
        events.emit(Event::ModelTurnStarted { turn });
        if events.is_on() {
            // A stream reads the turn's start before the turn is asked (back-pressure).
            crate::agent::stream::yield_once().await;
        }
        let held = Held::default();
        let held = self.withholds(turn).then_some(&held);
        let asked = async {
            let start = std::time::Instant::now();
            let reply = self
                .ask_model(turn, transcript, toolkit, events, held)
                .await;
            self.tools.meter.llm_called(&*self.model, &reply, start);
            let mut reply = reply?;
            if reply.model.is_none() {
                // Named by the loop, not by a model made of others: the run reports the
                // name the request carried.
                notes.named = self.model.describe().name.map(str::to_owned);
                reply.model = crate::model::routing::model_id(&*self.model);
            }
            self.options.price(&mut reply);
            Ok(reply)
        };
        let asked = trace::chat(&*self.model, &self.settings, compacted, asked).map(|r| {
            r.map_err(|error| StopReason::ModelError {
                message: error.to_string(),
            })
        });
        let mut reply = self.alongside(prompt, asked).await?;
        if let Some(held) = held {
            notes.tripped = self.guard_output(turn, &mut reply, held).await;
        }
        let hooked = hooks.after_turn(turn, &reply).await;
        hooked.map_err(|message| StopReason::Hook { message })?;
        events.emit(Event::ModelTurnFinished {
            turn,
            reply: Cow::Borrowed(&reply),
        });
        for call in &reply.tool_calls {
            events.emit(Event::ToolCall {
                turn,
                call: Cow::Borrowed(call),
            });
        }
        Ok(reply)
    }

    /// Asks the model, streaming its text into the events when someone listens.
    async fn ask_model(
        &self,
        turn: u32,
        transcript: &[Message],
        toolkit: &Toolkit,
        events: Events<'_>,
        held: Option<&Held>,
    ) -> Result<Reply, ModelError> {
        let on_delta = move |delta: Delta| match (&delta, held) {
            (Delta::Text(text), Some(held)) => held.push(text),
            _ => events.emit(Event::of_delta(turn, &delta)),
        };
        let request = ModelRequest::new(transcript, toolkit).with_settings(&self.settings);
        let future = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let on_delta: Option<DeltaSink<'_>> = events.is_on().then_some(&on_delta);
            self.model.complete(request.with_delta_sink(on_delta))
        }))
        .map_err(|_| ModelError::new("the model panicked"))?;
        AssertUnwindSafe(future)
            .catch_unwind()
            .await
            .unwrap_or_else(|_| Err(ModelError::new("the model panicked")))
    }
}

/// After a played turn of a typed run that uses the output tool: whether the run ends
/// there (its output given, or out of retries). The turn's records start at `from`.
fn output_given(output: &mut Option<OutputCheck<'_>>, run: &mut RunResult, from: usize) -> bool {
    let Some(check) = output.as_mut() else {
        return false;
    };
    match check.calls(&run.tool_calls[from..]) {
        None | Some(Verdict::Retry(_)) => false,
        Some(Verdict::Done(text)) => {
            run.text = text;
            true
        }
        Some(Verdict::Fail(reason)) => {
            run.status = RunStatus::Incomplete { reason };
            true
        }
    }
}

/// Finishes the turn an earlier run left open (answering its parked call first, when
/// resuming); `true` when the run ends there.
async fn reopen(run: &mut RunResult, open: Box<Opened>, stop: &Stop, env: &Env<'_>) -> bool {
    let Opened {
        mut turn, answer, ..
    } = *open;
    let played = stop
        .guard(async {
            if let Some((i, answer)) = answer {
                turn.answer(i, answer, env).await;
            }
            turn.play(env).await
        })
        .await;
    end_of_turn(run, turn, played, env)
}

/// Writes a played turn into the run; `true` when the run ends there (halted, failed
/// or stopped, in which case every unfinished call gets its explicit result first).
fn end_of_turn(
    run: &mut RunResult,
    mut turn: ToolTurn,
    played: Result<Played, StopReason>,
    env: &Env<'_>,
) -> bool {
    // A failed store write ends the run after its turn: what was recorded stands.
    let played = match (played, env.record.and_then(RunRecord::failure)) {
        (Ok(Played::Settled), Some(reason)) => Err(reason),
        (played, _) => played,
    };
    let ends = match played {
        Ok(Played::Settled) => false,
        Ok(Played::Halted(request)) => {
            run.status = RunStatus::Pending;
            run.text = request.prompt.clone();
            run.pending = Some(request);
            true
        }
        Ok(Played::Failed { request, message }) => {
            let reason = StopReason::WaitFor {
                request: request.id.clone(),
                message,
            };
            run.status = RunStatus::Incomplete { reason };
            run.pending = Some(request);
            true
        }
        Err(reason) => {
            turn.interrupt(&reason.to_string(), env);
            run.status = RunStatus::Incomplete { reason };
            true
        }
    };
    turn.write(&mut run.messages);
    let from = run.tool_calls.len();
    run.tool_calls.extend(turn.records());
    run.usage += run.tool_calls[from..]
        .iter()
        .map(as_tool::inner_usage)
        .sum();
    ends
}

/// Records a model turn that asked for tools, when the run is durable. The store's
/// future is boxed, so that a run without one does not carry its size.
async fn checkpoint(
    record: Option<&RunRecord>,
    transcript: &[Message],
) -> Option<Result<(), StopReason>> {
    Some(Box::pin(record?.checkpoint(transcript)).await)
}

/// When a run must stop: its cancellation token, its deadline, neither or both.
pub(crate) struct Stop {
    /// The client's token: cancelled by the host.
    host: Option<CancellationToken>,
    /// The run's own token (a child of the host's), handed to tools; the run cancels it
    /// when it stops. `None` when there is nothing to stop for.
    run: Option<CancellationToken>,
    /// The deadline, and the limit it came from.
    deadline: Option<(Instant, Duration)>,
}

impl Stop {
    fn new(host: Option<&CancellationToken>, limit: Option<Duration>) -> Stop {
        if host.is_none() && limit.is_none() {
            return Stop {
                host: None,
                run: None,
                deadline: None,
            };
        }
        Stop {
            host: host.cloned(),
            run: Some(host.map_or_else(CancellationToken::new, CancellationToken::child_token)),
            deadline: limit.map(|limit| (Instant::now() + limit, limit)),
        }
    }

    fn token(&self) -> Option<&CancellationToken> {
        self.run.as_ref()
    }

    /// Why the run must stop now, if it must (then the run's token is cancelled too).
    fn check(&self) -> Option<StopReason> {
        let host_cancelled = self
            .host
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled);
        let reason = match self.deadline {
            _ if host_cancelled => StopReason::Cancelled,
            Some((at, limit)) if Instant::now() >= at => deadline(limit),
            _ => return None,
        };
        if let Some(token) = &self.run {
            token.cancel();
        }
        Some(reason)
    }

    /// Completes when the run must stop.
    async fn fired(&self) -> StopReason {
        let cancelled = pin!(async {
            match &self.host {
                Some(token) => token.cancelled().await,
                None => pending().await,
            }
        });
        let expired = pin!(async {
            match self.deadline {
                Some((at, _)) => tokio::time::sleep_until(at).await,
                None => pending().await,
            }
        });
        match select(cancelled, expired).await {
            Either::Left(_) => StopReason::Cancelled,
            Either::Right(_) => deadline(self.deadline.map(|(_, limit)| limit).unwrap_or_default()),
        }
    }

    /// Runs `work` unless the run must stop first (checked first, so a stop wins a tie);
    /// then `work` is dropped and the run's token cancelled.
    ///
    /// Not an `async fn`: one would hold `work` twice (as its argument and pinned for the
    /// race), doubling the loop's futures at every level that guards; here the future is
    /// `work` itself when there is nothing to stop for, and two boxes when there is.
    #[inline]
    pub(crate) fn guard<'s, F>(
        &'s self,
        work: F,
    ) -> impl Future<Output = Result<F::Output, StopReason>> + 's
    where
        F: Future + 's,
    {
        let Some(token) = &self.run else {
            return Either::Left(work.map(Ok));
        };
        let raced = select(Box::pin(self.fired()), Box::pin(work));
        Either::Right(raced.map(move |won| match won {
            Either::Left((reason, _)) => {
                token.cancel();
                Err(reason)
            }
            Either::Right((output, _)) => Ok(output),
        }))
    }
}

fn deadline(limit: Duration) -> StopReason {
    StopReason::Deadline {
        limit_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
    }
}

/// What a model turn leaves for the loop besides its reply.
#[derive(Default)]
pub(crate) struct TurnNotes {
    /// An output guardrail's trip.
    tripped: Option<StopReason>,
    /// The model's name as the request carried it, when the loop (not a model made of
    /// others) named the turn's model: what the run reports as its `model`.
    named: Option<String>,
}

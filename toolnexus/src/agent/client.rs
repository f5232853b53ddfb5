//! [`Client`]: the tool-calling loop over any [`Model`].
//!
//! The rules are documented on [`Client`], where they render.

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;

use crate::agent::message::Message;
use crate::agent::model::{Model, ModelError, Reply, Usage};
use crate::agent::run::{CallRecord, RunResult, RunStatus, StopReason};
use crate::agent::turn::{ResumeError, ToolOptions, Turn, resume_with};
use crate::tool::request::{Answer, Request};
use crate::tool::toolkit::Toolkit;

/// The default for [`Client::max_turns`].
pub const DEFAULT_MAX_TURNS: u32 = 10;

/// Runs the tool-calling loop between a [`Model`] and a [`Toolkit`].
///
/// Cheap to clone; one client serves many runs, with any toolkit.
///
/// # The loop
///
/// 1. The transcript starts with the system prompt (if any) and the user's prompt.
/// 2. The model gives one turn. Without tool calls, that turn is the answer: the run is
///    [done](RunStatus::Done).
/// 3. Otherwise the toolkit runs the calls (concurrently by default, on the current task;
///    results always go back in call order, one tool message per call id), and the loop
///    goes back to 2, for at most [`max_turns`](Client::max_turns) model turns.
///
/// Nothing in the loop panics or hangs on bad input: a model error stops the run as
/// [incomplete](RunStatus::Incomplete) with the transcript as it was (balanced); a tool
/// that panics, times out (see [`tool_timeout`](Client::tool_timeout)), gets malformed
/// arguments or does not exist gives an error result the model reads and can recover from.
///
/// # Suspensions
///
/// A call that returns a pending result (a [`Suspend`](crate::Suspend)) is handled so:
///
/// - With a [`wait_for`](Client::wait_for) slot, the loop asks it for an [`Answer`]. When
///   the answer is positive the same tool runs once more with the same arguments and the
///   answer in [`Context::answer`](crate::Context::answer), and that result goes back (if
///   it suspends again, `unresolved: <prompt>` goes back instead). When the answer is
///   negative, `declined/expired: <prompt>` goes back. The loop continues either way.
/// - Without one, the run halts with status [`Pending`](RunStatus::Pending) and the
///   [`Request`] in [`RunResult::pending`]; with several suspended calls in a turn, on the
///   first in call order. Nothing waits. Serialize the `RunResult` if the answer will come
///   later, and continue with [`Client::resume`] (or the tools-only [`resume`](crate::resume)).
///
/// A suspension is never a tool error ([`CallRecord::is_tool_error`](crate::CallRecord::is_tool_error)).
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use toolnexus::{Client, Reply, ScriptedModel, Tool, ToolResult, Toolkit};
///
/// let add = Tool::new_sync("add", "Add two numbers.", json!({"type": "object"}), |args, _| {
///     ToolResult::ok((args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)).to_string())
/// });
/// let toolkit = Toolkit::new().with(add);
/// let model = ScriptedModel::new([
///     Reply::call("call_1", "add", r#"{"a": 2, "b": 3}"#),
///     Reply::text("2 + 3 = 5"),
/// ]);
/// let client = Client::new(model).system("You add numbers.");
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let run = rt.block_on(client.run("What is 2 + 3?", &toolkit));
/// assert!(run.is_done());
/// assert_eq!(run.text, "2 + 3 = 5");
/// assert_eq!(run.calls[0].result.output, "5");
/// assert_eq!(run.transcript.len(), 5); // system, user, assistant (call), tool, assistant
/// ```
#[derive(Clone)]
pub struct Client {
    model: Arc<dyn Model>,
    system: Option<String>,
    max_turns: u32,
    tools: ToolOptions,
}

impl Client {
    /// A client over `model`, with no system prompt, [`DEFAULT_MAX_TURNS`], no
    /// `wait_for`, no tool timeout, and concurrent tool calls.
    pub fn new(model: impl Model + 'static) -> Self {
        Client {
            model: Arc::new(model),
            system: None,
            max_turns: DEFAULT_MAX_TURNS,
            tools: ToolOptions::default(),
        }
    }

    /// Sets the system prompt, the first message of every new transcript.
    #[must_use]
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.system = Some(prompt.into());
        self
    }

    /// Sets how many times one run may call the model (default 10). A run that reaches
    /// it with the model still asking for tools ends
    /// [incomplete](StopReason::MaxTurns), its last tool results in the transcript.
    #[must_use]
    pub fn max_turns(mut self, max_turns: u32) -> Self {
        self.max_turns = max_turns;
        self
    }

    /// Sets the host slot that answers suspensions while the run waits (a prompt on a
    /// terminal, a web form, an approval queue). See [`Client`].
    #[must_use]
    pub fn wait_for<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Request) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer> + Send + 'static,
    {
        self.tools.wait_for = Some(Arc::new(move |request| f(request).boxed()));
        self
    }

    /// Limits every tool call to `timeout`; past it the call ends with an error result
    /// saying so (see [`Context::with_timeout`](crate::Context::with_timeout)).
    #[must_use]
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.tools.timeout = Some(timeout);
        self
    }

    /// Whether the calls of one turn run concurrently (the default) or one after the
    /// other. Either way their results go back in call order. Concurrent calls share the
    /// current task: they overlap at their await points, so a CPU-heavy tool should move
    /// its work off the task itself.
    #[must_use]
    pub fn concurrent(mut self, concurrent: bool) -> Self {
        self.tools.sequential = !concurrent;
        self
    }

    /// Runs the loop on a new transcript: the system prompt, then `prompt`.
    pub async fn run(&self, prompt: impl Into<String>, toolkit: &Toolkit) -> RunResult {
        let mut transcript = Vec::with_capacity(2);
        if let Some(system) = &self.system {
            transcript.push(Message::system(system.clone()));
        }
        transcript.push(Message::user(prompt));
        self.drive(transcript, Vec::new(), toolkit).await
    }

    /// Runs the loop on a prior transcript with a new user `prompt`. The system prompt is
    /// put first if the transcript has none. If the transcript ends in a halted turn, the
    /// new prompt abandons it: each unfinished call gets an explicit error result
    /// (`unanswered: <prompt>`, or `not run: …`), so the transcript stays balanced.
    pub async fn continue_run(
        &self,
        mut transcript: Vec<Message>,
        prompt: impl Into<String>,
        toolkit: &Toolkit,
    ) -> RunResult {
        if let Some(mut turn) = Turn::open(&transcript).filter(Turn::is_open) {
            turn.abandon();
            turn.write(&mut transcript);
        }
        if let Some(system) = &self.system
            && !matches!(transcript.first(), Some(Message::System { .. }))
        {
            transcript.insert(0, Message::system(system.clone()));
        }
        transcript.push(Message::user(prompt));
        self.drive(transcript, Vec::new(), toolkit).await
    }

    /// Continues a run that halted on `request` (typically in another process, from a
    /// serialized [`RunResult`]): checks the answer's id, finishes the halted turn as
    /// [`resume`](crate::resume) does (with this client's `wait_for`, timeout and
    /// concurrency), then lets the model carry on. No user message is added; the model
    /// turn budget starts afresh.
    ///
    /// If another call of the halted turn is still suspended (and there is no `wait_for`),
    /// the result is pending again, on that call's request.
    pub async fn resume(
        &self,
        toolkit: &Toolkit,
        transcript: Vec<Message>,
        request: &Request,
        answer: Answer,
    ) -> Result<RunResult, ResumeError> {
        let resumed = resume_with(toolkit, transcript, request, answer, &self.tools).await?;
        if let Some(request) = resumed.pending {
            return Ok(RunResult {
                status: RunStatus::Pending,
                text: String::new(),
                transcript: resumed.transcript,
                calls: resumed.calls,
                turns: 0,
                usage: Usage::default(),
                pending: Some(request),
            });
        }
        Ok(self.drive(resumed.transcript, resumed.calls, toolkit).await)
    }

    async fn drive(
        &self,
        transcript: Vec<Message>,
        calls: Vec<CallRecord>,
        toolkit: &Toolkit,
    ) -> RunResult {
        let mut run = RunResult {
            status: RunStatus::Done,
            text: String::new(),
            transcript,
            calls,
            turns: 0,
            usage: Usage::default(),
            pending: None,
        };
        loop {
            if run.turns >= self.max_turns {
                let reason = StopReason::MaxTurns {
                    limit: self.max_turns,
                };
                run.status = RunStatus::Incomplete { reason };
                return run;
            }
            run.turns += 1;
            let reply = match self.ask(&run.transcript, toolkit).await {
                Ok(reply) => reply,
                Err(error) => {
                    let reason = StopReason::ModelError {
                        message: error.to_string(),
                    };
                    run.status = RunStatus::Incomplete { reason };
                    return run;
                }
            };
            run.usage += reply.usage;
            run.text = reply.content.clone().unwrap_or_default();
            if reply.tool_calls.is_empty() {
                run.transcript.push(Message::Assistant {
                    content: reply.content,
                    tool_calls: Vec::new(),
                });
                return run;
            }
            let mut turn = Turn::fresh(run.transcript.len(), run.turns, reply.tool_calls);
            run.transcript
                .push(Message::tool_calls(reply.content, turn.calls()));
            let halted = turn.play(toolkit, &self.tools).await;
            turn.write(&mut run.transcript);
            run.calls.extend(turn.records());
            if let Some(request) = halted {
                run.status = RunStatus::Pending;
                run.pending = Some(request);
                return run;
            }
        }
    }

    /// One model turn; a panicking model is a model error, not a crash.
    async fn ask(&self, transcript: &[Message], toolkit: &Toolkit) -> Result<Reply, ModelError> {
        let future = std::panic::catch_unwind(AssertUnwindSafe(|| {
            self.model.complete(transcript, toolkit)
        }))
        .map_err(|_| ModelError::new("the model panicked"))?;
        AssertUnwindSafe(future)
            .catch_unwind()
            .await
            .unwrap_or_else(|_| Err(ModelError::new("the model panicked")))
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("system", &self.system)
            .field("max_turns", &self.max_turns)
            .field("wait_for", &self.tools.wait_for.is_some())
            .field("tool_timeout", &self.tools.timeout)
            .field("concurrent", &!self.tools.sequential)
            .finish_non_exhaustive()
    }
}

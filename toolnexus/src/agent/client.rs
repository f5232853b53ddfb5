//! [`Client`]: the tool-calling loop over any [`Model`].
//!
//! The rules are documented on [`Client`], where they render.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;

use crate::agent::events::Event;
use crate::agent::events::Listener;
use crate::agent::hooks::{
    AfterTool, AfterTurn, BeforeTool, BeforeTurn, Hooks, Points, ToolDecision,
};
#[cfg(feature = "__store")]
use crate::agent::journal::Durable;
use crate::agent::talk::LoopCaller;
use crate::agent::turn::ToolOptions;
use crate::model::message::ToolCall;
use crate::model::{Model, Reply};
use crate::tool::context::CancellationToken;
use crate::tool::request::{Answer, Request};
use crate::tool::result::ToolResult;

/// The default for [`Client::max_turns`].
pub const DEFAULT_MAX_TURNS: u32 = 10;

/// Runs the tool-calling loop between a [`Model`] and a [`Toolkit`](crate::Toolkit).
///
/// Cheap to clone; one client serves many runs, with any toolkit.
///
/// # The loop
///
/// 1. The transcript starts with the system prompt (if any) and the user's prompt.
/// 2. The model gives one turn. Without tool calls, that turn is the answer: the run is
///    [done](crate::RunStatus::Done).
/// 3. Otherwise the toolkit runs the calls (concurrently by default, on the current task;
///    results always go back in call order, one tool message per call id), and the loop
///    goes back to 2, for at most [`max_turns`](Client::max_turns) model turns.
///
/// Nothing in the loop panics or hangs on bad input: a model error stops the run as
/// [incomplete](crate::RunStatus::Incomplete) with the transcript as it was (balanced); a tool
/// that panics, times out (see [`tool_timeout`](Client::tool_timeout)), gets malformed
/// arguments or does not exist gives an error result the model reads and can recover from.
/// A model that gives a call an empty or repeated id has it replaced by a unique one.
///
/// # Stopping, hooks and events
///
/// A run stops early when its [deadline](Client::run_timeout) passes or its
/// [cancellation token](Client::cancellation) is cancelled, in the middle of a model turn
/// or of a tool call alike: it returns at once, [incomplete](crate::RunStatus::Incomplete)
/// with the reason, and every call of the interrupted turn answered (`cancelled: …`), so
/// the transcript is balanced and [`run_from`](Client::run_from) can pick it up.
/// [`Hooks`] run around every tool call (allow, deny, rewrite, redact) and model turn;
/// [`on_event`](Client::on_event) reports the run as it happens ([`Event`]).
///
/// # Suspensions
///
/// A call that returns a pending result (a [`Suspend`](crate::Suspend)) is handled so:
///
/// - With a [`wait_for`](Client::wait_for) slot, the loop asks it for an [`Answer`]. When
///   the answer is positive the same tool runs once more with the same arguments and the
///   answer in [`Context::answer`](crate::Context::answer), and that result goes back (if
///   it suspends again, `unresolved: <prompt>` goes back instead). When the answer is
///   negative, or none came within [`wait_timeout`](Client::wait_timeout),
///   `declined/expired: <prompt>` goes back. The loop continues either way. The
///   suspensions of one turn are resolved independently and concurrently (unless
///   [`concurrent(false)`](Client::concurrent)); their results stay in call order. A
///   `wait_for` that returns an error ends the run, halted on that request.
/// - Without one, the run halts with status [`Pending`](crate::RunStatus::Pending), the
///   [`Request`] in [`RunResult::pending`](crate::RunResult::pending) and its prompt in
///   [`RunResult::text`](crate::RunResult::text); with
///   several suspended calls in a turn, on the
///   first in call order. Nothing waits. Serialize the `RunResult` if the answer will come
///   later, and continue with [`Client::resume`] (or the tools-only
///   [`dispatch::resume`](crate::dispatch::resume)).
///
/// A suspension is never a tool error ([`CallRecord::is_tool_error`](crate::agent::CallRecord::is_tool_error)).
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
/// assert_eq!(run.tool_calls[0].result.output, "5");
/// assert_eq!(run.messages.len(), 5); // system, user, assistant (call), tool, assistant
/// ```
#[derive(Clone)]
pub struct Client {
    pub(crate) model: Arc<dyn Model>,
    pub(crate) system: Option<String>,
    pub(crate) max_turns: u32,
    pub(crate) tools: ToolOptions,
    pub(crate) run_timeout: Option<Duration>,
    pub(crate) cancellation: Option<CancellationToken>,
    /// The agent's name in its spans (see [`Client::agent_name`]).
    pub(crate) name: Option<String>,
    /// The settings every turn is asked with (see [`Client::settings`]).
    pub(crate) settings: Arc<crate::model::settings::ModelSettings>,
    /// Tool search, when on (see [`Client::tool_search`]).
    #[cfg(feature = "search")]
    pub(crate) search: Option<crate::search::ToolSearch>,
    /// The run store, its lease and the next run's id ([`Client::with_store`]).
    #[cfg(feature = "__store")]
    pub(crate) store: Option<Durable>,
    /// Compaction, usage caps, typed output, conversations (`options.rs`).
    pub(crate) options: crate::agent::options::RunOptions,
}

impl Client {
    /// A client over `model`, with no system prompt, [`DEFAULT_MAX_TURNS`], no
    /// `wait_for`, no timeouts, no cancellation, no hooks, no event listener, and
    /// concurrent tool calls.
    ///
    /// Any model goes: a provider, an `Arc<dyn Model>` or a `Box<dyn Model>` chosen at
    /// run time (taken as it is, not wrapped again).
    pub fn new(model: impl Model + 'static) -> Self {
        let model: Arc<dyn Model> = crate::model::shared(model);
        Client {
            tools: ToolOptions {
                caller: Some(LoopCaller::shared(None, Arc::clone(&model))),
                ..ToolOptions::default()
            },
            model,
            system: None,
            max_turns: DEFAULT_MAX_TURNS,
            run_timeout: None,
            cancellation: None,
            name: None,
            settings: Arc::default(),
            #[cfg(feature = "search")]
            search: None,
            #[cfg(feature = "__store")]
            store: None,
            options: crate::agent::options::RunOptions::default(),
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
    /// [incomplete](crate::agent::StopReason::MaxTurns), its last tool results in the transcript.
    #[must_use]
    pub fn max_turns(mut self, max_turns: u32) -> Self {
        self.max_turns = max_turns;
        self
    }

    /// Sets the host slot that answers suspensions while the run waits (a prompt on a
    /// terminal, a web form, an approval queue). See [`Client`].
    ///
    /// The future gives an [`Answer`], or a `Result<Answer, E>` (any `E: Display`): an
    /// `Err` means nobody can answer (the approval service is down), and ends the run as
    /// [incomplete](crate::agent::StopReason::WaitFor), halted on the request so that
    /// [`resume`](Client::resume) can finish it later. Suspensions of one turn are asked
    /// about concurrently; bound each wait with [`wait_timeout`](Client::wait_timeout).
    #[must_use]
    pub fn wait_for<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Request) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoWaitOutcome,
    {
        self.tools.wait_for = Some(Arc::new(move |request| {
            f(request).map(IntoWaitOutcome::into_outcome).boxed()
        }));
        self
    }

    /// Limits each [`wait_for`](Client::wait_for) to `timeout`. A request with no answer
    /// by then has expired: the model gets `declined/expired: <prompt>` (the call's
    /// status is [`Declined`](crate::agent::CallStatus::Declined), its answer a decline saying why) and
    /// the run goes on.
    #[must_use]
    pub fn wait_timeout(mut self, timeout: Duration) -> Self {
        self.tools.wait_timeout = Some(timeout);
        self
    }

    /// Limits every run (and every [`resume`](Client::resume)) to `timeout`, model turns,
    /// tools and waits included. A run past it stops as
    /// [incomplete](crate::agent::StopReason::Deadline): what was in flight is dropped, every call
    /// that had not finished gets an explicit `cancelled: …` (or `unanswered: <prompt> …`)
    /// result, and the transcript comes back balanced; [`run_from`](Client::run_from)
    /// picks it up.
    #[must_use]
    pub fn run_timeout(mut self, timeout: Duration) -> Self {
        self.run_timeout = Some(timeout);
        self
    }

    /// Stops runs when `token` is cancelled, as [`run_timeout`](Client::run_timeout)
    /// does at its deadline, with [`StopReason::Cancelled`](crate::agent::StopReason::Cancelled). Tools see the cancellation in
    /// their [`Context`](crate::Context) (a child token, which the run also cancels when
    /// it stops at its deadline). One token stops every run of this client; give each
    /// run its own with `client.clone().cancellation(token)`.
    #[must_use]
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Adds hooks around every tool call and model turn (see [`Hooks`]). Hooks run in
    /// the order they were added, closures from [`before_tool`](Client::before_tool) and
    /// its siblings included.
    #[must_use]
    pub fn hooks(mut self, hooks: impl Hooks + 'static) -> Self {
        self.tools.hooks.push(Arc::new(hooks), Points::ALL);
        self
    }

    /// Adds a closure adapter at the one hook point it serves.
    fn hook_at(mut self, hooks: impl Hooks + 'static, set: fn(&mut Points)) -> Self {
        let mut points = Points::NONE;
        set(&mut points);
        self.tools.hooks.push(Arc::new(hooks), points);
        self
    }

    /// Adds a hook run before every tool call: allow it, deny it with a reason the model
    /// reads, or rewrite its arguments (see [`ToolDecision`]).
    ///
    /// ```
    /// use toolnexus::agent::ToolDecision;
    /// use toolnexus::{Client, ScriptedModel};
    ///
    /// let client = Client::new(ScriptedModel::default()).before_tool(|call| {
    ///     let decision = if call.name == "delete_file" {
    ///         ToolDecision::deny("deleting files needs a human; ask the user instead")
    ///     } else {
    ///         ToolDecision::Allow
    ///     };
    ///     async move { decision }
    /// });
    /// ```
    ///
    /// The closure's future is boxed on every call; a hook that decides without awaiting
    /// anything costs less as [`Client::before_tool_sync`].
    #[must_use]
    pub fn before_tool<F, Fut>(self, f: F) -> Self
    where
        F: Fn(&ToolCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolDecision> + Send + 'static,
    {
        self.hook_at(BeforeTool(f), |p| p.before_tool = true)
    }

    /// Adds a hook run after every tool call that ran: it gets the call (as it ran) and
    /// its result, and gives back the result the loop keeps (for logging, redaction).
    ///
    /// The closure's future is boxed on every call; a hook with nothing to await costs
    /// less as [`Client::after_tool_sync`], which edits the result in place.
    #[must_use]
    pub fn after_tool<F, Fut>(self, f: F) -> Self
    where
        F: Fn(&ToolCall, ToolResult) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        self.hook_at(AfterTool(f), |p| p.after_tool = true)
    }

    /// As [`Client::before_tool`], for a hook that decides at once (a permission table, a
    /// log line): a plain function, so the loop makes no future for it on each call. A
    /// panic denies the call, as in the async form.
    #[must_use]
    pub fn before_tool_sync<F>(mut self, f: F) -> Self
    where
        F: Fn(&ToolCall) -> ToolDecision + Send + Sync + 'static,
    {
        self.tools.hooks.push_before_sync(Arc::new(f));
        self
    }

    /// As [`Client::after_tool`], for a hook that returns at once (redaction, logging):
    /// a plain function that edits the result in place, so the loop makes no future
    /// for it on each call and moves no result. A panic withholds the result, as in the
    /// async form.
    #[must_use]
    pub fn after_tool_sync<F>(mut self, f: F) -> Self
    where
        F: Fn(&ToolCall, &mut ToolResult) + Send + Sync + 'static,
    {
        self.tools.hooks.push_after_sync(Arc::new(f));
        self
    }

    /// Adds a hook run before every model turn, shown the turn ([`TurnStart`](crate::agent::TurnStart):
    /// its number, the model's name, the working transcript, the tools offered); its
    /// [`TurnDecision`](crate::agent::TurnDecision) may replace the transcript or the
    /// tools, or abort the run.
    #[must_use]
    pub fn before_turn<F, Fut>(self, f: F) -> Self
    where
        F: Fn(crate::agent::TurnStart<'_>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = crate::agent::TurnDecision> + Send + 'static,
    {
        self.hook_at(BeforeTurn(f), |p| p.before_turn = true)
    }

    /// Adds a hook run after every model turn, with the turn's number and the reply
    /// (its [`Usage`](crate::Usage) included).
    #[must_use]
    pub fn after_turn<F, Fut>(self, f: F) -> Self
    where
        F: Fn(u32, &Reply) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.hook_at(AfterTurn(f), |p| p.after_turn = true)
    }

    /// Sends every [`Event`] of every run to `listener` as it happens: model turns, text
    /// as the model streams it, tool calls starting, reporting progress and log lines
    /// ([`Context::progress`](crate::Context::progress)) and finishing, suspensions, the end
    /// of the run. The listener is called on the run's task: keep it quick (send to a
    /// channel). With a listener set, the model is asked through
    /// [`Model::complete_streaming`]. Setting another replaces it.
    #[must_use]
    pub fn on_event<F>(mut self, listener: F) -> Self
    where
        F: Fn(&Event<'_>) + Send + Sync + 'static,
    {
        let listener: Arc<Listener> = Arc::new(listener);
        self.tools.caller = Some(LoopCaller::shared(
            Some(Arc::clone(&listener)),
            Arc::clone(&self.model),
        ));
        self.tools.listener = Some(listener);
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

    /// Turns tool search on (feature `search`): instead of the whole toolkit, each turn
    /// lists a built-in `search_tools` tool, the always-visible tools, and the tools found
    /// so far in the run. See [`ToolSearch`](crate::search::ToolSearch).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::search::ToolSearch;
    /// use toolnexus::{Client, Reply, ScriptedModel, Tool, ToolResult, Toolkit};
    ///
    /// let toolkit: Toolkit = (0..100)
    ///     .map(|i| Tool::new_sync(format!("tool_{i}"), format!("Does thing {i}."), json!({"type": "object"}), |_, _| ToolResult::ok("")))
    ///     .chain([Tool::new_sync("refund_order", "Refunds an order.", json!({"type": "object"}), |_, _| ToolResult::ok("refunded"))])
    ///     .collect();
    /// let model = ScriptedModel::new([
    ///     Reply::call("c1", "search_tools", r#"{"query": "refund an order"}"#),
    ///     Reply::call("c2", "refund_order", "{}"),
    ///     Reply::text("Refunded."),
    /// ]);
    /// let client = Client::new(model).tool_search(ToolSearch::above(30));
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let run = rt.block_on(client.run("Refund order 42", &toolkit));
    /// assert!(run.tool_calls[0].result.output.contains("- refund_order: Refunds an order."));
    /// assert_eq!(run.tool_calls[1].result.output, "refunded");
    /// ```
    #[cfg(feature = "search")]
    #[must_use]
    pub fn tool_search(mut self, options: crate::search::ToolSearch) -> Self {
        self.search = Some(options);
        self
    }
}

impl Client {
    /// Whether tool search is on (for `Debug`).
    fn search_on(&self) -> bool {
        #[cfg(feature = "search")]
        return self.search.is_some();
        #[cfg(not(feature = "search"))]
        false
    }

    /// Whether a run store is set (for `Debug`).
    fn has_store(&self) -> bool {
        #[cfg(feature = "__store")]
        return self.store.is_some();
        #[cfg(not(feature = "__store"))]
        false
    }
}

/// What a [`wait_for`](Client::wait_for) future may give: an [`Answer`], or a
/// `Result<Answer, E>` whose error (any `E: Display`) ends the run.
pub trait IntoWaitOutcome: Send {
    /// The answer, or the error's text.
    fn into_outcome(self) -> Result<Answer, String>;
}

impl IntoWaitOutcome for Answer {
    fn into_outcome(self) -> Result<Answer, String> {
        Ok(self)
    }
}

impl<E: fmt::Display + Send> IntoWaitOutcome for Result<Answer, E> {
    fn into_outcome(self) -> Result<Answer, String> {
        self.map_err(|error| error.to_string())
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("name", &self.name)
            .field("system", &self.system)
            .field("settings", &self.settings)
            .field("max_turns", &self.max_turns)
            .field("wait_for", &self.tools.wait_for.is_some())
            .field("wait_timeout", &self.tools.wait_timeout)
            .field("tool_timeout", &self.tools.timeout)
            .field("run_timeout", &self.run_timeout)
            .field("cancellation", &self.cancellation.is_some())
            .field("concurrent", &!self.tools.sequential)
            .field("hooks", &self.tools.hooks.len())
            .field("on_event", &self.tools.listener.is_some())
            .field("tool_search", &self.search_on())
            .field("store", &self.has_store())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

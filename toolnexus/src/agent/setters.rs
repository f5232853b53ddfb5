//! Every setter of [`Client`]: how its runs go, set once when the client is built.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;

use crate::agent::client::{Client, IntoWaitOutcome};
use crate::agent::compaction::Compaction;
use crate::agent::conversation::ConversationStore;
use crate::agent::events::{Event, Listener};
use crate::agent::guardrail::Guardrail;
use crate::agent::hooks::{
    AfterTool, AfterTurn, BeforeTool, BeforeTurn, Hooks, Points, ToolDecision,
};
use crate::agent::journal::{Durable, Journal};
use crate::agent::limits::UsageLimits;
use crate::agent::talk::LoopCaller;
use crate::agent::typed::OutputMode;
use crate::model::Reply;
use crate::model::message::ToolCall;
use crate::model::price::PriceTable;
use crate::model::settings::ModelSettings;
use crate::tool::context::CancellationToken;
use crate::tool::request::Request;
use crate::tool::result::ToolResult;

impl Client {
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
    /// The future gives an [`Answer`](crate::tool::Answer), or a `Result<Answer, E>` (any `E: Display`): an
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
    /// a streamed request ([`ModelRequest::on_delta`](crate::model::ModelRequest::on_delta)).
    /// Setting another replaces it.
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

    /// Keeps conversations in `store` instead of the client's memory (see
    /// [`ConversationStore`]); used by [`ask`](Client::ask) when the client has no run
    /// store.
    #[must_use]
    pub fn conversations(mut self, store: impl ConversationStore) -> Self {
        self.options.conversations = Arc::new(store);
        self
    }

    /// Keeps every run of this client in `store` (a `toolnexus::store::RunStore` or
    /// `RunStore`): each run gets a run id ([`RunResult::id`](crate::agent::RunResult::id)), its model turns and
    /// tool calls are recorded as they happen (see `toolnexus::store` for the guarantee),
    /// a run that suspends is parked there for [`answer`](Client::answer), and a run
    /// whose worker died is taken up by [`recover`](Client::recover).
    ///
    /// Every way of running goes through it: [`run`](Client::run),
    /// [`history`](crate::agent::RunRequest::history), [`run_from`](Client::run_from),
    /// [`resume`](Client::resume), [`answer`](Client::answer),
    /// [`recover`](Client::recover), [sessions](Client::session), and this client
    /// [run as a tool](Client::as_tool) by an agent whose own run is not kept (inside a
    /// kept run, the outer run's record covers the call).
    #[must_use]
    pub fn store(mut self, store: impl Journal) -> Self {
        self.store = Some(Durable {
            store: Arc::new(store),
            lease: self.options.lease,
            run_id: self.options.run_id.clone(),
        });
        self
    }

    /// Sets how long a run's lease lasts without renewal (default 30 s): the worker
    /// driving a run renews it every third of that; a worker that dies loses its runs to
    /// [`recover`](Client::recover) that long after. It applies to the store set with
    /// [`store`](Client::store), before or after this call.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.options.lease = lease;
        if let Some(durable) = &mut self.store {
            durable.lease = lease;
        }
        self
    }

    /// Sets the run id of the runs this client starts ([`run`](Client::run),
    /// [`history`](crate::agent::RunRequest::history), [`run_from`](Client::run_from), and a
    /// [`resume`](Client::resume) of a run the store does not hold); by default each gets
    /// a fresh `run_<uuid>`. A run with an id already in the store is refused
    /// ([`StoreError::RunExists`](crate::agent::StoreError::RunExists) in the run's stop reason). It
    /// applies to the store set with [`store`](Client::store), before or after
    /// this call; without a store runs have no id. Session runs name their own.
    #[must_use]
    pub fn run_id(mut self, id: impl Into<String>) -> Self {
        let id = id.into();
        self.options.run_id = Some(id.clone());
        if let Some(durable) = &mut self.store {
            durable.run_id = Some(id);
        }
        self
    }

    /// Names the agent this client runs: its runs' spans are `invoke_agent {name}`, with
    /// `gen_ai.agent.name` set (see [`trace`](crate::trace)). Without a name they are
    /// `invoke_agent`.
    #[must_use]
    pub fn agent_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Keeps what the model is shown under a token budget (see [`Compaction`]): before
    /// each model turn over the budget, the older transcript is summarized and a recent
    /// tail kept. The run's full transcript is kept; each compaction is reported as an
    /// [`Event::Compacted`](crate::Event::Compacted) and on the turn's `chat` span
    /// (`toolnexus.compaction.summarized`, `toolnexus.compaction.tokens`).
    ///
    /// A turn that compacted and then halted on a suspension is rewound with the rest of
    /// the turn: the halted run's [`compacted`](crate::RunResult::compacted) is what it was
    /// before that turn, and the resumed run compacts again.
    #[must_use]
    pub fn compaction(mut self, compaction: Compaction) -> Self {
        self.options.compaction = Some(Arc::new(compaction));
        self
    }

    /// Sets how many times output that does not validate goes back to the model (default
    /// 1) in [`RunRequest::typed`](crate::agent::RunRequest::typed).
    #[must_use]
    pub fn output_retries(mut self, retries: u32) -> Self {
        self.options.output_retries = retries;
        self
    }

    /// Sets how a typed run asks for its output (default [`OutputMode::Auto`]).
    #[must_use]
    pub fn output_mode(mut self, mode: OutputMode) -> Self {
        self.options.mode = mode;
        self
    }

    /// Adds a guardrail to every run (see [`Guardrail`]).
    #[must_use]
    pub fn guardrail(mut self, guardrail: Guardrail) -> Self {
        self.options.guardrails.push(guardrail);
        self
    }

    /// Caps what each run may spend (see [`UsageLimits`]). Setting them again replaces
    /// them.
    #[must_use]
    pub fn usage_limits(mut self, limits: UsageLimits) -> Self {
        self.options.limits = limits;
        self
    }

    /// Sets the settings every model turn of this client is asked with, merged over the
    /// model's own field by field (see [`ModelSettings::over`]). Setting them again
    /// merges the new ones over these.
    ///
    /// A model that takes no settings (a [`FnModel`](crate::model::FnModel), a model of your
    /// own that [refuses them](crate::model::ModelRequest::refuse_settings)) fails its
    /// turns while any is set, rather than ignore them.
    #[must_use]
    pub fn settings(mut self, settings: ModelSettings) -> Self {
        self.settings = std::sync::Arc::new(settings.over(&self.settings));
        self
    }

    /// Prices each model turn with `table`: its [`Usage::cost`](crate::model::Usage::cost) (and so the run's) is
    /// set from the model that answered it (see [`PriceTable`]). Without a table, turns
    /// are priced with [`PriceTable::list_prices`] only when a spend cap
    /// ([`UsageLimits::cost`], [`UsageLimits::conversation_cost`]) is set.
    #[must_use]
    pub fn prices(mut self, table: PriceTable) -> Self {
        self.options.prices = Some(Arc::new(table));
        self
    }

    /// Sends every [`MetricRecord`](crate::agent::MetricRecord) of this client to `sink` as it happens: one per model
    /// call, one per tool call, one per run (the contract's `on_metric`, with the Python
    /// port's field names). The sink is called on the run's task: keep it quick. Setting
    /// another replaces it; the records reach [`Client::metrics`](crate::Client::metrics) either way.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use toolnexus::agent::MetricRecord;
    /// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let client = Client::new(ScriptedModel::new([Reply::text("hi")])).on_metric({
    ///     let seen = seen.clone();
    ///     move |record: &MetricRecord| seen.lock().unwrap().push(record.clone())
    /// });
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// rt.block_on(client.run("hello", &Toolkit::new()));
    /// let seen = seen.lock().unwrap();
    /// assert!(matches!(seen[0], MetricRecord::Llm { .. }));
    /// assert!(matches!(seen[1], MetricRecord::Run { turns: 1, .. }));
    /// ```
    #[must_use]
    pub fn on_metric<F>(mut self, sink: F) -> Self
    where
        F: Fn(&crate::agent::MetricRecord) + Send + Sync + 'static,
    {
        self.tools.meter.sink = Some(Arc::new(sink));
        self
    }
}

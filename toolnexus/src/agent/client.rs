//! [`Client`]: the tool-calling loop over any [`Model`].
//!
//! The rules are documented on [`Client`], where they render.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::agent::journal::Durable;
use crate::agent::options::ToolOptions;
use crate::agent::talk::LoopCaller;
use crate::model::Model;
use crate::tool::context::CancellationToken;
use crate::tool::request::Answer;

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
/// [`Hooks`](crate::agent::Hooks) run around every tool call (allow, deny, rewrite, redact) and model turn;
/// [`on_event`](Client::on_event) reports the run as it happens ([`Event`](crate::agent::Event)).
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
///   [`Request`](crate::tool::Request) in [`RunResult::pending`](crate::RunResult::pending) and its prompt in
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
    /// The run store, its lease and the next run's id ([`Client::store`]).
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
            store: None,
            options: crate::agent::options::RunOptions::default(),
        }
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
        self.store.is_some()
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
            .field("meter", &self.tools.meter)
            .field("tool_search", &self.search_on())
            .field("store", &self.has_store())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// The Prometheus text of everything this client (and its clones) did so far: the
    /// contract's six metrics, byte-identical to what the other ports render for the same
    /// records (see [`MetricsRegistry`](crate::agent::MetricsRegistry)). Mount it at `GET /metrics`.
    pub fn metrics(&self) -> String {
        match self.tools.meter.registry.lock() {
            Ok(registry) => registry.render(),
            Err(poisoned) => poisoned.into_inner().render(),
        }
    }
}

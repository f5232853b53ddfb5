//! [`Context`]: what every tool execution receives besides its arguments, and the
//! [`Caller`] it talks back to while the tool runs.

use std::sync::Arc;
use std::time::Duration;

pub use tokio_util::sync::CancellationToken;

use crate::tool::caller::{LogLevel, Sampled, Sampling, SamplingError, ToolView};
use crate::tool::request::{Answer, Request};
use crate::tool::state::{State, States};
use futures_util::future::BoxFuture;

/// Passed to every execution: the call id, the [`Answer`] when the call is re-run after a
/// suspension was resolved, a timeout, a cancellation signal, the shared [`State`]s, and
/// the [`Caller`] that [`progress`](Context::progress), [`log`](Context::log) and
/// [`sample`](Context::sample) talk to while the tool runs.
///
/// `Context::default()` is valid: no call id, no answer, no timeout, never cancelled.
/// A `#[tool]` function receives it by taking a `&Context` or `Context` parameter, which
/// is injected and never part of the tool's schema.
///
/// ```
/// use std::time::Duration;
/// use toolnexus::{Answer, Context};
///
/// let ctx = Context::new()
///     .with_call_id("call_1")
///     .with_timeout(Duration::from_secs(5))
///     .with_answer(Answer::accept("req-1").with_data("prod"));
/// assert_eq!(ctx.call_id(), Some("call_1"));
/// assert_eq!(ctx.answer().and_then(|a| a.text()), Some("prod"));
/// assert!(!ctx.is_cancelled());
/// ```
#[derive(Clone, Default)]
pub struct Context {
    call_id: Option<String>,
    // Boxed: the answer is rare and large, and a `Context` is moved on every call.
    answer: Option<Box<Answer>>,
    // The request the answer resolves, as the call suspended on it (rare, so boxed too).
    request: Option<Box<Request>>,
    timeout: Option<Duration>,
    cancellation: Option<CancellationToken>,
    // Shared, not copied: a toolkit hands the same map to every call.
    states: Option<Arc<States>>,
    // Shared: the loop hands the same caller to every call of a client.
    caller: Option<Arc<dyn Caller>>,
    idempotency_key: Option<Box<str>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("call_id", &self.call_id)
            .field("answer", &self.answer)
            .field("request", &self.request)
            .field("timeout", &self.timeout)
            .field("cancellation", &self.cancellation)
            .field("states", &self.states)
            .field("caller", &self.caller.is_some())
            .field("idempotency_key", &self.idempotency_key)
            .finish()
    }
}

impl Context {
    /// The empty context (same as `Context::default()`).
    pub fn new() -> Self {
        Context::default()
    }

    /// Sets the id the model gave this tool call.
    #[must_use]
    pub fn with_call_id(mut self, id: impl Into<String>) -> Self {
        self.call_id = Some(id.into());
        self
    }

    /// Sets the answer that resolves this call's earlier suspension.
    #[must_use]
    pub fn with_answer(mut self, answer: Answer) -> Self {
        self.answer = Some(Box::new(answer));
        self
    }

    /// Sets the request this call suspended on, beside its [`answer`](Context::with_answer):
    /// the loop hands it back on the re-run, `data` included, so a tool can carry state
    /// across its suspension (as an agent run as a tool does).
    #[must_use]
    pub fn with_request(mut self, request: Request) -> Self {
        self.request = Some(Box::new(request));
        self
    }

    /// The same context without its answer: what a tool gated by an approval runs with once
    /// the approval is given, so the approval is not mistaken for an answer of its own.
    pub(crate) fn without_answer(mut self) -> Self {
        self.answer = None;
        self.request = None;
        self
    }

    /// Limits how long the execution may run; past it, the call ends with an error result
    /// saying it timed out. Enforced at the tool's await points (a synchronous tool is run
    /// to completion), and needs a Tokio runtime with the time driver enabled.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Ties the execution to a cancellation token: when it is cancelled, the tool's future
    /// is dropped and the call ends with an error result saying so.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Adds a shared state, as [`Toolkit::with_state`](crate::Toolkit::with_state) does,
    /// replacing any earlier one of the same type. For calling a tool without a toolkit;
    /// through a toolkit, a state given here overrides the toolkit's of the same type.
    #[must_use]
    pub fn with_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        Arc::make_mut(self.states.get_or_insert_with(Default::default)).insert(Arc::new(value));
        self
    }

    /// The shared state of type `T`, if one was provided: what a `State<T>` parameter of a
    /// `#[tool]` function receives, for tools written by hand.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{Context, Tool, ToolResult, Toolkit};
    ///
    /// struct ApiKey(String);
    ///
    /// let whoami = Tool::new_sync("whoami", "Who am I?", json!({"type": "object"}), |_, ctx| {
    ///     match ctx.state::<ApiKey>() {
    ///         Some(key) => ToolResult::ok(format!("key of {} bytes", key.0.len())),
    ///         None => ToolResult::error("whoami: no API key configured"),
    ///     }
    /// });
    /// let toolkit = Toolkit::new().with_state(ApiKey("secret".into())).with(whoami);
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let result = rt.block_on(toolkit.execute("whoami", json!({}), Context::default()));
    /// assert_eq!(result.output, "key of 6 bytes");
    /// ```
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.states.as_deref()?.get::<T>()
    }

    /// Gives the call the toolkit's states: the context's own, if any, take precedence.
    #[inline]
    pub(crate) fn with_toolkit_states(mut self, states: Option<&Arc<States>>) -> Self {
        if let Some(toolkit) = states {
            self.states = Some(match &self.states {
                None => Arc::clone(toolkit),
                Some(own) => Arc::new(toolkit.overlaid(own)),
            });
        }
        self
    }

    /// Sets the key that stays the same on every attempt of this call (see
    /// [`Context::idempotency_key`]).
    #[must_use]
    pub fn with_idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into().into_boxed_str());
        self
    }

    /// A key unique to this call that stays the same when the call runs again: in a run
    /// kept in a [run store](crate::Client::store), the run id, the turn and the call
    /// id. A call in flight when its worker died runs again on recovery with the same
    /// key, so a tool that changes an outside system can pass it along (as an
    /// `Idempotency-Key` header, a unique column) and have the second attempt deduped.
    /// `None` outside a durable run.
    pub fn idempotency_key(&self) -> Option<&str> {
        self.idempotency_key.as_deref()
    }

    /// The id the model gave this tool call, if known.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// The answer to this call's earlier suspension. Set only on the re-execution after the
    /// suspension was resolved; `None` on a first run.
    pub fn answer(&self) -> Option<&Answer> {
        self.answer.as_deref()
    }

    /// The request this call suspended on, when it is re-run with its
    /// [`answer`](Context::answer) by the loop; `None` on a first run.
    pub fn request(&self) -> Option<&Request> {
        self.request.as_deref()
    }

    /// The execution's time limit, if any.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The cancellation token, if the execution has one.
    pub fn cancellation(&self) -> Option<&CancellationToken> {
        self.cancellation.as_ref()
    }

    /// Whether the execution has been cancelled. A long-running tool can poll this.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// Completes when the execution is cancelled; never, when there is no token.
    pub async fn cancelled(&self) {
        match &self.cancellation {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    }

    /// Sets who hears this call's progress and log lines and answers its sampling
    /// requests (the loop and the MCP server set it; set it to call a tool by hand).
    #[must_use]
    pub fn with_caller(mut self, caller: Arc<dyn Caller>) -> Self {
        self.caller = Some(caller);
        self
    }

    /// The caller set with [`Context::with_caller`], if any.
    pub fn caller(&self) -> Option<&Arc<dyn Caller>> {
        self.caller.as_ref()
    }

    /// Reports progress: `done` of `total` (when known), with an optional message. In the
    /// loop it becomes an [`Event::Progress`](crate::Event::Progress); over MCP, a
    /// `notifications/progress` for the request's `progressToken` (when the client gave
    /// one). With no caller it does nothing.
    ///
    /// ```
    /// # use toolnexus::Context;
    /// let ctx = Context::new();
    /// ctx.progress(50, 100.0, "halfway");
    /// ctx.progress(3.5, None, None);
    /// ```
    #[inline]
    pub fn progress<'m>(
        &self,
        done: impl Into<f64>,
        total: impl Into<Option<f64>>,
        message: impl Into<Option<&'m str>>,
    ) {
        if let Some(caller) = &self.caller {
            caller.progress(self, done.into(), total.into(), message.into());
        }
    }

    /// Writes a log line at `level`. In the loop it becomes an
    /// [`Event::Log`](crate::Event::Log) and a `tracing` event; over MCP, a
    /// `notifications/message` when the client's `logging/setLevel` lets it through
    /// (clients on protocol 2026-07-28, which deprecates logging, get none). With no caller
    /// it does nothing.
    #[inline]
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        if let Some(caller) = &self.caller {
            caller.log(self, level, message.as_ref());
        }
    }

    /// Shows an MCP Apps view beside this call: in a run, an
    /// [`Event::View`](crate::Event::View) for the page to render. A remote tool with a
    /// view (feature `mcp`) sends its own when its call returns. With no caller it does
    /// nothing.
    pub fn view(&self, view: &ToolView) {
        if let Some(caller) = &self.caller {
            caller.view(self, view);
        }
    }

    /// Asks the caller's model for a reply (MCP's sampling). Over MCP, a
    /// `sampling/createMessage` to a client that declared `sampling` on a protocol version
    /// that has it (2026-07-28 deprecates it: such clients get
    /// [`SamplingError::Unsupported`]); in the loop, the client's own model answers, with
    /// no tools. With no caller: [`SamplingError::Unsupported`].
    pub async fn sample(&self, request: impl Into<Sampling>) -> Result<Sampled, SamplingError> {
        match &self.caller {
            Some(caller) => caller.sample(self, request.into()).await,
            None => Err(SamplingError::Unsupported(
                "the tool was called with no caller to ask (no loop, no MCP client)".to_owned(),
            )),
        }
    }
}

/// Whoever called a tool, as the tool sees it while it runs: where
/// [`Context::progress`], [`Context::log`] and [`Context::sample`] go.
///
/// Implemented by the loop (run events, `tracing`, the client's own model) and by the MCP
/// server (notifications and `sampling/createMessage` to the client); implement it to
/// receive a tool's reports when calling it directly. Reports are synchronous and must
/// not block: queue or send them on. `ctx` is the context of the call reporting (its call
/// id, say).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolnexus::tool::{Caller, LogLevel};
/// use toolnexus::Context;
///
/// #[derive(Default)]
/// struct Recorder(Mutex<Vec<String>>);
///
/// impl Caller for Recorder {
///     fn progress(&self, _: &Context, done: f64, total: Option<f64>, _: Option<&str>) {
///         self.0.lock().unwrap().push(format!("{done}/{}", total.unwrap_or(0.0)));
///     }
///     fn log(&self, _: &Context, level: LogLevel, message: &str) {
///         self.0.lock().unwrap().push(format!("{level}: {message}"));
///     }
/// }
///
/// let recorder = Arc::new(Recorder::default());
/// let ctx = Context::new().with_caller(recorder.clone());
/// ctx.progress(1, 2.0, "half");
/// ctx.log(LogLevel::Info, "done");
/// assert_eq!(*recorder.0.lock().unwrap(), ["1/2", "info: done"]);
/// ```
pub trait Caller: Send + Sync + 'static {
    /// The call has done `done` of `total` (when known), with an optional message.
    fn progress(&self, ctx: &Context, done: f64, total: Option<f64>, message: Option<&str>);

    /// A log line at `level`.
    fn log(&self, ctx: &Context, level: LogLevel, message: &str);

    /// An MCP Apps view to show beside the call; by default, ignored.
    fn view(&self, ctx: &Context, view: &ToolView) {
        let _ = (ctx, view);
    }

    /// Asks the caller's model; by default, [`SamplingError::Unsupported`].
    fn sample<'a>(
        &'a self,
        ctx: &'a Context,
        request: Sampling,
    ) -> BoxFuture<'a, Result<Sampled, SamplingError>> {
        let _ = (ctx, request);
        Box::pin(std::future::ready(Err(SamplingError::Unsupported(
            "this caller does not sample".to_owned(),
        ))))
    }
}

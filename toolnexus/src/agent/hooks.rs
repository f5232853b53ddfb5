//! [`Hooks`]: code the loop runs around every tool call and every model turn.
//!
//! The rules are documented on [`Hooks`], where they render.

use std::borrow::Cow;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::FutureExt as _;

use crate::agent::run::StopReason;
pub use crate::agent::turn_hook::{TurnDecision, TurnStart};
use crate::model::Reply;
use crate::model::message::{Message, ToolCall};
use crate::tool::kit::Toolkit;
use crate::tool::result::ToolResult;

/// The future a [`Hooks`] method returns: [`HookFuture::ready`] for a hook that decides
/// at once (no allocation), [`HookFuture::new`] for one that awaits something (the
/// future is boxed; it is `Send` and may borrow the hook's arguments for `'a`).
///
/// A boxed future (`Box::pin(async { … })`, or a `Pin<Box<dyn Future>>`) converts with
/// `.into()`.
#[must_use = "a hook's future does nothing unless awaited"]
pub struct HookFuture<'a, T>(Step<'a, T>);

enum Step<'a, T> {
    /// Decided at once; `None` once taken.
    Ready(Option<T>),
    Boxed(Pin<Box<dyn Future<Output = T> + Send + 'a>>),
}

impl<'a, T> HookFuture<'a, T> {
    /// A hook's outcome that needs no waiting.
    pub fn ready(value: T) -> Self {
        HookFuture(Step::Ready(Some(value)))
    }

    /// A hook's outcome that awaits `future`.
    pub fn new(future: impl Future<Output = T> + Send + 'a) -> Self {
        HookFuture(Step::Boxed(Box::pin(future)))
    }
}

impl<'a, T> From<Pin<Box<dyn Future<Output = T> + Send + 'a>>> for HookFuture<'a, T> {
    fn from(future: Pin<Box<dyn Future<Output = T> + Send + 'a>>) -> Self {
        HookFuture(Step::Boxed(future))
    }
}

impl<'a, T, F: Future<Output = T> + Send + 'a> From<Pin<Box<F>>> for HookFuture<'a, T> {
    fn from(future: Pin<Box<F>>) -> Self {
        HookFuture(Step::Boxed(future))
    }
}

// The value is never pinned: it is moved out whole when the future is polled.
impl<T> Unpin for HookFuture<'_, T> {}

impl<T> Future for HookFuture<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match &mut self.get_mut().0 {
            Step::Ready(value) => match value.take() {
                Some(value) => Poll::Ready(value),
                None => panic!("a HookFuture polled again after it completed"),
            },
            Step::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

impl<T> std::fmt::Debug for HookFuture<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.0 {
            Step::Ready(Some(_)) => "ready",
            Step::Ready(None) => "taken",
            Step::Boxed(_) => "boxed",
        };
        f.debug_tuple("HookFuture").field(&state).finish()
    }
}

/// What a [before-tool hook](Hooks::before_tool) decides about a call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolDecision {
    /// Run the call as it is (or as an earlier hook rewrote it).
    Allow,
    /// Do not run the call. The model gets `denied: <reason>` as the call's error result
    /// and the call's status is [`CallStatus::Denied`](crate::agent::CallStatus::Denied).
    Deny {
        /// Why, in words the model reads.
        reason: String,
    },
    /// Run the call with these arguments (raw JSON text) instead of the model's. The
    /// transcript keeps the call as the model made it; later hooks and the tool see these.
    Rewrite {
        /// The arguments to run the call with.
        arguments: String,
    },
    /// Do not run the call: `result` is its result (a cache hit, a dry run, a canned
    /// answer), fed back to the model as if the tool had given it. The after-tool hooks do
    /// not run on it (as in the Python port); a result that is a suspension
    /// ([`ToolResult::pending`]) suspends the call like the tool's own would.
    Answer {
        /// The call's result.
        result: ToolResult,
    },
}

impl ToolDecision {
    /// Denies the call, telling the model `reason`.
    pub fn deny(reason: impl Into<String>) -> Self {
        ToolDecision::Deny {
            reason: reason.into(),
        }
    }

    /// Runs the call with `arguments` instead.
    pub fn rewrite(arguments: &serde_json::Value) -> Self {
        ToolDecision::Rewrite {
            arguments: arguments.to_string(),
        }
    }

    /// Answers the call with `result`; the tool does not run.
    pub fn answer(result: ToolResult) -> Self {
        ToolDecision::Answer { result }
    }
}

/// Code the [`Client`](crate::Client) loop runs around every tool call and every model
/// turn: permission checks and human approval without writing a tool for them, logging,
/// redaction, usage accounting.
///
/// Every method has a default that does nothing, so an implementation overrides only what
/// it needs. Each returns a [`HookFuture`] (so `dyn Hooks` works): a value decided at
/// once, which costs no allocation (the defaults do this), or a boxed future that may
/// borrow the method's arguments. Register hooks with [`Client::hooks`](crate::Client::hooks), or one closure
/// at a time with [`Client::before_tool`](crate::Client::before_tool),
/// [`after_tool`](crate::Client::after_tool), [`before_turn`](crate::Client::before_turn)
/// and [`after_turn`](crate::Client::after_turn).
///
/// # Composition
///
/// Hooks run in the order they were added. Before a tool, each hook sees the call as the
/// hooks before it left it (rewritten arguments included); the first
/// [`Deny`](ToolDecision::Deny) wins and the hooks after it are not asked. After a tool,
/// each hook sees the result as the hooks before it left it (and may edit it in place).
/// Turn hooks all run, in order.
///
/// # When they run
///
/// - [`before_tool`](Hooks::before_tool): before every execution of a call, including
///   the re-run with the answer after a suspension (the context then carries the
///   answer; the hook sees the same call).
/// - [`after_tool`](Hooks::after_tool): after every execution that ran, on its result
///   (a suspension included), before the loop looks at it.
/// - [`before_turn`](Hooks::before_turn): before each model turn, with the turn, the
///   model's name, the working transcript and the tools offered; it may replace the
///   transcript or the tools, or abort the run ([`TurnDecision`]).
/// - [`after_turn`](Hooks::after_turn): after each model turn, with the reply, whose
///   [`raw`](crate::Reply::raw) is the provider's response as it came.
///
/// A panicking hook never crashes the run: a before-tool hook that panics denies the
/// call, an after-tool hook that panics withholds the result (the model gets an error
/// saying so), and a turn hook that panics stops the run as
/// [`StopReason::Hook`](crate::agent::StopReason::Hook).
///
/// ```
/// use toolnexus::agent::{HookFuture, Hooks, ToolDecision};
/// use toolnexus::{ToolCall, ToolResult};
///
/// /// Only `read_*` tools may run; every output is trimmed to 1000 characters.
/// struct ReadOnly;
///
/// impl Hooks for ReadOnly {
///     fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
///         // Decided at once: no future to box.
///         HookFuture::ready(if call.name.starts_with("read_") {
///             ToolDecision::Allow
///         } else {
///             ToolDecision::deny(format!("{} is not allowed in read-only mode", call.name))
///         })
///     }
///
///     fn after_tool<'a>(&'a self, _call: &'a ToolCall, result: &'a mut ToolResult) -> HookFuture<'a, ()> {
///         if let Some((cut, _)) = result.output.char_indices().nth(1000) {
///             result.output.truncate(cut);
///         }
///         HookFuture::ready(())
///     }
/// }
/// ```
pub trait Hooks: Send + Sync {
    /// Decides whether `call` runs, and with which arguments.
    fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        let _ = call;
        HookFuture::ready(ToolDecision::Allow)
    }

    /// Sees (and may edit or replace) the result of `call`, the call as it ran.
    fn after_tool<'a>(
        &'a self,
        call: &'a ToolCall,
        result: &'a mut ToolResult,
    ) -> HookFuture<'a, ()> {
        let _ = (call, result);
        HookFuture::ready(())
    }

    /// Runs before a model turn is asked, and decides whether it is asked as planned, with
    /// another transcript or other tools, or not at all ([`TurnDecision`]).
    fn before_turn<'a>(&'a self, turn: TurnStart<'a>) -> HookFuture<'a, TurnDecision> {
        let _ = turn;
        HookFuture::ready(TurnDecision::Continue)
    }

    /// Runs after model turn `turn` gave `reply` (its usage included, and the provider's
    /// raw response in [`Reply::raw`](crate::Reply::raw) where the provider keeps it).
    fn after_turn<'a>(&'a self, turn: u32, reply: &'a Reply) -> HookFuture<'a, ()> {
        let _ = (turn, reply);
        HookFuture::ready(())
    }
}

impl<H: Hooks + ?Sized> Hooks for Arc<H> {
    fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        (**self).before_tool(call)
    }

    fn after_tool<'a>(
        &'a self,
        call: &'a ToolCall,
        result: &'a mut ToolResult,
    ) -> HookFuture<'a, ()> {
        (**self).after_tool(call, result)
    }

    fn before_turn<'a>(&'a self, turn: TurnStart<'a>) -> HookFuture<'a, TurnDecision> {
        (**self).before_turn(turn)
    }

    fn after_turn<'a>(&'a self, turn: u32, reply: &'a Reply) -> HookFuture<'a, ()> {
        (**self).after_turn(turn, reply)
    }
}

/// A closure as a before-tool hook.
pub(crate) struct BeforeTool<F>(pub(crate) F);

impl<F, Fut> Hooks for BeforeTool<F>
where
    F: Fn(&ToolCall) -> Fut + Send + Sync,
    Fut: Future<Output = ToolDecision> + Send + 'static,
{
    fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        HookFuture::new((self.0)(call))
    }
}

/// A closure as an after-tool hook.
pub(crate) struct AfterTool<F>(pub(crate) F);

impl<F, Fut> Hooks for AfterTool<F>
where
    F: Fn(&ToolCall, ToolResult) -> Fut + Send + Sync,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    fn after_tool<'a>(
        &'a self,
        call: &'a ToolCall,
        result: &'a mut ToolResult,
    ) -> HookFuture<'a, ()> {
        let next = (self.0)(call, std::mem::take(result));
        HookFuture::new(async move { *result = next.await })
    }
}

/// A closure as a before-turn hook.
pub(crate) struct BeforeTurn<F>(pub(crate) F);

impl<F, Fut> Hooks for BeforeTurn<F>
where
    F: Fn(TurnStart<'_>) -> Fut + Send + Sync,
    Fut: Future<Output = TurnDecision> + Send + 'static,
{
    fn before_turn<'a>(&'a self, turn: TurnStart<'a>) -> HookFuture<'a, TurnDecision> {
        HookFuture::new((self.0)(turn))
    }
}

/// A closure as an after-turn hook.
pub(crate) struct AfterTurn<F>(pub(crate) F);

impl<F, Fut> Hooks for AfterTurn<F>
where
    F: Fn(u32, &Reply) -> Fut + Send + Sync,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn after_turn<'a>(&'a self, turn: u32, reply: &'a Reply) -> HookFuture<'a, ()> {
        HookFuture::new((self.0)(turn, reply))
    }
}

/// What the before-tool hooks decided, all together.
pub(crate) enum Gate<'c> {
    /// Run this call (the model's, or a rewritten copy).
    Run(Cow<'c, ToolCall>),
    /// Do not run it; the model reads this text.
    Deny(String),
    /// Do not run it; this is its result.
    Answer(ToolResult),
}

/// What the before-turn hooks replaced, all together.
#[derive(Default)]
pub(crate) struct Replaced {
    pub(crate) messages: Option<Vec<Message>>,
    pub(crate) tools: Option<Box<Toolkit>>,
}

/// Which of the four hook points a set of hooks takes part in.
#[derive(Clone, Copy)]
pub(crate) struct Points {
    pub(crate) before_tool: bool,
    pub(crate) after_tool: bool,
    pub(crate) before_turn: bool,
    pub(crate) after_turn: bool,
}

impl Points {
    /// A [`Hooks`] implementation may override any method.
    pub(crate) const ALL: Points = Points {
        before_tool: true,
        after_tool: true,
        before_turn: true,
        after_turn: true,
    };
    /// No hook point: a closure adapter sets the one it serves.
    pub(crate) const NONE: Points = Points {
        before_tool: false,
        after_tool: false,
        before_turn: false,
        after_turn: false,
    };
}

/// The hooks of a client, in the order they were added, listed per hook point so that a
/// closure for one point costs nothing at the others.
/// A before-tool hook that decides at once (see `Client::before_tool_sync`).
pub(crate) type SyncBefore = Arc<dyn Fn(&ToolCall) -> ToolDecision + Send + Sync>;
/// An after-tool hook that returns at once (see `Client::after_tool_sync`).
pub(crate) type SyncAfter = Arc<dyn Fn(&ToolCall, &mut ToolResult) + Send + Sync>;

/// One hook at a per-call point: a [`Hooks`] value (a future per call), or a plain
/// function (no future, no allocation per call).
#[derive(Clone)]
enum CallHook<F> {
    Async(Arc<dyn Hooks>),
    Sync(F),
}

impl<F> CallHook<F> {
    fn is_sync(&self) -> bool {
        matches!(self, CallHook::Sync(_))
    }
}

#[derive(Clone, Default)]
pub(crate) struct HookChain {
    before_tool: Vec<CallHook<SyncBefore>>,
    after_tool: Vec<CallHook<SyncAfter>>,
    before_turn: Vec<Arc<dyn Hooks>>,
    after_turn: Vec<Arc<dyn Hooks>>,
    count: usize,
}

impl HookChain {
    pub(crate) fn push(&mut self, hooks: Arc<dyn Hooks>, points: Points) {
        self.count += 1;
        if points.before_tool {
            self.before_tool.push(CallHook::Async(hooks.clone()));
        }
        if points.after_tool {
            self.after_tool.push(CallHook::Async(hooks.clone()));
        }
        let lists = [
            (points.before_turn, &mut self.before_turn),
            (points.after_turn, &mut self.after_turn),
        ];
        for (on, list) in lists {
            if on {
                list.push(hooks.clone());
            }
        }
    }

    pub(crate) fn push_before_sync(&mut self, hook: SyncBefore) {
        self.count += 1;
        self.before_tool.push(CallHook::Sync(hook));
    }

    pub(crate) fn push_after_sync(&mut self, hook: SyncAfter) {
        self.count += 1;
        self.after_tool.push(CallHook::Sync(hook));
    }

    /// Whether any hook runs around tool calls.
    pub(crate) fn on_tools(&self) -> bool {
        !self.before_tool.is_empty() || !self.after_tool.is_empty()
    }

    /// Whether any hook runs before model turns.
    pub(crate) fn on_turns(&self) -> bool {
        !self.before_turn.is_empty()
    }

    /// How many sets of hooks were added.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The before-tool hooks' verdict, decided here and now when every before-tool hook
    /// is a plain function (none at all included); `None` when one makes a future, and
    /// [`HookChain::before_tool`] must be awaited instead.
    pub(crate) fn before_tool_now<'c>(&self, call: &'c ToolCall) -> Option<Gate<'c>> {
        if self.before_tool.is_empty() {
            return Some(Gate::Run(Cow::Borrowed(call)));
        }
        if !self.before_tool.iter().all(CallHook::is_sync) {
            return None;
        }
        let mut current = Cow::Borrowed(call);
        for hook in &self.before_tool {
            if let CallHook::Sync(decide) = hook {
                let decision = std::panic::catch_unwind(AssertUnwindSafe(|| decide(&current)));
                if let Some(gate) = apply(decision.ok(), &mut current) {
                    return Some(gate);
                }
            }
        }
        Some(Gate::Run(current))
    }

    /// The before-tool hooks' verdict on `call`, hook after hook.
    pub(crate) async fn before_tool<'c>(&self, call: &'c ToolCall) -> Gate<'c> {
        let mut current = Cow::Borrowed(call);
        for hook in &self.before_tool {
            let decision = match hook {
                CallHook::Async(hooks) => guarded(|| hooks.before_tool(&current)).await,
                CallHook::Sync(decide) => {
                    std::panic::catch_unwind(AssertUnwindSafe(|| decide(&current))).ok()
                }
            };
            if let Some(gate) = apply(decision, &mut current) {
                return gate;
            }
        }
        Gate::Run(current)
    }

    /// Runs the after-tool hooks on `result`, in place, here and now when every one is a
    /// plain function (none at all included); `false`, having run none, when one makes a
    /// future and [`HookChain::after_tool`] must be awaited instead.
    pub(crate) fn after_tool_now(&self, call: &ToolCall, result: &mut ToolResult) -> bool {
        if self.after_tool.is_empty() {
            return true;
        }
        if !self.after_tool.iter().all(CallHook::is_sync) {
            return false;
        }
        for hook in &self.after_tool {
            if let CallHook::Sync(hook) = hook
                && std::panic::catch_unwind(AssertUnwindSafe(|| hook(call, result))).is_err()
            {
                *result = withheld(call);
                break;
            }
        }
        true
    }

    /// Runs the after-tool hooks on `result`, in place, hook after hook.
    pub(crate) async fn after_tool(&self, call: &ToolCall, result: &mut ToolResult) {
        for hook in &self.after_tool {
            let finished = match hook {
                CallHook::Async(hooks) => guarded(|| hooks.after_tool(call, result)).await,
                CallHook::Sync(hook) => {
                    std::panic::catch_unwind(AssertUnwindSafe(|| hook(call, result))).ok()
                }
            };
            if finished.is_none() {
                *result = withheld(call);
                return;
            }
        }
    }

    /// Runs the before-turn hooks in order, each shown what the ones before it replaced.
    /// `Err` is the reason the run stops: a hook aborted it, or panicked.
    pub(crate) async fn before_turn(
        &self,
        turn: u32,
        model: Option<&str>,
        messages: &[Message],
        tools: &Toolkit,
    ) -> Result<Replaced, StopReason> {
        let mut replaced = Replaced::default();
        for hooks in &self.before_turn {
            let start = TurnStart {
                turn,
                model,
                messages: replaced.messages.as_deref().unwrap_or(messages),
                tools: replaced.tools.as_deref().unwrap_or(tools),
            };
            match guarded(|| hooks.before_turn(start)).await {
                None => {
                    return Err(StopReason::Hook {
                        message: format!("the before-turn hook of turn {turn} panicked"),
                    });
                }
                Some(TurnDecision::Continue) => {}
                Some(TurnDecision::Replace { messages, tools }) => {
                    replaced.messages = messages.or(replaced.messages);
                    replaced.tools = tools.or(replaced.tools);
                }
                Some(TurnDecision::Abort { reason }) => {
                    return Err(StopReason::Aborted { reason });
                }
            }
        }
        Ok(replaced)
    }

    /// `Err` names the hook that panicked.
    pub(crate) async fn after_turn(&self, turn: u32, reply: &Reply) -> Result<(), String> {
        for hooks in &self.after_turn {
            guarded(|| hooks.after_turn(turn, reply))
                .await
                .ok_or_else(|| format!("the after-turn hook of turn {turn} panicked"))?;
        }
        Ok(())
    }
}

/// Takes one before-tool hook's decision (`None`: it panicked) into `current`; the
/// final verdict when the decision ends the chain.
fn apply<'c>(decision: Option<ToolDecision>, current: &mut Cow<'c, ToolCall>) -> Option<Gate<'c>> {
    match decision {
        Some(ToolDecision::Allow) => None,
        Some(ToolDecision::Deny { reason }) => Some(Gate::Deny(reason)),
        Some(ToolDecision::Answer { result }) => Some(Gate::Answer(result)),
        Some(ToolDecision::Rewrite { arguments }) => {
            current.to_mut().arguments = arguments;
            None
        }
        None => Some(Gate::Deny("a before-tool hook panicked".to_owned())),
    }
}

/// The result the model gets when an after-tool hook panicked.
fn withheld(call: &ToolCall) -> ToolResult {
    ToolResult::error(format!(
        "{}: an after-tool hook panicked; the result was withheld",
        call.name
    ))
}

/// Runs a hook, catching a panic in its synchronous part or in its future (`None`).
async fn guarded<'a, T>(hook: impl FnOnce() -> HookFuture<'a, T>) -> Option<T> {
    let future = std::panic::catch_unwind(AssertUnwindSafe(hook)).ok()?;
    AssertUnwindSafe(future).catch_unwind().await.ok()
}

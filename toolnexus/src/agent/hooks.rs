//! [`Hooks`]: code the loop runs around every tool call and every model turn.
//!
//! The rules are documented on [`Hooks`], where they render.

use std::borrow::Cow;
use std::future::{Future, ready};
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::FutureExt as _;

use crate::agent::message::{Message, ToolCall};
use crate::agent::model::Reply;
use crate::tool::result::ToolResult;

/// The future a [`Hooks`] method returns: boxed, `Send`, and free to borrow the hook's
/// arguments for `'a`.
pub type HookFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a [before-tool hook](Hooks::before_tool) decides about a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolDecision {
    /// Run the call as it is (or as an earlier hook rewrote it).
    Allow,
    /// Do not run the call. The model gets `denied: <reason>` as the call's error result
    /// and the call's status is [`CallStatus::Denied`](crate::CallStatus::Denied).
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
}

/// Code the [`Client`](crate::Client) loop runs around every tool call and every model
/// turn: permission checks and human approval without writing a tool for them, logging,
/// redaction, usage accounting.
///
/// Every method has a default that does nothing, so an implementation overrides only what
/// it needs. Each returns a boxed future (so `dyn Hooks` works) that may borrow its
/// arguments. Register hooks with [`Client::hooks`](crate::Client::hooks), or one closure
/// at a time with [`Client::before_tool`](crate::Client::before_tool),
/// [`after_tool`](crate::Client::after_tool), [`before_turn`](crate::Client::before_turn)
/// and [`after_turn`](crate::Client::after_turn).
///
/// # Composition
///
/// Hooks run in the order they were added. Before a tool, each hook sees the call as the
/// hooks before it left it (rewritten arguments included); the first
/// [`Deny`](ToolDecision::Deny) wins and the hooks after it are not asked. After a tool,
/// each hook gets the result the previous one returned. Turn hooks all run, in order.
///
/// # When they run
///
/// - [`before_tool`](Hooks::before_tool): before every execution of a call, including
///   the re-run with the answer after a suspension (the context then carries the
///   answer; the hook sees the same call).
/// - [`after_tool`](Hooks::after_tool): after every execution that ran, on its result
///   (a suspension included), before the loop looks at it.
/// - [`before_turn`](Hooks::before_turn) / [`after_turn`](Hooks::after_turn): around
///   each model turn, with the transcript the model is shown and the reply it gave.
///
/// A panicking hook never crashes the run: a before-tool hook that panics denies the
/// call, an after-tool hook that panics withholds the result (the model gets an error
/// saying so), and a turn hook that panics stops the run as
/// [`StopReason::Hook`](crate::StopReason::Hook).
///
/// ```
/// use toolnexus::{HookFuture, Hooks, ToolCall, ToolDecision, ToolResult};
///
/// /// Only `read_*` tools may run; every output is trimmed to 1000 characters.
/// struct ReadOnly;
///
/// impl Hooks for ReadOnly {
///     fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
///         Box::pin(async move {
///             if call.name.starts_with("read_") {
///                 ToolDecision::Allow
///             } else {
///                 ToolDecision::deny(format!("{} is not allowed in read-only mode", call.name))
///             }
///         })
///     }
///
///     fn after_tool<'a>(&'a self, _call: &'a ToolCall, mut result: ToolResult) -> HookFuture<'a, ToolResult> {
///         Box::pin(async move {
///             if let Some((cut, _)) = result.output.char_indices().nth(1000) {
///                 result.output.truncate(cut);
///             }
///             result
///         })
///     }
/// }
/// ```
pub trait Hooks: Send + Sync {
    /// Decides whether `call` runs, and with which arguments.
    fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        let _ = call;
        Box::pin(ready(ToolDecision::Allow))
    }

    /// Sees (and may replace) the result of `call`, the call as it ran.
    fn after_tool<'a>(
        &'a self,
        call: &'a ToolCall,
        result: ToolResult,
    ) -> HookFuture<'a, ToolResult> {
        let _ = call;
        Box::pin(ready(result))
    }

    /// Runs before model turn `turn` (1-based within the run), with the transcript the
    /// model is about to be shown.
    fn before_turn<'a>(&'a self, turn: u32, transcript: &'a [Message]) -> HookFuture<'a, ()> {
        let _ = (turn, transcript);
        Box::pin(ready(()))
    }

    /// Runs after model turn `turn` gave `reply` (its usage included).
    fn after_turn<'a>(&'a self, turn: u32, reply: &'a Reply) -> HookFuture<'a, ()> {
        let _ = (turn, reply);
        Box::pin(ready(()))
    }
}

impl<H: Hooks + ?Sized> Hooks for Arc<H> {
    fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        (**self).before_tool(call)
    }

    fn after_tool<'a>(
        &'a self,
        call: &'a ToolCall,
        result: ToolResult,
    ) -> HookFuture<'a, ToolResult> {
        (**self).after_tool(call, result)
    }

    fn before_turn<'a>(&'a self, turn: u32, transcript: &'a [Message]) -> HookFuture<'a, ()> {
        (**self).before_turn(turn, transcript)
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
        Box::pin((self.0)(call))
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
        result: ToolResult,
    ) -> HookFuture<'a, ToolResult> {
        Box::pin((self.0)(call, result))
    }
}

/// A closure as a before-turn hook.
pub(crate) struct BeforeTurn<F>(pub(crate) F);

impl<F, Fut> Hooks for BeforeTurn<F>
where
    F: Fn(u32, &[Message]) -> Fut + Send + Sync,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn before_turn<'a>(&'a self, turn: u32, transcript: &'a [Message]) -> HookFuture<'a, ()> {
        Box::pin((self.0)(turn, transcript))
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
        Box::pin((self.0)(turn, reply))
    }
}

/// What the before-tool hooks decided, all together.
pub(crate) enum Gate<'c> {
    /// Run this call (the model's, or a rewritten copy).
    Run(Cow<'c, ToolCall>),
    /// Do not run it; the model reads this text.
    Deny(String),
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
pub(crate) type SyncAfter = Arc<dyn Fn(&ToolCall, ToolResult) -> ToolResult + Send + Sync>;

/// One hook at a per-call point: a [`Hooks`] value (a future per call), or a plain
/// function (no future, no allocation per call).
#[derive(Clone)]
enum CallHook<F> {
    Async(Arc<dyn Hooks>),
    Sync(F),
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

    /// How many sets of hooks were added.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    pub(crate) async fn before_tool<'c>(&self, call: &'c ToolCall) -> Gate<'c> {
        let mut current = Cow::Borrowed(call);
        for hook in &self.before_tool {
            let decision = match hook {
                CallHook::Async(hooks) => guarded(|| hooks.before_tool(&current)).await,
                CallHook::Sync(decide) => {
                    std::panic::catch_unwind(AssertUnwindSafe(|| decide(&current))).ok()
                }
            };
            match decision {
                Some(ToolDecision::Allow) => {}
                Some(ToolDecision::Deny { reason }) => return Gate::Deny(reason),
                Some(ToolDecision::Rewrite { arguments }) => current.to_mut().arguments = arguments,
                None => return Gate::Deny("a before-tool hook panicked".to_owned()),
            }
        }
        Gate::Run(current)
    }

    pub(crate) async fn after_tool(&self, call: &ToolCall, mut result: ToolResult) -> ToolResult {
        for hook in &self.after_tool {
            let next = match hook {
                CallHook::Async(hooks) => guarded(|| hooks.after_tool(call, result)).await,
                CallHook::Sync(hook) => {
                    std::panic::catch_unwind(AssertUnwindSafe(|| hook(call, result))).ok()
                }
            };
            match next {
                Some(next) => result = next,
                None => {
                    return ToolResult::error(format!(
                        "{}: an after-tool hook panicked; the result was withheld",
                        call.name
                    ));
                }
            }
        }
        result
    }

    /// `Err` names the hook that panicked.
    pub(crate) async fn before_turn(
        &self,
        turn: u32,
        transcript: &[Message],
    ) -> Result<(), String> {
        for hooks in &self.before_turn {
            guarded(|| hooks.before_turn(turn, transcript))
                .await
                .ok_or_else(|| format!("the before-turn hook of turn {turn} panicked"))?;
        }
        Ok(())
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

/// Runs a hook, catching a panic in its synchronous part or in its future (`None`).
async fn guarded<'a, T>(hook: impl FnOnce() -> HookFuture<'a, T>) -> Option<T> {
    let future = std::panic::catch_unwind(AssertUnwindSafe(hook)).ok()?;
    AssertUnwindSafe(future).catch_unwind().await.ok()
}

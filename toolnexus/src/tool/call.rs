//! Dispatch: what a tool's handler returns ([`Dispatch`]) and the future of one call
//! ([`Call`]), with the boxed future type both the tools and the models use.

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use futures_util::future::CatchUnwind;

use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::result::ToolResult;
use crate::tool::tool::Tool;
use crate::trace::tool::{End, ToolSpan};

/// A boxed, sendable future: what a tool's handler starts (`BoxFuture<'static, ToolResult>`)
/// and what a [`Model`](crate::Model) returns for a turn.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a tool's handler gives back for one call: a result that is already there (a
/// synchronous tool, or arguments that did not parse), or a future to await.
///
/// Splitting the two lets synchronous tools run without boxing a future.
pub enum Dispatch {
    /// The call finished synchronously.
    Ready(ToolResult),
    /// The call continues asynchronously.
    Future(BoxFuture<'static, ToolResult>),
}

impl fmt::Debug for Dispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dispatch::Ready(result) => f.debug_tuple("Ready").field(result).finish(),
            Dispatch::Future(_) => f.write_str("Future(..)"),
        }
    }
}

/// The function behind a tool: reads the arguments and starts the call.
pub type Handler = dyn Fn(Args<'_>, Context) -> Dispatch + Send + Sync + 'static;

/// The future of one tool call, from [`Tool::call`] and
/// [`Toolkit::execute`](crate::Toolkit::execute). Resolves to the call's [`ToolResult`].
///
/// A synchronous tool has already run when this is made; awaiting it only hands the
/// result over. An async tool's future is polled here, with its panics caught and its
/// context's timeout and cancellation applied.
#[must_use = "a tool call does nothing for an async tool unless awaited"]
pub struct Call<'a>(pub(crate) State<'a>);

pub(crate) enum State<'a> {
    /// Finished; `None` once the result was handed over.
    Ready(Option<ToolResult>),
    /// An async tool with neither timeout nor cancellation: only panics to catch.
    Running {
        tool: &'a Tool,
        future: CatchUnwind<AssertUnwindSafe<BoxFuture<'static, ToolResult>>>,
        span: ToolSpan,
    },
    /// An async tool under a timeout or a cancellation token.
    Guarded(Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>),
}

impl Call<'_> {
    /// A call that is already finished (also [`dispatch::ready`](crate::dispatch::ready)).
    #[inline]
    pub(crate) fn ready(result: ToolResult) -> Self {
        Call(State::Ready(Some(result)))
    }
}

impl Future for Call<'_> {
    type Output = ToolResult;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<ToolResult> {
        match &mut self.get_mut().0 {
            State::Ready(result) => Poll::Ready(result.take().unwrap_or_else(|| {
                ToolResult::error("a tool call was awaited again after it finished")
            })),
            State::Running { tool, future, span } => {
                let polled = span.in_scope(|| Pin::new(future).poll(cx));
                match polled {
                    Poll::Ready(Ok(result)) => {
                        Poll::Ready(span.ended(tool.finish(result), End::Returned))
                    }
                    Poll::Ready(Err(payload)) => {
                        Poll::Ready(span.ended(tool.panicked(payload), End::Panicked))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
            State::Guarded(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            State::Ready(result) => f.debug_tuple("Call::Ready").field(result).finish(),
            State::Running { tool, .. } => {
                f.debug_tuple("Call::Running").field(&tool.name()).finish()
            }
            State::Guarded(_) => f.write_str("Call::Guarded(..)"),
        }
    }
}

/// A call that is already finished: what a handler-level wrapper returns when it answers
/// without running the tool.
#[inline]
pub fn ready(result: ToolResult) -> Call<'static> {
    Call::ready(result)
}

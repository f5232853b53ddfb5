//! A tool's handler ([`Handler`]) and what it returns ([`Dispatch`]), with the boxed
//! future type both the tools and the models use.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::result::ToolResult;

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

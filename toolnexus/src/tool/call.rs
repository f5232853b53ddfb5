//! Running a tool: [`Tool::call`] and its siblings, and [`Call`], the future of one call,
//! which catches the tool's panics and applies its context's timeout and cancellation.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use futures_util::FutureExt as _;
use futures_util::future::CatchUnwind;
use serde_json::Value;
use tracing::Instrument as _;

use crate::schema::output::OutputSchema;
use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::def::Tool;
use crate::tool::handler::{BoxFuture, Dispatch};
use crate::tool::result::{STRUCTURED_KEY, ToolResult};
use crate::tool::span::{End, ToolSpan};

impl Tool {
    /// Runs the tool with parsed arguments.
    ///
    /// Never panics and never hangs past the context's timeout: arguments that do not fit
    /// give an error result naming the tool and the field, a panic inside the tool gives an
    /// error result naming the tool, and a timeout or cancellation gives an error result
    /// saying which.
    #[inline]
    pub fn execute(&self, args: Value, ctx: Context) -> Call<'_> {
        self.call(Args::Value(args), ctx)
    }

    /// Runs the tool with the raw JSON text of its arguments, as a provider returns it.
    /// Text that is not JSON gives an error result saying so.
    #[inline]
    pub fn execute_json(&self, args: &str, ctx: Context) -> Call<'_> {
        self.call(Args::Text(args), ctx)
    }

    /// Runs the tool with [`Args`] of either form; see [`Tool::execute`].
    ///
    /// The arguments are read, and a synchronous tool runs, before this returns; the
    /// [`Call`] then only hands the result over, so a synchronous call allocates no future.
    #[inline]
    pub fn call(&self, args: Args<'_>, ctx: Context) -> Call<'_> {
        let mut span = ToolSpan::start(self.name(), ctx.call_id(), &args);
        let timeout = ctx.timeout();
        let cancellation = ctx.cancellation().cloned();
        let args = if self.0.optional_nulls.is_empty() {
            args
        } else {
            self.drop_optional_nulls(args)
        };
        // Two arms, so that without a span the handler's arguments are moved once (into
        // the closure `catch_unwind` runs), not once more into `in_scope`'s.
        let dispatched = if span.is_none() {
            catch_unwind(AssertUnwindSafe(|| (self.0.handler)(args, ctx)))
        } else {
            span.in_scope(|| catch_unwind(AssertUnwindSafe(|| (self.0.handler)(args, ctx))))
        };
        let future = match dispatched {
            Ok(Dispatch::Ready(result)) => {
                return Call::ready(span.close(self.finish(result), End::Returned));
            }
            Ok(Dispatch::Future(future)) => AssertUnwindSafe(future).catch_unwind(),
            Err(payload) => return Call::ready(span.close(self.panicked(payload), End::Panicked)),
        };
        if timeout.is_none() && cancellation.is_none() {
            return Call(CallState::Running {
                tool: self,
                future,
                span,
            });
        }
        let entered = span.span();
        Call(CallState::Guarded(Box::pin(
            async move {
                let guarded = async {
                    match timeout {
                        None => Some(future.await),
                        Some(limit) => tokio::time::timeout(limit, future).await.ok(),
                    }
                };
                let outcome = match cancellation {
                    None => guarded.await,
                    Some(token) => match token.run_until_cancelled(guarded).await {
                        Some(outcome) => outcome,
                        None => {
                            let result =
                                ToolResult::error(format!("{} was cancelled", self.name()));
                            return span.ended(result, End::Cancelled);
                        }
                    },
                };
                match outcome {
                    Some(Ok(result)) => span.ended(self.finish(result), End::Returned),
                    Some(Err(payload)) => span.ended(self.panicked(payload), End::Panicked),
                    None => {
                        let result = ToolResult::error(format!(
                            "{} timed out after {}",
                            self.name(),
                            humanize(timeout.unwrap_or_default())
                        ));
                        span.ended(result, End::TimedOut)
                    }
                }
            }
            .instrument(entered),
        )))
    }

    /// A finished call's result in the shape the tool declares: for a tool with an output
    /// schema, a success's structured value fitted to it (wrapped, if the schema is), and
    /// none on an error or a suspension.
    #[inline]
    pub(crate) fn finish(&self, result: ToolResult) -> ToolResult {
        match &self.0.output {
            None => result,
            Some(output) => fit_structured(output, result),
        }
    }

    pub(crate) fn panicked(&self, payload: Box<dyn Any + Send>) -> ToolResult {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned());
        match message {
            Some(message) => ToolResult::error(format!("{} panicked: {message}", self.name())),
            None => ToolResult::error(format!("{} panicked", self.name())),
        }
    }

    /// Drops `null` given for an optional property whose schema does not accept `null`.
    ///
    /// In strict mode (see [`profile::openai_strict`](crate::schema::profile::openai_strict)) every property is required and the
    /// optional ones are made nullable, so a model sends `null` for "nothing to say". For an
    /// `Option<T>` that reads as `None` anyway; for a field with a default (`#[serde(default)]
    /// n: u32`) it would be a type error, so it is read as absent instead, i.e. the default.
    fn drop_optional_nulls<'a>(&self, args: Args<'a>) -> Args<'a> {
        let names = &self.0.optional_nulls;
        let strip = |mut map: serde_json::Map<String, Value>| {
            for name in names {
                if map.get(name) == Some(&Value::Null) {
                    map.remove(name);
                }
            }
            Args::Value(Value::Object(map))
        };
        match args {
            Args::Value(Value::Object(map)) => strip(map),
            Args::Text(text) if text.contains("null") => match serde_json::from_str(text) {
                Ok(Value::Object(map)) => strip(map),
                _ => Args::Text(text),
            },
            other => other,
        }
    }
}

fn fit_structured(output: &OutputSchema, mut result: ToolResult) -> ToolResult {
    let Some(metadata) = result.metadata.as_mut() else {
        return result;
    };
    if result.is_error {
        metadata.remove(STRUCTURED_KEY);
    } else if output.wrapped
        && let Some(value) = metadata.remove(STRUCTURED_KEY)
    {
        metadata.insert(STRUCTURED_KEY.to_owned(), output.fit(value));
    }
    result
}

fn humanize(d: std::time::Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// The future of one tool call, from [`Tool::call`] and
/// [`Toolkit::execute`](crate::Toolkit::execute). Resolves to the call's [`ToolResult`].
///
/// A synchronous tool has already run when this is made; awaiting it only hands the
/// result over. An async tool's future is polled here, with its panics caught and its
/// context's timeout and cancellation applied.
#[must_use = "a tool call does nothing for an async tool unless awaited"]
pub struct Call<'a>(pub(crate) CallState<'a>);

/// How far one call is.
pub(crate) enum CallState<'a> {
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
        Call(CallState::Ready(Some(result)))
    }
}

impl Future for Call<'_> {
    type Output = ToolResult;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<ToolResult> {
        match &mut self.get_mut().0 {
            CallState::Ready(result) => Poll::Ready(result.take().unwrap_or_else(|| {
                ToolResult::error("a tool call was awaited again after it finished")
            })),
            CallState::Running { tool, future, span } => {
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
            CallState::Guarded(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            CallState::Ready(result) => f.debug_tuple("Call::Ready").field(result).finish(),
            CallState::Running { tool, .. } => {
                f.debug_tuple("Call::Running").field(&tool.name()).finish()
            }
            CallState::Guarded(_) => f.write_str("Call::Guarded(..)"),
        }
    }
}

/// A call that is already finished: what a handler-level wrapper returns when it answers
/// without running the tool.
#[inline]
pub fn ready(result: ToolResult) -> Call<'static> {
    Call::ready(result)
}

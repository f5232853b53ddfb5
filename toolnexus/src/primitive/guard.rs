//! What a resource read or a prompt get is run under: its context's timeout and
//! cancellation, with a panic caught and reported, as a tool call is.

use std::any::Any;
use std::fmt::Display;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use futures_util::FutureExt as _;

use crate::tool::context::{CancellationToken, Context};
use crate::tool::handler::BoxFuture;

/// How a read or get did not finish.
pub(crate) struct Guard {
    timeout: Option<Duration>,
    cancellation: Option<CancellationToken>,
    /// `"resource"` or `"prompt"`, and its name, for the messages.
    what: &'static str,
    name: String,
}

impl Guard {
    pub(crate) fn new(ctx: &Context, what: &'static str, name: &str) -> Self {
        Guard {
            timeout: ctx.timeout(),
            cancellation: ctx.cancellation().cloned(),
            what,
            name: name.to_owned(),
        }
    }

    /// Starts the function with `start` and awaits its future, each with its panic caught,
    /// bounded by the timeout and the cancellation; `failed` makes the error of each way
    /// it can end early.
    pub(crate) async fn call<T, E>(
        self,
        start: impl FnOnce() -> BoxFuture<'static, Result<T, E>>,
        failed: fn(String) -> E,
    ) -> Result<T, E> {
        match catch_unwind(AssertUnwindSafe(start)) {
            Ok(future) => {
                let caught = AssertUnwindSafe(future).catch_unwind();
                self.run(caught, failed).await
            }
            Err(payload) => Err(failed(self.panicked(payload.as_ref()))),
        }
    }

    /// Awaits `future` (whose panic is caught), bounded by the timeout and the
    /// cancellation; `failed` makes the error of each way it can end early.
    async fn run<T, E>(
        self,
        future: impl Future<Output = Result<Result<T, E>, Box<dyn Any + Send>>>,
        failed: fn(String) -> E,
    ) -> Result<T, E> {
        let what = format!("the {} `{}`", self.what, self.name);
        let cancelled = async {
            match &self.cancellation {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let bounded = async {
            match self.timeout {
                Some(limit) => tokio::time::timeout(limit, future)
                    .await
                    .map_err(|_| failed(format!("{what} timed out after {limit:?}"))),
                None => Ok(future.await),
            }
        };
        let bounded = std::pin::pin!(bounded);
        let cancelled = std::pin::pin!(cancelled);
        match futures_util::future::select(cancelled, bounded).await {
            futures_util::future::Either::Left(((), _)) => {
                Err(failed(format!("{what} was cancelled")))
            }
            futures_util::future::Either::Right((outcome, _)) => match outcome? {
                Ok(done) => done,
                Err(payload) => Err(failed(panic_message(&what, payload.as_ref()))),
            },
        }
    }

    /// The error of a function that panicked before it returned a future.
    fn panicked(&self, payload: &(dyn Any + Send)) -> String {
        panic_message(&format!("the {} `{}`", self.what, self.name), payload)
    }
}

fn panic_message(what: &str, payload: &(dyn Any + Send)) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned());
    match message {
        Some(message) => format!("{what} panicked: {message}"),
        None => format!("{what} panicked"),
    }
}

/// `error`, returned by a resource's or a prompt's function, as the primitive's own error:
/// itself when it is one already (`E`), else `failed` with its text.
pub(crate) fn own_error<E: Clone + 'static>(
    error: impl Display + 'static,
    failed: fn(String) -> E,
) -> E {
    match (&error as &dyn Any).downcast_ref::<E>() {
        Some(own) => own.clone(),
        None => failed(error.to_string()),
    }
}

//! What a resource read or a prompt get is run under: its context's timeout and
//! cancellation, with a panic caught and reported, as a tool call is.

use std::any::Any;
use std::future::Future;
use std::time::Duration;

use crate::tool::context::{CancellationToken, Context};

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

    /// Awaits `future` (whose panic is caught), bounded by the timeout and the
    /// cancellation; `failed` makes the error of each way it can end early.
    pub(crate) async fn run<T, E>(
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
    pub(crate) fn panicked(&self, payload: &(dyn Any + Send)) -> String {
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

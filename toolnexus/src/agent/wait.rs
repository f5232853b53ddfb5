//! Asking a client's `wait_for` slot about one suspension, within its time limit.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::FutureExt as _;

use crate::agent::options::WaitFor;
use crate::tool::request::{Answer, Request};

/// What `wait_for` gave.
pub(crate) enum Waited {
    /// An answer (a decline when no answer came in time).
    Answer(Answer),
    /// The slot panicked.
    Panicked,
    /// The slot failed: nobody can answer.
    Failed(String),
}

/// Asks `wait_for` about `request`; past `limit` the request has expired, which is a
/// negative answer.
pub(crate) async fn wait(wait_for: &WaitFor, request: &Request, limit: Option<Duration>) -> Waited {
    let asked = AssertUnwindSafe(async { wait_for(request.clone()).await }).catch_unwind();
    let outcome = match limit {
        None => asked.await,
        Some(limit) => match tokio::time::timeout(limit, asked).await {
            Ok(outcome) => outcome,
            Err(_) => {
                let reason = format!("no answer within {}", crate::agent::limits::humanize(limit));
                return Waited::Answer(request.decline(reason));
            }
        },
    };
    match outcome {
        Ok(Ok(answer)) => Waited::Answer(answer),
        Ok(Err(message)) => Waited::Failed(message),
        Err(_) => Waited::Panicked,
    }
}

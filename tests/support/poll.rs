//! Polling a future that finishes at once, without a runtime: shared by the allocation
//! test and the dispatch benchmark, which both call synchronous tools.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Polls `future` once and returns its output. For calls of synchronous tools, which
/// finish on the first poll; panics if the future is pending.
pub(crate) fn now<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("a synchronous tool should finish on the first poll"),
    }
}

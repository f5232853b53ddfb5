//! The runtime's clock: every timer, timeout and deadline of [`Runtime`](super::Runtime)
//! goes through a [`Clock`], so tests run on a [`ManualClock`] and never sleep.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use tokio::sync::oneshot;

/// Where the runtime reads the time and sleeps: wall-clock waits, the `maxWallMs` budget,
/// the close grace and heartbeats.
pub trait Clock: Send + Sync + 'static {
    /// The time since the clock's own origin (monotonic).
    fn now(&self) -> Duration;
    /// A future that resolves once `duration` has passed on this clock.
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

/// The real clock: [`Instant`] for the time, tokio's timer for sleeps.
#[derive(Debug, Clone)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    /// A clock whose origin is now.
    pub fn new() -> Self {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// A clock that moves only when told to ([`ManualClock::advance`]): sleeps resolve when
/// the time passes their deadline. Clones share one time.
///
/// ```
/// use std::time::Duration;
/// use toolnexus::agents::{Clock, ManualClock};
///
/// let clock = ManualClock::new();
/// clock.advance(Duration::from_millis(250));
/// assert_eq!(clock.now(), Duration::from_millis(250));
/// ```
#[derive(Clone, Default)]
pub struct ManualClock {
    state: Arc<Mutex<Manual>>,
}

#[derive(Default)]
struct Manual {
    now: Duration,
    sleepers: Vec<(Duration, oneshot::Sender<()>)>,
}

impl ManualClock {
    /// A clock at zero.
    pub fn new() -> Self {
        ManualClock::default()
    }

    /// Moves the time on by `by`, waking every sleep whose deadline has passed.
    pub fn advance(&self, by: Duration) {
        let due = {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.now += by;
            let now = state.now;
            let (due, kept): (Vec<_>, Vec<_>) =
                state.sleepers.drain(..).partition(|(at, _)| *at <= now);
            state.sleepers = kept;
            due
        };
        for (_, wake) in due {
            let _ = wake.send(());
        }
    }

    /// How many sleeps are waiting for the time to move (those whose future was dropped
    /// included until the next [`advance`](ManualClock::advance)).
    pub fn sleepers(&self) -> usize {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .sleepers
            .iter()
            .filter(|(_, s)| !s.is_closed())
            .count()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .now
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            if duration.is_zero() {
                let _ = tx.send(());
            } else {
                let at = state.now + duration;
                state.sleepers.push((at, tx));
            }
        }
        Box::pin(async move {
            // A clock dropped with the sleep pending never wakes it.
            if rx.await.is_err() {
                std::future::pending::<()>().await;
            }
        })
    }
}

impl fmt::Debug for ManualClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManualClock")
            .field("now", &self.now())
            .field("sleepers", &self.sleepers())
            .finish()
    }
}

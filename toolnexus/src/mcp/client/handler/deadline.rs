//! The call timeout, without a timer per call: each call's deadline is kept with the call
//! in the [`Routing`], and one watchdog task per client looks at them every tick and
//! tells a call whose deadline passed. A tokio timer costs every call a registration in
//! the runtime's timer wheel and a removal from it, about 1,500 instructions: the largest
//! single cost a call over stdio had beyond the bare SDK's client. The price is
//! precision: a call times out within one tick after its deadline. The watchdog runs while some call has a deadline, and stops after
//! a tick with none in flight and none started.

use std::sync::Weak;
use std::time::Duration;

use tokio::time::Instant;

use super::Routing;

/// How often the watchdog looks: a quarter of the call timeout, between 1 ms and 1 s.
pub(super) fn tick(call_timeout: Duration) -> Duration {
    (call_timeout / 4).clamp(Duration::from_millis(1), Duration::from_secs(1))
}

/// The watchdog of one client, until the client is gone or nothing is timed.
pub(super) fn watch(routing: Weak<Routing>, tick: Duration) -> impl Future<Output = ()> {
    // Made before the future is first polled: a task dropped unpolled drops it too.
    let mut gone = Gone(Some(routing.clone()));
    async move {
        let mut seen = 0;
        loop {
            tokio::time::sleep(tick).await;
            let Some(routing) = routing.upgrade() else {
                return;
            };
            if !routing.expire(Instant::now(), &mut seen) {
                // `expire` marked the watchdog gone itself, under the routing's lock.
                gone.0.take();
                return;
            }
        }
    }
}

/// Marks the watchdog gone when its task is dropped without ending (the runtime shut
/// down), so that the next call starts another.
struct Gone(Option<Weak<Routing>>);

impl Drop for Gone {
    fn drop(&mut self) {
        if let Some(routing) = self.0.take().and_then(|routing| routing.upgrade()) {
            routing.unwatched();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Inbound;
    use super::*;

    const LIMIT: Duration = Duration::from_secs(8);

    fn timed_out(inbound: Option<Inbound>) -> bool {
        matches!(inbound, Some(Inbound::Deadline))
    }

    #[test]
    fn the_tick_is_a_quarter_of_the_timeout_within_bounds() {
        assert_eq!(tick(LIMIT), Duration::from_secs(1));
        assert_eq!(tick(Duration::from_millis(200)), Duration::from_millis(50));
        assert_eq!(tick(Duration::ZERO), Duration::from_millis(1));
        assert_eq!(tick(Duration::from_secs(600)), Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_hears_of_its_deadline_within_a_tick_after_it_and_not_before() {
        let routing = Routing::new(LIMIT, LIMIT);
        let start = Instant::now();
        let mut call = routing.enter(start + LIMIT);
        assert!(timed_out(call.next().await));
        let waited = start.elapsed();
        assert!(
            waited >= LIMIT && waited <= LIMIT + tick(LIMIT),
            "told after {waited:?}"
        );
        // Once: nothing more arrives for it.
        let more = tokio::time::timeout(LIMIT, call.next()).await;
        assert!(more.is_err(), "told once");
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_waiting_on_an_answer_has_no_deadline_until_it_resumes() {
        let routing = Routing::new(LIMIT, LIMIT);
        let mut call = routing.enter(Instant::now() + LIMIT);
        call.waiting();
        let parked = tokio::time::timeout(LIMIT * 4, call.next()).await;
        assert!(parked.is_err(), "no deadline while waiting");
        let resumed = Instant::now();
        call.resume(resumed + LIMIT);
        assert!(timed_out(call.next().await));
        assert!(resumed.elapsed() >= LIMIT);
    }

    #[tokio::test(start_paused = true)]
    async fn the_watchdog_stops_when_idle_and_the_next_call_starts_it() {
        let routing = Routing::new(LIMIT, LIMIT);
        drop(routing.enter(Instant::now() + LIMIT));
        assert!(routing.watched());
        // One tick sees the call that started, the next sees nothing new: it stops.
        tokio::time::sleep(tick(LIMIT) * 3).await;
        assert!(!routing.watched(), "idle, the watchdog stopped");
        let mut call = routing.enter(Instant::now() + LIMIT);
        assert!(routing.watched());
        assert!(timed_out(call.next().await));
    }

    #[test]
    fn a_watchdog_dropped_with_its_runtime_is_restarted_by_the_next_call() {
        let routing = Routing::new(LIMIT, LIMIT);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async { drop(routing.enter(Instant::now() + LIMIT)) });
        assert!(routing.watched());
        drop(runtime);
        assert!(!routing.watched(), "the dropped task said so");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut call = routing.enter(Instant::now() + LIMIT);
            assert!(routing.watched());
            assert!(timed_out(call.next().await));
        });
    }
}

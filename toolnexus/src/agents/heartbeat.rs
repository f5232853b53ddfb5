//! The heartbeat: a handle's own clock, posting timer ticks to its inbox and waking it
//! when idle; a reply of [`HEARTBEAT_OK`] stays silent.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::runtime::Runtime;
use super::types::{Handle, HandleState, InboxItem, TaskResult, Woken};

/// The reply that means "nothing needs attention": that beat reports nothing.
pub const HEARTBEAT_OK: &str = "HEARTBEAT_OK";

/// The prompt of a heartbeat's wake.
pub const HEARTBEAT_PROMPT: &str = "Heartbeat. Read your HEARTBEAT.md section and follow it. \
                                    If nothing needs attention, reply HEARTBEAT_OK.";

/// A running heartbeat ([`Runtime::heartbeat`]); it stops when stopped or dropped.
#[derive(Debug)]
pub struct Heartbeat {
    beat: JoinHandle<()>,
}

impl Heartbeat {
    /// Stops the beats (a turn already running finishes on its own).
    pub fn stop(self) {}
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.beat.abort();
    }
}

impl Runtime {
    /// Gives `h` a clock of its own: every `every` (on the runtime's clock) a tick is
    /// posted to its inbox (ticks coalesce, so a slow turn cannot pile them up) and, when
    /// `h` is idle, it is woken with [`HEARTBEAT_PROMPT`]. A reply containing
    /// [`HEARTBEAT_OK`] is silent; any other settled result goes to `on_report`.
    pub fn heartbeat<F>(&self, h: &Handle, every: Duration, on_report: F) -> Heartbeat
    where
        F: Fn(TaskResult) + Send + Sync + 'static,
    {
        let (rt, h) = (self.clone(), h.clone());
        let on_report = Arc::new(on_report);
        let beat = tokio::spawn(async move {
            loop {
                rt.inner.clock.sleep(every).await;
                if rt.post(&h, InboxItem::tick()).is_err()
                    && rt.inspect(&h).is_ok_and(|v| v.state == HandleState::Closed)
                {
                    return;
                }
                let idle = rt.inspect(&h).is_ok_and(|v| v.state == HandleState::Idle);
                if idle && let Ok(Woken::Started) = rt.wake(&h, Some(HEARTBEAT_PROMPT.into())) {
                    let (rt, h, on_report) = (rt.clone(), h.clone(), Arc::clone(&on_report));
                    tokio::spawn(async move {
                        let r = rt.wait(&h, None).await;
                        if r.is_error || !r.text.contains(HEARTBEAT_OK) {
                            on_report(r);
                        }
                    });
                }
            }
        });
        Heartbeat { beat }
    }
}

//! [`InOrder`]: the results of one turn's concurrent calls reported in call order, as the
//! Python port's stream gives its `tool_result` events, whichever call finishes first.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use crate::agent::events::{Event, Listener};
use crate::agent::options::Env;
use crate::agent::options::ToolOptions;
use crate::agent::run::CallStatus;
use crate::model::message::ToolCall;
use crate::tool::result::ToolResult;

/// A finished call held back until the calls before it have finished.
type Held = (u32, ToolCall, ToolResult, CallStatus);

/// What [`InOrder`]'s listener holds: the next call to report, and the finished ones
/// waiting for it.
struct Queue {
    ids: Vec<String>,
    next: usize,
    held: Vec<Option<Held>>,
    reported: Vec<bool>,
}

impl Queue {
    /// Reports the held results from `next` on, as far as they go without a gap.
    fn release(&mut self, listener: &Listener) {
        while self.next < self.ids.len() {
            match self.held[self.next].take() {
                Some(held) => report(listener, &held),
                None if self.reported[self.next] => {}
                None => return,
            }
            self.next += 1;
        }
    }
}

fn report(listener: &Listener, (turn, call, result, status): &Held) {
    listener(&Event::ToolCallFinished {
        turn: *turn,
        call: Cow::Borrowed(call),
        result: Cow::Borrowed(result),
        status: *status,
    });
}

/// The options of one concurrent turn with a listener that reports
/// [`Event::ToolCallFinished`] in call order (other events pass at once).
pub(crate) struct InOrder {
    opts: ToolOptions,
    queue: Arc<Mutex<Queue>>,
    outer: Arc<Listener>,
}

impl InOrder {
    /// For a concurrent turn of `calls` with a listener; `None` when there is nothing to
    /// order (no listener, one call).
    pub(crate) fn of<'c>(
        env: &Env<'_>,
        calls: impl ExactSizeIterator<Item = &'c ToolCall>,
    ) -> Option<InOrder> {
        let outer = env.opts.listener.clone()?;
        if calls.len() < 2 {
            return None;
        }
        let ids: Vec<String> = calls.map(|call| call.id.clone()).collect();
        let n = ids.len();
        let queue = Arc::new(Mutex::new(Queue {
            ids,
            next: 0,
            held: (0..n).map(|_| None).collect(),
            reported: vec![false; n],
        }));
        let listener: Arc<Listener> = Arc::new({
            let (queue, outer) = (Arc::clone(&queue), Arc::clone(&outer));
            move |event: &Event<'_>| {
                let Event::ToolCallFinished {
                    turn,
                    call,
                    result,
                    status,
                } = event
                else {
                    return outer(event);
                };
                let Ok(mut q) = queue.lock() else {
                    return outer(event);
                };
                let free = |(i, id): &(usize, &String)| {
                    *id == &call.id && !q.reported[*i] && q.held[*i].is_none()
                };
                let Some(i) = q.ids.iter().enumerate().find(free).map(|(i, _)| i) else {
                    return outer(event);
                };
                if i == q.next {
                    q.reported[i] = true;
                    outer(event);
                    q.next += 1;
                } else {
                    q.reported[i] = true;
                    q.held[i] = Some((
                        *turn,
                        ToolCall::clone(call),
                        ToolResult::clone(result),
                        *status,
                    ));
                }
                q.release(&*outer);
            }
        });
        let mut opts = env.opts.clone();
        opts.listener = Some(listener);
        Some(InOrder { opts, queue, outer })
    }

    /// `env` with the ordering listener.
    pub(crate) fn env<'a>(&'a self, env: &Env<'a>) -> Env<'a> {
        Env {
            opts: &self.opts,
            ..*env
        }
    }

    /// Reports what is still held (after calls that did not finish: a halted turn), in
    /// call order.
    pub(crate) fn flush(&self) {
        let Ok(mut q) = self.queue.lock() else {
            return;
        };
        let held: Vec<Held> = q.held.iter_mut().filter_map(Option::take).collect();
        for held in &held {
            report(&*self.outer, held);
        }
    }
}

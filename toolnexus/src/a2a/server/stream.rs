//! A task's events for a stream: from its runner in this process, or read from the
//! store when another replica runs it (or nothing runs it yet).

use std::time::Duration;

use futures_util::Stream;
use tokio::sync::broadcast;

use super::drive::status_event;
use super::engine::TaskEngine;
use crate::a2a::wire::{StreamEvent, Task};

/// How often a task that runs elsewhere is read from the store.
const POLL: Duration = Duration::from_millis(200);

struct Follow {
    engine: TaskEngine,
    id: String,
    owner: Option<String>,
    live: Option<broadcast::Receiver<StreamEvent>>,
    /// The task as last told to the stream.
    last: Task,
    /// Events read from the store, not yet given.
    queued: Vec<StreamEvent>,
    done: bool,
}

/// The events of task `id` after `first` (already given), until a status that ends the
/// stream: a terminal state, or one that asks the client for something.
pub(super) fn after(
    engine: TaskEngine,
    id: String,
    owner: Option<String>,
    live: Option<broadcast::Receiver<StreamEvent>>,
    first: Task,
) -> impl Stream<Item = StreamEvent> + Send + 'static {
    let follow = Follow {
        engine,
        id,
        owner,
        live,
        last: first,
        queued: Vec::new(),
        done: false,
    };
    futures_util::stream::unfold(follow, |mut follow| async move {
        let event = follow.next().await?;
        Some((event, follow))
    })
}

fn ends(event: &StreamEvent) -> bool {
    matches!(event, StreamEvent::Status { status, .. }
        if status.state.is_terminal() || status.state.is_interrupted())
}

impl Follow {
    async fn next(&mut self) -> Option<StreamEvent> {
        if self.done {
            return None;
        }
        let event = match self.live.as_mut() {
            Some(live) => match live.recv().await {
                Ok(event) => Some(event),
                Err(broadcast::error::RecvError::Lagged(_)) => self.read_store(false).await,
                Err(broadcast::error::RecvError::Closed) => {
                    self.live = None;
                    self.read_store(false).await
                }
            },
            None => self.read_store(true).await,
        };
        match event {
            Some(event) => {
                self.done = ends(&event);
                Some(event)
            }
            None => {
                self.done = true;
                None
            }
        }
    }

    /// The next change read from the store (waiting for one when `wait`), or the
    /// task's current status when it has ended; `None` when the task is gone.
    async fn read_store(&mut self, wait: bool) -> Option<StreamEvent> {
        loop {
            if !self.queued.is_empty() {
                return Some(self.queued.remove(0));
            }
            let (_, task) = self
                .engine
                .record(self.owner.as_deref(), &self.id)
                .await
                .ok()?;
            let new_artifacts: Vec<StreamEvent> = task
                .artifacts
                .iter()
                .skip(self.last.artifacts.len())
                .map(|artifact| StreamEvent::Artifact {
                    task_id: task.id.clone(),
                    context_id: task.context_id.clone(),
                    artifact: artifact.clone(),
                })
                .collect();
            let changed = task.status != self.last.status;
            self.queued.extend(new_artifacts);
            if changed || !wait || task.status.state.is_terminal() {
                self.queued.push(status_event(&task));
            }
            self.last = task;
            if !self.queued.is_empty() {
                continue;
            }
            // Picks up the runner when one starts here.
            let running = self
                .engine
                .live()
                .get(&self.id)
                .map(|l| l.events.subscribe());
            if let Some(events) = running {
                self.live = Some(events);
                return Box::pin(self.next_live()).await;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    async fn next_live(&mut self) -> Option<StreamEvent> {
        let live = self.live.as_mut()?;
        match live.recv().await {
            Ok(event) => Some(event),
            Err(_) => {
                self.live = None;
                Box::pin(self.read_store(false)).await
            }
        }
    }
}

//! Durable resume: an answer goes to the deepest handle suspended on its request, then up
//! through every ancestor that relayed it, each re-invoked `task` call reattaching.

use std::sync::Arc;

use crate::tool::request::Answer;

use super::runtime::{ROOT, Runtime};
use super::turn::Launch;
use super::types::{Handle, HandleState, RuntimeError, TaskResult};

impl Runtime {
    /// Answers the request a tree halted on: the deepest handle suspended on the
    /// answer's request resumes its halted turn (the calls it settled are not run
    /// again), then each suspended ancestor that relayed the request resumes in turn,
    /// its `task` call reattaching to the child by task key. Gives the outermost resumed
    /// result. An answer whose id no suspended handle holds is refused, and nothing runs.
    pub async fn resume(&self, answer: Answer) -> Result<TaskResult, RuntimeError> {
        let leaf = {
            let t = self.inner.table();
            match t.suspended_on(ROOT, &answer.id) {
                Some(leaf) => leaf,
                None => {
                    return Err(RuntimeError::NoSuchRequest {
                        answer: answer.id.clone(),
                        pending: t.pending_ids(),
                    });
                }
            }
        };
        let mut at = Some(leaf);
        let mut result = None;
        while let Some(id) = at {
            let launched = {
                let mut t = self.inner.table();
                let relayed = t.get(&id).is_some_and(|n| {
                    n.state == HandleState::Suspended
                        && n.pending.as_ref().is_some_and(|p| p.id == answer.id)
                });
                if !relayed {
                    break;
                }
                self.inner.launch_resume(&mut t, &id, answer.clone())
            };
            let handle = Handle(Arc::clone(&id));
            result = Some(match launched {
                Launch::Started(job) => {
                    self.inner.start(vec![job]);
                    self.wait(&handle, None).await
                }
                Launch::Settled(r) => r,
            });
            at = self.inner.table().get(&id).and_then(|n| n.parent.clone());
        }
        result.ok_or_else(|| RuntimeError::NoSuchRequest {
            answer: answer.id.clone(),
            pending: Vec::new(),
        })
    }
}

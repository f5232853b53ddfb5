//! Durable resume: an answer goes to the deepest handle suspended on its request, then up
//! through every ancestor that relayed it, each re-invoked `task` call reattaching.

use std::sync::Arc;

use crate::tool::request::{Answer, Request};

use super::runtime::turn::Launch;
use super::runtime::{ROOT, Runtime};
use super::table::with_path;
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
        if let Err(error) = self.flush().await {
            tracing::warn!(%error, "storing the agent handles after a resume failed");
        }
        result.ok_or_else(|| RuntimeError::NoSuchRequest {
            answer: answer.id.clone(),
            pending: Vec::new(),
        })
    }

    /// The handle of id `id`, when this runtime has it: how a host gets its handles back
    /// from a runtime opened on a store ([`RuntimeBuilder::open`](super::RuntimeBuilder)),
    /// as [`list`](Runtime::list) names them.
    pub fn handle(&self, id: &str) -> Option<Handle> {
        let t = self.inner.table();
        t.get(id).map(|n| Handle(Arc::clone(&n.id)))
    }

    /// The requests the tree waits on: each from the deepest handle suspended on it (the
    /// ancestors that relayed it wait on the same request), its `data.path` naming that
    /// handle, in handle order. Answer one with [`resume`](Runtime::resume).
    pub fn pending(&self) -> Vec<Request> {
        let t = self.inner.table();
        let waits_on = |id: &str, request: &str| {
            t.get(id).is_some_and(|n| {
                n.state == HandleState::Suspended
                    && n.pending.as_ref().is_some_and(|p| p.id == request)
            })
        };
        t.nodes
            .values()
            .filter(|n| n.state == HandleState::Suspended && n.halted.is_some())
            .filter_map(|n| {
                let request = n.pending.as_ref()?;
                let relayed = n.children.iter().any(|c| waits_on(c, &request.id));
                (!relayed).then(|| with_path(request, &n.id))
            })
            .collect()
    }
}

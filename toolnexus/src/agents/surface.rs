//! The Level-1 entry points: [`Runtime::run`] and [`Agent::run`] (one task, start to
//! finish), and an [`Agent`] as a [`Tool`] of any toolkit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use crate::model::Model;
use crate::tool::context::Context;
use crate::tool::def::Tool;
use crate::tool::result::ToolResult;

use super::def::Agent;
use super::runtime::Runtime;
use super::types::{TaskResult, TaskStatus, Woken};

impl Runtime {
    /// One task for the registered agent `agent`: spawned under the root, woken with
    /// `prompt`, waited for. Closed when it settles, except when `pending`: then
    /// [`resume`](Runtime::resume) takes the answer.
    pub async fn run(&self, agent: &str, prompt: impl Into<String>) -> TaskResult {
        let h = match self.spawn(&self.root(), agent, None) {
            Ok(h) => h,
            Err(refused) => {
                let status = if refused.limit.is_some() {
                    TaskStatus::Incomplete
                } else {
                    TaskStatus::Error
                };
                return TaskResult {
                    status,
                    limit: refused.limit,
                    ..TaskResult::error(refused.message)
                };
            }
        };
        if let Ok(Woken::Settled(r)) = self.wake(&h, Some(prompt.into())) {
            return *r;
        }
        let r = self.wait(&h, None).await;
        if r.status != TaskStatus::Pending {
            self.close(&h, false).await;
        }
        r
    }
}

impl Agent {
    /// Runs this agent once on `prompt` in a runtime of its own over `model`. A run that
    /// halts `pending` cannot be resumed from here: use [`Runtime::run`] and
    /// [`Runtime::resume`] for that.
    pub async fn run(&self, model: impl Model + 'static, prompt: impl Into<String>) -> TaskResult {
        Runtime::new(model, self).run(self.name(), prompt).await
    }

    /// This agent as a [`Tool`] named after it, described by what it does, taking
    /// `{"prompt": string}`: each call runs the agent in a runtime of its own over
    /// `model`, and gives its final text, with `metadata` `{agent, turns, totalTokens}`.
    /// A run that halts suspends the call on the same request, its `data.path` the id
    /// path of the agent that asked (the deepest suspended handle, `root/<agent>.1/…`);
    /// the answer (by the caller's `wait_for`, or its resume) resumes that runtime, down
    /// to that agent.
    pub fn into_tool(self, model: impl Model + 'static) -> Tool {
        let model: Arc<dyn Model> = Arc::new(model);
        let parked: Arc<Mutex<HashMap<String, Runtime>>> = Arc::default();
        let schema = json!({
            "type": "object",
            "properties": {"prompt": {"type": "string", "description": "The task for the agent."}},
            "required": ["prompt"],
        });
        let (name, does) = (self.name().to_owned(), self.description().to_owned());
        let agent = Arc::new(self);
        Tool::new(name, does, schema, move |args: Value, ctx: Context| {
            let (agent, model, parked) =
                (Arc::clone(&agent), Arc::clone(&model), Arc::clone(&parked));
            async move {
                let resumed = ctx.answer().and_then(|answer| {
                    let rt = parked
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .remove(&answer.id)?;
                    Some((rt, answer.clone()))
                });
                let r = match resumed {
                    Some((rt, answer)) => match rt.resume(answer).await {
                        Ok(r) => (rt, r),
                        Err(refused) => return ToolResult::error(refused.to_string()),
                    },
                    None => {
                        let Some(prompt) = args.get("prompt").and_then(Value::as_str) else {
                            return ToolResult::error(format!(
                                "agent `{}`: the argument `prompt` must be a string (the task)",
                                agent.name()
                            ));
                        };
                        let rt = Runtime::new(Arc::clone(&model), &agent);
                        let r = rt.run(agent.name(), prompt).await;
                        (rt, r)
                    }
                };
                let (rt, r) = r;
                if r.status == TaskStatus::Pending
                    && let Some(request) = r.pending
                {
                    // Outside its runtime, the request names the agent that asked: the
                    // deepest handle suspended on it.
                    let request = rt
                        .pending()
                        .into_iter()
                        .find(|deepest| deepest.id == request.id)
                        .unwrap_or(request);
                    parked
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(request.id.clone(), rt);
                    return ToolResult::pending(request);
                }
                let output = match r.status {
                    TaskStatus::Done => r.text,
                    status => format!("[{status}] {}", r.text),
                };
                let result = if r.is_error {
                    ToolResult::error(output)
                } else {
                    ToolResult::ok(output)
                };
                result
                    .with_metadata("agent", agent.name())
                    .with_metadata("turns", r.turns)
                    .with_metadata("totalTokens", r.total_tokens)
            }
        })
    }
}

//! Running a task: the client's run (or its resumption), the runner's lease, and the
//! task's state from the run's outcome.

use serde_json::Map;

use super::engine::{Live, TaskEngine, status};
use super::work::Work;
use crate::a2a::time::now_ms;
use crate::a2a::wire::REQUEST_KEY;
use crate::a2a::wire::{
    self, A2aMessage, Artifact, Part, StreamEvent, Task, TaskState, TaskStatus,
};
use crate::agent::client::Client;
use crate::agent::journal::StoreError;
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::tool::kit::Toolkit;
use crate::tool::request::{Answer, Request};

impl TaskEngine {
    pub(super) fn spawn(
        &self,
        id: String,
        owner: Option<String>,
        context: String,
        work: Work,
        live: Live,
    ) {
        let engine = self.clone();
        tokio::spawn(async move {
            engine
                .drive(&id, owner.as_deref(), &context, work, &live)
                .await;
            engine.live().remove(&id);
        });
    }

    async fn drive(&self, id: &str, owner: Option<&str>, context: &str, work: Work, live: &Live) {
        let started = self
            .modify(id, |record, task| {
                (!task.status.state.is_terminal()).then(|| {
                    record.lease_until_ms = now_ms().saturating_add(self.lease_ms());
                    task.status = TaskStatus::now(TaskState::Working, None);
                })
            })
            .await;
        match started {
            Ok(Some((_, task))) => self.publish(live, status_event(&task)),
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(task = id, %error, "A2A server: could not start the task");
                return;
            }
        }
        let client = self.config.client.clone().cancellation(live.cancel.clone());
        let toolkit = &self.config.toolkit;
        let run = async {
            match work {
                Work::Start {
                    prompt,
                    transcript: None,
                } => Ok(client.run(prompt, toolkit).await),
                Work::Start {
                    prompt,
                    transcript: Some(transcript),
                } => Ok(client.run(prompt, toolkit).history(transcript).await),
                Work::Resume {
                    run,
                    request,
                    answer,
                } => {
                    // The answer was made for the request the task waits on
                    // (`answer_for`), so the run finds it by the answer's id.
                    debug_assert_eq!(answer.id, request.id);
                    resume(&client, *run, *answer, toolkit).await
                }
            }
        };
        let outcome = tokio::select! {
            outcome = run => outcome,
            () = self.hold(id, live) => Err("the task's lease was lost".to_owned()),
        };
        self.finish(id, owner, context, outcome, live).await;
    }

    /// Renews the runner's lease every third of it, and passes on a cancellation asked
    /// of another replica. Returns only if the task is no longer this runner's.
    async fn hold(&self, id: &str, live: &Live) {
        let every = (self.config.lease / 3).max(std::time::Duration::from_millis(10));
        loop {
            tokio::time::sleep(every).await;
            let renewed = self
                .modify(id, |record, task| {
                    (task.status.state == TaskState::Working).then(|| {
                        record.lease_until_ms = now_ms().saturating_add(self.lease_ms());
                    })
                })
                .await;
            match renewed {
                Ok(Some((record, _))) if record.cancel_requested => live.cancel.cancel(),
                Ok(Some(_)) => {}
                Ok(None) => return,
                Err(error) => tracing::warn!(task = id, %error, "A2A server: lease renewal failed"),
            }
        }
    }

    async fn finish(
        &self,
        id: &str,
        owner: Option<&str>,
        context: &str,
        outcome: Result<RunResult, String>,
        live: &Live,
    ) {
        let cancelled = live.cancel.is_cancelled();
        let limit = self.config.max_artifact_bytes;
        let (state, text, artifact, halted) = match &outcome {
            Ok(run) => match &run.status {
                RunStatus::Done if run.text.len() > limit => (
                    TaskState::Failed,
                    format!(
                        "the answer ({} bytes) is larger than this agent's limit of {limit} bytes",
                        run.text.len()
                    ),
                    None,
                    None,
                ),
                RunStatus::Done => match self.artifact_parts(run) {
                    Ok(parts) => {
                        let artifact = Artifact {
                            artifact_id: uuid::Uuid::new_v4().to_string(),
                            name: Some("answer".to_owned()),
                            description: None,
                            parts,
                            metadata: None,
                        };
                        (TaskState::Completed, String::new(), Some(artifact), None)
                    }
                    Err(reason) => (TaskState::Failed, reason, None, None),
                },
                RunStatus::Pending => match &run.pending {
                    Some(request) => {
                        let state = if request.kind == "authorization" {
                            TaskState::AuthRequired
                        } else {
                            TaskState::InputRequired
                        };
                        (state, String::new(), None, Some(request.clone()))
                    }
                    None => (
                        TaskState::Failed,
                        "the run halted on no request".to_owned(),
                        None,
                        None,
                    ),
                },
                RunStatus::Incomplete {
                    reason: StopReason::Cancelled,
                } if cancelled => (
                    TaskState::Canceled,
                    "canceled by the client".to_owned(),
                    None,
                    None,
                ),
                RunStatus::Incomplete { reason } => {
                    (TaskState::Failed, reason.to_string(), None, None)
                }
            },
            Err(_) if cancelled => (
                TaskState::Canceled,
                "canceled by the client".to_owned(),
                None,
                None,
            ),
            Err(error) => (TaskState::Failed, error.clone(), None, None),
        };
        let kept_run = match (&halted, &outcome) {
            (Some(_), Ok(run)) => Some(wire::to_value(run)),
            _ => None,
        };
        let written = self
            .modify(id, |record, task| {
                if task.status.state.is_terminal() {
                    return None;
                }
                record.run.clone_from(&kept_run);
                record.cancel_requested = false;
                if let Some(artifact) = &artifact {
                    task.artifacts.push(artifact.clone());
                }
                task.status = match &halted {
                    Some(request) => {
                        let message = asking(request, task);
                        task.history.push(message.clone());
                        TaskStatus::now(state, Some(message))
                    }
                    None if text.is_empty() => TaskStatus::now(state, None),
                    None => status(state, &text, task),
                };
                Some(())
            })
            .await;
        let task = match written {
            Ok(Some((_, task))) => task,
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(task = id, %error, "A2A server: could not record the task's end");
                return;
            }
        };
        if let (TaskState::Completed, Ok(run)) = (state, &outcome) {
            let saved = self
                .store
                .save_context(
                    owner,
                    context,
                    wire::to_value(&run.messages),
                    self.expiry(now_ms()),
                )
                .await;
            if let Err(error) = saved {
                tracing::warn!(task = id, %error, "A2A server: could not keep the conversation");
            }
        }
        if let Some(artifact) = artifact {
            self.publish(
                live,
                StreamEvent::Artifact {
                    task_id: task.id.clone(),
                    context_id: task.context_id.clone(),
                    artifact,
                },
            );
        }
        self.publish(live, status_event(&task));
    }

    /// The artifact's parts: the configured hook's (checked), else the answer's text.
    fn artifact_parts(&self, run: &RunResult) -> Result<Vec<Part>, String> {
        let Some(make) = &self.config.artifact else {
            return Ok(vec![Part::text(run.text.clone())]);
        };
        make(run)
            .iter()
            .enumerate()
            .map(|(at, part)| {
                Part::from_value(part)
                    .map_err(|e| format!("the answer's part {at} is not A2A's: {e}"))
            })
            .collect()
    }

    pub(super) fn publish(&self, live: &Live, event: StreamEvent) {
        // No receiver is fine: nobody is streaming this task.
        let _ = live.events.send(event);
    }
}

/// The halted `run` resumed with `answer`. With a run store that holds the run, it is
/// answered there by the run's id ([`AnswerRequest::run`](crate::agent::AnswerRequest::run)): runs of other tasks may wait
/// on a request of the same id (an approval's id is a digest of its call). Otherwise the
/// run resumes from its transcript.
async fn resume(
    client: &Client,
    run: RunResult,
    answer: Answer,
    toolkit: &Toolkit,
) -> Result<RunResult, String> {
    if client.store.is_some()
        && let Some(id) = &run.id
    {
        match client.answer(answer.clone(), toolkit).run(id).await {
            Err(StoreError::UnknownRequest(_) | StoreError::UnknownRun(_)) => {}
            answered => return answered.map_err(|e| e.to_string()),
        }
    }
    client
        .resume(run.messages, answer, toolkit)
        .await
        .map_err(|e| e.to_string())
}

/// The status event for a task's current status.
pub(super) fn status_event(task: &Task) -> StreamEvent {
    StreamEvent::Status {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
    }
}

/// The agent's message asking `request`: its prompt (and URL), and the request itself in
/// the metadata for toolnexus clients.
fn asking(request: &Request, task: &Task) -> A2aMessage {
    let mut text = request.prompt.clone();
    if let Some(url) = &request.url
        && !text.contains(url.as_str())
    {
        text = format!("{text}\n{url}");
    }
    let mut message = A2aMessage::agent(vec![Part::text(text)], &task.id, &task.context_id);
    let mut request = request.clone();
    request.trace = None;
    let mut meta = Map::new();
    meta.insert(REQUEST_KEY.into(), wire::to_value(&request));
    message.metadata = Some(meta);
    message
}

//! The served tasks: creating one per message, answering a waiting one with the next
//! message, reading, listing and cancelling them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::store::{self, ListQuery, SharedTasks, TaskRecord};
use super::work::{Work, answer_for};
use super::{Config, limits};
use crate::a2a::time::now_ms;
use crate::a2a::wire::{self, A2aMessage, RpcError, StreamEvent, Task, TaskState, TaskStatus};
use crate::agent::run::RunResult;
use crate::model::message::Message;

/// How many events a slow stream may fall behind before it reads the store instead.
const EVENT_BUFFER: usize = 64;

/// A task running in this process: its events, the token that stops its run, and whose
/// it is (for the caps on runs in flight).
#[derive(Clone)]
pub(super) struct Live {
    pub(super) events: broadcast::Sender<StreamEvent>,
    pub(super) cancel: CancellationToken,
    owner: Option<String>,
}

/// The server's configuration, its tasks' store, and the tasks running here.
#[derive(Clone)]
pub(crate) struct TaskEngine {
    pub(crate) config: Config,
    pub(super) store: SharedTasks,
    pub(super) live: Arc<Mutex<HashMap<String, Live>>>,
    last_sweep: Arc<AtomicI64>,
    /// When the server was made: the card's `Last-Modified`.
    pub(super) created_ms: i64,
}

/// What a send hands back: the task as it starts, and its events from then on.
pub(super) struct Started {
    pub(super) task: Task,
    pub(super) events: broadcast::Receiver<StreamEvent>,
}

impl TaskEngine {
    pub(super) fn new(config: Config) -> TaskEngine {
        TaskEngine {
            store: store::for_client(&config.client),
            config,
            live: Arc::default(),
            last_sweep: Arc::new(AtomicI64::new(now_ms())),
            created_ms: now_ms() / 1000 * 1000,
        }
    }

    pub(super) fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Live>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn lease_ms(&self) -> i64 {
        i64::try_from(self.config.lease.as_millis()).unwrap_or(i64::MAX / 4)
    }

    /// When what changes at `now` expires: the server's time to live later.
    pub(super) fn expiry(&self, now: i64) -> i64 {
        let ttl = i64::try_from(self.config.ttl.as_millis()).unwrap_or(i64::MAX / 4);
        now.saturating_add(ttl)
    }

    /// The task `id` as `owner` may see it: unknown, or another principal's, is
    /// `-32001`. A `working` task whose runner's lease lapsed (its server stopped) is
    /// failed, saying so.
    pub(super) async fn record(
        &self,
        owner: Option<&str>,
        id: &str,
    ) -> Result<(TaskRecord, Task), RpcError> {
        let found = self.store.get(id).await.map_err(RpcError::internal)?;
        let now = now_ms();
        // Past its time to live, a task is gone, whether or not it was swept yet.
        let visible = |r: &TaskRecord| r.owner.as_deref() == owner && r.expires_ms >= now;
        let Some(record) = found.filter(visible) else {
            return Err(RpcError::task_not_found(id));
        };
        let task = parse(&record)?;
        let lapsed = record.state == TaskState::Working
            && record.lease_until_ms < now
            && !self.live().contains_key(id);
        if lapsed {
            let reason = "the server running this task stopped before it finished";
            let failed = self
                .modify(id, |record, task| {
                    (record.state == TaskState::Working).then(|| {
                        task.status = status(TaskState::Failed, reason, task);
                    })
                })
                .await?;
            if let Some(done) = failed {
                return Ok(done);
            }
            return Box::pin(self.record(owner, id)).await;
        }
        Ok((record, task))
    }

    /// Changes task `id` with `change` (which says `None` to leave it), retrying on a
    /// concurrent write; the record's state follows the task's.
    pub(super) async fn modify(
        &self,
        id: &str,
        change: impl Fn(&mut TaskRecord, &mut Task) -> Option<()>,
    ) -> Result<Option<(TaskRecord, Task)>, RpcError> {
        for _ in 0..16 {
            let Some(mut record) = self.store.get(id).await.map_err(RpcError::internal)? else {
                return Ok(None);
            };
            let mut task = parse(&record)?;
            if change(&mut record, &mut task).is_none() {
                return Ok(None);
            }
            let expected = record.version;
            record.version += 1;
            record.state = task.status.state;
            record.updated_ms = now_ms();
            record.expires_ms = self.expiry(record.updated_ms);
            record.task = wire::to_value(&task);
            if self
                .store
                .replace(record.clone(), expected)
                .await
                .map_err(RpcError::internal)?
            {
                return Ok(Some((record, task)));
            }
        }
        Err(RpcError::internal(format!(
            "task {id} is being changed by too many writers at once"
        )))
    }

    /// Starts a task for `message`, or answers the task it names.
    pub(super) async fn send(
        &self,
        owner: Option<String>,
        message: A2aMessage,
    ) -> Result<Started, RpcError> {
        if message.parts.is_empty() {
            return Err(RpcError::invalid_params(
                "params.message.parts: the message has no parts",
            ));
        }
        if message.task_id.is_empty() {
            self.start(owner, message).await
        } else {
            self.answer(owner, message).await
        }
    }

    async fn start(
        &self,
        owner: Option<String>,
        mut message: A2aMessage,
    ) -> Result<Started, RpcError> {
        self.sweep().await;
        self.make_room().await?;
        let id = uuid::Uuid::new_v4().to_string();
        let given_context = !message.context_id.is_empty();
        if !given_context {
            message.context_id = uuid::Uuid::new_v4().to_string();
        }
        // Where the conversation is kept: the contextId itself, unless it is one an
        // anonymous caller chose that this server never issued (see `conversation`).
        let conversation = if given_context {
            self.conversation(owner.as_deref(), &message.context_id, &id)
                .await?
        } else {
            message.context_id.clone()
        };
        message.task_id.clone_from(&id);
        let transcript = if given_context {
            let stored = self
                .store
                .context(owner.as_deref(), &conversation)
                .await
                .map_err(RpcError::internal)?;
            stored.and_then(|v| serde_json::from_value::<Vec<Message>>(v).ok())
        } else {
            None
        };
        let prompt = self.prompt(&message);
        let task = Task {
            id: id.clone(),
            context_id: message.context_id.clone(),
            status: TaskStatus::now(TaskState::Submitted, None),
            artifacts: Vec::new(),
            history: vec![message],
            metadata: None,
        };
        let now = now_ms();
        let record = TaskRecord {
            id: id.clone(),
            owner: owner.clone(),
            context_id: conversation.clone(),
            state: TaskState::Submitted,
            task: wire::to_value(&task),
            run: None,
            version: 0,
            created_ms: now,
            updated_ms: now,
            expires_ms: self.expiry(now),
            lease_until_ms: now.saturating_add(self.lease_ms()),
            cancel_requested: false,
        };
        let live = self.go_live(&id, owner.as_ref())?;
        let events = live.events.subscribe();
        let limit = self.config.limits.unfinished_per_caller;
        match self.store.insert(record, limit as u64).await {
            Ok(true) => {}
            Ok(false) => {
                self.live().remove(&id);
                return Err(limits::refused(
                    format!(
                        "{} already has {limit} tasks that have not ended, the limit \
                         (A2aServer::max_unfinished_tasks_per_caller): the message \
                         started no task; answer or cancel one first",
                        limits::who(owner.as_deref())
                    ),
                    "unfinished_per_caller",
                    limit as u64,
                ));
            }
            Err(error) => {
                self.live().remove(&id);
                return Err(RpcError::internal(error));
            }
        }
        self.spawn(
            id,
            owner,
            conversation,
            Work::Start { prompt, transcript },
            live,
        );
        Ok(Started { task, events })
    }

    /// The key a conversation named `context` is kept under. A caller with a principal
    /// keeps its conversations under their contextIds (per principal). An anonymous
    /// caller continues a conversation only by a contextId the server issued (a bearer
    /// capability: unguessable, told only to whoever started it); a contextId it chose
    /// itself that names no conversation of anonymous callers starts a fresh one, kept
    /// under a key of the task's own, so that two callers who pick the same name never
    /// share a conversation.
    async fn conversation(
        &self,
        owner: Option<&str>,
        context: &str,
        task: &str,
    ) -> Result<String, RpcError> {
        if owner.is_some() {
            return Ok(context.to_owned());
        }
        let kept = self
            .store
            .context(None, context)
            .await
            .map_err(RpcError::internal)?
            .is_some();
        let known = kept || {
            let query = ListQuery {
                now_ms: now_ms(),
                context: Some(context.to_owned()),
                limit: 1,
                ..ListQuery::default()
            };
            let page = self
                .store
                .list(None, &query)
                .await
                .map_err(RpcError::internal)?;
            page.total > 0
        };
        Ok(if known {
            context.to_owned()
        } else {
            format!("{task}/{context}")
        })
    }

    /// The next message of a task that waits for one: the answer to its question.
    async fn answer(
        &self,
        owner: Option<String>,
        mut message: A2aMessage,
    ) -> Result<Started, RpcError> {
        let id = message.task_id.clone();
        let (record, task) = self.record(owner.as_deref(), &id).await?;
        if !message.context_id.is_empty() && message.context_id != task.context_id {
            return Err(RpcError::invalid_params(format!(
                "params.message.contextId: `{}` is not the context of task {id}",
                message.context_id
            )));
        }
        message.context_id.clone_from(&task.context_id);
        let state = task.status.state;
        if state.is_terminal() {
            return Err(RpcError::unsupported(format!(
                "Task {id} is {}: it accepts no more messages",
                state.as_str()
            )));
        }
        let halted = record
            .run
            .as_ref()
            .and_then(|run| serde_json::from_value::<RunResult>(run.clone()).ok());
        let (Some(run), true) = (halted, state.is_interrupted()) else {
            return Err(RpcError::unsupported(format!(
                "Task {id} is {}: it takes a message only while it asks for one \
                 (input-required or auth-required)",
                state.as_str()
            )));
        };
        let Some(request) = run.pending.clone() else {
            return Err(RpcError::internal(format!("task {id} waits on no request")));
        };
        let answer = answer_for(&request, &message);
        let live = self.go_live(&id, owner.as_ref())?;
        let events = live.events.subscribe();
        let version = record.version;
        let changed = self
            .modify(&id, |record, task| {
                (record.version == version).then(|| {
                    record.run = None;
                    record.lease_until_ms = now_ms().saturating_add(self.lease_ms());
                    task.history.push(message.clone());
                    task.status = TaskStatus::now(TaskState::Working, None);
                })
            })
            .await;
        let Ok(Some((_, task))) = changed else {
            self.live().remove(&id);
            return match changed {
                Err(error) => Err(error),
                _ => Err(RpcError::unsupported(format!(
                    "Task {id} was answered by another message"
                ))),
            };
        };
        let conversation = record.context_id.clone();
        self.spawn(
            id,
            owner,
            conversation,
            Work::Resume {
                run: Box::new(run),
                request: Box::new(request),
                answer: Box::new(answer),
            },
            live,
        );
        Ok(Started { task, events })
    }

    /// Registers task `id` as running here, within the caps on runs in flight.
    fn go_live(&self, id: &str, owner: Option<&String>) -> Result<Live, RpcError> {
        let limits = &self.config.limits;
        let mut live = self.live();
        if live.len() >= limits.runs {
            return Err(limits::refused(
                format!(
                    "this agent runs {} tasks at once, its limit (A2aServer::max_runs): \
                     the message started no run; try again when one has ended",
                    limits.runs
                ),
                "runs",
                limits.runs as u64,
            ));
        }
        let mine = live.values().filter(|l| l.owner.as_ref() == owner).count();
        if mine >= limits.runs_per_caller {
            return Err(limits::refused(
                format!(
                    "{} already has {} runs in flight, the limit \
                     (A2aServer::max_runs_per_caller): the message started no run; \
                     try again when one has ended",
                    limits::who(owner.map(String::as_str)),
                    limits.runs_per_caller
                ),
                "runs_per_caller",
                limits.runs_per_caller as u64,
            ));
        }
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let entry = Live {
            events,
            cancel: CancellationToken::new(),
            owner: owner.cloned(),
        };
        live.insert(id.to_owned(), entry.clone());
        Ok(entry)
    }

    /// Deletes tasks that ended (oldest first) until there is room for one more; refuses
    /// when the tasks that have not ended fill the store.
    async fn make_room(&self) -> Result<(), RpcError> {
        let limits = &self.config.limits;
        let (tasks, bytes) = (limits.stored_tasks as u64, limits.stored_bytes);
        let usage = self
            .store
            .make_room(now_ms(), tasks, bytes)
            .await
            .map_err(RpcError::internal)?;
        if usage.tasks >= tasks {
            return Err(limits::refused(
                format!(
                    "this agent keeps at most {tasks} tasks (A2aServer::max_stored_tasks), \
                     and none that ended is left to make room: the message started no task"
                ),
                "stored_tasks",
                tasks,
            ));
        }
        if usage.bytes >= bytes {
            return Err(limits::refused(
                format!(
                    "this agent keeps at most {bytes} bytes of tasks \
                     (A2aServer::max_stored_bytes), and none that ended is left to make \
                     room: the message started no task"
                ),
                "stored_bytes",
                bytes,
            ));
        }
        Ok(())
    }

    /// The run's prompt: the configured hook's, else the message's parts one per line
    /// (text as it is, data as JSON, files by name).
    fn prompt(&self, message: &A2aMessage) -> String {
        if let Some(prompt) = &self.config.prompt {
            return prompt(&wire::to_value(message));
        }
        let lines: Vec<String> = message
            .parts
            .iter()
            .map(|part| {
                if let Some(text) = &part.text {
                    text.clone()
                } else if let Some(data) = &part.data {
                    data.to_string()
                } else {
                    let name = part.filename.as_deref().unwrap_or("unnamed");
                    let media = part.media_type.as_deref().unwrap_or("unknown type");
                    match &part.url {
                        Some(url) => format!("[file {name} ({media}) at {url}]"),
                        None => format!("[file {name} ({media})]"),
                    }
                }
            })
            .collect();
        lines.join("\n")
    }

    /// Cancels task `id`: at once when it waits, through its run's token when it runs
    /// here, through the store when another replica runs it.
    pub(super) async fn cancel(&self, owner: Option<&str>, id: &str) -> Result<Task, RpcError> {
        let (_, task) = self.record(owner, id).await?;
        if task.status.state.is_terminal() {
            return Err(RpcError::new(
                wire::codes::TASK_NOT_CANCELABLE,
                format!(
                    "Task {id} is {}: it cannot be canceled",
                    task.status.state.as_str()
                ),
            ));
        }
        let running = self.live().get(id).cloned();
        if let Some(live) = running {
            live.cancel.cancel();
            let mut events = live.events.subscribe();
            let wait = async {
                loop {
                    match events.recv().await {
                        Ok(event) if event.state().is_some_and(TaskState::is_terminal) => break,
                        Err(broadcast::error::RecvError::Closed) => break,
                        _ => {}
                    }
                }
            };
            let _ = tokio::time::timeout(std::time::Duration::from_secs(10), wait).await;
        } else {
            let canceled = self
                .modify(id, |record, task| {
                    let state = task.status.state;
                    if state.is_terminal() {
                        return None;
                    }
                    if state == TaskState::Working && record.lease_until_ms >= now_ms() {
                        record.cancel_requested = true;
                    } else {
                        record.run = None;
                        task.status = status(TaskState::Canceled, "canceled by the client", task);
                    }
                    Some(())
                })
                .await?;
            if let Some((record, task)) = canceled
                && task.status.state == TaskState::Canceled
            {
                let _ = record;
                return Ok(task);
            }
            // Another replica runs it: wait a little for its runner to see the request.
            let deadline = tokio::time::Instant::now() + 2 * self.config.lease;
            while tokio::time::Instant::now() < deadline {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                let (_, task) = self.record(owner, id).await?;
                if task.status.state.is_terminal() {
                    return Ok(task);
                }
            }
        }
        Ok(self.record(owner, id).await?.1)
    }

    /// Deletes what outlived its time, at most once a minute.
    async fn sweep(&self) {
        let now = now_ms();
        let last = self.last_sweep.load(Ordering::Relaxed);
        if now - last < 60_000
            || self
                .last_sweep
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        if let Err(error) = self.store.sweep(now).await {
            tracing::warn!(%error, "A2A server: sweeping old tasks failed");
        }
    }
}

/// The task of a record.
pub(super) fn parse(record: &TaskRecord) -> Result<Task, RpcError> {
    wire::from_json(&record.task)
        .map_err(|e| RpcError::internal(format!("task {} is stored damaged: {e}", record.id)))
}

/// A status with an agent message saying `text`.
pub(super) fn status(state: TaskState, text: &str, task: &Task) -> TaskStatus {
    let message = A2aMessage::agent(vec![wire::Part::text(text)], &task.id, &task.context_id);
    TaskStatus::now(state, Some(message))
}

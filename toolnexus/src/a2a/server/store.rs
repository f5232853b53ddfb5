//! Where served tasks are kept: behind [`TaskStore`], the seam this layer owns. The run
//! store of the served client implements it (`store/a2a_tasks.rs`), so that a restart
//! keeps the tasks and every replica on the same database sees them; a client without
//! one keeps them in this process's memory ([`MemoryTasks`]).
//!
//! A record holds the task as A2A 1.0 JSON, the halted run it waits on (a serialized
//! [`RunResult`](crate::RunResult), so that any replica can resume it), who created it,
//! and the runner's lease. Writes are compare-and-set on `version`, so two messages
//! answering the same question cannot both resume the run.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::a2a::wire::TaskState;
use crate::agent::client::Client;
use crate::tool::handler::BoxFuture;

/// One served task, as kept.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TaskRecord {
    pub(crate) id: String,
    /// Who created it (the principal), when the server knows.
    pub(crate) owner: Option<String>,
    pub(crate) context_id: String,
    pub(crate) state: TaskState,
    /// The task, in A2A 1.0 JSON.
    pub(crate) task: Value,
    /// The halted run (a serialized `RunResult`), while the task waits for an answer.
    pub(crate) run: Option<Value>,
    /// Bumped on every write.
    pub(crate) version: u64,
    pub(crate) created_ms: i64,
    pub(crate) updated_ms: i64,
    /// When it may be deleted: its last change and the server's time to live.
    pub(crate) expires_ms: i64,
    /// Until when the runner of a `working` task holds it.
    pub(crate) lease_until_ms: i64,
    /// A client asked to cancel it while another replica ran it.
    pub(crate) cancel_requested: bool,
}

pub(crate) type StoreResult<T> = Result<T, String>;

/// A place to keep tasks and conversations. Times are the serving process's clock (ms
/// since the Unix epoch); `owner` is the principal that created a task (`None`: the
/// server knows no principals), and binds it.
pub(crate) trait TaskStore: Send + Sync + fmt::Debug + 'static {
    /// Adds a new task.
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, StoreResult<()>>;
    /// The task with this id.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<TaskRecord>>>;
    /// Writes `record` if the stored one is still at `expected` (its version); `false`
    /// when another write came first.
    fn replace(&self, record: TaskRecord, expected: u64) -> BoxFuture<'_, StoreResult<bool>>;
    /// Every task of `owner`.
    fn list<'a>(&'a self, owner: Option<&'a str>) -> BoxFuture<'a, StoreResult<Vec<TaskRecord>>>;
    /// The transcript of a conversation (`contextId`) of `owner`.
    fn context<'a>(
        &'a self,
        owner: Option<&'a str>,
        id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Option<Value>>>;
    /// Keeps the transcript of a conversation until `expires_ms`.
    fn save_context<'a>(
        &'a self,
        owner: Option<&'a str>,
        id: &'a str,
        transcript: Value,
        expires_ms: i64,
    ) -> BoxFuture<'a, StoreResult<()>>;
    /// Deletes the tasks (and conversations) that expired before `now_ms`; how many.
    fn sweep(&self, now_ms: i64) -> BoxFuture<'_, StoreResult<u64>>;
}

/// The task storage as a client's run store hands it out (see [`for_client`]).
pub(crate) type SharedTasks = Arc<dyn TaskStore>;

/// Where the tasks of a server of `client` are kept: in the client's run store when it
/// has one ([`Client::with_store`]), else in this process's memory.
#[cfg_attr(not(feature = "__store"), allow(unused_variables))]
pub(crate) fn for_client(client: &Client) -> SharedTasks {
    #[cfg(feature = "__store")]
    if let Some(durable) = &client.store
        && let Some(part) = durable.store.part(std::any::TypeId::of::<SharedTasks>())
        && let Ok(tasks) = part.downcast::<SharedTasks>()
    {
        return *tasks;
    }
    Arc::new(MemoryTasks::default())
}

/// Tasks in this process's memory: they die with it, and other replicas do not see them.
#[derive(Debug, Default, Clone)]
pub(crate) struct MemoryTasks {
    inner: Arc<Mutex<Memory>>,
}

#[derive(Debug, Default)]
struct Memory {
    tasks: HashMap<String, TaskRecord>,
    /// A conversation's transcript and when it expires.
    contexts: HashMap<(Option<String>, String), (Value, i64)>,
}

impl MemoryTasks {
    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        // A panic while holding the lock leaves plain data behind: keep using it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl TaskStore for MemoryTasks {
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, StoreResult<()>> {
        let mut memory = self.lock();
        let outcome = if memory.tasks.contains_key(&record.id) {
            Err(format!("a task `{}` exists already", record.id))
        } else {
            memory.tasks.insert(record.id.clone(), record);
            Ok(())
        };
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<TaskRecord>>> {
        let found = self.lock().tasks.get(id).cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn replace(&self, record: TaskRecord, expected: u64) -> BoxFuture<'_, StoreResult<bool>> {
        let mut memory = self.lock();
        let written = match memory.tasks.get_mut(&record.id) {
            Some(stored) if stored.version == expected => {
                *stored = record;
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(written)))
    }

    fn list<'a>(&'a self, owner: Option<&'a str>) -> BoxFuture<'a, StoreResult<Vec<TaskRecord>>> {
        let found = self
            .lock()
            .tasks
            .values()
            .filter(|r| r.owner.as_deref() == owner)
            .cloned()
            .collect();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn context<'a>(
        &'a self,
        owner: Option<&'a str>,
        id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Option<Value>>> {
        let key = (owner.map(str::to_owned), id.to_owned());
        let found = self.lock().contexts.get(&key).map(|(v, _)| v.clone());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn save_context<'a>(
        &'a self,
        owner: Option<&'a str>,
        id: &'a str,
        transcript: Value,
        expires_ms: i64,
    ) -> BoxFuture<'a, StoreResult<()>> {
        let key = (owner.map(str::to_owned), id.to_owned());
        self.lock().contexts.insert(key, (transcript, expires_ms));
        Box::pin(std::future::ready(Ok(())))
    }

    fn sweep(&self, now_ms: i64) -> BoxFuture<'_, StoreResult<u64>> {
        let mut memory = self.lock();
        let before = memory.tasks.len() + memory.contexts.len();
        memory.tasks.retain(|_, r| r.expires_ms >= now_ms);
        memory.contexts.retain(|_, (_, expires)| *expires >= now_ms);
        let swept = before - memory.tasks.len() - memory.contexts.len();
        Box::pin(std::future::ready(Ok(swept as u64)))
    }
}

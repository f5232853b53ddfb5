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
use crate::agent::conversation::json_len;
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

/// Which of a caller's tasks `ListTasks` asks for, and where its page starts.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ListQuery {
    /// Tasks that expired before this are gone.
    pub(crate) now_ms: i64,
    /// Only the tasks of this conversation (its stored key).
    pub(crate) context: Option<String>,
    pub(crate) state: Option<TaskState>,
    /// Only the tasks changed after this.
    pub(crate) updated_after: Option<i64>,
    /// The page starts after this task (its `updated_ms` and id), in the listing's order:
    /// newest change first, then by id.
    pub(crate) cursor: Option<(i64, String)>,
    /// At most this many records (the store may give one more, to say a page follows).
    pub(crate) limit: usize,
}

/// One page of a listing: its records, and how many match in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ListPage {
    /// Up to `limit + 1` records, newest change first: one over the limit says another
    /// page follows.
    pub(crate) records: Vec<TaskRecord>,
    pub(crate) total: u64,
}

/// What the stored tasks (and conversations) hold, after [`TaskStore::make_room`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub(crate) tasks: u64,
    /// The bytes of their JSON: tasks, halted runs and conversations' transcripts.
    pub(crate) bytes: u64,
}

/// A place to keep tasks and conversations. Times are the serving process's clock (ms
/// since the Unix epoch); `owner` is the principal that created a task (`None`: the
/// caller gave none), and binds it.
pub(crate) trait TaskStore: Send + Sync + fmt::Debug + 'static {
    /// Adds a new task, unless its owner already has `max_unfinished` tasks that have not
    /// ended (nor expired at the record's `created_ms`): `Ok(false)` then, and nothing is
    /// written.
    fn insert(&self, record: TaskRecord, max_unfinished: u64) -> BoxFuture<'_, StoreResult<bool>>;
    /// The task with this id.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<TaskRecord>>>;
    /// Writes `record` if the stored one is still at `expected` (its version); `false`
    /// when another write came first.
    fn replace(&self, record: TaskRecord, expected: u64) -> BoxFuture<'_, StoreResult<bool>>;
    /// One page of the tasks of `owner` that `query` asks for, newest change first.
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        query: &'a ListQuery,
    ) -> BoxFuture<'a, StoreResult<ListPage>>;
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
    /// Deletes tasks that ended and conversations, the least recently changed first,
    /// until fewer than `max_tasks` tasks and `max_bytes` bytes are kept (or nothing
    /// that ended is left); what is kept then. Tasks that have not ended are never
    /// deleted here.
    fn make_room(
        &self,
        now_ms: i64,
        max_tasks: u64,
        max_bytes: u64,
    ) -> BoxFuture<'_, StoreResult<Usage>>;
}

/// The task storage as a client's run store hands it out (see [`for_client`]).
pub(crate) type SharedTasks = Arc<dyn TaskStore>;

/// Where the tasks of a server of `client` are kept: in the client's run store when it
/// has one ([`Client::store`]), else in this process's memory.
pub(crate) fn for_client(client: &Client) -> SharedTasks {
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
    /// Each task, and the bytes of its JSON.
    tasks: HashMap<String, (TaskRecord, u64)>,
    /// A conversation's transcript, when it expires, and its bytes.
    contexts: HashMap<(Option<String>, String), (Value, i64, u64)>,
}

/// The bytes `value` takes as JSON, counted without writing it out.
fn json_bytes(value: &Value) -> u64 {
    json_len(value) as u64
}

/// The bytes a task's record keeps: its task and its halted run, as JSON.
fn record_bytes(record: &TaskRecord) -> u64 {
    json_bytes(&record.task) + record.run.as_ref().map_or(0, json_bytes)
}

impl MemoryTasks {
    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        // A panic while holding the lock leaves plain data behind: keep using it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Memory {
    fn usage(&self, now_ms: i64) -> Usage {
        let mut usage = Usage::default();
        for (record, bytes) in self.tasks.values() {
            if record.expires_ms >= now_ms {
                usage.tasks += 1;
                usage.bytes += bytes;
            }
        }
        for (_, expires, bytes) in self.contexts.values() {
            if *expires >= now_ms {
                usage.bytes += bytes;
            }
        }
        usage
    }
}

impl TaskStore for MemoryTasks {
    fn insert(&self, record: TaskRecord, max_unfinished: u64) -> BoxFuture<'_, StoreResult<bool>> {
        let mut memory = self.lock();
        let unfinished = memory
            .tasks
            .values()
            .filter(|(r, _)| {
                r.owner == record.owner
                    && !r.state.is_terminal()
                    && r.expires_ms >= record.created_ms
            })
            .count() as u64;
        let outcome = if memory.tasks.contains_key(&record.id) {
            Err(format!("a task `{}` exists already", record.id))
        } else if unfinished >= max_unfinished {
            Ok(false)
        } else {
            let bytes = record_bytes(&record);
            memory.tasks.insert(record.id.clone(), (record, bytes));
            Ok(true)
        };
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<TaskRecord>>> {
        let found = self.lock().tasks.get(id).map(|(r, _)| r.clone());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn replace(&self, record: TaskRecord, expected: u64) -> BoxFuture<'_, StoreResult<bool>> {
        let mut memory = self.lock();
        let written = match memory.tasks.get_mut(&record.id) {
            Some((stored, bytes)) if stored.version == expected => {
                *bytes = record_bytes(&record);
                *stored = record;
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(written)))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        query: &'a ListQuery,
    ) -> BoxFuture<'a, StoreResult<ListPage>> {
        let memory = self.lock();
        let mut matching: Vec<&TaskRecord> = memory
            .tasks
            .values()
            .map(|(r, _)| r)
            .filter(|r| {
                r.owner.as_deref() == owner
                    && r.expires_ms >= query.now_ms
                    && query.context.as_ref().is_none_or(|c| &r.context_id == c)
                    && query.state.is_none_or(|s| r.state == s)
                    && query.updated_after.is_none_or(|t| r.updated_ms > t)
            })
            .collect();
        let total = matching.len() as u64;
        matching.sort_by(|a, b| {
            b.updated_ms
                .cmp(&a.updated_ms)
                .then_with(|| a.id.cmp(&b.id))
        });
        let records = matching
            .into_iter()
            .filter(|r| {
                query.cursor.as_ref().is_none_or(|(ms, id)| {
                    r.updated_ms < *ms || (r.updated_ms == *ms && r.id.as_str() > id.as_str())
                })
            })
            .take(query.limit.saturating_add(1))
            .cloned()
            .collect();
        Box::pin(std::future::ready(Ok(ListPage { records, total })))
    }

    fn context<'a>(
        &'a self,
        owner: Option<&'a str>,
        id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Option<Value>>> {
        let key = (owner.map(str::to_owned), id.to_owned());
        let found = self.lock().contexts.get(&key).map(|(v, _, _)| v.clone());
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
        let bytes = json_bytes(&transcript);
        self.lock()
            .contexts
            .insert(key, (transcript, expires_ms, bytes));
        Box::pin(std::future::ready(Ok(())))
    }

    fn sweep(&self, now_ms: i64) -> BoxFuture<'_, StoreResult<u64>> {
        let mut memory = self.lock();
        let before = memory.tasks.len() + memory.contexts.len();
        memory.tasks.retain(|_, (r, _)| r.expires_ms >= now_ms);
        memory
            .contexts
            .retain(|_, (_, expires, _)| *expires >= now_ms);
        let swept = before - memory.tasks.len() - memory.contexts.len();
        Box::pin(std::future::ready(Ok(swept as u64)))
    }

    fn make_room(
        &self,
        now_ms: i64,
        max_tasks: u64,
        max_bytes: u64,
    ) -> BoxFuture<'_, StoreResult<Usage>> {
        let mut memory = self.lock();
        // What expired is gone already: it makes room first.
        memory.tasks.retain(|_, (r, _)| r.expires_ms >= now_ms);
        memory
            .contexts
            .retain(|_, (_, expires, _)| *expires >= now_ms);
        let mut usage = memory.usage(now_ms);
        if usage.tasks < max_tasks && usage.bytes < max_bytes {
            return Box::pin(std::future::ready(Ok(usage)));
        }
        // What may go, least recently changed first (a conversation by its expiry, which
        // is its last change and the same time to live).
        enum Evict {
            Task(String),
            Context((Option<String>, String)),
        }
        let mut evictable: Vec<(i64, Evict, u64, u64)> = memory
            .tasks
            .values()
            .filter(|(r, _)| r.state.is_terminal())
            .map(|(r, bytes)| (r.updated_ms, Evict::Task(r.id.clone()), 1, *bytes))
            .chain(memory.contexts.iter().map(|(key, (_, expires, bytes))| {
                (*expires, Evict::Context(key.clone()), 0, *bytes)
            }))
            .collect();
        evictable.sort_by_key(|(at, ..)| *at);
        for (_, what, tasks, bytes) in evictable {
            if usage.tasks < max_tasks && usage.bytes < max_bytes {
                break;
            }
            match what {
                Evict::Task(id) => {
                    memory.tasks.remove(&id);
                }
                Evict::Context(key) => {
                    memory.contexts.remove(&key);
                }
            }
            usage.tasks = usage.tasks.saturating_sub(tasks);
            usage.bytes = usage.bytes.saturating_sub(bytes);
        }
        Box::pin(std::future::ready(Ok(usage)))
    }
}

//! Where tasks are kept: the [`TaskStorage`] seam, and its default, this process's
//! memory. A run store's database (`McpServer::store`, shared by every replica on
//! it) implements the same trait in `toolnexus::store`.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;

use super::Finished;
use super::record::{Status, TaskRow};
use super::time::now_ms;

/// Why the storage could not answer, said for the client.
pub(crate) type StorageError = String;

/// What a [`TaskStorage`] method gives back, once the storage answered.
pub(crate) type Kept<'a, T> = BoxFuture<'a, Result<T, StorageError>>;

/// A task to record: what it runs, who runs it and for whom.
pub(crate) struct NewTask<'a> {
    pub(crate) id: &'a str,
    pub(crate) tool: &'a str,
    /// The call's arguments (a JSON object, as text).
    pub(crate) args: &'a str,
    /// The runner that holds it (this process; in memory, always).
    #[cfg_attr(not(feature = "__store"), allow(dead_code))]
    pub(crate) owner: &'a str,
    pub(crate) lease_ms: i64,
    pub(crate) ttl_ms: i64,
    /// Whom it belongs to (`""`: nobody in particular, shared by every such caller).
    pub(crate) caller: &'a str,
    /// How many unfinished tasks `caller` may have (for `""`: all of them together).
    pub(crate) limit: usize,
}

/// The seam between the task methods and where tasks are kept: one object-safe trait
/// whose methods return boxed futures. Every change is conditional (on the status, on
/// the runner that holds the task), so replicas sharing one storage never both win.
pub(crate) trait TaskStorage: Send + Sync + fmt::Debug {
    /// Records a new `working` task; `None` when its caller already has `limit`
    /// unfinished tasks.
    fn create<'a>(&'a self, task: NewTask<'a>) -> Kept<'a, Option<TaskRow>>;

    /// The task `id` and the storage's clock (ms); a `working` task whose runner's lease
    /// lapsed is reported failed first. `None`: no such task.
    fn get<'a>(&'a self, id: &'a str) -> Kept<'a, Option<(TaskRow, i64)>>;

    /// Renews `owner`'s lease on a `working` task: whether a cancellation was asked for,
    /// `None` when the task is no longer `owner`'s to run.
    fn renew<'a>(&'a self, id: &'a str, owner: &'a str, lease_ms: i64) -> Kept<'a, Option<bool>>;

    /// Ends `owner`'s `working` task with `status` and `payload`, or parks it in
    /// `input_required` (then `pending` says on what). `false`: not `owner`'s to end.
    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        status: Status,
        message: &'a str,
        payload: &'a str,
        pending: Option<&'a str>,
    ) -> Kept<'a, bool>;

    /// Takes a task in `input_required` (and not cancelled) back to `working`, held by
    /// `owner`; `None` when it was not waiting (another replica took it first).
    fn resume<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        lease_ms: i64,
        message: &'a str,
    ) -> Kept<'a, Option<TaskRow>>;

    /// Asks task `id` to stop: a waiting task is cancelled at once, a working one when its
    /// runner sees the flag. The task after the change; `None` when there is no such task.
    fn cancel<'a>(&'a self, id: &'a str, message: &'a str) -> Kept<'a, Option<TaskRow>>;

    /// Deletes the tasks past their time to live; how many.
    fn sweep(&self) -> Kept<'_, u64>;

    /// Deletes the finished tasks that ended first, until at most `bound.count` are kept
    /// and their bytes (arguments, messages, payloads) fit in `bound.bytes`; the task that
    /// ended last is always kept. How many were deleted.
    fn trim(&self, bound: Finished) -> Kept<'_, u64>;
}

/// The bytes a task's row holds, as [`TaskStorage::trim`] counts them.
pub(crate) fn size(row: &TaskRow) -> u64 {
    let len = |text: &Option<String>| text.as_ref().map_or(0, String::len);
    (row.args.len() + len(&row.message) + len(&row.payload)) as u64
}

/// The tasks kept in this process's memory (the default): they die with it, and another
/// replica does not know them. In memory the runner is this process: a `working` task
/// always has one.
#[derive(Debug, Default)]
pub(crate) struct Memory(Mutex<HashMap<String, TaskRow>>);

impl Memory {
    /// A new, empty memory, as the storage of a server.
    pub(crate) fn shared() -> Arc<dyn TaskStorage> {
        Arc::new(Memory::default())
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRow>> {
        // A panic while holding the lock leaves plain data behind: keep using it.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `value`, as an answer that is already there.
fn ready<'a, T: Send + 'a>(value: T) -> Kept<'a, T> {
    Box::pin(std::future::ready(Ok(value)))
}

impl TaskStorage for Memory {
    fn create<'a>(&'a self, task: NewTask<'a>) -> Kept<'a, Option<TaskRow>> {
        let now = now_ms();
        let mut map = self.locked();
        let open = |row: &&TaskRow| {
            row.caller == task.caller && !row.is_terminal() && row.expires_at >= now
        };
        if map.values().filter(open).count() >= task.limit {
            return ready(None);
        }
        let row = TaskRow {
            id: task.id.to_owned(),
            tool: task.tool.to_owned(),
            args: task.args.to_owned(),
            status: Status::Working,
            message: None,
            payload: None,
            pending: None,
            rounds: 0,
            cancel: false,
            lease_until: now.saturating_add(task.lease_ms),
            created_at: now,
            updated_at: now,
            ttl_ms: task.ttl_ms,
            expires_at: now.saturating_add(task.ttl_ms),
            caller: task.caller.to_owned(),
        };
        map.insert(task.id.to_owned(), row.clone());
        ready(Some(row))
    }

    fn get<'a>(&'a self, id: &'a str) -> Kept<'a, Option<(TaskRow, i64)>> {
        ready(self.locked().get(id).cloned().map(|row| (row, now_ms())))
    }

    fn renew<'a>(&'a self, id: &'a str, _owner: &'a str, lease_ms: i64) -> Kept<'a, Option<bool>> {
        ready(self.locked().get_mut(id).and_then(|row| {
            (row.status == Status::Working).then(|| {
                row.lease_until = now_ms().saturating_add(lease_ms);
                row.cancel
            })
        }))
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        _owner: &'a str,
        status: Status,
        message: &'a str,
        payload: &'a str,
        pending: Option<&'a str>,
    ) -> Kept<'a, bool> {
        let mut map = self.locked();
        let Some(row) = map.get_mut(id).filter(|row| row.status == Status::Working) else {
            return ready(false);
        };
        row.status = status;
        row.message = Some(message.to_owned());
        row.payload = Some(payload.to_owned());
        row.pending = pending.map(str::to_owned);
        row.rounds += i64::from(status == Status::InputRequired);
        row.updated_at = now_ms();
        ready(true)
    }

    fn resume<'a>(
        &'a self,
        id: &'a str,
        _owner: &'a str,
        lease_ms: i64,
        message: &'a str,
    ) -> Kept<'a, Option<TaskRow>> {
        let mut map = self.locked();
        let Some(row) = map
            .get_mut(id)
            .filter(|row| row.status == Status::InputRequired && !row.cancel)
        else {
            return ready(None);
        };
        let now = now_ms();
        row.status = Status::Working;
        row.message = Some(message.to_owned());
        row.payload = None;
        row.lease_until = now.saturating_add(lease_ms);
        row.updated_at = now;
        ready(Some(row.clone()))
    }

    fn cancel<'a>(&'a self, id: &'a str, message: &'a str) -> Kept<'a, Option<TaskRow>> {
        let mut map = self.locked();
        let Some(row) = map.get_mut(id) else {
            return ready(None);
        };
        row.cancel = true;
        if row.status == Status::InputRequired {
            row.status = Status::Cancelled;
            row.payload = None;
            row.message = Some(message.to_owned());
        }
        row.updated_at = now_ms();
        ready(Some(row.clone()))
    }

    fn sweep(&self) -> Kept<'_, u64> {
        let now = now_ms();
        let mut map = self.locked();
        let before = map.len();
        map.retain(|_, row| row.expires_at >= now);
        ready((before - map.len()) as u64)
    }

    fn trim(&self, bound: Finished) -> Kept<'_, u64> {
        let mut map = self.locked();
        let mut ended: Vec<(i64, &str, u64)> = map
            .values()
            .filter(|row| row.is_terminal())
            .map(|row| (row.updated_at, row.id.as_str(), size(row)))
            .collect();
        // Newest first: keep while both bounds hold (the newest always).
        ended.sort_unstable_by(|a, b| (b.0, b.1).cmp(&(a.0, a.1)));
        let mut bytes = 0u64;
        let mut doomed = Vec::new();
        for (n, (_, id, size)) in ended.into_iter().enumerate() {
            bytes = bytes.saturating_add(size);
            if n > 0 && (n >= bound.count || bytes > bound.bytes) {
                doomed.push(id.to_owned());
            }
        }
        for id in &doomed {
            map.remove(id);
        }
        ready(doomed.len() as u64)
    }
}

#[cfg(test)]
#[path = "storage_tests.rs"]
mod tests;

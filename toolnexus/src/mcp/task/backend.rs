//! Where tasks are kept: in this process's memory (the default), or in a run store's
//! database (`McpServer::with_store`), shared by every replica on it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::record::{CANCELLED, INPUT_REQUIRED, TaskRow, WORKING};
use super::time::now_ms;

/// Why the backend could not answer, said for the client.
pub(crate) type BackendError = String;

#[derive(Clone, Debug)]
pub(crate) enum Backend {
    Memory(Arc<Mutex<HashMap<String, TaskRow>>>),
    #[cfg(feature = "__store")]
    Store(crate::store::tasks::TaskRows),
}

impl Default for Backend {
    fn default() -> Self {
        Backend::Memory(Arc::default())
    }
}

fn locked(
    map: &Mutex<HashMap<String, TaskRow>>,
) -> std::sync::MutexGuard<'_, HashMap<String, TaskRow>> {
    // A panic while holding the lock leaves plain data behind: keep using it.
    map.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(feature = "__store")]
fn said(error: crate::store::StoreError) -> BackendError {
    error.to_string()
}

impl Backend {
    /// Records a new task belonging to `caller` (`""`: nobody in particular); `None` when
    /// `caller` already has `limit` unfinished tasks.
    #[cfg_attr(not(feature = "__store"), allow(unused_variables))]
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn create(
        &self,
        id: &str,
        tool: &str,
        args: &str,
        owner: &str,
        lease_ms: i64,
        ttl_ms: i64,
        caller: &str,
        limit: usize,
    ) -> Result<Option<TaskRow>, BackendError> {
        match self {
            Backend::Memory(map) => {
                let now = now_ms();
                let mut map = locked(map);
                let open = |row: &&TaskRow| {
                    row.caller == caller && !row.is_terminal() && row.expires_at >= now
                };
                if !caller.is_empty() && map.values().filter(open).count() >= limit {
                    return Ok(None);
                }
                let row = TaskRow {
                    id: id.to_owned(),
                    tool: tool.to_owned(),
                    args: args.to_owned(),
                    status: WORKING.to_owned(),
                    message: None,
                    payload: None,
                    pending: None,
                    rounds: 0,
                    cancel: false,
                    lease_until: now.saturating_add(lease_ms),
                    created_at: now,
                    updated_at: now,
                    ttl_ms,
                    expires_at: now.saturating_add(ttl_ms),
                    caller: caller.to_owned(),
                };
                map.insert(id.to_owned(), row.clone());
                Ok(Some(row))
            }
            #[cfg(feature = "__store")]
            Backend::Store(rows) => rows
                .create(
                    id,
                    tool,
                    args,
                    owner,
                    lease_ms,
                    ttl_ms,
                    caller,
                    i64::try_from(limit).unwrap_or(i64::MAX),
                )
                .await
                .map_err(said),
        }
    }

    /// The task and the backend's clock (ms).
    pub(crate) async fn get(&self, id: &str) -> Result<Option<(TaskRow, i64)>, BackendError> {
        match self {
            // In memory the runner is this process: a `working` task always has one.
            Backend::Memory(map) => Ok(locked(map).get(id).cloned().map(|row| (row, now_ms()))),
            #[cfg(feature = "__store")]
            Backend::Store(rows) => rows.get(id).await.map_err(said),
        }
    }

    #[cfg_attr(not(feature = "__store"), allow(unused_variables))]
    pub(crate) async fn renew(
        &self,
        id: &str,
        owner: &str,
        lease_ms: i64,
    ) -> Result<Option<bool>, BackendError> {
        match self {
            Backend::Memory(map) => Ok(locked(map).get_mut(id).and_then(|row| {
                (row.status == WORKING).then(|| {
                    row.lease_until = now_ms().saturating_add(lease_ms);
                    row.cancel
                })
            })),
            #[cfg(feature = "__store")]
            Backend::Store(rows) => rows.renew(id, owner, lease_ms).await.map_err(said),
        }
    }

    #[cfg_attr(not(feature = "__store"), allow(unused_variables))]
    pub(crate) async fn settle(
        &self,
        id: &str,
        owner: &str,
        status: &str,
        message: &str,
        payload: &str,
        pending: Option<&str>,
    ) -> Result<bool, BackendError> {
        match self {
            Backend::Memory(map) => {
                let mut map = locked(map);
                let Some(row) = map.get_mut(id).filter(|row| row.status == WORKING) else {
                    return Ok(false);
                };
                row.status = status.to_owned();
                row.message = Some(message.to_owned());
                row.payload = Some(payload.to_owned());
                row.pending = pending.map(str::to_owned);
                row.rounds += i64::from(status == INPUT_REQUIRED);
                row.updated_at = now_ms();
                Ok(true)
            }
            #[cfg(feature = "__store")]
            Backend::Store(rows) => rows
                .settle(id, owner, status, message, payload, pending)
                .await
                .map_err(said),
        }
    }

    #[cfg_attr(not(feature = "__store"), allow(unused_variables))]
    pub(crate) async fn resume(
        &self,
        id: &str,
        owner: &str,
        lease_ms: i64,
        message: &str,
    ) -> Result<Option<TaskRow>, BackendError> {
        match self {
            Backend::Memory(map) => {
                let mut map = locked(map);
                let Some(row) = map
                    .get_mut(id)
                    .filter(|row| row.status == INPUT_REQUIRED && !row.cancel)
                else {
                    return Ok(None);
                };
                let now = now_ms();
                row.status = WORKING.to_owned();
                row.message = Some(message.to_owned());
                row.payload = None;
                row.lease_until = now.saturating_add(lease_ms);
                row.updated_at = now;
                Ok(Some(row.clone()))
            }
            #[cfg(feature = "__store")]
            Backend::Store(rows) => rows
                .resume(id, owner, lease_ms, message)
                .await
                .map_err(said),
        }
    }

    pub(crate) async fn cancel(
        &self,
        id: &str,
        message: &str,
    ) -> Result<Option<TaskRow>, BackendError> {
        match self {
            Backend::Memory(map) => {
                let mut map = locked(map);
                let Some(row) = map.get_mut(id) else {
                    return Ok(None);
                };
                row.cancel = true;
                if row.status == INPUT_REQUIRED {
                    row.status = CANCELLED.to_owned();
                    row.payload = None;
                    row.message = Some(message.to_owned());
                }
                row.updated_at = now_ms();
                Ok(Some(row.clone()))
            }
            #[cfg(feature = "__store")]
            Backend::Store(rows) => rows.cancel(id, message).await.map_err(said),
        }
    }

    pub(crate) async fn sweep(&self) -> Result<u64, BackendError> {
        match self {
            Backend::Memory(map) => {
                let now = now_ms();
                let mut map = locked(map);
                let before = map.len();
                map.retain(|_, row| row.expires_at >= now);
                Ok((before - map.len()) as u64)
            }
            #[cfg(feature = "__store")]
            Backend::Store(rows) => rows.sweep().await.map_err(said),
        }
    }
}

//! Spent request states: a sealed `requestState` runs its retry once.
//!
//! Every state carries a random id. The retry that presents it records the id as spent
//! before the tool runs again, in one atomic step, so two retries of the same state (one
//! after the other, or at once, on one replica or on two) never both run the tool. The
//! record is kept until the state expires, then swept.
//!
//! Where the records are kept: this process's memory, or the run store given to
//! [`McpServer::with_store`](crate::mcp::McpServer::with_store), shared by every replica on
//! the same database. In memory, a replica does not know what another one spent: replicas
//! that share a `StateKey` need a shared store for a state to be refused everywhere.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::task::time::now_ms;

/// Where spent states are recorded.
#[derive(Clone, Debug)]
pub(crate) enum Spent {
    Memory(Arc<Mutex<Memory>>),
    #[cfg(feature = "__store")]
    Store(crate::store::tasks::SpentRows),
}

impl Default for Spent {
    fn default() -> Self {
        Spent::Memory(Arc::default())
    }
}

/// The ids spent in this process, with their states' expiry (ms since the epoch).
#[derive(Debug, Default)]
pub(crate) struct Memory {
    ids: HashMap<String, i64>,
    /// Sweep the expired ones when the map reaches this size (amortized: the bound
    /// doubles with what remains).
    sweep_at: usize,
}

impl Spent {
    /// Records state `id`, valid until `expires_at` (ms since the epoch), as spent:
    /// `Ok(false)` when it already was. `Err`: the store could not say, which counts as
    /// spent for the caller (the tool must not run).
    pub(crate) async fn spend(&self, id: &str, expires_at: i64) -> Result<bool, String> {
        match self {
            Spent::Memory(memory) => {
                let mut memory = memory.lock().unwrap_or_else(PoisonError::into_inner);
                if memory.ids.len() >= memory.sweep_at {
                    let now = now_ms();
                    memory.ids.retain(|_, expires| *expires >= now);
                    memory.sweep_at = (memory.ids.len() * 2).max(1024);
                }
                if memory.ids.contains_key(id) {
                    return Ok(false);
                }
                memory.ids.insert(id.to_owned(), expires_at);
                Ok(true)
            }
            #[cfg(feature = "__store")]
            Spent::Store(rows) => rows
                .spend(id, expires_at)
                .await
                .map_err(|why| why.to_string()),
        }
    }

    /// Deletes the records of expired states; how many.
    pub(crate) async fn sweep(&self) -> Result<u64, String> {
        match self {
            Spent::Memory(memory) => {
                let now = now_ms();
                let mut memory = memory.lock().unwrap_or_else(PoisonError::into_inner);
                let before = memory.ids.len();
                memory.ids.retain(|_, expires| *expires >= now);
                Ok((before - memory.ids.len()) as u64)
            }
            #[cfg(feature = "__store")]
            Spent::Store(rows) => rows.sweep().await.map_err(|why| why.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_state_is_spent_once_and_its_record_goes_when_it_expires() {
        let spent = Spent::default();
        let later = now_ms() + 60_000;
        assert_eq!(spent.spend("a", later).await, Ok(true));
        assert_eq!(spent.spend("a", later).await, Ok(false));
        assert_eq!(spent.spend("b", now_ms() - 1).await, Ok(true));
        assert_eq!(spent.sweep().await, Ok(1));
        assert_eq!(spent.spend("a", later).await, Ok(false));
    }
}

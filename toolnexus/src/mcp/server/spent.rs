//! Spent request states: a sealed `requestState` runs its retry once.
//!
//! Every state carries a random id. The retry that presents it records the id as spent
//! before the tool runs again, in one atomic step, so two retries of the same state (one
//! after the other, or at once, on one replica or on two) never both run the tool. The
//! record is kept until the state expires, then swept.
//!
//! Where the records are kept: this process's memory, or the run store given to
//! [`McpServer::store`](crate::mcp::McpServer::store), shared by every replica on
//! the same database. In memory, a replica does not know what another one spent: replicas
//! that share a `StateKey` need a shared store for a state to be refused everywhere.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;

use crate::time::now_ms;

/// Where spent states are recorded: this process's memory ([`Memory`]), or a run store's
/// database (`toolnexus::store` implements the trait). Object-safe, with boxed futures.
pub(crate) trait SpentStorage: Send + Sync + fmt::Debug {
    /// Records state `id`, valid until `expires_at` (ms since the epoch), as spent:
    /// `Ok(false)` when it already was, in one atomic step. `Err`: the storage could not
    /// say, which counts as spent for the caller (the tool must not run).
    fn spend<'a>(&'a self, id: &'a str, expires_at: i64) -> BoxFuture<'a, Result<bool, String>>;

    /// Deletes the records of expired states; how many.
    fn sweep(&self) -> BoxFuture<'_, Result<u64, String>>;
}

/// Where a server records its spent states.
pub(crate) type Spent = Arc<dyn SpentStorage>;

/// The ids spent in this process, with their states' expiry (ms since the epoch).
#[derive(Debug, Default)]
pub(crate) struct Memory(Mutex<Ids>);

#[derive(Debug, Default)]
struct Ids {
    ids: HashMap<String, i64>,
    /// Sweep the expired ones when the map reaches this size (amortized: the bound
    /// doubles with what remains).
    sweep_at: usize,
}

impl Memory {
    /// A new, empty memory, as the record of a server.
    pub(crate) fn shared() -> Spent {
        Arc::new(Memory::default())
    }
}

impl SpentStorage for Memory {
    fn spend<'a>(&'a self, id: &'a str, expires_at: i64) -> BoxFuture<'a, Result<bool, String>> {
        let mut memory = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if memory.ids.len() >= memory.sweep_at {
            let now = now_ms();
            memory.ids.retain(|_, expires| *expires >= now);
            memory.sweep_at = (memory.ids.len() * 2).max(1024);
        }
        let fresh = !memory.ids.contains_key(id);
        if fresh {
            memory.ids.insert(id.to_owned(), expires_at);
        }
        Box::pin(std::future::ready(Ok(fresh)))
    }

    fn sweep(&self) -> BoxFuture<'_, Result<u64, String>> {
        let now = now_ms();
        let mut memory = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let before = memory.ids.len();
        memory.ids.retain(|_, expires| *expires >= now);
        Box::pin(std::future::ready(Ok((before - memory.ids.len()) as u64)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_state_is_spent_once_and_its_record_goes_when_it_expires() {
        let spent = Memory::shared();
        let later = now_ms() + 60_000;
        assert_eq!(spent.spend("a", later).await, Ok(true));
        assert_eq!(spent.spend("a", later).await, Ok(false));
        assert_eq!(spent.spend("b", now_ms() - 1).await, Ok(true));
        assert_eq!(spent.sweep().await, Ok(1));
        assert_eq!(spent.spend("a", later).await, Ok(false));
    }
}

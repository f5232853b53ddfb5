//! The store's reading side as each store's own methods, so that `store.pending()` needs
//! no trait in scope; generic code over any store uses [`RunStore`](super::RunStore).

use crate::agent::run::RunResult;
use crate::store::sealed::Sealed as _;
use crate::store::{PendingPage, PendingRequest, RunStore, StoreError};

/// The reading methods of one store type, each the [`RunStore`] method of its name.
macro_rules! reads {
    ($store:ty) => {
        impl $store {
            /// Every request waiting for a human, across runs, oldest first. Requests
            /// past their `expires_at` are answered as expired on the way (whoever looks
            /// first), their runs left to [`Client::recover`](crate::Client::recover),
            /// and not listed.
            pub async fn pending(&self) -> Result<Vec<PendingRequest>, StoreError> {
                RunStore::pending(self).await
            }

            /// Up to `limit` waiting requests, oldest first, after the cursor `after`
            /// (the [`next`](PendingPage::next) of the page before; `None` for the first
            /// page).
            pub async fn pending_page(
                &self,
                limit: usize,
                after: Option<&str>,
            ) -> Result<PendingPage, StoreError> {
                self.engine().pending_page(limit, after).await
            }

            /// The result run `run_id` ended with (for a parked run, the result it
            /// halted with); `None` while it is still running.
            /// [`StoreError::UnknownRun`] for an id never stored.
            pub async fn result(&self, run_id: &str) -> Result<Option<RunResult>, StoreError> {
                self.engine().result(run_id).await
            }
        }
    };
}

#[cfg(feature = "sqlite")]
reads!(crate::store::SqliteStore);
#[cfg(feature = "postgres")]
reads!(crate::store::PostgresStore);

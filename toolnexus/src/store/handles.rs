//! The rows of a durable agent runtime's handles (`toolnexus::agents`, a runtime opened
//! on a store with `RuntimeBuilder::open`): the store's side of the handle rows the
//! runtime defines (`agents/runtime/keep.rs`), one row per handle of each named runtime, its
//! JSON the handle's whole state (tree place, status, budget carved and spent, inbox,
//! suspended turn). The turns themselves are runs of the same store.

use std::any::{Any, TypeId};

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;

use crate::agents::runtime::keep::{HandleRow, HandleRows, SharedHandles};
use crate::store::StoreError;
use crate::store::db::{Arg, FORMAT, Pool, check_format, text};

/// Migration 8 of `schema.rs`: the handles of durable agent runtimes, by runtime name and
/// handle id; `state` (idle, running, suspended, closed) beside the JSON, for retention
/// (`store/retention.rs`).
pub(crate) const MIGRATION: &str = "CREATE TABLE toolnexus_agent_handles (
        runtime TEXT NOT NULL,
        id TEXT NOT NULL,
        format BIGINT NOT NULL,
        state TEXT NOT NULL,
        handle TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (runtime, id)
    )";

/// The part of a store `Journal::part` hands out for `of`: the handle rows on `pool`
/// when `of` is the agent runtime's handle storage.
pub(crate) fn part(pool: &Pool, of: TypeId) -> Option<Box<dyn Any + Send>> {
    if of == TypeId::of::<SharedHandles>() {
        let rows: SharedHandles = std::sync::Arc::new(Rows { pool: pool.clone() });
        return Some(Box::new(rows));
    }
    None
}

/// The handle rows of one store.
#[derive(Debug)]
struct Rows {
    pool: Pool,
}

impl HandleRows for Rows {
    fn save<'a>(
        &'a self,
        runtime: &'a str,
        rows: &'a [HandleRow],
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        async move {
            let doing = || StoreError::unavailable(format!("saving the handles of `{runtime}`"));
            let mut tx = self.pool.begin().await.map_err(doing())?;
            for row in rows {
                tx.exec(
                    "INSERT INTO toolnexus_agent_handles \
                     (runtime, id, format, state, handle, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, {now}) ON CONFLICT (runtime, id) DO UPDATE SET \
                     format = excluded.format, state = excluded.state, \
                     handle = excluded.handle, updated_at = excluded.updated_at",
                    &[
                        Arg::Text(runtime),
                        Arg::Text(&row.id),
                        Arg::Int(FORMAT),
                        Arg::Text(row.state),
                        Arg::Text(&row.json),
                    ],
                )
                .await
                .map_err(doing())?;
            }
            tx.commit().await.map_err(doing())
        }
        .boxed()
    }

    fn load<'a>(
        &'a self,
        runtime: &'a str,
    ) -> BoxFuture<'a, Result<Vec<(String, String)>, StoreError>> {
        async move {
            let rows = self
                .pool
                .fetch(
                    "SELECT id, format, handle FROM toolnexus_agent_handles WHERE runtime = $1 \
                     ORDER BY id",
                    &[Arg::Text(runtime)],
                )
                .await
                .map_err(StoreError::unavailable(format!(
                    "reading the handles of `{runtime}`"
                )))?;
            let mut handles = Vec::with_capacity(rows.len());
            for row in &rows {
                let id = text(row, 0, "an agent handle")?;
                let what = format!("handle `{id}` of runtime `{runtime}`");
                check_format(row, 1, &what)?;
                handles.push((id, text(row, 2, &what)?));
            }
            Ok(handles)
        }
        .boxed()
    }
}

#[cfg(all(test, feature = "sqlite"))]
#[path = "handles_tests.rs"]
mod tests;

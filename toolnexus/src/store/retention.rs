//! Retention: deleting the runs that ended long ago, with their requests, and the MCP
//! and A2A tasks that ended long ago, so that a store does not grow without bound.

use std::time::Duration;

use crate::agent::journal::StoreError;
use crate::store::a2a_tasks::ENDED as ENDED_A2A;
use crate::store::db::Arg;
use crate::store::db::int;
use crate::store::runs::Engine;

/// How long [`RunStore::purge`](crate::store::RunStore::purge) is meant to keep ended runs
/// and tasks: 30 days. Nothing is deleted unless `purge` is called; call
/// `store.purge(DEFAULT_RETENTION)` on a timer (daily, say), or with an age of your own.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// What [`RunStore::purge`](crate::store::RunStore::purge) deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Purged {
    /// Finished runs (their transcripts and results).
    pub runs: u64,
    /// The requests those runs had asked (all answered).
    pub requests: u64,
    /// MCP tasks that ended (completed, failed or cancelled), and tasks past their time
    /// to live.
    pub tasks: u64,
    /// Tasks of served A2A agents that ended (completed, failed, canceled or rejected),
    /// and those past their time to live.
    pub a2a_tasks: u64,
    /// Conversations (`contextId`) of served A2A agents last continued before the age,
    /// and those past their time to live.
    pub a2a_conversations: u64,
}

/// The statuses of a task that ended (`mcp::task::record`).
const ENDED_TASKS: &str = "('completed', 'failed', 'cancelled')";

impl Engine {
    /// Deletes, in one transaction, the runs that finished more than `older_than` ago
    /// (by the database's clock) and their requests, the MCP and A2A tasks that ended
    /// more than `older_than` ago, the A2A conversations last continued before then,
    /// and the tasks and conversations past their time to live. Runs still running or
    /// parked (waiting for a human), and tasks still working or waiting, are kept.
    pub(crate) async fn purge(&self, older_than: Duration) -> Result<Purged, StoreError> {
        let doing = || StoreError::unavailable("deleting ended runs and tasks");
        let age = i64::try_from(older_than.as_millis()).unwrap_or(i64::MAX / 4);
        let mut tx = self.pool.begin().await.map_err(doing())?;
        // One cutoff for every statement (PostgreSQL's clock moves within a transaction).
        let rows = tx
            .fetch("SELECT {now} - $1", &[Arg::Int(age)])
            .await
            .map_err(doing())?;
        let cutoff = rows
            .first()
            .map(|row| int(row, 0, "the database's clock"))
            .transpose()?
            .flatten()
            .unwrap_or(i64::MIN);
        let requests = tx
            .exec(
                "DELETE FROM toolnexus_requests WHERE run_id IN (SELECT id FROM \
                 toolnexus_runs WHERE status = 'finished' AND updated_at <= $1)",
                &[Arg::Int(cutoff)],
            )
            .await
            .map_err(doing())?;
        let runs = tx
            .exec(
                "DELETE FROM toolnexus_runs WHERE status = 'finished' AND updated_at <= $1",
                &[Arg::Int(cutoff)],
            )
            .await
            .map_err(doing())?;
        let tasks = tx
            .exec(
                &format!(
                    "DELETE FROM toolnexus_tasks WHERE (status IN {ENDED_TASKS} \
                     AND updated_at <= $1) OR expires_at < {{now}}"
                ),
                &[Arg::Int(cutoff)],
            )
            .await
            .map_err(doing())?;
        let a2a_tasks = tx
            .exec(
                &format!(
                    "DELETE FROM toolnexus_a2a_tasks WHERE (state IN {ENDED_A2A} \
                     AND updated_at <= $1) OR expires_at < {{now}}"
                ),
                &[Arg::Int(cutoff)],
            )
            .await
            .map_err(doing())?;
        let a2a_conversations = tx
            .exec(
                "DELETE FROM toolnexus_a2a_contexts WHERE updated_at <= $1 \
                 OR expires_at < {now}",
                &[Arg::Int(cutoff)],
            )
            .await
            .map_err(doing())?;
        tx.commit().await.map_err(doing())?;
        Ok(Purged {
            runs,
            requests,
            tasks,
            a2a_tasks,
            a2a_conversations,
        })
    }
}

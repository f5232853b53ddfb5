//! Retention: deleting the runs that ended long ago, with their requests, the MCP and
//! A2A tasks that ended long ago, and the sessions nobody wrote to for as long, so that a
//! store does not grow without bound; and, on their own age, the parked runs nobody
//! answered.

use std::time::Duration;

use crate::agent::journal::StoreError;
use crate::store::a2a_tasks::ENDED as ENDED_A2A;
use crate::store::db::{Arg, Tx, int};
use crate::store::mcp_tasks::ENDED as ENDED_TASKS;
use crate::store::runs::SqlEngine;

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
    /// Sessions (conversations kept by id across runs, a UI's threads among them) last
    /// written before the age, with all their messages.
    pub sessions: u64,
    /// Runs parked (waiting for a human) since before the age of
    /// [`RunStore::purge_unanswered`](crate::store::RunStore::purge_unanswered), nobody
    /// having answered them; their requests are counted in `requests`.
    pub parked: u64,
    /// Durable agent runtimes (`RuntimeBuilder::open`) whose handles were all last written
    /// before the age: by `purge`, those with no handle running or suspended; by
    /// `purge_unanswered`, those with a suspended handle nobody answered (and none
    /// running). All their handle rows are deleted.
    pub agent_runtimes: u64,
}

/// The durable agent runtimes whose handles were all last written at or before `$1`, none
/// of them running or suspended.
const IDLE_RUNTIMES: &str = "SELECT runtime FROM toolnexus_agent_handles GROUP BY runtime \
     HAVING MAX(updated_at) <= $1 \
     AND SUM(CASE WHEN state IN ('running', 'suspended') THEN 1 ELSE 0 END) = 0";

/// The durable agent runtimes whose handles were all last written at or before `$1`, one
/// of them at least suspended (waiting on a request) and none running.
const UNANSWERED_RUNTIMES: &str = "SELECT runtime FROM toolnexus_agent_handles \
     GROUP BY runtime HAVING MAX(updated_at) <= $1 \
     AND SUM(CASE WHEN state = 'running' THEN 1 ELSE 0 END) = 0 \
     AND SUM(CASE WHEN state = 'suspended' THEN 1 ELSE 0 END) > 0";

/// Deletes the handle rows of the runtimes `select` names (for cutoff `cutoff`); how many
/// runtimes they were.
async fn delete_runtimes(tx: &mut Tx, select: &str, cutoff: i64) -> Result<u64, StoreError> {
    let doing = || StoreError::unavailable("deleting the handles of old agent runtimes");
    let count = tx
        .fetch(
            &format!("SELECT COUNT(*) FROM ({select}) AS old"),
            &[Arg::Int(cutoff)],
        )
        .await
        .map_err(doing())?;
    let count = match count.first() {
        Some(row) => int(row, 0, "a count of agent runtimes")?.unwrap_or(0),
        None => 0,
    };
    tx.exec(
        &format!("DELETE FROM toolnexus_agent_handles WHERE runtime IN ({select})"),
        &[Arg::Int(cutoff)],
    )
    .await
    .map_err(doing())?;
    Ok(u64::try_from(count).unwrap_or(0))
}

/// The sessions last written at or before `$1` (a cutoff, ms since the epoch).
const OLD_SESSIONS: &str = "SELECT session_id FROM toolnexus_sessions GROUP BY session_id \
     HAVING MAX(updated_at) <= $1";

impl SqlEngine {
    /// Deletes, in one transaction, the runs that finished more than `older_than` ago
    /// (by the database's clock) and their requests, the MCP and A2A tasks that ended
    /// more than `older_than` ago, the A2A conversations last continued before then,
    /// the sessions last written before then, and the tasks and conversations past their
    /// time to live. Runs still running or parked (waiting for a human), and tasks still
    /// working or waiting, are kept.
    pub(crate) async fn purge(&self, older_than: Duration) -> Result<Purged, StoreError> {
        let doing = || StoreError::unavailable("deleting ended runs and tasks");
        let mut tx = self.pool.begin().await.map_err(doing())?;
        let cutoff = cutoff(&mut tx, older_than).await?;
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
        let sessions = tx
            .fetch(
                &format!("SELECT COUNT(*) FROM ({OLD_SESSIONS}) AS old"),
                &[Arg::Int(cutoff)],
            )
            .await
            .map_err(doing())?;
        let sessions = match sessions.first() {
            Some(row) => int(row, 0, "a count of sessions")?.unwrap_or(0),
            None => 0,
        };
        tx.exec(
            &format!("DELETE FROM toolnexus_sessions WHERE session_id IN ({OLD_SESSIONS})"),
            &[Arg::Int(cutoff)],
        )
        .await
        .map_err(doing())?;
        let agent_runtimes = delete_runtimes(&mut tx, IDLE_RUNTIMES, cutoff).await?;
        tx.commit().await.map_err(doing())?;
        Ok(Purged {
            runs,
            requests,
            tasks,
            a2a_tasks,
            a2a_conversations,
            sessions: u64::try_from(sessions).unwrap_or(0),
            parked: 0,
            agent_runtimes,
        })
    }

    /// Deletes, in one transaction, the runs parked (waiting for a human) since more than
    /// `older_than` ago, by the database's clock, with their requests: the questions
    /// nobody answered. Runs still running, and finished ones, are left to
    /// [`SqlEngine::purge`].
    pub(crate) async fn purge_unanswered(
        &self,
        older_than: Duration,
    ) -> Result<Purged, StoreError> {
        let doing = || StoreError::unavailable("deleting parked runs nobody answered");
        let mut tx = self.pool.begin().await.map_err(doing())?;
        let cutoff = cutoff(&mut tx, older_than).await?;
        let requests = tx
            .exec(
                "DELETE FROM toolnexus_requests WHERE run_id IN (SELECT id FROM \
                 toolnexus_runs WHERE status = 'parked' AND updated_at <= $1)",
                &[Arg::Int(cutoff)],
            )
            .await
            .map_err(doing())?;
        let parked = tx
            .exec(
                "DELETE FROM toolnexus_runs WHERE status = 'parked' AND updated_at <= $1",
                &[Arg::Int(cutoff)],
            )
            .await
            .map_err(doing())?;
        let agent_runtimes = delete_runtimes(&mut tx, UNANSWERED_RUNTIMES, cutoff).await?;
        tx.commit().await.map_err(doing())?;
        Ok(Purged {
            requests,
            parked,
            agent_runtimes,
            ..Purged::default()
        })
    }
}

/// The database's clock minus `older_than` (ms since the epoch): one cutoff for every
/// statement of `tx` (PostgreSQL's clock moves within a transaction).
async fn cutoff(tx: &mut Tx, older_than: Duration) -> Result<i64, StoreError> {
    let age = i64::try_from(older_than.as_millis()).unwrap_or(i64::MAX / 4);
    let rows = tx
        .fetch("SELECT {now} - $1", &[Arg::Int(age)])
        .await
        .map_err(StoreError::unavailable("reading the database's clock"))?;
    Ok(rows
        .first()
        .map(|row| int(row, 0, "the database's clock"))
        .transpose()?
        .flatten()
        .unwrap_or(i64::MIN))
}

//! The rows of served A2A tasks (`toolnexus::a2a::A2aServer`): the store's side of the
//! task storage the A2A layer defines (`a2a/server/store.rs`), so that the tasks of a
//! served client with a run store outlive its process, and every replica on the same
//! database answers for them and continues them.
//!
//! A row is the task (A2A 1.0 JSON), the halted run it waits on, whom it belongs to
//! (`caller`, the principal that created it, written once and never changed) and its
//! runner's lease. Every change is one statement, conditional on the row's `version`:
//! of two replicas changing the same task, one wins and the other reads it again.

use std::any::{Any, TypeId};

use crate::store::db::Pool;

/// Migration 5 of `schema.rs`: the tasks, and the conversations (`contextId`) a task
/// continues, per caller. The migration is in every build, with or without the `a2a`
/// feature, so that every build agrees on the schema's version.
pub(crate) const MIGRATION: &str = "CREATE TABLE toolnexus_a2a_tasks (
        id TEXT PRIMARY KEY,
        format BIGINT NOT NULL,
        caller TEXT NOT NULL,
        context_id TEXT NOT NULL,
        state TEXT NOT NULL,
        task TEXT NOT NULL,
        run TEXT,
        version BIGINT NOT NULL,
        cancel BIGINT NOT NULL,
        lease_until BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
    );
    CREATE INDEX toolnexus_a2a_tasks_caller ON toolnexus_a2a_tasks (caller, updated_at);
    CREATE INDEX toolnexus_a2a_tasks_ended ON toolnexus_a2a_tasks (state, updated_at);
    CREATE INDEX toolnexus_a2a_tasks_expiry ON toolnexus_a2a_tasks (expires_at);
    CREATE TABLE toolnexus_a2a_contexts (
        caller TEXT NOT NULL,
        id TEXT NOT NULL,
        format BIGINT NOT NULL,
        transcript TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (caller, id)
    );
    CREATE INDEX toolnexus_a2a_contexts_expiry ON toolnexus_a2a_contexts (expires_at)";

/// The states of a task that ended, as the rows spell them (A2A 0.3's names, what
/// `TaskState::as_str` gives): what retention deletes once old enough.
pub(crate) const ENDED: &str = "('completed', 'failed', 'canceled', 'rejected')";

/// The part of a store `Journal::part` hands out for `of`: the A2A task rows on `pool`
/// when `of` is the A2A layer's task storage.
#[cfg_attr(not(feature = "a2a"), allow(unused_variables))]
pub(crate) fn part(pool: &Pool, of: TypeId) -> Option<Box<dyn Any + Send>> {
    #[cfg(feature = "a2a")]
    if of == TypeId::of::<crate::a2a::server::store::SharedTasks>() {
        let tasks: crate::a2a::server::store::SharedTasks =
            std::sync::Arc::new(rows::A2aTaskRows { pool: pool.clone() });
        return Some(Box::new(tasks));
    }
    None
}

#[cfg(feature = "a2a")]
mod rows {
    use futures_util::FutureExt as _;
    use serde_json::Value;

    use super::ENDED;
    use crate::a2a::TaskState;
    use crate::a2a::server::store::{
        ListPage, ListQuery, StoreResult, TaskRecord, TaskStore, Usage,
    };
    use crate::store::StoreError;
    use crate::store::db::{Arg, FORMAT, Pool, Row, check_format, from_json, int, text, to_json};
    use crate::tool::handler::BoxFuture;

    const TABLE: &str = "toolnexus_a2a_tasks";
    const CONTEXTS: &str = "toolnexus_a2a_contexts";
    /// The bytes of a task row's JSON (`octet_length` is O(1) on both databases).
    const TASK_BYTES: &str = "CAST(octet_length(task) + COALESCE(octet_length(run), 0) AS BIGINT)";
    /// How many rows `make_room` reads to delete at a time.
    const EVICT_BATCH: i64 = 64;

    const COLS: &str = "id, caller, context_id, state, task, run, version, cancel, \
         lease_until, created_at, updated_at, expires_at, format";

    /// The A2A task rows of one store.
    #[derive(Clone, Debug)]
    pub(crate) struct A2aTaskRows {
        pub(super) pool: Pool,
    }

    /// A principal as the `caller` column holds it: `''` for none.
    fn caller(owner: Option<&str>) -> &str {
        owner.unwrap_or("")
    }

    /// The columns every write of `r` sets, in this order: `state`, `task` (`r.task` as
    /// JSON), `version`, `cancel`, `lease_until`, `updated_at`, `expires_at`, `format`.
    fn written<'a>(r: &'a TaskRecord, task: &'a str) -> [Arg<'a>; 8] {
        [
            Arg::Text(r.state.as_str()),
            Arg::Text(task),
            Arg::Int(saturated(r.version)),
            Arg::Int(i64::from(r.cancel_requested)),
            Arg::Int(r.lease_until_ms),
            Arg::Int(r.updated_ms),
            Arg::Int(r.expires_ms),
            Arg::Int(FORMAT),
        ]
    }

    /// `n` as a database integer (the largest one for a larger `n`).
    fn saturated(n: u64) -> i64 {
        i64::try_from(n).unwrap_or(i64::MAX)
    }

    fn record(r: &Row) -> Result<TaskRecord, StoreError> {
        check_format(r, 12, TABLE)?;
        let num = |i| Ok::<_, StoreError>(int(r, i, TABLE)?.unwrap_or(0));
        let owner = text(r, 1, TABLE)?;
        let state = text(r, 3, TABLE)?;
        let state = TaskState::parse(&state)
            .ok_or_else(|| StoreError::corrupted(TABLE, format!("`{state}` is not a state")))?;
        let run = r
            .text(5)
            .map_err(|e| StoreError::corrupted(TABLE, e))?
            .map(|json| from_json::<Value>(TABLE, &json))
            .transpose()?;
        Ok(TaskRecord {
            id: text(r, 0, TABLE)?,
            owner: (!owner.is_empty()).then_some(owner),
            context_id: text(r, 2, TABLE)?,
            state,
            task: from_json(TABLE, &text(r, 4, TABLE)?)?,
            run,
            version: u64::try_from(num(6)?).unwrap_or(0),
            cancel_requested: num(7)? != 0,
            lease_until_ms: num(8)?,
            created_ms: num(9)?,
            updated_ms: num(10)?,
            expires_ms: num(11)?,
        })
    }

    fn failed(doing: &str) -> impl FnOnce(StoreError) -> String + '_ {
        move |error| format!("{doing} in the run store: {error}")
    }

    impl A2aTaskRows {
        /// Adds `r` unless its caller has `max_unfinished` tasks that have not ended:
        /// `false` then (or when the id is taken).
        async fn insert(&self, r: &TaskRecord, max_unfinished: u64) -> Result<bool, StoreError> {
            let task = to_json(&r.task);
            let run = r.run.as_ref().map(to_json);
            // `$14` appears only with a value: PostgreSQL refuses a parameter it cannot type.
            let sql = format!(
                "INSERT INTO {TABLE} ({COLS}) SELECT $1, $2, $3, $5, $6, {}, $7, $8, $9, \
                 $4, $10, $11, $12 WHERE (SELECT COUNT(*) FROM {TABLE} WHERE caller = $2 \
                 AND state NOT IN {ENDED} AND expires_at >= $4) < $13 \
                 ON CONFLICT (id) DO NOTHING",
                if run.is_some() { "$14" } else { "NULL" }
            );
            let mut args = vec![
                Arg::Text(&r.id),
                Arg::Text(caller(r.owner.as_deref())),
                Arg::Text(&r.context_id),
                Arg::Int(r.created_ms),
            ];
            args.extend(written(r, &task));
            args.push(Arg::Int(saturated(max_unfinished)));
            let doing = format!("recording A2A task `{}`", r.id);
            self.write_one(&sql, args, run.as_deref(), doing).await
        }

        async fn get(&self, id: &str) -> Result<Option<TaskRecord>, StoreError> {
            let sql = format!("SELECT {COLS} FROM {TABLE} WHERE id = $1");
            let rows = self
                .pool
                .fetch(&sql, &[Arg::Text(id)])
                .await
                .map_err(StoreError::unavailable(format!("reading A2A task `{id}`")))?;
            rows.first().map(record).transpose()
        }

        /// Writes `r` over the row at version `expected`. Whom the task belongs to and
        /// when it was created are never rewritten.
        async fn replace(&self, r: &TaskRecord, expected: u64) -> Result<bool, StoreError> {
            let task = to_json(&r.task);
            let run = r.run.as_ref().map(to_json);
            let sql = format!(
                "UPDATE {TABLE} SET state = $2, task = $3, run = {}, version = $4, \
                 cancel = $5, lease_until = $6, updated_at = $7, expires_at = $8, format = $9 \
                 WHERE id = $1 AND version = $10",
                if run.is_some() { "$11" } else { "NULL" }
            );
            let mut args = vec![Arg::Text(&r.id)];
            args.extend(written(r, &task));
            args.push(Arg::Int(saturated(expected)));
            let doing = format!("writing A2A task `{}`", r.id);
            self.write_one(&sql, args, run.as_deref(), doing).await
        }

        /// Runs the write `sql` with `args`, and the run's JSON after them when there is
        /// one: whether it changed a row.
        async fn write_one(
            &self,
            sql: &str,
            mut args: Vec<Arg<'_>>,
            run: Option<&str>,
            doing: String,
        ) -> Result<bool, StoreError> {
            if let Some(run) = run {
                args.push(Arg::Text(run));
            }
            let changed = self
                .pool
                .exec(sql, &args)
                .await
                .map_err(StoreError::unavailable(doing))?;
            Ok(changed == 1)
        }

        /// One page of `owner`'s tasks, filtered and ordered by the database.
        async fn list(&self, owner: Option<&str>, q: &ListQuery) -> Result<ListPage, StoreError> {
            let mut filter = "caller = $1 AND expires_at >= $2".to_owned();
            let mut args = vec![Arg::Text(caller(owner)), Arg::Int(q.now_ms)];
            let mut and = |clause: &str, arg| {
                args.push(arg);
                filter.push_str(&format!(" AND {clause} ${}", args.len()));
            };
            if let Some(context) = &q.context {
                and("context_id =", Arg::Text(context));
            }
            if let Some(state) = q.state {
                and("state =", Arg::Text(state.as_str()));
            }
            if let Some(after) = q.updated_after {
                and("updated_at >", Arg::Int(after));
            }
            let doing = || StoreError::unavailable("listing A2A tasks");
            let counted = self
                .pool
                .fetch(
                    &format!("SELECT COUNT(*) FROM {TABLE} WHERE {filter}"),
                    &args,
                )
                .await
                .map_err(doing())?;
            let total = match counted.first() {
                Some(row) => int(row, 0, TABLE)?.unwrap_or(0),
                None => 0,
            };
            if let Some((ms, id)) = &q.cursor {
                let (a, b) = (args.len() + 1, args.len() + 2);
                filter.push_str(&format!(
                    " AND (updated_at < ${a} OR (updated_at = ${a} AND id > ${b}))"
                ));
                args.push(Arg::Int(*ms));
                args.push(Arg::Text(id));
            }
            let limit = i64::try_from(q.limit.saturating_add(1)).unwrap_or(i64::MAX);
            args.push(Arg::Int(limit));
            let sql = format!(
                "SELECT {COLS} FROM {TABLE} WHERE {filter} \
                 ORDER BY updated_at DESC, id ASC LIMIT ${}",
                args.len()
            );
            let rows = self.pool.fetch(&sql, &args).await.map_err(doing())?;
            Ok(ListPage {
                records: rows.iter().map(record).collect::<Result<_, _>>()?,
                total: u64::try_from(total).unwrap_or(0),
            })
        }

        /// The tasks and bytes kept (what has not expired at `now_ms`).
        async fn usage(&self, now_ms: i64) -> Result<Usage, StoreError> {
            let doing = || StoreError::unavailable("measuring the A2A tasks kept");
            let tasks = self
                .pool
                .fetch(
                    &format!(
                        "SELECT COUNT(*), CAST(COALESCE(SUM({TASK_BYTES}), 0) AS BIGINT) \
                         FROM {TABLE} WHERE expires_at >= $1"
                    ),
                    &[Arg::Int(now_ms)],
                )
                .await
                .map_err(doing())?;
            let contexts = self
                .pool
                .fetch(
                    &format!(
                        "SELECT CAST(COALESCE(SUM(octet_length(transcript)), 0) AS BIGINT) \
                         FROM {CONTEXTS} WHERE expires_at >= $1"
                    ),
                    &[Arg::Int(now_ms)],
                )
                .await
                .map_err(doing())?;
            let at = |rows: &[Row], i| -> Result<u64, StoreError> {
                Ok(match rows.first() {
                    Some(row) => u64::try_from(int(row, i, TABLE)?.unwrap_or(0)).unwrap_or(0),
                    None => 0,
                })
            };
            Ok(Usage {
                tasks: at(&tasks, 0)?,
                bytes: at(&tasks, 1)? + at(&contexts, 0)?,
            })
        }

        /// Deletes the least recently changed tasks that ended, and conversations, until
        /// the bounds hold or nothing is left to delete.
        async fn make_room(
            &self,
            now_ms: i64,
            max_tasks: u64,
            max_bytes: u64,
        ) -> Result<Usage, StoreError> {
            self.sweep(now_ms).await?;
            let doing = || StoreError::unavailable("making room for an A2A task");
            loop {
                let mut usage = self.usage(now_ms).await?;
                if usage.tasks < max_tasks && usage.bytes < max_bytes {
                    return Ok(usage);
                }
                let tasks = self
                    .pool
                    .fetch(
                        &format!(
                            "SELECT '', id, updated_at, {TASK_BYTES} FROM {TABLE} \
                             WHERE state IN {ENDED} ORDER BY updated_at LIMIT $1"
                        ),
                        &[Arg::Int(EVICT_BATCH)],
                    )
                    .await
                    .map_err(doing())?;
                let contexts = self
                    .pool
                    .fetch(
                        &format!(
                            "SELECT caller, id, updated_at, \
                             CAST(octet_length(transcript) AS BIGINT) FROM {CONTEXTS} \
                             ORDER BY updated_at LIMIT $1"
                        ),
                        &[Arg::Int(EVICT_BATCH)],
                    )
                    .await
                    .map_err(doing())?;
                // (when, is a task, caller, id, bytes), least recently changed first.
                let mut evictable = Vec::with_capacity(tasks.len() + contexts.len());
                for (rows, is_task) in [(&tasks, true), (&contexts, false)] {
                    for row in rows.iter() {
                        let when = int(row, 2, TABLE)?.unwrap_or(0);
                        let bytes = u64::try_from(int(row, 3, TABLE)?.unwrap_or(0)).unwrap_or(0);
                        evictable.push((
                            when,
                            is_task,
                            text(row, 0, TABLE)?,
                            text(row, 1, TABLE)?,
                            bytes,
                        ));
                    }
                }
                if evictable.is_empty() {
                    return Ok(usage);
                }
                evictable.sort_by_key(|e| e.0);
                for (_, is_task, caller, id, bytes) in evictable {
                    if usage.tasks < max_tasks && usage.bytes < max_bytes {
                        break;
                    }
                    if is_task {
                        let sql = format!("DELETE FROM {TABLE} WHERE id = $1 AND state IN {ENDED}");
                        let deleted = self
                            .pool
                            .exec(&sql, &[Arg::Text(&id)])
                            .await
                            .map_err(doing())?;
                        usage.tasks = usage.tasks.saturating_sub(deleted);
                    } else {
                        let sql = format!("DELETE FROM {CONTEXTS} WHERE caller = $1 AND id = $2");
                        self.pool
                            .exec(&sql, &[Arg::Text(&caller), Arg::Text(&id)])
                            .await
                            .map_err(doing())?;
                    }
                    usage.bytes = usage.bytes.saturating_sub(bytes);
                }
            }
        }

        async fn context(
            &self,
            owner: Option<&str>,
            id: &str,
        ) -> Result<Option<Value>, StoreError> {
            let what = "toolnexus_a2a_contexts";
            let rows = self
                .pool
                .fetch(
                    "SELECT transcript, format FROM toolnexus_a2a_contexts \
                     WHERE caller = $1 AND id = $2",
                    &[Arg::Text(caller(owner)), Arg::Text(id)],
                )
                .await
                .map_err(StoreError::unavailable(format!(
                    "reading conversation `{id}`"
                )))?;
            let Some(row) = rows.first() else {
                return Ok(None);
            };
            check_format(row, 1, what)?;
            Ok(Some(from_json(what, &text(row, 0, what)?)?))
        }

        async fn save_context(
            &self,
            owner: Option<&str>,
            id: &str,
            transcript: &Value,
            expires_ms: i64,
        ) -> Result<(), StoreError> {
            let transcript = to_json(transcript);
            self.pool
                .exec(
                    "INSERT INTO toolnexus_a2a_contexts (caller, id, format, transcript, \
                     updated_at, expires_at) VALUES ($1, $2, $3, $4, {now}, $5) \
                     ON CONFLICT (caller, id) DO UPDATE SET format = excluded.format, \
                     transcript = excluded.transcript, updated_at = excluded.updated_at, \
                     expires_at = excluded.expires_at",
                    &[
                        Arg::Text(caller(owner)),
                        Arg::Text(id),
                        Arg::Int(FORMAT),
                        Arg::Text(&transcript),
                        Arg::Int(expires_ms),
                    ],
                )
                .await
                .map_err(StoreError::unavailable(format!(
                    "keeping conversation `{id}`"
                )))?;
            Ok(())
        }

        async fn sweep(&self, now_ms: i64) -> Result<u64, StoreError> {
            let doing = || StoreError::unavailable("sweeping expired A2A tasks");
            let mut tx = self.pool.begin().await.map_err(doing())?;
            let tasks = tx
                .exec(
                    &format!("DELETE FROM {TABLE} WHERE expires_at < $1"),
                    &[Arg::Int(now_ms)],
                )
                .await
                .map_err(doing())?;
            let contexts = tx
                .exec(
                    "DELETE FROM toolnexus_a2a_contexts WHERE expires_at < $1",
                    &[Arg::Int(now_ms)],
                )
                .await
                .map_err(doing())?;
            tx.commit().await.map_err(doing())?;
            Ok(tasks + contexts)
        }
    }

    impl TaskStore for A2aTaskRows {
        fn insert(
            &self,
            record: TaskRecord,
            max_unfinished: u64,
        ) -> BoxFuture<'_, StoreResult<bool>> {
            async move {
                let id = record.id.clone();
                match A2aTaskRows::insert(self, &record, max_unfinished).await {
                    Ok(true) => Ok(true),
                    // Nothing written: the id is taken, or the caller is at its limit.
                    Ok(false) => match A2aTaskRows::get(self, &id).await {
                        Ok(Some(_)) => Err(format!("a task `{id}` exists already")),
                        Ok(None) => Ok(false),
                        Err(error) => Err(failed("recording the task")(error)),
                    },
                    Err(error) => Err(failed("recording the task")(error)),
                }
            }
            .boxed()
        }

        fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<TaskRecord>>> {
            A2aTaskRows::get(self, id)
                .map(|r| r.map_err(failed("reading the task")))
                .boxed()
        }

        fn replace(&self, record: TaskRecord, expected: u64) -> BoxFuture<'_, StoreResult<bool>> {
            async move {
                A2aTaskRows::replace(self, &record, expected)
                    .await
                    .map_err(failed("writing the task"))
            }
            .boxed()
        }

        fn list<'a>(
            &'a self,
            owner: Option<&'a str>,
            query: &'a ListQuery,
        ) -> BoxFuture<'a, StoreResult<ListPage>> {
            A2aTaskRows::list(self, owner, query)
                .map(|r| r.map_err(failed("listing the tasks")))
                .boxed()
        }

        fn context<'a>(
            &'a self,
            owner: Option<&'a str>,
            id: &'a str,
        ) -> BoxFuture<'a, StoreResult<Option<Value>>> {
            A2aTaskRows::context(self, owner, id)
                .map(|r| r.map_err(failed("reading the conversation")))
                .boxed()
        }

        fn save_context<'a>(
            &'a self,
            owner: Option<&'a str>,
            id: &'a str,
            transcript: Value,
            expires_ms: i64,
        ) -> BoxFuture<'a, StoreResult<()>> {
            async move {
                A2aTaskRows::save_context(self, owner, id, &transcript, expires_ms)
                    .await
                    .map_err(failed("keeping the conversation"))
            }
            .boxed()
        }

        fn sweep(&self, now_ms: i64) -> BoxFuture<'_, StoreResult<u64>> {
            A2aTaskRows::sweep(self, now_ms)
                .map(|r| r.map_err(failed("sweeping expired tasks")))
                .boxed()
        }

        fn make_room(
            &self,
            now_ms: i64,
            max_tasks: u64,
            max_bytes: u64,
        ) -> BoxFuture<'_, StoreResult<Usage>> {
            A2aTaskRows::make_room(self, now_ms, max_tasks, max_bytes)
                .map(|r| r.map_err(failed("making room for a task")))
                .boxed()
        }
    }
}

#[cfg(all(test, feature = "a2a", feature = "sqlite"))]
#[path = "a2a_tasks_tests.rs"]
mod tests;

//! The rows of MCP tasks (`toolnexus::mcp`, long-running tools): one row per task, its
//! status, result and cancellation, so that any replica on the same database answers for
//! it and a restarted server still knows it.
//!
//! Every change is one conditional statement: a runner settles a task only while it holds
//! it (`owner`, `status = 'working'`), an answer resumes it only from `input_required`, so
//! two replicas never both win.

/// The table (migration 2 of `schema.rs`).
pub(crate) const MIGRATION: &str = "CREATE TABLE toolnexus_tasks (
        id TEXT PRIMARY KEY,
        format BIGINT NOT NULL,
        tool TEXT NOT NULL,
        args TEXT NOT NULL,
        status TEXT NOT NULL,
        message TEXT,
        payload TEXT,
        pending TEXT,
        rounds BIGINT NOT NULL,
        cancel BIGINT NOT NULL,
        owner TEXT,
        lease_until BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        ttl_ms BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
    );
    CREATE INDEX toolnexus_tasks_expiry ON toolnexus_tasks (expires_at)";

/// Migration 4: whom each task belongs to (`caller`, a digest of the MCP session and the
/// authenticated principal that created it; `''` for neither), and the sealed request
/// states whose retry has run (`toolnexus_spent_states`), kept until the state expires.
pub(crate) const MIGRATION_4: &str =
    "ALTER TABLE toolnexus_tasks ADD COLUMN caller TEXT NOT NULL DEFAULT '';
    CREATE INDEX toolnexus_tasks_caller ON toolnexus_tasks (caller, status);
    CREATE TABLE toolnexus_spent_states (
        id TEXT PRIMARY KEY,
        expires_at BIGINT NOT NULL
    );
    CREATE INDEX toolnexus_spent_states_expiry ON toolnexus_spent_states (expires_at)";

/// The statuses of a task that ended (`mcp::task::record`), as an SQL list.
pub(crate) const ENDED: &str = "('completed', 'failed', 'cancelled')";

/// How long a spent state's record outlives the state's own expiry before it is swept:
/// room for the servers' clocks and the database's to disagree.
#[cfg(feature = "mcp")]
const SPENT_MARGIN_MS: i64 = 60_000;

#[cfg(feature = "mcp")]
mod rows {
    use std::sync::Arc;

    use futures_util::FutureExt;
    use futures_util::future::BoxFuture;

    use crate::mcp::McpServer;
    use crate::mcp::server::spent::SpentStorage;
    use crate::mcp::server::task::Finished;
    use crate::mcp::server::task::record::{ORPHANED, Status, TaskRow};
    use crate::mcp::server::task::storage::{Kept, NewTask, TaskStorage};
    use crate::store::RunStore;
    use crate::store::StoreError;
    use crate::store::db::{Arg, Pool, Row};
    use crate::store::db::{FORMAT, int, text};
    use crate::store::mcp_tasks::ENDED;

    const WORKING: &str = Status::Working.as_str();
    const INPUT_REQUIRED: &str = Status::InputRequired.as_str();
    const FAILED: &str = Status::Failed.as_str();
    const CANCELLED: &str = Status::Cancelled.as_str();

    const COLS: &str = "id, tool, args, status, message, payload, pending, rounds, cancel, \
         lease_until, created_at, updated_at, ttl_ms, expires_at, format, caller";

    /// The task rows of one store.
    #[derive(Clone, Debug)]
    pub(crate) struct TaskRows {
        pool: Pool,
    }

    fn row(r: &Row) -> Result<TaskRow, StoreError> {
        let what = "toolnexus_tasks";
        let format = int(r, 14, what)?.unwrap_or(0);
        if format > FORMAT {
            return Err(StoreError::NewerFormat {
                row: what.to_owned(),
                found: format,
                known: FORMAT,
            });
        }
        let opt = |i| r.text(i).map_err(|e| StoreError::corrupted(what, e));
        let num = |i| Ok::<_, StoreError>(int(r, i, what)?.unwrap_or(0));
        Ok(TaskRow {
            id: text(r, 0, what)?,
            tool: text(r, 1, what)?,
            args: text(r, 2, what)?,
            status: {
                let name = text(r, 3, what)?;
                Status::parse(&name).ok_or_else(|| {
                    StoreError::corrupted(what, format!("unknown task status `{name}`"))
                })?
            },
            message: opt(4)?,
            payload: opt(5)?,
            pending: opt(6)?,
            rounds: num(7)?,
            cancel: num(8)? != 0,
            lease_until: num(9)?,
            created_at: num(10)?,
            updated_at: num(11)?,
            ttl_ms: num(12)?,
            expires_at: num(13)?,
            caller: text(r, 15, what)?,
        })
    }

    fn one(rows: Vec<Row>) -> Result<Option<TaskRow>, StoreError> {
        rows.first().map(row).transpose()
    }

    impl TaskRows {
        /// The task rows of `store`.
        pub(crate) fn of(store: &RunStore) -> TaskRows {
            TaskRows {
                pool: store.engine().pool.clone(),
            }
        }

        /// Records a new task, `working`, held by `owner` and belonging to `caller`
        /// (`""`: nobody in particular, every such caller counted together); `None` when
        /// `caller` already has `limit` tasks that have not ended (counted in the same
        /// statement, so on SQLite, one writer at a time, two creates cannot both take the
        /// last place).
        async fn create(&self, task: NewTask<'_>) -> Result<Option<TaskRow>, StoreError> {
            let sql = format!(
                "INSERT INTO toolnexus_tasks ({COLS}, owner) SELECT $1, $2, $3, '{WORKING}', \
                 NULL, NULL, NULL, 0, 0, {{now}} + $5, {{now}}, {{now}}, $6, {{now}} + $6, $7, $8, $4 \
                 WHERE (SELECT COUNT(*) FROM toolnexus_tasks WHERE caller = $8 \
                 AND status IN ('{WORKING}', '{INPUT_REQUIRED}') AND expires_at >= {{now}}) < $9 \
                 RETURNING {COLS}"
            );
            let args = [
                Arg::Text(task.id),
                Arg::Text(task.tool),
                Arg::Text(task.args),
                Arg::Text(task.owner),
                Arg::Int(task.lease_ms),
                Arg::Int(task.ttl_ms),
                Arg::Int(FORMAT),
                Arg::Text(task.caller),
                Arg::Int(i64::try_from(task.limit).unwrap_or(i64::MAX)),
            ];
            let rows = self
                .pool
                .fetch(&sql, &args)
                .await
                .map_err(StoreError::unavailable("recording a task"))?;
            one(rows)
        }

        /// The task `id` and the store's clock, a `working` task whose runner's lease has
        /// lapsed marked failed first. `None`: no such task.
        async fn get(&self, id: &str) -> Result<Option<(TaskRow, i64)>, StoreError> {
            let doing = || StoreError::unavailable(format!("reading task `{id}`"));
            let error = serde_json::to_string(&crate::mcp::server::task::record::error_object(
                -32603, ORPHANED,
            ))
            .unwrap_or_default();
            let orphaned = format!(
                "UPDATE toolnexus_tasks SET status = '{FAILED}', payload = $2, message = $3, \
                 owner = NULL, updated_at = {{now}} \
                 WHERE id = $1 AND status = '{WORKING}' AND lease_until < {{now}}"
            );
            self.pool
                .exec(
                    &orphaned,
                    &[Arg::Text(id), Arg::Text(&error), Arg::Text(ORPHANED)],
                )
                .await
                .map_err(doing())?;
            let sql = format!("SELECT {COLS}, {{now}} FROM toolnexus_tasks WHERE id = $1");
            let rows = self
                .pool
                .fetch(&sql, &[Arg::Text(id)])
                .await
                .map_err(doing())?;
            let Some(first) = rows.first() else {
                return Ok(None);
            };
            let now = int(first, 16, "toolnexus_tasks")?.unwrap_or(0);
            Ok(Some((row(first)?, now)))
        }

        /// Renews `owner`'s lease on a `working` task; whether a cancellation was asked
        /// for, `None` when the task is no longer `owner`'s to run.
        async fn renew(
            &self,
            id: &str,
            owner: &str,
            lease_ms: i64,
        ) -> Result<Option<bool>, StoreError> {
            let sql = format!(
                "UPDATE toolnexus_tasks SET lease_until = {{now}} + $3 \
                 WHERE id = $1 AND owner = $2 AND status = '{WORKING}' RETURNING cancel"
            );
            let rows = self
                .pool
                .fetch(&sql, &[Arg::Text(id), Arg::Text(owner), Arg::Int(lease_ms)])
                .await
                .map_err(StoreError::unavailable(format!("renewing task `{id}`")))?;
            match rows.first() {
                Some(r) => Ok(Some(int(r, 0, "toolnexus_tasks")?.unwrap_or(0) != 0)),
                None => Ok(None),
            }
        }

        /// Ends `owner`'s `working` task with `status` and `payload`, or parks it in
        /// `input_required` (then `pending` says on what). `false`: it was not `owner`'s
        /// to end.
        async fn settle(
            &self,
            id: &str,
            owner: &str,
            status: Status,
            message: &str,
            payload: &str,
            pending: Option<&str>,
        ) -> Result<bool, StoreError> {
            let rounds = i64::from(status == Status::InputRequired);
            // `$7` appears only with a value: PostgreSQL refuses a parameter it cannot type.
            let sql = format!(
                "UPDATE toolnexus_tasks SET status = $3, message = $4, payload = $6, pending = {}, \
                 rounds = rounds + $5, owner = NULL, updated_at = {{now}} \
                 WHERE id = $1 AND owner = $2 AND status = '{WORKING}'",
                if pending.is_some() { "$7" } else { "NULL" },
            );
            let mut args = vec![
                Arg::Text(id),
                Arg::Text(owner),
                Arg::Text(status.as_str()),
                Arg::Text(message),
                Arg::Int(rounds),
                Arg::Text(payload),
            ];
            if let Some(pending) = pending {
                args.push(Arg::Text(pending));
            }
            let changed = self
                .pool
                .exec(&sql, &args)
                .await
                .map_err(StoreError::unavailable(format!("settling task `{id}`")))?;
            Ok(changed == 1)
        }

        /// Takes a task in `input_required` (and not cancelled) back to `working`, held
        /// by `owner`; `None` when it was not waiting (another replica took it first).
        async fn resume(
            &self,
            id: &str,
            owner: &str,
            lease_ms: i64,
            message: &str,
        ) -> Result<Option<TaskRow>, StoreError> {
            let sql = format!(
                "UPDATE toolnexus_tasks SET status = '{WORKING}', owner = $2, \
                 lease_until = {{now}} + $3, message = $4, payload = NULL, updated_at = {{now}} \
                 WHERE id = $1 AND status = '{INPUT_REQUIRED}' AND cancel = 0 RETURNING {COLS}"
            );
            let rows = self
                .pool
                .fetch(
                    &sql,
                    &[
                        Arg::Text(id),
                        Arg::Text(owner),
                        Arg::Int(lease_ms),
                        Arg::Text(message),
                    ],
                )
                .await
                .map_err(StoreError::unavailable(format!("resuming task `{id}`")))?;
            one(rows)
        }

        /// Asks task `id` to stop: a waiting task (`input_required`) is cancelled at once,
        /// a working one when its runner sees the flag. The task after the change; `None`
        /// when there is no such task.
        async fn cancel(&self, id: &str, message: &str) -> Result<Option<TaskRow>, StoreError> {
            let sql = format!(
                "UPDATE toolnexus_tasks SET cancel = 1, \
                 status = CASE WHEN status = '{INPUT_REQUIRED}' THEN '{CANCELLED}' ELSE status END, \
                 payload = CASE WHEN status = '{INPUT_REQUIRED}' THEN NULL ELSE payload END, \
                 message = CASE WHEN status = '{INPUT_REQUIRED}' THEN $2 ELSE message END, \
                 updated_at = {{now}} WHERE id = $1 RETURNING {COLS}"
            );
            let rows = self
                .pool
                .fetch(&sql, &[Arg::Text(id), Arg::Text(message)])
                .await
                .map_err(StoreError::unavailable(format!("cancelling task `{id}`")))?;
            one(rows)
        }

        /// Deletes the tasks past their time to live; how many.
        async fn sweep(&self) -> Result<u64, StoreError> {
            self.pool
                .exec("DELETE FROM toolnexus_tasks WHERE expires_at < {now}", &[])
                .await
                .map_err(StoreError::unavailable("sweeping expired tasks"))
        }

        /// Deletes the finished tasks that ended first, past `bound` (by count, and by the
        /// bytes of their arguments, messages and payloads, newest first; the newest is
        /// always kept); how many. One statement: replicas trimming together agree.
        async fn trim(&self, bound: Finished) -> Result<u64, StoreError> {
            let sql = format!(
                "DELETE FROM toolnexus_tasks WHERE id IN (SELECT id FROM (SELECT id, \
                 ROW_NUMBER() OVER (ORDER BY updated_at DESC, id DESC) AS n, \
                 SUM(octet_length(args) + COALESCE(octet_length(message), 0) \
                 + COALESCE(octet_length(payload), 0)) \
                 OVER (ORDER BY updated_at DESC, id DESC ROWS UNBOUNDED PRECEDING) AS bytes \
                 FROM toolnexus_tasks WHERE status IN {ENDED}) AS ranked \
                 WHERE n > 1 AND (n > $1 OR bytes > $2))"
            );
            let count = i64::try_from(bound.count).unwrap_or(i64::MAX);
            let bytes = i64::try_from(bound.bytes).unwrap_or(i64::MAX);
            self.pool
                .exec(&sql, &[Arg::Int(count), Arg::Int(bytes)])
                .await
                .map_err(StoreError::unavailable(
                    "deleting the oldest finished tasks",
                ))
        }
    }

    /// The spent-state records of one store: a sealed `requestState` whose retry ran is
    /// refused on every replica on the same database.
    #[derive(Clone, Debug)]
    pub(crate) struct SpentRows {
        pool: Pool,
    }

    impl SpentRows {
        /// The records of `store`.
        pub(crate) fn of(store: &RunStore) -> SpentRows {
            SpentRows {
                pool: store.engine().pool.clone(),
            }
        }

        /// Records state `id` (valid until `expires_at`, ms since the epoch) as spent:
        /// `false` when it already was (one statement: two replicas never both spend it).
        pub(crate) async fn spend(&self, id: &str, expires_at: i64) -> Result<bool, StoreError> {
            let changed = self
                .pool
                .exec(
                    "INSERT INTO toolnexus_spent_states (id, expires_at) VALUES ($1, $2) \
                     ON CONFLICT (id) DO NOTHING",
                    &[Arg::Text(id), Arg::Int(expires_at)],
                )
                .await
                .map_err(StoreError::unavailable("recording a spent request state"))?;
            Ok(changed == 1)
        }

        /// Deletes the records of states that have expired (with a margin for clocks);
        /// how many.
        pub(crate) async fn sweep(&self) -> Result<u64, StoreError> {
            self.pool
                .exec(
                    "DELETE FROM toolnexus_spent_states WHERE expires_at + $1 < {now}",
                    &[Arg::Int(super::SPENT_MARGIN_MS)],
                )
                .await
                .map_err(StoreError::unavailable("sweeping spent request states"))
        }
    }

    /// What the store said, as the task methods tell it to the client.
    fn said(error: StoreError) -> String {
        error.to_string()
    }

    impl TaskStorage for TaskRows {
        fn create<'a>(&'a self, task: NewTask<'a>) -> Kept<'a, Option<TaskRow>> {
            async move { self.create(task).await.map_err(said) }.boxed()
        }

        fn get<'a>(&'a self, id: &'a str) -> Kept<'a, Option<(TaskRow, i64)>> {
            self.get(id).map(|found| found.map_err(said)).boxed()
        }

        fn renew<'a>(
            &'a self,
            id: &'a str,
            owner: &'a str,
            lease_ms: i64,
        ) -> Kept<'a, Option<bool>> {
            self.renew(id, owner, lease_ms)
                .map(|renewed| renewed.map_err(said))
                .boxed()
        }

        fn settle<'a>(
            &'a self,
            id: &'a str,
            owner: &'a str,
            status: Status,
            message: &'a str,
            payload: &'a str,
            pending: Option<&'a str>,
        ) -> Kept<'a, bool> {
            self.settle(id, owner, status, message, payload, pending)
                .map(|settled| settled.map_err(said))
                .boxed()
        }

        fn resume<'a>(
            &'a self,
            id: &'a str,
            owner: &'a str,
            lease_ms: i64,
            message: &'a str,
        ) -> Kept<'a, Option<TaskRow>> {
            self.resume(id, owner, lease_ms, message)
                .map(|resumed| resumed.map_err(said))
                .boxed()
        }

        fn cancel<'a>(&'a self, id: &'a str, message: &'a str) -> Kept<'a, Option<TaskRow>> {
            self.cancel(id, message)
                .map(|cancelled| cancelled.map_err(said))
                .boxed()
        }

        fn sweep(&self) -> Kept<'_, u64> {
            self.sweep().map(|swept| swept.map_err(said)).boxed()
        }

        fn trim(&self, bound: Finished) -> Kept<'_, u64> {
            self.trim(bound)
                .map(|trimmed| trimmed.map_err(said))
                .boxed()
        }
    }

    impl SpentStorage for SpentRows {
        fn spend<'a>(
            &'a self,
            id: &'a str,
            expires_at: i64,
        ) -> BoxFuture<'a, Result<bool, String>> {
            self.spend(id, expires_at)
                .map(|spent| spent.map_err(said))
                .boxed()
        }

        fn sweep(&self) -> BoxFuture<'_, Result<u64, String>> {
            self.sweep().map(|swept| swept.map_err(said)).boxed()
        }
    }

    impl McpServer {
        /// Keeps what the server must share with its replicas in `store`'s database instead
        /// of this process's memory:
        ///
        /// - the tasks of long-running tools: every replica on the same database answers
        ///   `tasks/get` for any task (to the caller that created it), and a restarted server
        ///   still has them (the ones that were running are reported failed, saying why);
        /// - the sealed `requestState`s whose retry ran: a state is refused when it comes back,
        ///   on every replica.
        ///
        /// Without it, both live in memory: tasks die with the process and another replica
        /// does not know them, and a state spent on one replica is not known to another that
        /// shares its [`StateKey`](crate::mcp::StateKey).
        #[must_use]
        pub fn store(self, store: &RunStore) -> Self {
            self.keep_in(
                Arc::new(TaskRows::of(store)),
                Arc::new(SpentRows::of(store)),
            )
        }
    }
}

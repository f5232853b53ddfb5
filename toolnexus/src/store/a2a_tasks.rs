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

    use crate::a2a::TaskState;
    use crate::a2a::server::store::{StoreResult, TaskRecord, TaskStore};
    use crate::store::StoreError;
    use crate::store::db::{Arg, FORMAT, Pool, Row, check_format, from_json, int, text, to_json};
    use crate::tool::handler::BoxFuture;

    const TABLE: &str = "toolnexus_a2a_tasks";

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
        async fn insert(&self, r: &TaskRecord) -> Result<bool, StoreError> {
            let task = to_json(&r.task);
            let run = r.run.as_ref().map(to_json);
            // `$13` appears only with a value: PostgreSQL refuses a parameter it cannot type.
            let sql = format!(
                "INSERT INTO {TABLE} ({COLS}) VALUES ($1, $2, $3, $4, $5, {}, $6, $7, $8, \
                 $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING",
                if run.is_some() { "$13" } else { "NULL" }
            );
            let mut args = vec![
                Arg::Text(&r.id),
                Arg::Text(caller(r.owner.as_deref())),
                Arg::Text(&r.context_id),
                Arg::Text(r.state.as_str()),
                Arg::Text(&task),
                Arg::Int(i64::try_from(r.version).unwrap_or(i64::MAX)),
                Arg::Int(i64::from(r.cancel_requested)),
                Arg::Int(r.lease_until_ms),
                Arg::Int(r.created_ms),
                Arg::Int(r.updated_ms),
                Arg::Int(r.expires_ms),
                Arg::Int(FORMAT),
            ];
            if let Some(run) = &run {
                args.push(Arg::Text(run));
            }
            let inserted = self
                .pool
                .exec(&sql, &args)
                .await
                .map_err(StoreError::unavailable(format!(
                    "recording A2A task `{}`",
                    r.id
                )))?;
            Ok(inserted == 1)
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
            let mut args = vec![
                Arg::Text(&r.id),
                Arg::Text(r.state.as_str()),
                Arg::Text(&task),
                Arg::Int(i64::try_from(r.version).unwrap_or(i64::MAX)),
                Arg::Int(i64::from(r.cancel_requested)),
                Arg::Int(r.lease_until_ms),
                Arg::Int(r.updated_ms),
                Arg::Int(r.expires_ms),
                Arg::Int(FORMAT),
                Arg::Int(i64::try_from(expected).unwrap_or(i64::MAX)),
            ];
            if let Some(run) = &run {
                args.push(Arg::Text(run));
            }
            let changed = self
                .pool
                .exec(&sql, &args)
                .await
                .map_err(StoreError::unavailable(format!(
                    "writing A2A task `{}`",
                    r.id
                )))?;
            Ok(changed == 1)
        }

        async fn list(&self, owner: Option<&str>) -> Result<Vec<TaskRecord>, StoreError> {
            let sql = format!("SELECT {COLS} FROM {TABLE} WHERE caller = $1");
            let rows = self
                .pool
                .fetch(&sql, &[Arg::Text(caller(owner))])
                .await
                .map_err(StoreError::unavailable("listing A2A tasks"))?;
            rows.iter().map(record).collect()
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
        fn insert(&self, record: TaskRecord) -> BoxFuture<'_, StoreResult<()>> {
            async move {
                let id = record.id.clone();
                match A2aTaskRows::insert(self, &record).await {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(format!("a task `{id}` exists already")),
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
        ) -> BoxFuture<'a, StoreResult<Vec<TaskRecord>>> {
            A2aTaskRows::list(self, owner)
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
    }
}

#[cfg(all(test, feature = "a2a", feature = "sqlite"))]
mod tests {
    use serde_json::json;

    use crate::a2a::TaskState;
    use crate::a2a::server::store::{SharedTasks, TaskRecord};
    use crate::agent::journal::Journal as _;
    use crate::store::SqliteStore;

    fn record(id: &str, owner: Option<&str>, expires_ms: i64) -> TaskRecord {
        TaskRecord {
            id: id.to_owned(),
            owner: owner.map(str::to_owned),
            context_id: "ctx".to_owned(),
            state: TaskState::Submitted,
            task: json!({"id": id}),
            run: None,
            version: 0,
            created_ms: 1,
            updated_ms: 1,
            expires_ms,
            lease_until_ms: 5,
            cancel_requested: false,
        }
    }

    async fn tasks(store: &SqliteStore) -> SharedTasks {
        let part = store
            .part(std::any::TypeId::of::<SharedTasks>())
            .expect("a run store keeps A2A tasks");
        *part
            .downcast::<SharedTasks>()
            .expect("as the type asked for")
    }

    #[test]
    fn ended_states_are_the_terminal_ones() {
        let all = [
            TaskState::Submitted,
            TaskState::Working,
            TaskState::InputRequired,
            TaskState::AuthRequired,
            TaskState::Completed,
            TaskState::Failed,
            TaskState::Canceled,
            TaskState::Rejected,
            TaskState::Unknown,
        ];
        for state in all {
            let listed = super::ENDED.contains(&format!("'{}'", state.as_str()));
            assert_eq!(listed, state.is_terminal(), "{state:?}");
        }
    }

    #[tokio::test]
    async fn rows_are_written_compare_and_set_and_keep_their_owner() {
        let store = SqliteStore::open(":memory:").await.unwrap();
        let tasks = tasks(&store).await;
        assert!(store.part(std::any::TypeId::of::<String>()).is_none());
        tasks
            .insert(record("t1", Some("ann"), i64::MAX))
            .await
            .unwrap();
        let again = tasks.insert(record("t1", None, i64::MAX)).await;
        assert!(again.unwrap_err().contains("exists already"));

        let mut changed = tasks.get("t1").await.unwrap().expect("stored");
        assert_eq!(changed, record("t1", Some("ann"), i64::MAX));
        changed.version = 1;
        changed.state = TaskState::InputRequired;
        changed.run = Some(json!({"transcript": []}));
        changed.owner = Some("bob".to_owned()); // never rewritten
        assert!(tasks.replace(changed.clone(), 0).await.unwrap());
        // A second writer that read version 0 loses.
        assert!(!tasks.replace(changed.clone(), 0).await.unwrap());
        let read = tasks.get("t1").await.unwrap().unwrap();
        assert_eq!(read.owner.as_deref(), Some("ann"));
        assert_eq!(read.state, TaskState::InputRequired);
        assert_eq!(read.run, Some(json!({"transcript": []})));
        assert_eq!(read.version, 1);

        tasks.insert(record("t2", None, 10)).await.unwrap();
        let ann: Vec<String> = tasks
            .list(Some("ann"))
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(ann, ["t1"]);
        let nobody = tasks.list(None).await.unwrap();
        assert_eq!(nobody.len(), 1);
        assert_eq!(nobody[0].owner, None);

        tasks
            .save_context(Some("ann"), "ctx", json!(["hi"]), 10)
            .await
            .unwrap();
        tasks
            .save_context(Some("ann"), "ctx", json!(["hi", "again"]), i64::MAX)
            .await
            .unwrap();
        assert_eq!(
            tasks.context(Some("ann"), "ctx").await.unwrap(),
            Some(json!(["hi", "again"]))
        );
        assert_eq!(tasks.context(None, "ctx").await.unwrap(), None);

        // Swept: t2, which expired at 10; t1 and the conversation are kept.
        assert_eq!(tasks.sweep(11).await.unwrap(), 1);
        assert!(tasks.get("t2").await.unwrap().is_none());
        assert!(tasks.get("t1").await.unwrap().is_some());
    }
}

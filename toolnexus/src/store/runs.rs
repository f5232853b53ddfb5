//! The run rows: creating a run, its checkpoints, the "started" and "settled" record of
//! each tool call, its end, and the lease that lets one worker at a time drive it.

use crate::agent::journal::{Loaded, Parked};
use crate::agent::run::RunResult;
use crate::model::message::Message;
use crate::store::StoreError;
use crate::store::appended;
use crate::store::db::{Arg, FORMAT, Pool, Tx, check_format, from_json, int, text, to_json};

/// The store's engine: one pool, the SQL shared by both backends.
#[derive(Clone, Debug)]
pub(crate) struct SqlEngine {
    pub(crate) pool: Pool,
}

fn lease_ms(lease: std::time::Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX / 4)
}

const CLAIM: &str = "UPDATE toolnexus_runs SET lease_token = $2, lease_until = {now} + $3, \
     status = 'running', updated_at = {now} \
     WHERE id = (SELECT id FROM toolnexus_runs WHERE id = $1 AND status = $4 \
     AND lease_until < {now} {lock}) \
     RETURNING format, transcript, turn_at";

/// Whether a lease is held (locking the run's row on PostgreSQL).
const HOLDS: &str = "SELECT lease_token FROM toolnexus_runs WHERE id = $1 AND lease_token = $2 \
     AND status = 'running' {lock_row}";

/// Records call `$3` of the turn at `$2` of run `$1` as started (once more, if it was).
const STARTED: &str = "INSERT INTO toolnexus_calls (run_id, turn_at, call_id, attempts, message) \
     VALUES ($1, $2, $3, 1, NULL) ON CONFLICT (run_id, turn_at, call_id) \
     DO UPDATE SET attempts = toolnexus_calls.attempts + 1, message = NULL";

/// One statement recording every call of `calls` (each once) as started in the turn at
/// `at` of run `id`, and its parameters.
fn started_rows<'a>(id: &'a str, at: i64, calls: &[&'a str]) -> (String, Vec<Arg<'a>>) {
    let mut args = vec![Arg::Text(id), Arg::Int(at)];
    let mut values = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        if calls[..i].contains(call) {
            continue; // A row may be changed once per statement.
        }
        args.push(Arg::Text(call));
        values.push(format!("($1, $2, ${}, 1, NULL)", args.len()));
    }
    let sql = format!(
        "INSERT INTO toolnexus_calls (run_id, turn_at, call_id, attempts, message) VALUES {} \
         ON CONFLICT (run_id, turn_at, call_id) \
         DO UPDATE SET attempts = toolnexus_calls.attempts + 1, message = NULL",
        values.join(", ")
    );
    (sql, args)
}

impl SqlEngine {
    /// Records a new run, leased to `token`.
    pub(crate) async fn create(
        &self,
        id: &str,
        transcript: &[Message],
        token: &str,
        lease: std::time::Duration,
    ) -> Result<(), StoreError> {
        let doing = || StoreError::unavailable(format!("creating run `{id}`"));
        let json = to_json(transcript);
        let inserted = self
            .pool
            .exec(
                "INSERT INTO toolnexus_runs (id, format, status, transcript, turn_at, \
                 lease_token, lease_until, created_at, updated_at) \
                 VALUES ($1, $2, 'running', $3, -1, $4, {now} + $5, {now}, {now}) \
                 ON CONFLICT (id) DO NOTHING",
                &[
                    Arg::Text(id),
                    Arg::Int(FORMAT),
                    Arg::Text(&json),
                    Arg::Text(token),
                    Arg::Int(lease_ms(lease)),
                ],
            )
            .await
            .map_err(doing())?;
        if inserted == 0 {
            return Err(StoreError::RunExists(id.to_owned()));
        }
        Ok(())
    }

    /// Takes the lease of run `id` for `token`, if the run is `status` (`running` with
    /// an expired lease, or `parked`), and loads it.
    pub(crate) async fn claim(
        &self,
        tx: &mut Tx,
        id: &str,
        token: &str,
        lease: std::time::Duration,
        status: &str,
    ) -> Result<Loaded, StoreError> {
        let doing = || StoreError::unavailable(format!("taking the lease of run `{id}`"));
        let rows = tx
            .fetch(
                CLAIM,
                &[
                    Arg::Text(id),
                    Arg::Text(token),
                    Arg::Int(lease_ms(lease)),
                    Arg::Text(status),
                ],
            )
            .await
            .map_err(doing())?;
        let Some(row) = rows.first() else {
            return Err(self.why_not_claimed(tx, id, status).await);
        };
        let what = format!("run `{id}`");
        check_format(row, 0, &what)?;
        let head: Vec<Message> = from_json(&what, &text(row, 1, &what)?)?;
        let turn_at = int(row, 2, &what)?.unwrap_or(-1);
        let mut transcript = appended::load(tx, id, head, &what).await?;
        let mut in_flight = 0;
        if let Ok(at) = usize::try_from(turn_at) {
            let calls = tx
                .fetch(
                    "SELECT call_id, message FROM toolnexus_calls \
                     WHERE run_id = $1 AND turn_at = $2",
                    &[Arg::Text(id), Arg::Int(turn_at)],
                )
                .await
                .map_err(doing())?;
            let mut settled = Vec::with_capacity(calls.len());
            for row in &calls {
                let call_id = text(row, 0, &what)?;
                match row.text(1).map_err(|e| StoreError::corrupted(&what, e))? {
                    Some(message) => {
                        let row = format!("call `{call_id}` of run `{id}`");
                        settled.push((call_id, from_json::<Message>(&row, &message)?));
                    }
                    None => in_flight += 1,
                }
            }
            let order = transcript.get(at).map(|m| m.calls().to_vec());
            for call in order.unwrap_or_default() {
                if let Some(i) = settled.iter().position(|(c, _)| *c == call.id) {
                    transcript.push(settled.swap_remove(i).1);
                }
            }
        }
        let rows = tx
            .fetch(
                "SELECT answer FROM toolnexus_requests WHERE run_id = $1 AND answer IS NOT NULL",
                &[Arg::Text(id)],
            )
            .await
            .map_err(doing())?;
        let mut answers = Vec::with_capacity(rows.len());
        for row in &rows {
            answers.push(from_json(&what, &text(row, 0, &what)?)?);
        }
        Ok(Loaded {
            transcript,
            in_flight,
            answers,
        })
    }

    /// Why run `id` could not be claimed from `status`: unknown, held, or elsewhere.
    async fn why_not_claimed(&self, tx: &mut Tx, id: &str, status: &str) -> StoreError {
        let rows = tx
            .fetch(
                "SELECT status FROM toolnexus_runs WHERE id = $1",
                &[Arg::Text(id)],
            )
            .await;
        let found = match rows {
            Err(source) => return StoreError::unavailable(format!("reading run `{id}`"))(source),
            Ok(rows) => rows.first().and_then(|r| r.text(0).ok().flatten()),
        };
        match found {
            None => StoreError::UnknownRun(id.to_owned()),
            Some(found) if found == "running" => {
                StoreError::HeldByAnotherWorker { run: id.to_owned() }
            }
            // A parked run whose row another transaction locks is being taken now.
            Some(found) if found == status => {
                StoreError::HeldByAnotherWorker { run: id.to_owned() }
            }
            Some(found) => StoreError::WrongState {
                run: id.to_owned(),
                status: found,
                wanted: format!("take up a {status}"),
            },
        }
    }

    /// Extends the lease of `token` on run `id`.
    pub(crate) async fn renew(
        &self,
        id: &str,
        token: &str,
        lease: std::time::Duration,
    ) -> Result<(), StoreError> {
        let changed = self
            .pool
            .exec(
                "UPDATE toolnexus_runs SET lease_until = {now} + $3 \
                 WHERE id = $1 AND lease_token = $2 AND status = 'running'",
                &[Arg::Text(id), Arg::Text(token), Arg::Int(lease_ms(lease))],
            )
            .await
            .map_err(StoreError::unavailable(format!(
                "renewing the lease of run `{id}`"
            )))?;
        lease_held(changed, id)
    }

    /// Records the transcript after a model turn that asked for tools (the assistant
    /// message at `at` is its last), forgets the calls of the turns before it, and records
    /// the new turn's `calls` as started, all in one transaction. Only the messages from
    /// `from` on are written (those before it are recorded already, unchanged): the
    /// bytes a checkpoint writes are its turn's, however long the run. Recording a call as
    /// started before it runs only says it may have run: until its result is settled, a
    /// recovery runs it (again), as for any call in flight at a crash.
    pub(crate) async fn checkpoint(
        &self,
        id: &str,
        token: &str,
        transcript: &[Message],
        at: usize,
        from: usize,
        calls: &[&str],
    ) -> Result<(), StoreError> {
        let doing = || StoreError::unavailable(format!("checkpointing run `{id}`"));
        let from = from.min(transcript.len());
        let at = i64::try_from(at).unwrap_or(i64::MAX);
        let mut tx = self.pool.begin().await.map_err(doing())?;
        let changed = tx
            .exec(
                "UPDATE toolnexus_runs SET turn_at = $3, updated_at = {now} \
                 WHERE id = $1 AND lease_token = $2 AND status = 'running'",
                &[Arg::Text(id), Arg::Text(token), Arg::Int(at)],
            )
            .await
            .map_err(doing())?;
        lease_held(changed, id)?;
        appended::append(&mut tx, id, from, &transcript[from..])
            .await
            .map_err(doing())?;
        tx.exec(
            "DELETE FROM toolnexus_calls WHERE run_id = $1 AND turn_at < $2",
            &[Arg::Text(id), Arg::Int(at)],
        )
        .await
        .map_err(doing())?;
        if !calls.is_empty() {
            let (sql, args) = started_rows(id, at, calls);
            tx.exec(&sql, &args).await.map_err(doing())?;
        }
        tx.commit().await.map_err(doing())
    }

    /// Records that call `call_id` of the turn at `at` is about to run.
    pub(crate) async fn started(
        &self,
        id: &str,
        token: &str,
        at: usize,
        call_id: &str,
    ) -> Result<(), StoreError> {
        let doing = || StoreError::unavailable(format!("recording call `{call_id}` of run `{id}`"));
        let at = i64::try_from(at).unwrap_or(i64::MAX);
        if self.pool.dialect().is_postgres() {
            let args = [Arg::Text(id), Arg::Int(at), Arg::Text(call_id)];
            return self.locked_write(id, token, STARTED, &args, doing).await;
        }
        // SQLite: one statement, so one commit; it holds the write lock from its start,
        // so the lease it checks cannot be taken over before its write.
        let changed = self
            .pool
            .exec(
                "INSERT INTO toolnexus_calls (run_id, turn_at, call_id, attempts, message) \
                 SELECT $1, $2, $3, 1, NULL WHERE EXISTS (SELECT 1 FROM toolnexus_runs \
                 WHERE id = $1 AND lease_token = $4 AND status = 'running') \
                 ON CONFLICT (run_id, turn_at, call_id) \
                 DO UPDATE SET attempts = toolnexus_calls.attempts + 1, message = NULL",
                &[
                    Arg::Text(id),
                    Arg::Int(at),
                    Arg::Text(call_id),
                    Arg::Text(token),
                ],
            )
            .await
            .map_err(doing())?;
        lease_held(changed, id)
    }

    /// Records the tool message of call `call_id` of the turn at `at`: from here on, the
    /// call is settled and never runs again.
    pub(crate) async fn settled(
        &self,
        id: &str,
        token: &str,
        at: usize,
        call_id: &str,
        message: &Message,
    ) -> Result<(), StoreError> {
        let doing = || StoreError::unavailable(format!("settling call `{call_id}` of run `{id}`"));
        let at = i64::try_from(at).unwrap_or(i64::MAX);
        let json = to_json(message);
        let args = [
            Arg::Text(id),
            Arg::Int(at),
            Arg::Text(call_id),
            Arg::Text(&json),
            Arg::Text(token),
        ];
        if self.pool.dialect().is_postgres() {
            let sql = "UPDATE toolnexus_calls SET message = $4 \
                       WHERE run_id = $1 AND turn_at = $2 AND call_id = $3";
            return self.locked_write(id, token, sql, &args[..4], doing).await;
        }
        // SQLite: one statement, one commit (see `started`).
        let changed = self
            .pool
            .exec(
                "UPDATE toolnexus_calls SET message = $4 \
                 WHERE run_id = $1 AND turn_at = $2 AND call_id = $3 AND EXISTS (SELECT 1 \
                 FROM toolnexus_runs WHERE id = $1 AND lease_token = $5 AND status = 'running')",
                &args,
            )
            .await
            .map_err(doing())?;
        if changed == 0 {
            // No row changed: the lease is gone, or the call has no start record (then,
            // as before, there is nothing to settle).
            let rows = self
                .pool
                .fetch(HOLDS, &[Arg::Text(id), Arg::Text(token)])
                .await
                .map_err(doing())?;
            lease_held(rows.len() as u64, id)?;
        }
        Ok(())
    }

    /// Runs `sql` in a transaction that first checks, and row-locks, the lease of `token`
    /// on run `id` (PostgreSQL, where a statement does not hold a lock from its start).
    async fn locked_write<E>(
        &self,
        id: &str,
        token: &str,
        sql: &str,
        args: &[Arg<'_>],
        doing: impl Fn() -> E,
    ) -> Result<(), StoreError>
    where
        E: FnOnce(sqlx::Error) -> StoreError,
    {
        let mut tx = self.pool.begin().await.map_err(doing())?;
        self.holds(&mut tx, id, token).await?;
        tx.exec(sql, args).await.map_err(doing())?;
        tx.commit().await.map_err(doing())
    }

    /// Fails unless `token` holds the lease of run `id` (locking the row until the end of
    /// `tx`, so a takeover waits for the write).
    async fn holds(&self, tx: &mut Tx, id: &str, token: &str) -> Result<(), StoreError> {
        let rows = tx
            .fetch(HOLDS, &[Arg::Text(id), Arg::Text(token)])
            .await
            .map_err(StoreError::unavailable(format!(
                "checking the lease of run `{id}`"
            )))?;
        lease_held(rows.len() as u64, id)
    }

    /// Records how the run ended, in one transaction: the whole transcript (as the row's
    /// head, its appended messages forgotten), the result, its requests if it parked; the
    /// lease is released.
    pub(crate) async fn finish(
        &self,
        id: &str,
        token: &str,
        run: &RunResult,
        parked: &[Parked<'_>],
    ) -> Result<(), StoreError> {
        let doing = || StoreError::unavailable(format!("recording the end of run `{id}`"));
        let transcript = to_json(&run.messages);
        let result = to_json(run);
        let status = if parked.is_empty() {
            "finished"
        } else {
            "parked"
        };
        let mut tx = self.pool.begin().await.map_err(doing())?;
        let changed = tx
            .exec(
                "UPDATE toolnexus_runs SET status = $3, transcript = $4, result = $5, \
                 turn_at = -1, lease_token = NULL, lease_until = 0, updated_at = {now} \
                 WHERE id = $1 AND lease_token = $2 AND status = 'running'",
                &[
                    Arg::Text(id),
                    Arg::Text(token),
                    Arg::Text(status),
                    Arg::Text(&transcript),
                    Arg::Text(&result),
                ],
            )
            .await
            .map_err(doing())?;
        lease_held(changed, id)?;
        tx.exec(
            "DELETE FROM toolnexus_calls WHERE run_id = $1",
            &[Arg::Text(id)],
        )
        .await
        .map_err(doing())?;
        appended::clear(&mut tx, id).await.map_err(doing())?;
        for p in parked {
            let request = to_json(p.request);
            let expires = p
                .request
                .expires_at
                .as_deref()
                .and_then(crate::time::unix_ms);
            // Keyed by run and id: another run waiting on the same id (a deterministic
            // approval id) is no conflict; this run's own row, if it parked on it before,
            // stays.
            tx.exec(
                "INSERT INTO toolnexus_requests (id, run_id, call_id, tool, prompt, request, \
                 created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, {now}, $7) \
                 ON CONFLICT (run_id, id) DO NOTHING",
                &[
                    Arg::Text(&p.request.id),
                    Arg::Text(id),
                    Arg::Text(p.call_id),
                    Arg::Text(p.tool),
                    Arg::Text(&p.request.prompt),
                    Arg::Text(&request),
                    Arg::OptInt(expires),
                ],
            )
            .await
            .map_err(doing())?;
        }
        tx.commit().await.map_err(doing())
    }

    /// The result a finished or parked run ended with, if it has one yet.
    pub(crate) async fn result(&self, id: &str) -> Result<Option<RunResult>, StoreError> {
        let what = format!("run `{id}`");
        let rows = self
            .pool
            .fetch(
                "SELECT format, result FROM toolnexus_runs WHERE id = $1",
                &[Arg::Text(id)],
            )
            .await
            .map_err(StoreError::unavailable(format!("reading run `{id}`")))?;
        let row = rows
            .first()
            .ok_or_else(|| StoreError::UnknownRun(id.to_owned()))?;
        check_format(row, 0, &what)?;
        match row.text(1).map_err(|e| StoreError::corrupted(&what, e))? {
            Some(json) => from_json(&what, &json).map(Some),
            None => Ok(None),
        }
    }

    /// Runs whose worker lost its lease (died, hung), oldest first, at most `limit`.
    pub(crate) async fn orphans(&self, limit: i64) -> Result<Vec<String>, StoreError> {
        let rows = self
            .pool
            .fetch(
                "SELECT id FROM toolnexus_runs WHERE status = 'running' \
                 AND lease_until < {now} ORDER BY lease_until LIMIT $1",
                &[Arg::Int(limit)],
            )
            .await
            .map_err(StoreError::unavailable("listing runs whose lease expired"))?;
        rows.iter().map(|r| text(r, 0, "an expired run")).collect()
    }
}

fn lease_held(changed: u64, id: &str) -> Result<(), StoreError> {
    if changed == 0 {
        return Err(StoreError::LeaseLost { run: id.to_owned() });
    }
    Ok(())
}

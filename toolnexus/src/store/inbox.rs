//! The requests parked runs wait on: listing them across runs, answering one (which takes
//! its run's lease in the same transaction), expiring those past their `expires_at`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::agent::journal::Loaded;
use crate::store::StoreError;
use crate::store::db::{Arg, from_json, int, text, to_json};
use crate::store::runs::SqlEngine;
use crate::tool::request::{Answer, Request};

/// One request waiting for a human, as [`RunStore::pending`](crate::store::RunStore::pending)
/// lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingRequest {
    /// The run that asked.
    pub run_id: String,
    /// The call that suspended.
    pub call_id: String,
    /// The tool that suspended.
    pub tool: String,
    /// The request's prompt (also in [`request`](PendingRequest::request)).
    pub prompt: String,
    /// The request itself: answer it with an [`Answer`] of the same id.
    pub request: Request,
    /// When it was parked, in milliseconds since the Unix epoch (the database's clock).
    pub created_at_ms: i64,
    /// How long it has waited, as the database's clock tells at listing time.
    pub age: Duration,
}

/// One page of [`RunStore::pending_page`](crate::store::RunStore::pending_page), oldest
/// request first.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct PendingPage {
    /// The requests of this page.
    pub requests: Vec<PendingRequest>,
    /// The cursor of the next page, when there may be one.
    pub next: Option<String>,
}

impl SqlEngine {
    /// Up to `limit` waiting requests after the cursor `after`, oldest first; requests past
    /// their `expires_at` are answered as expired first, and not listed.
    pub(crate) async fn pending_page(
        &self,
        limit: usize,
        after: Option<&str>,
    ) -> Result<PendingPage, StoreError> {
        self.expire().await?;
        let (after_at, after_id, after_run) = match after {
            None => (i64::MIN, String::new(), String::new()),
            Some(cursor) => parse_cursor(cursor).ok_or_else(|| {
                StoreError::corrupted(
                    format!("page cursor `{cursor}`"),
                    "not a cursor from pending_page",
                )
            })?,
        };
        let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
        let rows = self
            .pool
            .fetch(
                "SELECT run_id, call_id, tool, prompt, request, created_at, {now}, id FROM \
                 toolnexus_requests WHERE answered_at IS NULL \
                 AND (created_at > $1 OR (created_at = $1 AND (id > $2 \
                 OR (id = $2 AND run_id > $4)))) \
                 ORDER BY created_at, id, run_id LIMIT $3",
                &[
                    Arg::Int(after_at),
                    Arg::Text(&after_id),
                    Arg::Int(limit),
                    Arg::Text(&after_run),
                ],
            )
            .await
            .map_err(StoreError::unavailable("listing waiting requests"))?;
        let mut requests = Vec::with_capacity(rows.len());
        for row in &rows {
            let what = &format!("request `{}`", text(row, 7, "a waiting request")?);
            let created_at_ms = int(row, 5, what)?.unwrap_or(0);
            let now = int(row, 6, what)?.unwrap_or(created_at_ms);
            requests.push(PendingRequest {
                run_id: text(row, 0, what)?,
                call_id: text(row, 1, what)?,
                tool: text(row, 2, what)?,
                prompt: text(row, 3, what)?,
                request: from_json(what, &text(row, 4, what)?)?,
                created_at_ms,
                age: Duration::from_millis(u64::try_from(now - created_at_ms).unwrap_or(0)),
            });
        }
        let next = (requests.len() as i64 == limit)
            .then(|| requests.last())
            .flatten()
            .map(|r| cursor(r.created_at_ms, &r.run_id, &r.request.id));
        Ok(PendingPage { requests, next })
    }

    /// Answers every request past its `expires_at` as expired, and hands its run to
    /// [`recover`](crate::Client::recover), which resumes it with that answer.
    pub(crate) async fn expire(&self) -> Result<(), StoreError> {
        let doing = || StoreError::unavailable("expiring requests");
        let rows = self
            .pool
            .fetch(
                "SELECT id, run_id FROM toolnexus_requests WHERE answered_at IS NULL \
                 AND expires_at < {now} LIMIT 100",
                &[],
            )
            .await
            .map_err(doing())?;
        for row in &rows {
            let (id, run) = (text(row, 0, "a request")?, text(row, 1, "a request")?);
            let answer = to_json(&Answer::decline(&id, "expired"));
            let mut tx = self.pool.begin().await.map_err(doing())?;
            let changed = tx
                .exec(
                    "UPDATE toolnexus_requests SET answer = $2, answered_at = {now} \
                     WHERE id = $1 AND run_id = $3 AND answered_at IS NULL",
                    &[Arg::Text(&id), Arg::Text(&answer), Arg::Text(&run)],
                )
                .await
                .map_err(doing())?;
            if changed == 1 {
                // Parked with no lease: `recover` takes it up at once.
                tx.exec(
                    "UPDATE toolnexus_runs SET status = 'running', lease_token = NULL, \
                     lease_until = 0 WHERE id = $1 AND status = 'parked'",
                    &[Arg::Text(&run)],
                )
                .await
                .map_err(doing())?;
            }
            tx.commit().await.map_err(doing())?;
        }
        Ok(())
    }

    /// Records `answer` for its request and takes the lease of the run that asked, in one
    /// transaction. A request past its `expires_at` is answered as expired instead (the
    /// answer given back says so). The request is the one of run `run` with the answer's
    /// id; without `run`, the one waiting request with that id ([`StoreError::AmbiguousRequest`]
    /// when several runs wait on it).
    pub(crate) async fn answer_in(
        &self,
        run: Option<&str>,
        answer: &Answer,
        token: &str,
        lease: Duration,
    ) -> Result<(String, Loaded, Answer), StoreError> {
        let id = answer.id.as_str();
        let doing = || StoreError::unavailable(format!("answering request `{id}`"));
        let mut tx = self.pool.begin().await.map_err(doing())?;
        let select = "SELECT run_id, answered_at, \
             CAST(CASE WHEN expires_at < {now} THEN 1 ELSE 0 END AS BIGINT) \
             FROM toolnexus_requests WHERE id = $1";
        let rows = match run {
            Some(run) => {
                let sql = format!("{select} AND run_id = $2");
                tx.fetch(&sql, &[Arg::Text(id), Arg::Text(run)]).await
            }
            // Waiting ones first, then the latest answered.
            None => {
                let sql = format!(
                    "{select} ORDER BY CASE WHEN answered_at IS NULL THEN 0 ELSE 1 END, \
                     answered_at DESC, run_id"
                );
                tx.fetch(&sql, &[Arg::Text(id)]).await
            }
        }
        .map_err(doing())?;
        let what = format!("request `{id}`");
        let row = rows
            .first()
            .ok_or_else(|| StoreError::UnknownRequest(id.to_owned()))?;
        let waiting: Vec<String> = rows
            .iter()
            .filter(|row| matches!(row.int(1), Ok(None)))
            .map(|row| text(row, 0, &what))
            .collect::<Result<_, _>>()?;
        if waiting.len() > 1 {
            return Err(StoreError::AmbiguousRequest {
                request: id.to_owned(),
                runs: waiting,
            });
        }
        let run = text(row, 0, &what)?;
        if int(row, 1, &what)?.is_some() {
            return Err(StoreError::AlreadyAnswered {
                request: id.to_owned(),
                run,
            });
        }
        let given = if int(row, 2, &what)? == Some(1) {
            Answer::decline(id, "expired")
        } else {
            answer.clone()
        };
        let loaded = match self.claim(&mut tx, &run, token, lease, "parked").await {
            Ok(loaded) => loaded,
            // Another worker answered it and finished the run since the request was read.
            Err(StoreError::WrongState { .. }) if self.answered(&run, id).await? => {
                return Err(StoreError::AlreadyAnswered {
                    request: id.to_owned(),
                    run,
                });
            }
            Err(error) => return Err(error),
        };
        let changed = tx
            .exec(
                "UPDATE toolnexus_requests SET answer = $2, answered_at = {now} \
                 WHERE id = $1 AND run_id = $3 AND answered_at IS NULL",
                &[Arg::Text(id), Arg::Text(&to_json(&given)), Arg::Text(&run)],
            )
            .await
            .map_err(doing())?;
        if changed == 0 {
            return Err(StoreError::AlreadyAnswered {
                request: id.to_owned(),
                run,
            });
        }
        tx.commit().await.map_err(doing())?;
        Ok((run, loaded, given))
    }

    /// Whether request `id` of run `run` has an answer now (read outside any transaction).
    async fn answered(&self, run: &str, id: &str) -> Result<bool, StoreError> {
        let rows = self
            .pool
            .fetch(
                "SELECT answered_at FROM toolnexus_requests WHERE id = $1 AND run_id = $2",
                &[Arg::Text(id), Arg::Text(run)],
            )
            .await
            .map_err(StoreError::unavailable(format!("reading request `{id}`")))?;
        Ok(match rows.first() {
            Some(row) => int(row, 0, "a request")?.is_some(),
            None => false,
        })
    }

    /// Takes the lease of the run `id` whose worker lost it, and loads the run.
    pub(crate) async fn take_over(
        &self,
        id: &str,
        token: &str,
        lease: Duration,
    ) -> Result<Loaded, StoreError> {
        let doing = || StoreError::unavailable(format!("taking over run `{id}`"));
        let mut tx = self.pool.begin().await.map_err(doing())?;
        let loaded = self.claim(&mut tx, id, token, lease, "running").await?;
        tx.commit().await.map_err(doing())?;
        Ok(loaded)
    }
}

/// The cursor after the request `id` of run `run`, parked at `at`: the time, then the
/// run id's length, so that neither id needs escaping (`<at>/<run length>/<run><id>`).
fn cursor(at: i64, run: &str, id: &str) -> String {
    format!("{at}/{}/{run}{id}", run.len())
}

/// A cursor's time, request id and run id. The older form `<at>/<id>` (no run) reads
/// as the first run of that request.
fn parse_cursor(cursor: &str) -> Option<(i64, String, String)> {
    let (at, rest) = cursor.split_once('/').unwrap_or((cursor, ""));
    let at = at.parse().ok()?;
    if let Some((len, tail)) = rest.split_once('/')
        && let Ok(len) = len.parse::<usize>()
        && let (Some(run), Some(id)) = (tail.get(..len), tail.get(len..))
    {
        return Some((at, id.to_owned(), run.to_owned()));
    }
    Some((at, rest.to_owned(), String::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_whatever_the_ids_hold() {
        for (run, id) in [("run_1", "approve-x"), ("a/b", "c/d"), ("", "x"), ("r", "")] {
            let text = cursor(42, run, id);
            assert_eq!(
                parse_cursor(&text),
                Some((42, id.to_owned(), run.to_owned()))
            );
        }
        assert_eq!(
            parse_cursor("7/approve-x"),
            Some((7, "approve-x".to_owned(), String::new()))
        );
        assert_eq!(parse_cursor("x/y"), None);
    }
}

//! Session rows: one conversation kept by id across runs, message by message, each row
//! stamped with when it was written (for retention, `retention.rs`).

/// Migration 6: when each session row was written (`updated_at`, ms since the epoch, the
/// database's clock; the rows already there count as written when the migration ran), so
/// that retention deletes the sessions nobody wrote to for long.
pub(crate) const MIGRATION_6: &str =
    "ALTER TABLE toolnexus_sessions ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0;
    UPDATE toolnexus_sessions SET updated_at = {now};
    CREATE INDEX toolnexus_sessions_written ON toolnexus_sessions (session_id, updated_at)";

use crate::model::message::Message;
use crate::store::StoreError;
use crate::store::db::{Arg, FORMAT, check_format, from_json, int, text, to_json};
use crate::store::runs::SqlEngine;

impl SqlEngine {
    /// The messages of session `id`, oldest first (empty for a session never written).
    pub(crate) async fn session_messages(&self, id: &str) -> Result<Vec<Message>, StoreError> {
        let rows = self
            .pool
            .fetch(
                "SELECT format, message, seq FROM toolnexus_sessions WHERE session_id = $1 \
                 ORDER BY seq",
                &[Arg::Text(id)],
            )
            .await
            .map_err(StoreError::unavailable(format!("reading session `{id}`")))?;
        let mut messages = Vec::with_capacity(rows.len());
        for row in &rows {
            let seq = int(row, 2, "a session message")?.unwrap_or(0);
            let what = format!("message {seq} of session `{id}`");
            check_format(row, 0, &what)?;
            messages.push(from_json(&what, &text(row, 1, &what)?)?);
        }
        Ok(messages)
    }

    /// Keeps the first `keep` messages of session `id` and appends `messages` after them,
    /// all or none. `stored` is how many messages the session had when read (`None`: no
    /// check, only append); a session that changed since is still rewritten from `keep`.
    pub(crate) async fn session_replace_tail(
        &self,
        id: &str,
        keep: usize,
        stored: Option<usize>,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        let doing = || StoreError::unavailable(format!("appending to session `{id}`"));
        let mut tx = self.pool.begin().await.map_err(doing())?;
        if stored.is_some() {
            let keep = i64::try_from(keep).unwrap_or(i64::MAX);
            tx.exec(
                "DELETE FROM toolnexus_sessions WHERE session_id = $1 AND seq NOT IN \
                 (SELECT seq FROM toolnexus_sessions WHERE session_id = $1 ORDER BY seq LIMIT $2)",
                &[Arg::Text(id), Arg::Int(keep)],
            )
            .await
            .map_err(doing())?;
        }
        let rows = tx
            .fetch(
                "SELECT MAX(seq) FROM toolnexus_sessions WHERE session_id = $1",
                &[Arg::Text(id)],
            )
            .await
            .map_err(doing())?;
        let last = match rows.first() {
            Some(row) => int(row, 0, "a session")?.unwrap_or(0),
            None => 0,
        };
        for (i, message) in messages.iter().enumerate() {
            let seq = last + 1 + i as i64;
            tx.exec(
                "INSERT INTO toolnexus_sessions (session_id, seq, format, message, updated_at) \
                 VALUES ($1, $2, $3, $4, {now})",
                &[
                    Arg::Text(id),
                    Arg::Int(seq),
                    Arg::Int(FORMAT),
                    Arg::Text(&to_json(message)),
                ],
            )
            .await
            .map_err(doing())?;
        }
        tx.commit().await.map_err(doing())
    }

    /// Keeps the last `keep` messages of session `id` (fewer, when that would start the
    /// session with the result of a call whose request was cut off), or none.
    pub(crate) async fn session_trim(&self, id: &str, keep: usize) -> Result<(), StoreError> {
        let doing = || StoreError::unavailable(format!("trimming session `{id}`"));
        let messages = self.session_messages(id).await?;
        let mut cut = messages.len().saturating_sub(keep);
        while messages
            .get(cut)
            .is_some_and(|m| matches!(m, Message::Tool { .. }))
        {
            cut += 1;
        }
        let mut tx = self.pool.begin().await.map_err(doing())?;
        let rows = tx
            .fetch(
                "SELECT seq FROM toolnexus_sessions WHERE session_id = $1 ORDER BY seq",
                &[Arg::Text(id)],
            )
            .await
            .map_err(doing())?;
        if let Some(row) = rows.get(cut) {
            let first_kept = int(row, 0, "a session message")?.unwrap_or(0);
            tx.exec(
                "DELETE FROM toolnexus_sessions WHERE session_id = $1 AND seq < $2",
                &[Arg::Text(id), Arg::Int(first_kept)],
            )
            .await
            .map_err(doing())?;
        } else {
            tx.exec(
                "DELETE FROM toolnexus_sessions WHERE session_id = $1",
                &[Arg::Text(id)],
            )
            .await
            .map_err(doing())?;
        }
        tx.commit().await.map_err(doing())
    }
}

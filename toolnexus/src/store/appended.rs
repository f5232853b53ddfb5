//! A running run's transcript as its row's head and the messages appended to it: a
//! checkpoint writes only the messages its turn added, not the whole transcript again,
//! so a run of n turns writes O(n) bytes, not O(n²).
//!
//! The run row's `transcript` column is the head: the transcript the run was created
//! with (or ended with, at its last [`finish`](super::runs::SqlEngine::finish)); rows of
//! `toolnexus_run_messages` are the messages that follow, one per transcript position
//! (`seq`). A checkpoint replaces the rows from the first position the loop may have
//! changed since the last one (the tool messages of the turn before, rewritten when it
//! settled) and appends the rest; loading takes the head up to the first row and the
//! rows after it. A row written before this table existed has no appended messages and
//! loads as its head alone, as it always did.

use crate::model::message::Message;
use crate::store::StoreError;
use crate::store::db::{Arg, Tx, from_json, int, text, to_json};

/// The migration that makes the table (schema version 7).
pub(crate) const MIGRATION: &str = "CREATE TABLE toolnexus_run_messages (
        run_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )";

/// Messages per INSERT statement (3 parameters each; SQLite allows 32,766 in all).
const PER_STATEMENT: usize = 500;

/// Replaces the messages of run `id` from position `from` on with `messages` (the
/// transcript's positions `from..`), in `tx`. The bytes written are those of `messages`.
pub(crate) async fn append(
    tx: &mut Tx,
    id: &str,
    from: usize,
    messages: &[Message],
) -> Result<(), sqlx::Error> {
    let from_seq = i64::try_from(from).unwrap_or(i64::MAX);
    tx.exec(
        "DELETE FROM toolnexus_run_messages WHERE run_id = $1 AND seq >= $2",
        &[Arg::Text(id), Arg::Int(from_seq)],
    )
    .await?;
    let json: Vec<(i64, String)> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| (from_seq.saturating_add(i as i64), to_json(m)))
        .collect();
    for chunk in json.chunks(PER_STATEMENT) {
        let mut args = vec![Arg::Text(id)];
        let mut values = Vec::with_capacity(chunk.len());
        for (seq, message) in chunk {
            args.push(Arg::Int(*seq));
            args.push(Arg::Text(message));
            values.push(format!("($1, ${}, ${})", args.len() - 1, args.len()));
        }
        let sql = format!(
            "INSERT INTO toolnexus_run_messages (run_id, seq, message) VALUES {}",
            values.join(", ")
        );
        tx.exec(&sql, &args).await?;
    }
    Ok(())
}

/// Forgets the appended messages of run `id` (its head now holds its whole transcript).
pub(crate) async fn clear(tx: &mut Tx, id: &str) -> Result<(), sqlx::Error> {
    tx.exec(
        "DELETE FROM toolnexus_run_messages WHERE run_id = $1",
        &[Arg::Text(id)],
    )
    .await
    .map(|_| ())
}

/// The transcript of run `id`: its `head` up to its first appended message, then the
/// appended messages in order. `what` names the run in errors.
pub(crate) async fn load(
    tx: &mut Tx,
    id: &str,
    mut head: Vec<Message>,
    what: &str,
) -> Result<Vec<Message>, StoreError> {
    let rows = tx
        .fetch(
            "SELECT seq, message FROM toolnexus_run_messages WHERE run_id = $1 ORDER BY seq",
            &[Arg::Text(id)],
        )
        .await
        .map_err(StoreError::unavailable(format!(
            "reading the messages of run `{id}`"
        )))?;
    let mut next = None;
    for row in &rows {
        let seq = int(row, 0, what)?.unwrap_or(-1);
        let seq = usize::try_from(seq)
            .ok()
            .filter(|seq| next.is_none_or(|n| *seq == n))
            .filter(|seq| next.is_some() || *seq <= head.len())
            .ok_or_else(|| {
                StoreError::corrupted(what, format!("message {seq} out of order or past a gap"))
            })?;
        if next.is_none() {
            head.truncate(seq);
        }
        let at = format!("message {seq} of {what}");
        head.push(from_json(&at, &text(row, 1, what)?)?);
        next = Some(seq + 1);
    }
    Ok(head)
}

//! [`Session`]: one conversation kept by id in the run store, across runs; each of its
//! runs is a durable run like any other, named after the session so that whoever
//! finishes it (the session, an answer, a recovery) brings the session up to date.

use std::sync::Arc;

use crate::agent::client::Client;
use crate::agent::conversation::{after_run, new_run_id, without_system};
use crate::agent::journal::record::RunRecord;
use crate::agent::journal::{Journal, StoreError};
use crate::agent::run::RunResult;
use crate::model::message::Message;
use crate::tool::kit::Toolkit;

/// A conversation kept by id across runs, in the store of the client that made it
/// ([`Client::session`]): its messages, to read and to trim. It is run as every
/// conversation is, `client.run(prompt, &toolkit).conversation(id)` (or
/// [`Client::ask`]): each run continues the transcript so far with the prompt and appends
/// what it added. The client's system prompt is not stored: it is put first at every run.
///
/// Each run is a durable run of the store, with the id `session:<session id>/run_<uuid>`:
/// a run that suspends is listed among the store's pending requests and its answer
/// ([`Client::answer`]) finishes it; one whose worker died is finished by
/// [`Client::recover`]. Either brings the session up to date, unless the conversation
/// moved on in the meantime (a new prompt abandoned the halted turn).
#[derive(Debug, Clone)]
pub struct Session {
    client: Client,
    id: String,
}

impl Session {
    pub(crate) fn new(client: Client, id: String) -> Session {
        Session { client, id }
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Runs `prompt` after the session's messages so far (as
    /// [`RunRequest::history`](crate::agent::RunRequest::history) does), recorded in the
    /// store as a run of this session, then appends the run's new messages, all together
    /// (a store that fails to take them ends the run incomplete with its error, and
    /// [`Client::recover`] finishes it). A run that halts on a request keeps its halted
    /// turn in the session; the next prompt abandons it (each unfinished call gets an
    /// explicit result). [`Client::ask`]'s, with a store.
    pub(crate) async fn run(
        &self,
        prompt: impl Into<crate::model::message::UserContent>,
        toolkit: &Toolkit,
    ) -> Result<RunResult, StoreError> {
        let (transcript, record) = self.open(prompt.into(), toolkit.skills_prompt()).await?;
        Ok(self
            .client
            .drive_recorded(transcript, toolkit, None, &record)
            .await)
    }

    /// A new run of the session on `prompt`, recorded in the store and not driven yet:
    /// its transcript and record.
    pub(crate) async fn open(
        &self,
        prompt: crate::model::message::UserContent,
        skills_prompt: &str,
    ) -> Result<(Vec<Message>, RunRecord), StoreError> {
        self.open_as(prompt, skills_prompt, self.new_run_id()).await
    }

    /// A fresh run id of this session (`session:<id>/run_<32 hex digits>`).
    pub(crate) fn new_run_id(&self) -> String {
        new_run_id(&self.id)
    }

    /// [`Session::open`] under the run id `id` (one of [`Session::new_run_id`]).
    pub(crate) async fn open_as(
        &self,
        prompt: crate::model::message::UserContent,
        skills_prompt: &str,
        id: String,
    ) -> Result<(Vec<Message>, RunRecord), StoreError> {
        let durable = self.client.durable()?;
        let before = durable.store.session_messages(&self.id).await?;
        let transcript = self.client.continued(before, prompt, skills_prompt);
        let record = self
            .client
            .create(durable, id, &transcript)
            .await
            .map_err(|(_, error)| error)?;
        Ok((transcript, record))
    }

    /// The session's messages, oldest first.
    pub async fn messages(&self) -> Result<Vec<Message>, StoreError> {
        let durable = self.client.durable()?;
        durable.store.session_messages(&self.id).await
    }

    /// Forgets every message of the session.
    pub async fn clear(&self) -> Result<(), StoreError> {
        self.trim(0).await
    }

    /// Keeps only the last `keep` messages (fewer, so that the session never starts with
    /// the result of a call whose request was cut off).
    pub async fn trim(&self, keep: usize) -> Result<(), StoreError> {
        let durable = self.client.durable()?;
        durable.store.session_trim(&self.id, keep).await
    }
}

/// Brings session `id` up to date with a run of it that ended with `transcript`: the
/// messages after those the session and the transcript share are replaced by the run's
/// (the session's halted turn, if the run finished it, included). A session that moved on
/// since the run began (another prompt was appended) is left as it is. A run whose
/// transcript was compacted (`working`) leaves the session holding the compacted one.
pub(crate) async fn sync(
    store: &Arc<dyn Journal>,
    id: &str,
    transcript: &[Message],
    working: Option<Vec<Message>>,
) -> Result<(), StoreError> {
    let stored = store.session_messages(id).await?;
    if let Some(working) = working {
        let Some(messages) = after_run(&stored, transcript, &working) else {
            return Ok(());
        };
        return store
            .session_replace_tail(id, 0, Some(stored.len()), &messages)
            .await;
    }
    // The system prompt is never stored: each run puts the client's first (a
    // compaction's summary is part of the conversation, and is).
    let transcript = without_system(transcript);
    let same = stored
        .iter()
        .zip(transcript)
        .take_while(|(a, b)| a == b)
        .count();
    // Past what they share, the session may only hold the results of the halted turn the
    // run began with (abandoned or answered since); anything else is a newer exchange.
    if !stored[same..]
        .iter()
        .all(|m| matches!(m, Message::Tool { .. }))
    {
        return Ok(());
    }
    let kept = stored.len();
    store
        .session_replace_tail(id, same, (same < kept).then_some(kept), &transcript[same..])
        .await
}

//! [`Session`]: one conversation kept by id in the run store, across runs.

use crate::agent::client::Client;
use crate::agent::message::Message;
use crate::agent::run::RunResult;
use crate::store::error::StoreError;
use crate::tool::toolkit::Toolkit;

/// A conversation kept by id across runs, in the store of the client that made it
/// ([`Client::session`]). Each [`run`](Session::run) continues the transcript so far with
/// a new prompt and appends what it added. The client's system prompt is not stored: it
/// is put first at every run.
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
    /// [`Client::continue_run`] does), then appends the run's new messages, all together.
    /// A run that halts on a request keeps its halted turn in the session; the next
    /// prompt abandons it (each unfinished call gets an explicit result).
    pub async fn run(
        &self,
        prompt: impl Into<String>,
        toolkit: &Toolkit,
    ) -> Result<RunResult, StoreError> {
        let engine = self.client.durable()?.store.engine();
        let before = engine.session_messages(&self.id).await?;
        let kept = before.len();
        let before_run = before.clone();
        let run = self.client.continue_run(before, prompt, toolkit).await;
        let transcript = match run.transcript.first() {
            Some(Message::System { .. }) if self.client.system.is_some() => &run.transcript[1..],
            _ => &run.transcript[..],
        };
        // A halted turn abandoned by the prompt changed the stored messages' tail:
        // rewrite from the first message that differs.
        let same = before_run
            .iter()
            .zip(transcript)
            .take_while(|(a, b)| a == b)
            .count();
        engine
            .session_replace_tail(
                &self.id,
                same,
                (same < kept).then_some(kept),
                &transcript[same..],
            )
            .await?;
        Ok(run)
    }

    /// The session's messages, oldest first.
    pub async fn messages(&self) -> Result<Vec<Message>, StoreError> {
        self.client
            .durable()?
            .store
            .engine()
            .session_messages(&self.id)
            .await
    }

    /// Forgets every message of the session.
    pub async fn clear(&self) -> Result<(), StoreError> {
        self.trim(0).await
    }

    /// Keeps only the last `keep` messages (fewer, so that the session never starts with
    /// the result of a call whose request was cut off).
    pub async fn trim(&self, keep: usize) -> Result<(), StoreError> {
        self.client
            .durable()?
            .store
            .engine()
            .session_trim(&self.id, keep)
            .await
    }
}

//! Answering the request of one named run: for a request id several parked runs wait on
//! (a deterministic approval id, asked by runs that made the same call).

use crate::agent::client::Client;
use crate::agent::run::RunResult;
use crate::store::error::StoreError;
use crate::store::journal::{Journal, new_id};
use crate::tool::request::Answer;
use crate::tool::toolkit::Toolkit;

impl Client {
    /// As [`answer`](Client::answer), for the request `answer.id` of run `run_id`
    /// (the [`run_id`](crate::store::PendingRequest::run_id) a pending request is listed
    /// with). Runs that made the same call wait on the same request id (an approval's id
    /// is a digest of the call); this resumes the one named, whatever the others do.
    ///
    /// Errors: [`StoreError::UnknownRequest`] when run `run_id` has no such request, and
    /// those of [`answer`](Client::answer).
    pub async fn answer_run(
        &self,
        run_id: &str,
        answer: Answer,
        toolkit: &Toolkit,
    ) -> Result<RunResult, StoreError> {
        let durable = self.durable()?;
        let token = new_id("");
        let engine = durable.store.engine();
        let (run_id, loaded, given) = engine
            .answer_in(Some(run_id), &answer, &token, durable.lease)
            .await?;
        let journal = Journal::new(durable, run_id, token, &loaded.transcript);
        let open = super::durable::opened(&loaded, Some(given));
        Ok(self
            .drive_journaled(loaded.transcript, toolkit, open, &journal)
            .await)
    }
}

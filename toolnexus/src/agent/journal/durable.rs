//! The durable side of [`Client`]: a store set with [`Client::store`], every run
//! recorded through it, parked runs answered and orphaned runs recovered from it.

use std::collections::HashSet;
use std::pin::pin;

use futures_util::future::{Either, select};

use crate::agent::client::Client;
use crate::agent::conversation::conversation_of;
use crate::agent::drive::Opened;
use crate::agent::journal::record::{RunRecord, new_id, refused};
use crate::agent::journal::session::{Session, sync};
use crate::agent::journal::{Durable, Loaded, StoreError};
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::agent::turn::ToolTurn;
use crate::model::message::Message;
use crate::tool::kit::Toolkit;
use crate::tool::request::Answer;

/// How many runs [`Client::recover`] takes up per call, at most.
const RECOVER_BATCH: i64 = 100;

impl Client {
    /// The session `id` of this client's store: a conversation kept across runs.
    pub fn session(&self, id: impl Into<String>) -> Session {
        Session::new(self.clone(), id.into())
    }

    pub(crate) fn durable(&self) -> Result<&Durable, StoreError> {
        self.store.as_ref().ok_or(StoreError::NoStore)
    }

    /// Records `answer` and takes the lease of the run that asked (run `run` when given):
    /// the run as loaded, the turn to finish first, and its record, not driven yet.
    pub(crate) async fn take_answered(
        &self,
        run: Option<&str>,
        answer: Answer,
    ) -> Result<(Vec<Message>, Option<Opened>, RunRecord), StoreError> {
        let durable = self.durable()?;
        let token = new_id("");
        let answered = durable
            .store
            .answer(run, &answer, &token, durable.lease)
            .await?;
        let (loaded, given) = (answered.loaded, answered.given);
        let record = RunRecord::new(
            &durable.store,
            durable.lease,
            answered.run,
            token,
            &loaded.transcript,
        );
        let open = opened(&loaded, Some(given));
        Ok((loaded.transcript, open, record))
    }

    /// Takes over every run whose worker stopped renewing its lease (it died, or hung
    /// past [`lease`](Client::lease)), and drives each to its end here, one after the
    /// other: settled calls are not run again (their recorded results are used), calls
    /// that were in flight run again with the same idempotency key. Runs another worker
    /// takes first are skipped. Gives back the runs it drove, oldest lease first.
    ///
    /// A run it cannot read (a damaged row, or one written by a newer toolnexus) is left
    /// untouched in the store and does not stop the others: it is given back as an
    /// incomplete run with that run's id and [`StopReason::Store`](crate::agent::StopReason::Store)
    /// saying what is wrong with which row.
    pub async fn recover(&self, toolkit: &Toolkit) -> Result<Vec<RunResult>, StoreError> {
        let durable = self.durable()?;
        let store = &durable.store;
        let mut recovered = Vec::new();
        let mut unreadable = HashSet::new();
        loop {
            let orphans = store.orphans(RECOVER_BATCH).await?;
            let mut took = 0;
            for id in &orphans {
                if unreadable.contains(id) {
                    continue;
                }
                let token = new_id("");
                let loaded = match store.take_over(id, &token, durable.lease).await {
                    Ok(loaded) => loaded,
                    Err(StoreError::HeldByAnotherWorker { .. }) => continue,
                    // A run this build cannot read (damaged, or written by a newer
                    // toolnexus) is left as it is, and reported; the others go on.
                    Err(
                        error @ (StoreError::Corrupted { .. } | StoreError::NewerFormat { .. }),
                    ) => {
                        unreadable.insert(id.clone());
                        recovered.push(refused(Vec::new(), Some(id.clone()), &error));
                        continue;
                    }
                    Err(error) => return Err(error),
                };
                took += 1;
                if loaded.in_flight > 0 {
                    tracing::warn!(
                        run = %id,
                        in_flight = loaded.in_flight,
                        "recovering a run: calls in flight when its worker stopped run again"
                    );
                }
                let record =
                    RunRecord::new(store, durable.lease, id.clone(), token, &loaded.transcript);
                let open = opened(&loaded, None);
                let run = self
                    .drive_recorded(loaded.transcript, toolkit, open, &record)
                    .await;
                recovered.push(run);
            }
            if took == 0 || (orphans.len() as i64) < RECOVER_BATCH {
                return Ok(recovered);
            }
        }
    }

    /// Takes over run `run` once the lease of the worker that drove it has run out
    /// (trying again every quarter lease, for three leases at most), and drives it to its
    /// end here: settled calls are not run again, calls in flight run again with the same
    /// idempotency key.
    pub(crate) async fn take_over_run(
        &self,
        run: &str,
        toolkit: &Toolkit,
    ) -> Result<RunResult, StoreError> {
        let durable = self.durable()?;
        let token = new_id("");
        let mut tries = 12;
        let loaded = loop {
            match durable.store.take_over(run, &token, durable.lease).await {
                Err(StoreError::HeldByAnotherWorker { .. }) if tries > 0 => {
                    tries -= 1;
                    tokio::time::sleep(durable.lease / 4).await;
                }
                taken => break taken?,
            }
        };
        let record = RunRecord::new(
            &durable.store,
            durable.lease,
            run.to_owned(),
            token,
            &loaded.transcript,
        );
        let open = opened(&loaded, None);
        Ok(self
            .drive_recorded(loaded.transcript, toolkit, open, &record)
            .await)
    }

    /// A new run on `transcript` (finishing `open` first), recorded in the store under
    /// `id` (or the client's run id, or a fresh one) and driven under its lease.
    pub(crate) async fn start_durable(
        &self,
        durable: &Durable,
        transcript: Vec<Message>,
        toolkit: &Toolkit,
        open: Option<Opened>,
        id: Option<String>,
    ) -> RunResult {
        let id = id
            .or_else(|| durable.run_id.clone())
            .unwrap_or_else(|| new_id("run_"));
        match self.create(durable, id, &transcript).await {
            Ok(record) => {
                self.drive_recorded(transcript, toolkit, open, &record)
                    .await
            }
            Err((id, error)) => refused(transcript, Some(id), &error),
        }
    }

    /// Records a new run `id` on `transcript`, leased to this worker.
    pub(crate) async fn create(
        &self,
        durable: &Durable,
        id: String,
        transcript: &[Message],
    ) -> Result<RunRecord, (String, StoreError)> {
        let token = new_id("");
        let created = durable
            .store
            .create(&id, transcript, &token, durable.lease)
            .await;
        match created {
            Ok(()) => Ok(RunRecord::new(
                &durable.store,
                durable.lease,
                id,
                token,
                transcript,
            )),
            Err(error) => Err((id, error)),
        }
    }

    /// [`Client::resume`] with a store: a request the store holds is answered there (as
    /// [`Client::answer`] does); a run the store does not know is recorded anew.
    pub(crate) async fn resume_durable(
        &self,
        durable: &Durable,
        transcript: Vec<Message>,
        toolkit: &Toolkit,
        open: Opened,
        answer: Answer,
    ) -> RunResult {
        match self.answer(answer, toolkit).await {
            Ok(run) => run,
            Err(StoreError::UnknownRequest(_)) => {
                self.start_durable(durable, transcript, toolkit, Some(open), None)
                    .await
            }
            Err(error) => refused(transcript, None, &error),
        }
    }

    /// Drives a run under `record`'s lease, then records how it ended: a session's run
    /// brings its session up to date first, so that a crash in between leaves a run to
    /// recover, never a finished run missing from its session.
    pub(crate) async fn drive_recorded(
        &self,
        transcript: Vec<Message>,
        toolkit: &Toolkit,
        open: Option<Opened>,
        record: &RunRecord,
    ) -> RunResult {
        let driven = pin!(self.drive_with(transcript, toolkit, open, Some(record)));
        let mut run = match select(driven, pin!(record.heartbeat())).await {
            Either::Left((run, _)) => run,
            Either::Right((never, _)) => match never {},
        };
        run.id = Some(record.run_id.clone());
        let stored = !matches!(
            run.status,
            RunStatus::Incomplete {
                reason: StopReason::Store { .. }
            }
        );
        let working = run.compacted.as_ref().map(|c| c.apply(&run.messages));
        if let Some(session) = conversation_of(&record.run_id).filter(|_| stored)
            && let Err(error) = sync(&record.store, session, &run.messages, working).await
        {
            run.status = RunStatus::Incomplete {
                reason: StopReason::Store {
                    message: error.to_string(),
                },
            };
        }
        record.finish(&mut run).await;
        run
    }
}

/// The turn a loaded run stands in, to finish first: its calls not settled run (again),
/// and a parked call whose request has an answer (`given`, or one recorded before a
/// crash) is resolved with it.
fn opened(loaded: &Loaded, given: Option<Answer>) -> Option<Opened> {
    let turn = ToolTurn::open(&loaded.transcript).filter(ToolTurn::is_open)?;
    let answer = given
        .into_iter()
        .chain(loaded.answers.iter().cloned())
        .find_map(|answer| turn.parked_on(&answer.id).map(|i| (i, answer)));
    Some(Opened {
        turn,
        answer,
        compacted: None,
    })
}

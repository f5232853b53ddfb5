//! The durable side of [`Client`]: runs under a run id in a store, answering parked
//! runs, recovering runs whose worker died.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use crate::agent::client::Client;
use crate::agent::drive::Opened;
use crate::agent::message::Message;
use crate::agent::run::RunResult;
use crate::agent::turn::Turn;
use crate::store::RunStore;
use crate::store::error::StoreError;
use crate::store::journal::{DEFAULT_LEASE, Durable, Journal, new_id, refused};
use crate::store::runs::Loaded;
use crate::store::session::Session;
use crate::tool::request::Answer;
use crate::tool::toolkit::Toolkit;

/// How many runs [`Client::recover`] takes up per call, at most.
const RECOVER_BATCH: i64 = 100;

impl Client {
    /// Keeps every run of this client in `store`: each run gets a run id
    /// ([`RunResult::id`]), its model turns and tool calls are recorded as they happen
    /// (see [`toolnexus::store`](crate::store) for the guarantee), a run that suspends is
    /// parked there for [`answer`](Client::answer), and a run whose worker died is taken
    /// up by [`recover`](Client::recover).
    #[must_use]
    pub fn with_store(mut self, store: impl RunStore) -> Self {
        self.store = Some(Durable {
            store: Arc::new(store),
            lease: DEFAULT_LEASE,
            run_id: None,
        });
        self
    }

    /// Sets how long a run's lease lasts without renewal (default 30 s): the worker
    /// driving a run renews it every third of that; a worker that dies loses its runs to
    /// [`recover`](Client::recover) that long after. Needs [`with_store`](Client::with_store)
    /// first (without a store it does nothing).
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        if let Some(durable) = &mut self.store {
            durable.lease = lease;
        }
        self
    }

    /// Sets the run id of the next [`run`](Client::run) (by default a fresh
    /// `run_<uuid>`); a run with an id already in the store is refused
    /// ([`StoreError::RunExists`] in the run's stop reason). Needs
    /// [`with_store`](Client::with_store) first.
    #[must_use]
    pub fn run_id(mut self, id: impl Into<String>) -> Self {
        if let Some(durable) = &mut self.store {
            durable.run_id = Some(id.into());
        }
        self
    }

    /// The session `id` of this client's store: a conversation kept across runs.
    pub fn session(&self, id: impl Into<String>) -> Session {
        Session::new(self.clone(), id.into())
    }

    pub(crate) fn durable(&self) -> Result<&Durable, StoreError> {
        self.store.as_ref().ok_or(StoreError::NoStore)
    }

    /// [`Client::run`] with a store: records the run, then drives it under its lease.
    pub(crate) async fn run_stored(
        &self,
        durable: &Durable,
        transcript: Vec<Message>,
        toolkit: &Toolkit,
    ) -> RunResult {
        let id = durable.run_id.clone().unwrap_or_else(|| new_id("run_"));
        let token = new_id("");
        let engine = durable.store.engine();
        if let Err(error) = engine.create(&id, &transcript, &token, durable.lease).await {
            return refused(transcript, Some(id), &error);
        }
        let journal = Journal::new(durable, id, token, &transcript);
        self.drive_journaled(transcript, toolkit, None, &journal)
            .await
    }

    /// Answers a request a parked run waits on, and resumes that run here, whichever
    /// process parked it: the answer is recorded and the run's lease taken in one
    /// transaction, then the run goes on as [`Client::resume`] would and its end is
    /// recorded. A request past its `expires_at` is answered as expired instead (the tool
    /// does not run again; the model reads `declined/expired: <prompt>`).
    ///
    /// Errors: [`StoreError::UnknownRequest`], [`StoreError::AlreadyAnswered`] (each
    /// request is answered once), [`StoreError::HeldByAnotherWorker`] (another worker is
    /// resuming the run), [`StoreError::AmbiguousRequest`] (several runs wait on that id:
    /// [`answer_run`](Client::answer_run) names the run), and the store's own failures.
    pub async fn answer(&self, answer: Answer, toolkit: &Toolkit) -> Result<RunResult, StoreError> {
        let durable = self.durable()?;
        let token = new_id("");
        let engine = durable.store.engine();
        let (run_id, loaded, given) = engine.answer(&answer, &token, durable.lease).await?;
        let journal = Journal::new(durable, run_id, token, &loaded.transcript);
        let open = opened(&loaded, Some(given));
        Ok(self
            .drive_journaled(loaded.transcript, toolkit, open, &journal)
            .await)
    }

    /// Takes over every run whose worker stopped renewing its lease (it died, or hung
    /// past [`lease`](Client::lease)), and drives each to its end here, one after the
    /// other: settled calls are not run again (their recorded results are used), calls
    /// that were in flight run again with the same idempotency key. Runs another worker
    /// takes first are skipped. Gives back the runs it drove, oldest lease first.
    ///
    /// A run it cannot read (a damaged row, or one written by a newer toolnexus) is left
    /// untouched in the store and does not stop the others: it is given back as an
    /// incomplete run with that run's id and [`StopReason::Store`](crate::StopReason::Store)
    /// saying what is wrong with which row.
    pub async fn recover(&self, toolkit: &Toolkit) -> Result<Vec<RunResult>, StoreError> {
        let durable = self.durable()?;
        let engine = durable.store.engine();
        let mut recovered = Vec::new();
        let mut unreadable = HashSet::new();
        loop {
            let orphans = engine.orphans(RECOVER_BATCH).await?;
            let mut took = 0;
            for id in &orphans {
                if unreadable.contains(id) {
                    continue;
                }
                let token = new_id("");
                let loaded = match engine.take_over(id, &token, durable.lease).await {
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
                let journal = Journal::new(durable, id.clone(), token, &loaded.transcript);
                let open = opened(&loaded, None);
                let run = self
                    .drive_journaled(loaded.transcript, toolkit, open, &journal)
                    .await;
                recovered.push(run);
            }
            if took == 0 || (orphans.len() as i64) < RECOVER_BATCH {
                return Ok(recovered);
            }
        }
    }
}

/// The turn a loaded run stands in, to finish first: its calls not settled run (again),
/// and a parked call whose request has an answer (`given`, or one recorded before a
/// crash) is resolved with it.
pub(super) fn opened(loaded: &Loaded, given: Option<Answer>) -> Option<Opened> {
    let turn = Turn::open(&loaded.transcript).filter(Turn::is_open)?;
    let answer = given
        .into_iter()
        .chain(loaded.answers.iter().cloned())
        .find_map(|answer| turn.parked_on(&answer.id).map(|i| (i, answer)));
    Some(Opened { turn, answer })
}

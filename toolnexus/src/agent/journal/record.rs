//! [`RunRecord`]: one durable run being driven under a lease, what the loop writes
//! through at its three points (a model turn that asked for tools, a call about to run, a
//! call's result), with the lease renewed while the run is driven.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::agent::journal::{Journal, Parked, StoreError};
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::model::message::Message;
use crate::tool::result::ToolResult;

/// One run being driven under a lease: what the loop records through.
pub(crate) struct RunRecord {
    pub(crate) store: Arc<dyn Journal>,
    pub(crate) run_id: String,
    token: String,
    lease: Duration,
    /// The transcript position of the assistant message whose calls are running.
    at: AtomicUsize,
    /// How many messages of the transcript are recorded and never change again (those
    /// before the running turn's tool messages): the next checkpoint writes the rest.
    kept: AtomicUsize,
    /// The first failed write; the run stops at the end of the turn with it.
    failure: Mutex<Option<String>>,
    /// The calls of the running turn whose start its checkpoint recorded, and that have
    /// not started since: their first start needs no write of its own.
    prestarted: Mutex<Vec<String>>,
}

impl RunRecord {
    /// The record of run `run_id`, whose lease `token` holds, standing at `transcript`.
    pub(crate) fn new(
        store: &Arc<dyn Journal>,
        lease: Duration,
        run_id: String,
        token: String,
        transcript: &[Message],
    ) -> RunRecord {
        let last = transcript
            .iter()
            .rposition(|m| !matches!(m, Message::Tool { .. }));
        let at = last.unwrap_or(0);
        RunRecord {
            store: Arc::clone(store),
            run_id,
            token,
            lease,
            at: AtomicUsize::new(at),
            kept: AtomicUsize::new(last.map_or(0, |at| at + 1)),
            failure: Mutex::new(None),
            prestarted: Mutex::new(Vec::new()),
        }
    }

    /// The idempotency key of call `call_id` of the running turn: the run id, the turn's
    /// place in the transcript and the call id (a model may reuse call ids across turns).
    pub(crate) fn key(&self, call_id: &str) -> String {
        format!(
            "{}:{}:{call_id}",
            self.run_id,
            self.at.load(Ordering::Relaxed)
        )
    }

    fn fail(&self, error: &StoreError) {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert_with(|| error.to_string());
    }

    fn failed(&self) -> bool {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Why the run must stop, when a write failed.
    pub(crate) fn failure(&self) -> Option<StopReason> {
        let failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.clone().map(|message| StopReason::Store { message })
    }

    /// Records the transcript, whose last message is a model turn that asked for tools,
    /// with that turn's calls as started (in one transaction, before any of them runs).
    pub(crate) async fn checkpoint(&self, transcript: &[Message]) -> Result<(), StopReason> {
        let at = transcript.len().saturating_sub(1);
        let calls: Vec<&str> = transcript
            .last()
            .map(|m| m.calls().iter().map(|c| c.id.as_str()).collect())
            .unwrap_or_default();
        let from = self.kept.load(Ordering::Relaxed);
        let written = self
            .store
            .checkpoint(&self.run_id, &self.token, transcript, at, from, &calls)
            .await;
        match written {
            Ok(()) => {
                self.at.store(at, Ordering::Relaxed);
                self.kept.store(transcript.len(), Ordering::Relaxed);
                *self.prestarted.lock().unwrap_or_else(|e| e.into_inner()) =
                    calls.into_iter().map(str::to_owned).collect();
                Ok(())
            }
            Err(error) => {
                self.fail(&error);
                Err(StopReason::Store {
                    message: error.to_string(),
                })
            }
        }
    }

    /// Records that call `call_id` starts: its idempotency key, or an error text (the
    /// call must not run) when the store refused.
    pub(crate) async fn started(&self, call_id: &str) -> Result<String, String> {
        if let Some(StopReason::Store { message }) = self.failure() {
            return Err(format!("not run: the run store failed earlier: {message}"));
        }
        let recorded = {
            let mut prestarted = self.prestarted.lock().unwrap_or_else(|e| e.into_inner());
            match prestarted.iter().position(|c| c == call_id) {
                Some(i) => {
                    prestarted.swap_remove(i);
                    true // Recorded by the turn's checkpoint.
                }
                None => false,
            }
        };
        if !recorded {
            let at = self.at.load(Ordering::Relaxed);
            let written = self
                .store
                .started(&self.run_id, &self.token, at, call_id)
                .await;
            if let Err(error) = written {
                self.fail(&error);
                return Err(format!(
                    "not run: the run store could not record the call: {error}"
                ));
            }
        }
        Ok(self.key(call_id))
    }

    /// Records the result of call `call_id` (after the hooks: what the model reads).
    pub(crate) async fn settled(&self, call_id: &str, result: &ToolResult) {
        if self.failed() {
            return; // Never settle a call whose start was not recorded.
        }
        let at = self.at.load(Ordering::Relaxed);
        let message = Message::tool_result(call_id, result);
        let written = self
            .store
            .settled(&self.run_id, &self.token, at, call_id, &message)
            .await;
        if let Err(error) = written {
            self.fail(&error);
        }
    }

    /// Renews the lease every third of its length, for as long as it is polled; stops
    /// renewing (and fails the run) once the store refuses.
    pub(crate) async fn heartbeat(&self) -> Infallible {
        let every = (self.lease / 3).max(Duration::from_millis(10));
        loop {
            tokio::time::sleep(every).await;
            let renewed = self
                .store
                .renew(&self.run_id, &self.token, self.lease)
                .await;
            if let Err(error) = renewed {
                self.fail(&error);
                return std::future::pending().await;
            }
        }
    }

    /// Records how `run` ended, in one step with the requests it parked on; a failed write
    /// leaves the run incomplete, with the store's error.
    pub(crate) async fn finish(&self, run: &mut RunResult) {
        if matches!(
            run.status,
            RunStatus::Incomplete {
                reason: StopReason::Store { .. }
            }
        ) {
            // Left as it is: the last checkpoint stands, and `recover` takes it up.
            return;
        }
        let parked = if run.is_pending() {
            parked(&run.messages)
        } else {
            Vec::new()
        };
        let written = self
            .store
            .finish(&self.run_id, &self.token, run, &parked)
            .await;
        if let Err(error) = written {
            run.status = RunStatus::Incomplete {
                reason: StopReason::Store {
                    message: error.to_string(),
                },
            };
        }
    }
}

/// The calls of the transcript's last turn parked on a request.
fn parked(transcript: &[Message]) -> Vec<Parked<'_>> {
    let Some(at) = transcript
        .iter()
        .rposition(|m| !matches!(m, Message::Tool { .. }))
    else {
        return Vec::new();
    };
    let calls = transcript[at].calls();
    transcript[at + 1..]
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                tool_call_id,
                pending: Some(request),
                ..
            } => {
                let call = calls.iter().find(|c| c.id == *tool_call_id)?;
                Some(Parked {
                    call_id: &call.id,
                    tool: &call.name,
                    request,
                })
            }
            _ => None,
        })
        .collect()
}

/// A run that could not start: incomplete, with the store's error.
pub(crate) fn refused(
    transcript: Vec<Message>,
    id: Option<String>,
    error: &StoreError,
) -> RunResult {
    let mut run = RunResult::empty(transcript);
    run.id = id;
    run.status = RunStatus::Incomplete {
        reason: StopReason::Store {
            message: error.to_string(),
        },
    };
    run
}

/// A new unique id, with `prefix`.
pub(crate) fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::new_v4().simple())
}

//! Where the loop meets the run store: a durable run's journal, and the two records a
//! tool call makes in it ("started" before it runs, its result after). Without a store
//! feature the journal is an empty type, so none of this is compiled into the loop.

#[cfg(not(feature = "__store"))]
use crate::agent::message::Message;
use crate::tool::result::ToolResult;

/// The run store's record of a run; nothing without a store feature.
#[cfg(feature = "__store")]
pub(crate) use crate::store::journal::Journal;
/// The run store's record of a run; nothing without a store feature.
#[cfg(not(feature = "__store"))]
pub(crate) enum Journal {}

#[cfg(not(feature = "__store"))]
impl Journal {
    pub(crate) fn failure(&self) -> Option<crate::agent::run::StopReason> {
        match *self {}
    }

    pub(crate) async fn checkpoint(
        &self,
        _: &[Message],
    ) -> Result<(), crate::agent::run::StopReason> {
        match *self {}
    }
}

/// Records that a call starts; its idempotency key, or why it must not run.
#[cfg(feature = "__store")]
pub(crate) async fn journal_started(journal: &Journal, call_id: &str) -> Result<String, String> {
    journal.started(call_id).await?;
    Ok(journal.key(call_id))
}

#[cfg(not(feature = "__store"))]
pub(crate) async fn journal_started(journal: &Journal, _: &str) -> Result<String, String> {
    match *journal {}
}

/// Records a call's result (the one the model reads).
#[cfg(feature = "__store")]
pub(crate) async fn journal_settled(journal: &Journal, call_id: &str, result: &ToolResult) {
    journal.settled(call_id, result).await;
}

#[cfg(not(feature = "__store"))]
pub(crate) async fn journal_settled(journal: &Journal, _: &str, _: &ToolResult) {
    match *journal {}
}

//! The UI endpoints on a client with a run store: a thread is a session of the store,
//! each run a run of that session (`.conversation(thread)`), and an interrupt names the
//! stored run and its request, so any replica (or the same one after a restart) answers
//! it.

use crate::agent::client::Client;
use crate::agent::conversation::{PREFIX, conversation_of};
use crate::agent::journal::StoreError;
use crate::agent::stream::EventStream;
use crate::tool::kit::Toolkit;
use crate::tool::request::Answer;
use crate::ui::threads::Refused;

/// Whether `client` keeps its runs in a store.
pub(crate) fn stored(client: &Client) -> bool {
    client.store.is_some()
}

/// The interrupt id of stored run `run_id` waiting on request `request_id`.
pub(crate) fn interrupt_id(run_id: &str, request_id: &str) -> String {
    format!("{request_id}@{run_id}")
}

/// The run and request interrupt `id` names, checked to be a run of thread `thread`.
fn parse<'a>(thread: &str, id: &'a str) -> Result<(&'a str, &'a str), Refused> {
    let at = id.rfind(&format!("@{PREFIX}")).ok_or(Refused::Unknown)?;
    let (request, run) = (&id[..at], &id[at + 1..]);
    let session = conversation_of(run).ok_or(Refused::Unknown)?;
    if request.is_empty() {
        return Err(Refused::Unknown);
    }
    if session != thread {
        // Another thread's (or user's): as unknown, so that nothing is learnt of it.
        return Err(Refused::Unknown);
    }
    Ok((run, request))
}

/// Answers interrupt `id` of thread `thread` in the store and streams the run on from
/// there; the store makes sure a request is answered once.
pub(crate) async fn answer(
    client: &Client,
    thread: &str,
    id: &str,
    answer: impl FnOnce(&str) -> Answer,
    toolkit: &Toolkit,
) -> Result<EventStream, (String, &'static str)> {
    let refused = |refused: Refused| (refused.message(id), refused.code());
    let (run, request) = parse(thread, id).map_err(refused)?;
    client
        .answer(answer(request), toolkit)
        .run(run)
        .stream()
        .await
        .map_err(|error| match error {
            StoreError::UnknownRun(_) | StoreError::UnknownRequest(_) => refused(Refused::Unknown),
            StoreError::AlreadyAnswered { .. } => refused(Refused::Answered),
            other => (format!("resume: {other}"), "resume_failed"),
        })
}

#[cfg(test)]
mod tests {
    use super::{interrupt_id, parse};
    use crate::agent::conversation::new_run_id;
    use crate::ui::threads::Refused;

    #[test]
    fn an_interrupt_id_names_a_run_of_its_own_thread_only() {
        let run = new_run_id("u1:chat");
        let id = interrupt_id(&run, "approve@1");
        assert_eq!(parse("u1:chat", &id), Ok((run.as_str(), "approve@1")));
        // Another thread's (or user's) run, a made-up run part, no request: unknown.
        assert_eq!(parse("u2:chat", &id), Err(Refused::Unknown));
        let forged = "approve@session:u1:chat/run_0123";
        assert_eq!(parse("u1:chat", forged), Err(Refused::Unknown));
        assert_eq!(
            parse("u1:chat", &interrupt_id(&run, "")),
            Err(Refused::Unknown)
        );
        assert_eq!(parse("u1:chat", "approve"), Err(Refused::Unknown));
    }
}

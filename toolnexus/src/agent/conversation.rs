//! Conversations by id (the contract's §8 `ask` over a `ConversationStore`):
//! [`Client::ask`](crate::Client::ask), the [`ConversationStore`] it keeps them in, and the in-memory
//! default.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use futures_util::future::BoxFuture;

use crate::agent::compaction::SUMMARY_PREFIX;
use crate::agent::journal::StoreError;
use crate::model::message::Message;

/// The start of a conversation run's id: `session:<id>/run_<32 hex digits>`, in memory
/// and in a store alike (a store's conversation is its session). This file is the one
/// home of that grammar.
pub(crate) const PREFIX: &str = "session:";
/// What separates the conversation's id from the run's own part.
const RUN: &str = "/run_";

/// A fresh id for a run of conversation `id` (`session:<id>/run_<32 hex digits>`).
pub(crate) fn new_run_id(id: &str) -> String {
    format!("{PREFIX}{id}{RUN}{}", uuid::Uuid::new_v4().simple())
}

/// Where [`Client::ask`](crate::Client::ask) keeps conversations, by id (the contract's `ConversationStore`):
/// the messages of each, oldest first, the client's system prompt left out.
///
/// The default keeps them in memory, for as long as the client (and its clones) live
/// ([`InMemoryConversations`]); `toolnexus::store`'s run stores implement it too (their
/// sessions). Implement it for a file, a cache or a database of your own and hand it to
/// [`Client::conversations`](crate::Client::conversations).
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Mutex;
/// use futures_util::future::BoxFuture;
/// use toolnexus::Message;
/// use toolnexus::agent::{ConversationStore, StoreError};
///
/// #[derive(Debug, Default)]
/// struct Mine(Mutex<HashMap<String, Vec<Message>>>);
///
/// impl ConversationStore for Mine {
///     fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Vec<Message>>, StoreError>> {
///         let found = self.0.lock().unwrap().get(id).cloned();
///         Box::pin(async move { Ok(found) })
///     }
///     fn save<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> BoxFuture<'a, Result<(), StoreError>> {
///         self.0.lock().unwrap().insert(id.to_owned(), messages.to_vec());
///         Box::pin(async { Ok(()) })
///     }
/// }
/// ```
pub trait ConversationStore: Send + Sync + fmt::Debug + 'static {
    /// The messages of conversation `id`, or `None` for one never saved.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Vec<Message>>, StoreError>>;

    /// Replaces the messages of conversation `id` with `messages`.
    fn save<'a>(
        &'a self,
        id: &'a str,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<(), StoreError>>;
}

/// The default [`ConversationStore`]: conversations in memory, shared by a client and its
/// clones, gone with them.
#[derive(Debug, Default)]
pub struct InMemoryConversations {
    conversations: Mutex<HashMap<String, Vec<Message>>>,
}

impl InMemoryConversations {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Message>>> {
        self.conversations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl ConversationStore for InMemoryConversations {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Vec<Message>>, StoreError>> {
        let found = self.lock().get(id).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.lock().insert(id.to_owned(), messages.to_vec());
        Box::pin(async { Ok(()) })
    }
}

/// The conversation a run belongs to, read from its id (`session:<id>/run_<32 hex>`).
pub(crate) fn conversation_of(run_id: &str) -> Option<&str> {
    let (id, own) = run_id.strip_prefix(PREFIX)?.rsplit_once(RUN)?;
    let generated = own.len() == 32 && own.bytes().all(|b| b.is_ascii_hexdigit());
    generated.then_some(id)
}

/// Whether `message` is a compaction's summary.
pub(crate) fn is_summary(message: &Message) -> bool {
    matches!(message, Message::System { content } if content.starts_with(SUMMARY_PREFIX))
}

/// `messages` without their leading system prompt (a summary is kept: it is part of the
/// conversation, not the client's prompt).
pub(crate) fn without_system(messages: &[Message]) -> &[Message] {
    match messages.first() {
        Some(first @ Message::System { .. }) if !is_summary(first) => &messages[1..],
        _ => messages,
    }
}

/// The conversation after a run of it that ended with the transcript `full`, whose model
/// is shown `working` (`full`, or its compaction): `working` without the system prompt.
/// `None` when the conversation moved on since the run began (`stored` holds more than
/// what `full` started with, other than the results of a halted turn the run finished).
pub(crate) fn after_run(
    stored: &[Message],
    full: &[Message],
    working: &[Message],
) -> Option<Vec<Message>> {
    let full = without_system(full);
    let same = stored.iter().zip(full).take_while(|(a, b)| a == b).count();
    stored[same..]
        .iter()
        .all(|m| matches!(m, Message::Tool { .. }))
        .then(|| without_system(working).to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_that_moved_on_is_left_alone() {
        let a = Message::user("a");
        let b = Message::assistant("b");
        let sys = Message::system("sys");
        let run = [sys.clone(), a.clone(), b.clone()];
        assert_eq!(after_run(&[], &run, &run), Some(vec![a.clone(), b.clone()]));
        let newer = [a.clone(), Message::user("other")];
        assert_eq!(after_run(&newer, &run, &run), None);
        let summary = Message::system(format!("{SUMMARY_PREFIX}s"));
        let working = [sys, summary.clone(), b.clone()];
        assert_eq!(after_run(&[], &run, &working), Some(vec![summary, b]));
    }

    #[test]
    fn a_conversation_run_names_its_conversation() {
        let uuid = "0123456789abcdef0123456789abcdef";
        assert_eq!(conversation_of(&format!("session:c/run_{uuid}")), Some("c"));
        assert_eq!(
            conversation_of(&format!("session:a/run_b/run_{uuid}")),
            Some("a/run_b")
        );
        assert_eq!(conversation_of(&format!("run_{uuid}")), None);
        assert_eq!(conversation_of("run_x"), None);
        assert_eq!(conversation_of("session:user-42/run_mine"), None);
        let fresh = new_run_id("user-42");
        assert_eq!(conversation_of(&fresh), Some("user-42"));
        assert_ne!(fresh, new_run_id("user-42"));
    }
}

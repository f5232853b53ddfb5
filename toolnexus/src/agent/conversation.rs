//! Conversations by id (the contract's §8 `ask` over a `ConversationStore`):
//! [`Client::ask`](crate::Client::ask), the [`ConversationStore`] it keeps them in, and the in-memory
//! default.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;

use crate::agent::compaction::SUMMARY_PREFIX;
use crate::agent::journal::StoreError;
use crate::agent::recent::Recent;
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

/// A [`ConversationStore`] shared behind an [`Arc`] (the same conversations, read and
/// written by whoever holds a clone).
impl<T: ConversationStore> ConversationStore for Arc<T> {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Vec<Message>>, StoreError>> {
        (**self).get(id)
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).save(id, messages)
    }
}

/// The default [`ConversationStore`]: conversations in memory, shared by a client and its
/// clones, gone with them.
///
/// The default one keeps every conversation. A [`bounded`](InMemoryConversations::bounded)
/// one, for a server that opens conversations on its callers' behalf, keeps at most a
/// number of them (the one used least recently is forgotten past that) and refuses a
/// conversation whose messages grew past a number of bytes (as JSON): it is forgotten,
/// and reading it again gives [`StoreError::TooLong`], so its next run says to start a
/// new one.
///
/// ```
/// use toolnexus::agent::{ConversationStore, InMemoryConversations, StoreError};
/// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
///
/// let client = Client::new(ScriptedModel::new([Reply::text("Hi."), Reply::text("Hi.")]))
///     .conversations(InMemoryConversations::bounded(1_000, 64));
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let toolkit = Toolkit::new();
/// rt.block_on(client.ask("a", "Hello", &toolkit)).unwrap();
/// let long = "x".repeat(100);
/// rt.block_on(client.ask("b", long.as_str(), &toolkit)).unwrap(); // kept no more
/// let refused = rt.block_on(client.ask("b", "again", &toolkit)).unwrap_err();
/// assert!(matches!(refused, StoreError::TooLong { .. }), "{refused}");
/// ```
#[derive(Debug)]
pub struct InMemoryConversations {
    conversations: Mutex<Recent<Kept>>,
    max_bytes: Option<usize>,
}

/// One conversation of an [`InMemoryConversations`].
#[derive(Debug, Default)]
enum Kept {
    /// Just made: what it holds is set at once.
    #[default]
    New,
    Messages(Vec<Message>),
    /// Grew past the byte cap: forgotten, and refused from then on.
    TooLong {
        bytes: usize,
        limit: usize,
    },
}

impl Default for InMemoryConversations {
    fn default() -> Self {
        InMemoryConversations {
            conversations: Mutex::new(Recent::new(usize::MAX)),
            max_bytes: None,
        }
    }
}

impl InMemoryConversations {
    /// Conversations in memory, at most `conversations` of them (the one used least
    /// recently forgotten past that), each refused once its messages pass `max_bytes` as
    /// JSON ([`StoreError::TooLong`]).
    pub fn bounded(conversations: usize, max_bytes: usize) -> Self {
        InMemoryConversations {
            conversations: Mutex::new(Recent::new(conversations)),
            max_bytes: Some(max_bytes),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Recent<Kept>> {
        self.conversations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Why conversation `id` is refused, if it grew past the byte cap.
    #[cfg_attr(not(feature = "ui"), allow(dead_code))] // the UI endpoints'
    pub(crate) fn refused(&self, id: &str) -> Option<StoreError> {
        refusal(id, self.lock().get(id)?)
    }
}

/// Why conversation `id`, kept as `kept`, is refused, if it is.
fn refusal(id: &str, kept: &Kept) -> Option<StoreError> {
    match kept {
        Kept::TooLong { bytes, limit } => Some(StoreError::TooLong {
            conversation: id.to_owned(),
            bytes: *bytes,
            limit: *limit,
        }),
        Kept::New | Kept::Messages(_) => None,
    }
}

impl ConversationStore for InMemoryConversations {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Vec<Message>>, StoreError>> {
        let found = match self.lock().get(id) {
            Some(Kept::Messages(messages)) => Ok(Some(messages.clone())),
            Some(kept) => refusal(id, kept).map_or(Ok(None), Err),
            None => Ok(None),
        };
        Box::pin(async move { found })
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        messages: &'a [Message],
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let bytes = self.max_bytes.map(|limit| (json_len(messages), limit));
        let kept = match bytes {
            Some((bytes, limit)) if bytes > limit => Kept::TooLong { bytes, limit },
            _ => Kept::Messages(messages.to_vec()),
        };
        *self.lock().used(id).0 = kept;
        Box::pin(async { Ok(()) })
    }
}

/// The length of `value` as JSON, counted without building the text.
pub(crate) fn json_len(value: &(impl serde::Serialize + ?Sized)) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing into a sink that takes everything fails only for a value that cannot be
    // JSON (a map with keys that are not strings), which then counts what was written.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
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

    #[tokio::test]
    async fn a_bounded_store_forgets_the_oldest_and_refuses_a_long_conversation() {
        let store = InMemoryConversations::bounded(2, 200);
        let short = [Message::user("hi")];
        store.save("a", &short).await.unwrap();
        store.save("b", &short).await.unwrap();
        // `a` is written again: `b` is now the least recently used, and goes first.
        store.save("a", &short).await.unwrap();
        store.save("c", &short).await.unwrap();
        assert_eq!(store.get("b").await.unwrap(), None);
        assert_eq!(store.get("a").await.unwrap().as_deref(), Some(&short[..]));
        assert!(store.get("c").await.unwrap().is_some());
        let long = [Message::user("x".repeat(300))];
        store.save("c", &long).await.unwrap();
        let refused = store.get("c").await.unwrap_err();
        let StoreError::TooLong {
            conversation,
            bytes,
            limit,
        } = &refused
        else {
            panic!("{refused:?}");
        };
        assert_eq!((conversation.as_str(), *limit), ("c", 200));
        assert!(*bytes > 300, "{bytes}");
        assert!(refused.to_string().contains("start a new conversation"));
        // The default keeps everything.
        let all = InMemoryConversations::default();
        for i in 0..50 {
            all.save(&i.to_string(), &long).await.unwrap();
        }
        assert!(all.get("0").await.unwrap().is_some());
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

//! The stores' side of the loop's [`Journal`]: each method is one of the engine's
//! statements (or transactions), boxed.

use std::any::{Any, TypeId};
use std::time::Duration;

use futures_util::FutureExt as _;

use crate::agent::conversation::ConversationStore;
use crate::agent::journal::{Answered, Journal, Loaded, Parked, Stored};
use crate::agent::run::RunResult;
use crate::model::message::Message;
use crate::store::RunStore;
use crate::tool::request::Answer;

impl Journal for RunStore {
    fn create<'a>(
        &'a self,
        run: &'a str,
        transcript: &'a [Message],
        token: &'a str,
        lease: Duration,
    ) -> Stored<'a, ()> {
        self.engine().create(run, transcript, token, lease).boxed()
    }

    fn renew<'a>(&'a self, run: &'a str, token: &'a str, lease: Duration) -> Stored<'a, ()> {
        self.engine().renew(run, token, lease).boxed()
    }

    fn checkpoint<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        transcript: &'a [Message],
        at: usize,
        from: usize,
        calls: &'a [&'a str],
    ) -> Stored<'a, ()> {
        self.engine()
            .checkpoint(run, token, transcript, at, from, calls)
            .boxed()
    }

    fn started<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        at: usize,
        call: &'a str,
    ) -> Stored<'a, ()> {
        self.engine().started(run, token, at, call).boxed()
    }

    fn settled<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        at: usize,
        call: &'a str,
        message: &'a Message,
    ) -> Stored<'a, ()> {
        self.engine().settled(run, token, at, call, message).boxed()
    }

    fn finish<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        result: &'a RunResult,
        parked: &'a [Parked<'a>],
    ) -> Stored<'a, ()> {
        self.engine().finish(run, token, result, parked).boxed()
    }

    fn answer<'a>(
        &'a self,
        run: Option<&'a str>,
        answer: &'a Answer,
        token: &'a str,
        lease: Duration,
    ) -> Stored<'a, Answered> {
        async move {
            let (run, loaded, given) = self.engine().answer_in(run, answer, token, lease).await?;
            Ok(Answered::new(run, loaded, given))
        }
        .boxed()
    }

    fn orphans(&self, limit: i64) -> Stored<'_, Vec<String>> {
        self.engine().orphans(limit).boxed()
    }

    fn take_over<'a>(
        &'a self,
        run: &'a str,
        token: &'a str,
        lease: Duration,
    ) -> Stored<'a, Loaded> {
        self.engine().take_over(run, token, lease).boxed()
    }

    fn session_messages<'a>(&'a self, session: &'a str) -> Stored<'a, Vec<Message>> {
        self.engine().session_messages(session).boxed()
    }

    fn session_replace_tail<'a>(
        &'a self,
        session: &'a str,
        keep: usize,
        stored: Option<usize>,
        messages: &'a [Message],
    ) -> Stored<'a, ()> {
        self.engine()
            .session_replace_tail(session, keep, stored, messages)
            .boxed()
    }

    fn session_trim<'a>(&'a self, session: &'a str, keep: usize) -> Stored<'a, ()> {
        self.engine().session_trim(session, keep).boxed()
    }

    fn part(&self, of: TypeId) -> Option<Box<dyn Any + Send>> {
        crate::store::a2a_tasks::part(&self.engine().pool, of)
            .or_else(|| crate::store::handles::part(&self.engine().pool, of))
    }
}

/// The store's sessions as a [`ConversationStore`] (what `Client::ask` keeps
/// conversations in).
impl ConversationStore for RunStore {
    fn get<'a>(&'a self, id: &'a str) -> Stored<'a, Option<Vec<Message>>> {
        async move {
            let messages = self.engine().session_messages(id).await?;
            Ok((!messages.is_empty()).then_some(messages))
        }
        .boxed()
    }

    fn save<'a>(&'a self, id: &'a str, messages: &'a [Message]) -> Stored<'a, ()> {
        self.engine()
            .session_replace_tail(id, 0, Some(0), messages)
            .boxed()
    }
}

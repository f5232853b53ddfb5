//! The contract's conversation conveniences on a [`Client`]: a [`Conversation`] that keeps
//! its transcript between sends, [`Client::conversation_store`], and
//! [`Client::ask_with_text`] (`ask` with the Python port's `on_text`).

use std::sync::Arc;

use crate::agent::client::Client;
use crate::agent::conversation::{ConversationStore, after_run, conversation_of, new_run_id};
use crate::agent::events::Event;
use crate::agent::journal::StoreError;
use crate::agent::run::RunResult;
use crate::model::message::{Message, UserContent};
use crate::tool::kit::Toolkit;

/// A conversation held in memory: each [`send`](Conversation::send) continues the same
/// transcript (the Python port's `client.conversation(toolkit)`). For conversations kept
/// by id in a store, use [`Client::ask`].
///
/// ```
/// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
///
/// let client = Client::new(ScriptedModel::new([Reply::text("Hi, Ada."), Reply::text("Ada.")]));
/// let mut chat = client.conversation(Toolkit::new());
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// rt.block_on(chat.send("I am Ada."));
/// let run = rt.block_on(chat.send("Who am I?"));
/// assert_eq!(run.text, "Ada.");
/// assert_eq!(chat.messages().len(), 4);
/// chat.reset();
/// assert!(chat.messages().is_empty());
/// ```
#[derive(Debug)]
pub struct Conversation {
    client: Client,
    toolkit: Toolkit,
    messages: Vec<Message>,
}

impl Conversation {
    /// Sends the next user turn, the transcript so far as its history, and keeps the
    /// run's transcript (a halted or incomplete run's too) for the next send.
    pub async fn send(&mut self, prompt: impl Into<UserContent>) -> RunResult {
        let run = if self.messages.is_empty() {
            self.client.run(prompt, &self.toolkit).await
        } else {
            let history = self.messages.clone();
            self.client
                .run(prompt, &self.toolkit)
                .history(history)
                .await
        };
        self.messages.clone_from(&run.messages);
        run
    }

    /// The transcript so far (system prompt, user, assistant and tool messages).
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Forgets the transcript: the next send starts a new conversation.
    pub fn reset(&mut self) {
        self.messages.clear();
    }
}

impl Client {
    /// A [`Conversation`] over `toolkit`, which keeps its transcript between sends.
    pub fn conversation(&self, toolkit: Toolkit) -> Conversation {
        Conversation {
            client: self.clone(),
            toolkit,
            messages: Vec::new(),
        }
    }

    /// The store [`ask`](Client::ask) keeps conversations in without a run store: the one
    /// given to [`conversations`](Client::conversations), else the client's in-memory
    /// one. Read and write it to share a conversation with `ask` (the contract's
    /// conversation-store accessor).
    ///
    /// ```
    /// use toolnexus::{Client, Message, Reply, ScriptedModel, Toolkit};
    ///
    /// let client = Client::new(ScriptedModel::new([Reply::text("Hello.")]));
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// rt.block_on(client.ask("chat-1", "Hi", &Toolkit::new())).unwrap();
    /// let kept = rt.block_on(client.conversation_store().get("chat-1")).unwrap().unwrap();
    /// assert_eq!(kept.len(), 2);
    /// ```
    pub fn conversation_store(&self) -> Arc<dyn ConversationStore> {
        Arc::clone(&self.options.conversations)
    }

    /// [`ask`](Client::ask), with each piece of the answer's text given to `on_text` as
    /// the model streams it (the Python port's `ask(…, on_text=…)`); the result is the
    /// same. The model is asked for a streamed turn ([`ModelRequest::on_delta`](crate::model::ModelRequest::on_delta)),
    /// and an event listener the client has still gets every event.
    pub async fn ask_with_text<F>(
        &self,
        id: &str,
        prompt: impl Into<UserContent>,
        toolkit: &Toolkit,
        on_text: F,
    ) -> Result<RunResult, StoreError>
    where
        F: Fn(&str) + Send + Sync + 'static,
    {
        let own = self.tools.listener.clone();
        let client = self.clone().on_event(move |event: &Event<'_>| {
            if let Some(own) = &own {
                own(event);
            }
            if let Event::TextDelta { text, .. } = event {
                on_text(text);
            }
        });
        client.ask(id, prompt, toolkit).await
    }
}

impl Client {
    /// Continues the conversation `id` with `prompt` (the contract's `ask(prompt, {id})`):
    /// its messages so far, then the prompt, run as [`history`](crate::agent::RunRequest::history)
    /// does; the conversation then holds what the run added. The first `ask` of an id
    /// starts it.
    ///
    /// Without a run store the conversation is kept in the client's [`ConversationStore`]
    /// (in memory by default, see [`conversations`](Client::conversations)). With
    /// [`store`](Client::store) it is the store's [session](Client::session) `id`,
    /// and each `ask` a durable run of it (`session:<id>/run_<uuid>`): any process with
    /// the same store continues the same conversation, an answer to a suspension
    /// finishes the run in whichever process gives it, and a run whose worker died is
    /// recovered.
    ///
    /// A run that halts on a suspension keeps its halted turn in the conversation:
    /// [`resume`](Client::resume) (or, with a store, [`answer`](Client::answer)) finishes
    /// it there, and a new `ask` abandons it (each unfinished call gets an explicit
    /// result). With
    /// [`compaction`](Client::compaction) the conversation keeps the compacted transcript
    /// (each run's own record keeps its full one), so a long conversation stays within
    /// the budget from one `ask` to the next.
    ///
    /// ```
    /// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
    ///
    /// let client = Client::new(ScriptedModel::new([Reply::text("Sunny."), Reply::text("Rain.")]));
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// let toolkit = Toolkit::new();
    /// rt.block_on(client.ask("chat-42", "Weather today?", &toolkit)).unwrap();
    /// let run = rt.block_on(client.ask("chat-42", "and tomorrow?", &toolkit)).unwrap();
    /// assert_eq!(run.text, "Rain.");
    /// assert_eq!(run.messages.len(), 4); // both questions, both answers
    /// ```
    pub async fn ask(
        &self,
        id: &str,
        prompt: impl Into<crate::model::message::UserContent>,
        toolkit: &Toolkit,
    ) -> Result<RunResult, StoreError> {
        if self.store.is_some() {
            return Box::pin(self.session(id).run(prompt, toolkit)).await;
        }
        let conversations = &self.options.conversations;
        let before = conversations.get(id).await?.unwrap_or_default();
        let transcript = self.continued(before, prompt, toolkit.skills_prompt());
        let ledger = &self.options.ledger;
        let before = ledger.spent(id);
        let drive = self.drive(transcript, toolkit, None);
        let mut run = crate::agent::spend::SPENT_BEFORE.scope(before, drive).await;
        // Only a cap on a conversation's spend reads it back: without one, nothing is
        // kept per conversation (a server's callers may open any number).
        if self.options.limits.conversation_cost.is_some() {
            ledger.add(id, run.usage.cost.unwrap_or_default());
        }
        run.id = Some(new_run_id(id));
        self.remember(id, &run).await?;
        Ok(run)
    }

    /// Brings conversation `id` up to date with `run`, one of its runs, unless the
    /// conversation moved on since the run began.
    pub(crate) async fn remember(&self, id: &str, run: &RunResult) -> Result<(), StoreError> {
        let conversations = &self.options.conversations;
        let stored = conversations.get(id).await?.unwrap_or_default();
        let working = run.compacted.as_ref().map(|c| c.apply(&run.messages));
        let working = working.as_deref().unwrap_or(&run.messages);
        match after_run(&stored, &run.messages, working) {
            Some(messages) => conversations.save(id, &messages).await,
            None => Ok(()),
        }
    }

    /// After [`resume`](Client::resume): brings the in-memory conversation the run belongs
    /// to (by its id) up to date.
    pub(crate) async fn remember_resumed(&self, run: &RunResult) -> Result<(), StoreError> {
        match run.id.as_deref().and_then(conversation_of) {
            Some(id) => self.remember(id, run).await,
            None => Ok(()),
        }
    }
}

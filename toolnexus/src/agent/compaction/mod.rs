//! [`Compaction`]: a token budget a long run stays under (the contract's §7F). Above the
//! budget, the older part of the transcript is summarized into one system message and a
//! recent tail is kept; the leading system prompt is kept verbatim, and the tail starts
//! at a user turn, so no tool result is ever separated from the call it answers.

mod split;
mod summary;
mod window;

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::model::message::Message;
use crate::model::{Model, ModelError, Usage};

pub use split::{FLUSH_REMINDER, SUMMARY_PREFIX, contract_json, estimate_tokens};
pub(crate) use window::Window;
pub use window::{CONTINUE, Compacted};

/// A closure that writes the summary of the older messages.
type SummaryFn = dyn Fn(&[Message]) -> String + Send + Sync;
/// A token counter over a run of messages.
type CountFn = dyn Fn(&[Message]) -> usize + Send + Sync;

/// Who writes the summary.
#[derive(Clone)]
enum Summarizer {
    /// The model-free digest ([`Compaction::new`]'s default).
    Digest,
    /// A closure.
    Fn(Arc<SummaryFn>),
    /// A model, asked once per compaction.
    Model(Arc<dyn Model>),
}

/// A token budget for the transcript a model is shown, and how to get back under it (the
/// toolnexus contract's §7F, "Context compaction").
///
/// Before each model turn the loop estimates the transcript it is about to send. At or
/// under `max_tokens` nothing happens: the request is byte for byte what it would be with
/// no compaction. Above it, the older messages are summarized and the model is shown
///
/// ```text
/// [leading system prompt (verbatim), summary system message, (reminder), …tail]
/// ```
///
/// where the summary's content starts with [`SUMMARY_PREFIX`] and the tail is the largest
/// run of recent messages that fits [`keep_tail`](Compaction::keep_tail) and starts at a
/// user turn (so no tool result is ever cut off from the call it answers). If no such
/// tail fits, it extends back to the most recent user turn (safety over size); if there is
/// no user turn to start it at (one prompt, then tool turns only), everything after the
/// system prompt is summarized and the tail is empty. This rule is the same whatever
/// provider the run talks to: the transcript is provider-neutral, and a tool result is
/// always its own message.
///
/// The compacted transcript then grows turn by turn, and is compacted again (its summary
/// summarized with what followed) whenever it is over the budget. The run keeps its full
/// transcript ([`RunResult::messages`](crate::RunResult::messages), and the run
/// store's record): only what the model is shown is compacted, and
/// [`RunResult::compacted`](crate::RunResult::compacted) says how.
///
/// ```
/// use toolnexus::{Client, Compaction, Message, ScriptedModel};
///
/// let client = Client::new(ScriptedModel::default()).compaction(
///     Compaction::new(100_000)            // compact above 100k tokens
///         .keep_tail(40_000)              // a recent tail of up to 40k (default: half)
///         .summarize(|older: &[Message]| format!("{} earlier messages", older.len())),
/// );
/// ```
#[derive(Clone)]
pub struct Compaction {
    max_tokens: usize,
    keep_tail: Option<usize>,
    summarizer: Summarizer,
    counter: Option<Arc<CountFn>>,
    flush_to_memory: bool,
}

impl Compaction {
    /// Compaction above `max_tokens` (as [`estimate_tokens`] counts them), keeping half
    /// of that as the tail, with the model-free digest as the summary: the older user
    /// turns and answers (shortened) and the tools called, within 2,000 characters. No
    /// model is called on your behalf unless you give one to
    /// [`summarize_with`](Compaction::summarize_with).
    pub fn new(max_tokens: usize) -> Self {
        Compaction {
            max_tokens,
            keep_tail: None,
            summarizer: Summarizer::Digest,
            counter: None,
            flush_to_memory: false,
        }
    }

    /// The budget of the recent tail kept verbatim (default: half of `max_tokens`): the
    /// largest tail within it that starts at a user turn, or, when none fits, the tail
    /// from the most recent user turn (safety over size).
    #[must_use]
    pub fn keep_tail(mut self, tokens: usize) -> Self {
        self.keep_tail = Some(tokens);
        self
    }

    /// Writes the summary with `summarize`, given the older messages (everything between
    /// the leading system prompt and the tail, an earlier summary included). The
    /// compacted transcript's summary message is [`SUMMARY_PREFIX`] followed by its text.
    #[must_use]
    pub fn summarize<F>(mut self, summarize: F) -> Self
    where
        F: Fn(&[Message]) -> String + Send + Sync + 'static,
    {
        self.summarizer = Summarizer::Fn(Arc::new(summarize));
        self
    }

    /// Has `model` write the summary: it is asked once per compaction, with no tools,
    /// to summarize the older messages (shown to it as text), and the tokens it spends
    /// count in the run's [`Usage`]. A model that fails stops the run
    /// ([`StopReason::Compaction`](crate::agent::StopReason::Compaction)).
    #[must_use]
    pub fn summarize_with(mut self, model: impl Model + 'static) -> Self {
        self.summarizer = Summarizer::Model(crate::model::shared(model));
        self
    }

    /// Replaces the token estimate (default [`estimate_tokens`]) with `count`, given a
    /// run of messages (the whole transcript, or a tail of it).
    #[must_use]
    pub fn count_tokens<F>(mut self, count: F) -> Self
    where
        F: Fn(&[Message]) -> usize + Send + Sync + 'static,
    {
        self.counter = Some(Arc::new(count));
        self
    }

    /// Puts a system reminder ([`FLUSH_REMINDER`]) before the tail of a compacted
    /// transcript, asking the model to save what is worth keeping with its memory tool
    /// (off by default).
    #[must_use]
    pub fn flush_to_memory(mut self, flush: bool) -> Self {
        self.flush_to_memory = flush;
        self
    }

    /// The budget, in tokens.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The budget of the tail kept verbatim.
    pub fn tail_tokens(&self) -> usize {
        self.keep_tail.unwrap_or(self.max_tokens / 2)
    }

    /// The estimate of `messages`, with the counter in use.
    pub fn count(&self, messages: &[Message]) -> usize {
        match &self.counter {
            Some(count) => count(messages),
            None => estimate_tokens(messages),
        }
    }

    /// The contract's compactor, as a pure step: `None` when `transcript` is at or under
    /// the budget (or nothing in it can be summarized), else the compacted transcript.
    /// The loop applies it for you (see [`Client::compaction`](crate::Client::compaction)); this is for a
    /// transcript you hold yourself.
    ///
    /// ```
    /// use toolnexus::{Compaction, Message};
    ///
    /// let compaction = Compaction::new(30).keep_tail(10).summarize(|older| format!("{} messages", older.len()));
    /// let transcript = vec![
    ///     Message::system("You are terse."),
    ///     Message::user("first question, with quite a lot of words in it"),
    ///     Message::assistant("first answer"),
    ///     Message::user("second?"),
    /// ];
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// let compacted = rt.block_on(compaction.compact(&transcript)).unwrap().unwrap();
    /// assert_eq!(compacted[0], transcript[0]);
    /// assert_eq!(compacted[1], Message::system("[Summary of earlier conversation]\n2 messages"));
    /// assert_eq!(compacted[2], Message::user("second?"));
    /// ```
    pub async fn compact(
        &self,
        transcript: &[Message],
    ) -> Result<Option<Vec<Message>>, ModelError> {
        if self.count(transcript) <= self.max_tokens {
            return Ok(None);
        }
        let Some(plan) = self.plan(transcript) else {
            return Ok(None);
        };
        let (summary, _) = self.summary(&transcript[plan.head..plan.split]).await?;
        Ok(Some(self.rebuild(transcript, plan, &summary)))
    }

    /// The contract's compactor over provider-shaped JSON messages (what a host that
    /// keeps its own history holds), in the OpenAI dialect (tool results are `tool`
    /// messages) or the Anthropic one (tool results ride in a `user` message as
    /// `tool_result` blocks, which is then no place to start the tail). Counts with the
    /// default estimate (a [`count_tokens`](Compaction::count_tokens) counter is over
    /// [`Message`]s); `summarize` writes the summary of the older messages.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::Compaction;
    ///
    /// let messages = vec![
    ///     json!({"role": "system", "content": "soul"}),
    ///     json!({"role": "user", "content": format!("q1 {}", "x".repeat(400))}),
    ///     json!({"role": "user", "content": "q2"}),
    ///     json!({"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "echo", "input": {}}]}),
    ///     json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "echoed"}]}),
    ///     json!({"role": "assistant", "content": "done"}),
    /// ];
    /// let compacted = Compaction::new(50).keep_tail(20).compact_json(&messages, |_| "SUMMARY".into()).unwrap();
    /// // The tail starts at `q2`, not at the tool result.
    /// assert_eq!(compacted[2], messages[2]);
    /// ```
    pub fn compact_json(
        &self,
        messages: &[Value],
        summarize: impl FnOnce(&[Value]) -> String,
    ) -> Option<Vec<Value>> {
        let total: usize = messages.iter().map(split::json_tokens).sum();
        if total <= self.max_tokens {
            return None;
        }
        let plan = split::plan_json(messages, self.tail_tokens())?;
        let summary = summarize(&messages[plan.head..plan.split]);
        let mut out = messages[..plan.head].to_vec();
        out.push(split::json_system(format!("{SUMMARY_PREFIX}{summary}")));
        if self.flush_to_memory {
            out.push(split::json_system(FLUSH_REMINDER.to_owned()));
        }
        out.extend_from_slice(&messages[plan.split..]);
        Some(out)
    }

    /// Where `transcript` is split, with the counter in use.
    fn plan(&self, transcript: &[Message]) -> Option<split::Plan> {
        let budget = self.tail_tokens();
        match &self.counter {
            Some(count) => split::plan_messages(transcript, &**count, budget),
            None => {
                // The default estimate adds up message by message: each suffix is a sum.
                let tokens: Vec<usize> = transcript.iter().map(split::message_tokens).collect();
                let sum_from = |messages: &[Message]| -> usize {
                    tokens[transcript.len() - messages.len()..].iter().sum()
                };
                split::plan_messages(transcript, &sum_from, budget)
            }
        }
    }

    /// `transcript` compacted by `plan`, with `summary`.
    fn rebuild(&self, transcript: &[Message], plan: split::Plan, summary: &str) -> Vec<Message> {
        let mut out = Vec::with_capacity(plan.head + 2 + transcript.len() - plan.split);
        out.extend_from_slice(&transcript[..plan.head]);
        out.push(split::summary_message(summary));
        if self.flush_to_memory {
            out.push(Message::system(FLUSH_REMINDER));
        }
        out.extend_from_slice(&transcript[plan.split..]);
        out
    }

    /// The summary of `older`, and what writing it cost.
    async fn summary(&self, older: &[Message]) -> Result<(String, Usage), ModelError> {
        match &self.summarizer {
            Summarizer::Digest => Ok((summary::digest(older), Usage::default())),
            Summarizer::Fn(summarize) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| summarize(older)))
                    .map(|text| (text, Usage::default()))
                    .map_err(|_| ModelError::new("the summarizer panicked"))
            }
            Summarizer::Model(model) => summary::by_model(&**model, older).await,
        }
    }
}

impl fmt::Debug for Compaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let summarizer = match &self.summarizer {
            Summarizer::Digest => "digest",
            Summarizer::Fn(_) => "closure",
            Summarizer::Model(_) => "model",
        };
        f.debug_struct("Compaction")
            .field("max_tokens", &self.max_tokens)
            .field("keep_tail", &self.tail_tokens())
            .field("summarizer", &summarizer)
            .field("count_tokens", &self.counter.as_ref().map(|_| "custom"))
            .field("flush_to_memory", &self.flush_to_memory)
            .finish()
    }
}

//! [`Model`]: whatever answers a transcript with one assistant turn, and two in-process
//! implementations, [`FnModel`] (a closure) and [`ScriptedModel`] (a fixed script, for
//! tests and examples).

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::FutureExt as _;
use serde::{Deserialize, Serialize};

use crate::model::error::ModelError;
use crate::model::message::{Message, NativeTurn, ToolCall};
use crate::model::request::{ModelInfo, ModelRequest};
use crate::model::settings::ModelSettings;
use crate::model::usage::Usage;
use crate::tool::handler::BoxFuture;
use crate::tool::kit::Toolkit;

/// The future a [`Model`] returns for one turn.
pub type ModelFuture<'a> = BoxFuture<'a, Result<Reply, ModelError>>;

/// A language model, as the [`Client`](crate::Client) loop sees it: one assistant turn
/// for a [`ModelRequest`].
///
/// The loop needs only this from a model: given the transcript so far, the toolkit on
/// offer and the settings of the turn, produce one [`Reply`] (text, tool calls or both,
/// and the tokens it cost), or a [`ModelError`]. An HTTP provider fits behind the same
/// trait: it turns the request into a request body, and the response into a `Reply`;
/// `toolnexus::providers` has them (features `openai`, `anthropic`, `gemini`, …).
///
/// The method returns a boxed future so that `dyn Model` works (a client holds any model
/// behind one type). What the loop may want to know about a model (its name, its
/// provider, whether it holds typed output itself) it reads from [`Model::describe`].
///
/// ```
/// use toolnexus::model::{ModelFuture, ModelRequest};
/// use toolnexus::{Message, Model, Reply};
///
/// /// Repeats the last user message.
/// struct Echo;
///
/// impl Model for Echo {
///     fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
///         // Echo has no use for sampling settings: it says so rather than drop them.
///         if let Err(error) = request.refuse_settings() {
///             return Box::pin(async move { Err(error) });
///         }
///         let last = request.transcript.iter().rev().find(|m| m.role() == "user");
///         let text = last.and_then(Message::text).unwrap_or_default().to_owned();
///         Box::pin(async move { Ok(Reply::text(text)) })
///     }
/// }
/// ```
pub trait Model: Send + Sync {
    /// Produces the next assistant turn for `request.transcript`, which may call tools
    /// from `request.toolkit`, with `request.settings` (the client's, see
    /// [`Client::settings`](crate::Client::settings), to be merged over the model's own),
    /// sending each piece of the turn to `request.on_delta` as it arrives when one is
    /// given.
    ///
    /// The [`Reply`] returned at the end is the whole turn, deltas or not; the deltas are
    /// for showing progress, and a model that does not stream sends none. A model that
    /// takes no settings answers a request that has some with an error that names them
    /// ([`ModelRequest::refuse_settings`]), since nothing is silently dropped.
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a>;

    /// What the model says about itself: its name and provider for the spans, the
    /// settings it was given, whether it holds typed output itself. Nothing by default.
    fn describe(&self) -> ModelInfo<'_> {
        ModelInfo::default()
    }
}

impl<M: Model + ?Sized> Model for Arc<M> {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        (**self).complete(request)
    }

    fn describe(&self) -> ModelInfo<'_> {
        (**self).describe()
    }
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        (**self).complete(request)
    }

    fn describe(&self) -> ModelInfo<'_> {
        (**self).describe()
    }
}

/// `model` behind an `Arc<dyn Model>`: an `Arc<dyn Model>` as it is, a `Box<dyn Model>`
/// moved into one, anything else wrapped.
pub(crate) fn shared<M: Model + 'static>(model: M) -> Arc<dyn Model> {
    let mut slot = Some(model);
    let any: &mut dyn std::any::Any = &mut slot;
    if let Some(shared) = any
        .downcast_mut::<Option<Arc<dyn Model>>>()
        .and_then(Option::take)
    {
        return shared;
    }
    if let Some(boxed) = any
        .downcast_mut::<Option<Box<dyn Model>>>()
        .and_then(Option::take)
    {
        return Arc::from(boxed);
    }
    match slot {
        Some(model) => Arc::new(model),
        None => unreachable!("the model was taken only when it was returned"),
    }
}

/// One assistant turn: text, tool calls (in the order the model wants them), and the
/// tokens it cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The turn's text, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The tools the model asks to run. Empty means the turn is the final answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The tokens this turn cost.
    #[serde(default)]
    pub usage: Usage,
    /// Why the model stopped writing, when it says (the HTTP providers always do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// The provider's own form of the turn, when it holds blocks the transcript's shape
    /// has no room for; the loop keeps it on the turn's [`Message::Assistant`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<Box<NativeTurn>>,
    /// The model that wrote the turn, as `provider/model` (`anthropic/claude-sonnet-4-5`)
    /// or the model's name alone when it names no provider. A model made of others
    /// ([`FallbackModel`](crate::model::FallbackModel), [`Router`](crate::model::Router))
    /// sets it to the one that answered; for any other model the loop fills it in from
    /// [`Model::describe`] (its name and provider). `None` when nothing names the
    /// model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's response as it came, for an [after-turn hook](crate::agent::Hooks::after_turn)
    /// to read (logging, cost, tracing): the whole JSON body of a Chat Completions
    /// response; for a streamed one, `{"streamed": true, "usage": …}` with the usage the
    /// stream reported (as the Python port gives its `after_llm` hook). `None` where the
    /// provider keeps none. Not part of the transcript, and not serialized.
    #[serde(skip)]
    pub raw: Option<Box<serde_json::Value>>,
}

/// Why a model ended its turn, in one vocabulary across providers (see
/// [`Reply::finish_reason`]).
///
/// A [`Length`](FinishReason::Length) cut-off or a [`Refusal`](FinishReason::Refusal) is
/// still a turn: its text (possibly cut short, or the refusal's explanation) is the reply's
/// content, and the caller decides what to do with it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// The model finished its answer (OpenAI `stop`, Anthropic `end_turn` or
    /// `stop_sequence`, Gemini `STOP`).
    Stop,
    /// The model asks for tool calls.
    ToolCalls,
    /// The output hit the token limit (OpenAI `length`, Anthropic `max_tokens`, Gemini
    /// `MAX_TOKENS`), or the transcript filled the context window.
    Length,
    /// The model declined to answer (OpenAI's `refusal`, Anthropic `refusal`).
    Refusal,
    /// The provider's safety or content filter stopped the output (OpenAI
    /// `content_filter`, Gemini `SAFETY`, `RECITATION`, `BLOCKLIST`, …).
    ContentFilter,
    /// Another reason, as the provider spelled it.
    Other(String),
}

impl Reply {
    /// A final answer: text and no tool calls.
    pub fn text(content: impl Into<String>) -> Self {
        Reply {
            content: Some(content.into()),
            ..Reply::default()
        }
    }

    /// A turn that asks for these tool calls.
    pub fn calls(tool_calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Reply {
            tool_calls: tool_calls.into_iter().collect(),
            ..Reply::default()
        }
    }

    /// A turn that asks for one tool call with raw JSON text arguments.
    pub fn call(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Reply::calls([ToolCall::new(id, name, arguments)])
    }

    /// Adds a tool call.
    #[must_use]
    pub fn with_call(mut self, call: ToolCall) -> Self {
        self.tool_calls.push(call);
        self
    }

    /// Sets the text beside the tool calls.
    #[must_use]
    pub fn with_content(mut self, content: impl Into<String>) -> Self {
        self.content = Some(content.into());
        self
    }

    /// Sets the token usage.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// Sets why the model ended the turn.
    #[must_use]
    pub fn with_finish_reason(mut self, reason: FinishReason) -> Self {
        self.finish_reason = Some(reason);
        self
    }
}

type TurnFn = dyn Fn(&[Message], &Toolkit) -> ModelFuture<'static> + Send + Sync;

/// A model backed by a closure: an in-process model, a rule-based stand-in, a wrapper
/// around some other client.
///
/// ```
/// use toolnexus::model::FnModel;
/// use toolnexus::{Message, Reply};
///
/// // Async: the closure gets its own copy of the transcript and toolkit.
/// let model = FnModel::new(|transcript: Vec<Message>, _tools| async move {
///     Ok(Reply::text(format!("{} messages so far", transcript.len())))
/// });
///
/// // Sync: borrows them instead.
/// let model = FnModel::new_sync(|transcript, tools| {
///     Ok(Reply::text(format!("{} messages, {} tools", transcript.len(), tools.len())))
/// });
/// ```
pub struct FnModel {
    turn: Box<TurnFn>,
}

impl FnModel {
    /// A model from an async closure. It receives a copy of the transcript and of the
    /// toolkit (tools are reference-counted, so the copy is cheap), which lets the
    /// future it returns own them.
    pub fn new<F, Fut>(f: F) -> Self
    where
        F: Fn(Vec<Message>, Toolkit) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply, ModelError>> + Send + 'static,
    {
        FnModel {
            turn: Box::new(move |transcript, toolkit| {
                f(transcript.to_vec(), toolkit.clone()).boxed()
            }),
        }
    }

    /// A model from a synchronous closure over the borrowed transcript and toolkit.
    pub fn new_sync<F>(f: F) -> Self
    where
        F: Fn(&[Message], &Toolkit) -> Result<Reply, ModelError> + Send + Sync + 'static,
    {
        FnModel {
            turn: Box::new(move |transcript, toolkit| {
                let reply = f(transcript, toolkit);
                async move { reply }.boxed()
            }),
        }
    }
}

impl Model for FnModel {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        if let Err(error) = request.refuse_settings() {
            return Box::pin(async move { Err(error) });
        }
        (self.turn)(request.transcript, request.toolkit)
    }
}

impl fmt::Debug for FnModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnModel(..)")
    }
}

/// A model that plays back a fixed script of replies (and errors), one per turn, and
/// records every transcript it was shown. For tests and examples.
///
/// Past the end of the script every turn is a [`ModelError`] saying so.
///
/// ```
/// use toolnexus::{Reply, ScriptedModel};
///
/// let model = ScriptedModel::new([
///     Reply::call("call_1", "add", r#"{"a": 2, "b": 3}"#),
///     Reply::text("2 + 3 = 5"),
/// ]);
/// assert_eq!(model.remaining(), 2);
/// ```
#[derive(Debug, Default)]
pub struct ScriptedModel {
    script: Mutex<VecDeque<Result<Reply, ModelError>>>,
    played: Mutex<Vec<Vec<Message>>>,
    asked_with: Mutex<Vec<ModelSettings>>,
}

impl ScriptedModel {
    /// A model that answers with `replies`, in order.
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        ScriptedModel {
            script: Mutex::new(replies.into_iter().map(Ok).collect()),
            played: Mutex::default(),
            asked_with: Mutex::default(),
        }
    }

    /// Appends a reply to the script.
    #[must_use]
    pub fn then(self, reply: Reply) -> Self {
        lock(&self.script).push_back(Ok(reply));
        self
    }

    /// Appends a failing turn to the script.
    #[must_use]
    pub fn then_fail(self, error: ModelError) -> Self {
        lock(&self.script).push_back(Err(error));
        self
    }

    /// How many scripted turns are left.
    pub fn remaining(&self) -> usize {
        lock(&self.script).len()
    }

    /// Every transcript the model was shown, one per turn, in order.
    pub fn transcripts(&self) -> Vec<Vec<Message>> {
        lock(&self.played).clone()
    }

    /// The settings each turn was asked with ([`Client::settings`](crate::Client::settings);
    /// empty ones for a turn asked without), one per turn, in order. A script plays the
    /// same replies whatever the settings: it takes them all, so tests can see what a
    /// client sends.
    pub fn asked_with(&self) -> Vec<ModelSettings> {
        lock(&self.asked_with).clone()
    }

    fn play(&self, transcript: &[Message], settings: &ModelSettings) -> ModelFuture<'static> {
        lock(&self.asked_with).push(settings.clone());
        let played = {
            let mut played = lock(&self.played);
            played.push(transcript.to_vec());
            played.len()
        };
        let next = lock(&self.script).pop_front().unwrap_or_else(|| {
            Err(ModelError::new(format!(
                "scripted model: the script has no reply for turn {played}"
            )))
        });
        async move { next }.boxed()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing panics while holding these locks; recover the data if something did.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Model for ScriptedModel {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        self.play(request.transcript, request.settings)
    }
}

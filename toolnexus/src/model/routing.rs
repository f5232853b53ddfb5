//! Models made of other models: [`FallbackModel`] (the next one when one fails) and
//! [`Router`] (a hook picks one per turn). Each says which of its models answered
//! ([`Reply::model`]), and never shows one model the reasoning another one wrote.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use tracing::Instrument as _;
use tracing::field::Empty;

use crate::model::message::Message;
use crate::model::request::{ModelInfo, ModelRequest};
use crate::model::{Model, ModelError, ModelErrorKind, ModelFuture, Reply};

type ErrorFilter = dyn Fn(&ModelError) -> bool + Send + Sync;

/// An ordered list of models, of any providers: each turn goes to the first; when it
/// fails with an error the app chose to fall back on, the same turn goes to the next,
/// and so on. The first answer is the turn's; when the last model fails too (or a model
/// fails with an error not chosen), the turn fails with that error, its message listing
/// the failures before it.
///
/// - **Which errors**: by default the [transient](ModelErrorKind::TRANSIENT) ones (rate
///   limit, overload, timeout, server error, connection). [`on`](FallbackModel::on) picks
///   the [kinds](ModelErrorKind) (add [`Refused`](ModelErrorKind::Refused) to try another
///   model on a request one provider turns down), [`on_error`](FallbackModel::on_error)
///   any rule. Each provider still makes its own retries first
///   ([`Retry`](crate::providers::Retry)); give them fewer to fall back sooner.
/// - **Settings**: each model keeps its own (a provider's `with_settings`); the client's
///   [`settings`](crate::Client::settings), when set, are merged over each in turn.
/// - **Reasoning**: a turn's provider-native form ([`NativeTurn`](crate::model::NativeTurn):
///   encrypted reasoning items, signed thinking blocks, thought signatures) goes back
///   only to the model that wrote it: the others are shown the turn's text and calls
///   alone. (A provider that requires its own reasoning on the last turn of a tool loop,
///   as Anthropic does with thinking on, refuses a turn another model wrote: turn thinking
///   off on a model placed after others, or fall back on [`Refused`](ModelErrorKind::Refused).)
/// - **Which answered**: [`Reply::model`] (so [`RunResult::model`](crate::RunResult::model),
///   the [`ModelTurnFinished`](crate::Event::ModelTurnFinished) event and the `chat`
///   span's `gen_ai.response.model`), as `provider/model`. Each attempt is traced as a
///   `model_attempt` span.
/// - **Streaming**: deltas come from the model being asked; a model that fails before
///   its first delta (as an HTTP error does) leaves no trace in the stream.
///
/// ```
/// use toolnexus::model::{FallbackModel, ModelErrorKind};
/// use toolnexus::{Client, ModelError, Reply, ScriptedModel};
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let busy = ScriptedModel::default()
///     .then_fail(ModelError::new("rate limited").with_kind(ModelErrorKind::RateLimited));
/// let spare = ScriptedModel::new([Reply::text("hello")]);
/// let model = FallbackModel::new(busy).then(spare);
/// let run = Client::new(model).run("hi", &toolnexus::Toolkit::new()).await;
/// assert_eq!(run.text, "hello");
/// # });
/// ```
#[derive(Clone)]
pub struct FallbackModel {
    models: Vec<Arc<dyn Model>>,
    on: Arc<ErrorFilter>,
}

impl FallbackModel {
    /// A fallback list that starts with `first`.
    pub fn new<M: Model + 'static>(first: M) -> Self {
        FallbackModel {
            models: vec![crate::model::seam::shared(first)],
            on: Arc::new(|error: &ModelError| ModelErrorKind::TRANSIENT.contains(&error.kind())),
        }
    }

    /// Adds `model` after the others.
    #[must_use]
    pub fn then<M: Model + 'static>(mut self, model: M) -> Self {
        self.models.push(crate::model::seam::shared(model));
        self
    }

    /// Falls back on errors of these kinds only (replacing the default, the
    /// [transient](ModelErrorKind::TRANSIENT) ones).
    #[must_use]
    pub fn on(mut self, kinds: impl IntoIterator<Item = ModelErrorKind>) -> Self {
        let kinds: Vec<ModelErrorKind> = kinds.into_iter().collect();
        self.on = Arc::new(move |error: &ModelError| kinds.contains(&error.kind()));
        self
    }

    /// Falls back on the errors `rule` says `true` for.
    #[must_use]
    pub fn on_error(mut self, rule: impl Fn(&ModelError) -> bool + Send + Sync + 'static) -> Self {
        self.on = Arc::new(rule);
        self
    }

    /// The models, in the order they are tried.
    pub fn models(&self) -> &[Arc<dyn Model>] {
        &self.models
    }

    async fn turn(&self, request: ModelRequest<'_>) -> Result<Reply, ModelError> {
        let mut failed: Vec<String> = Vec::new();
        let last = self.models.len() - 1;
        for (i, model) in self.models.iter().enumerate() {
            match ask(&**model, i, request).await {
                Ok(reply) => return Ok(reply),
                Err(error) if i < last && (self.on)(&error) => {
                    tracing::warn!(
                        target: "toolnexus",
                        model = model_id(&**model).as_deref().unwrap_or("?"),
                        kind = error.kind().as_str(),
                        "model failed; falling back to the next one: {error}"
                    );
                    failed.push(format!("{}: {error}", name_of(&**model, i)));
                }
                Err(error) if failed.is_empty() => return Err(error),
                Err(error) => {
                    let message = format!(
                        "{error} (after the models before it failed: {})",
                        failed.join("; ")
                    );
                    let mut out = ModelError::new(message).with_kind(error.kind());
                    if let Some(status) = error.status() {
                        out = out.with_status(status);
                    }
                    return Err(out);
                }
            }
        }
        Err(ModelError::new("a fallback model has no models"))
    }
}

impl Model for FallbackModel {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        Box::pin(self.turn(request))
    }

    /// The first model's name, provider and own settings; native output when every
    /// model holds its answer to a schema itself.
    fn describe(&self) -> ModelInfo<'_> {
        let first = self
            .models
            .first()
            .map(|m| m.describe())
            .unwrap_or_default();
        ModelInfo {
            native_output: self.models.iter().all(|m| m.describe().native_output),
            ..first
        }
    }
}

impl fmt::Debug for FallbackModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = (self.models.iter().enumerate())
            .map(|(i, m)| name_of(&**m, i))
            .collect();
        f.debug_struct("FallbackModel")
            .field("models", &names)
            .finish_non_exhaustive()
    }
}

type Route = dyn Fn(&[Message]) -> usize + Send + Sync;

/// Models picked per turn: before each model turn, a hook reads the transcript and says
/// which model (by its position) answers it; a cheap model for the turns that follow
/// tool results, a strong one for the first turn, say. What [`FallbackModel`] says of
/// settings, reasoning, which model answered and streaming holds here too. A hook that
/// names no model fails the turn with an error that says so.
///
/// ```
/// use toolnexus::model::Router;
/// use toolnexus::{Client, Message, Reply, ScriptedModel};
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let strong = ScriptedModel::new([Reply::call("c1", "missing", "{}")]);
/// let cheap = ScriptedModel::new([Reply::text("done")]);
/// // The strong model opens; the cheap one reads tool results.
/// let model = Router::new(|transcript: &[Message]| match transcript.last() {
///     Some(Message::Tool { .. }) => 1,
///     _ => 0,
/// })
/// .with(strong)
/// .with(cheap);
/// let run = Client::new(model).run("go", &toolnexus::Toolkit::new()).await;
/// assert_eq!(run.text, "done");
/// # });
/// ```
#[derive(Clone)]
pub struct Router {
    models: Vec<Arc<dyn Model>>,
    route: Arc<Route>,
}

impl Router {
    /// A router whose hook is `route`; add the models it picks from with
    /// [`with`](Router::with).
    pub fn new(route: impl Fn(&[Message]) -> usize + Send + Sync + 'static) -> Self {
        Router {
            models: Vec::new(),
            route: Arc::new(route),
        }
    }

    /// Adds `model`, at the next position.
    #[must_use]
    pub fn with<M: Model + 'static>(mut self, model: M) -> Self {
        self.models.push(crate::model::seam::shared(model));
        self
    }

    /// The models, by position.
    pub fn models(&self) -> &[Arc<dyn Model>] {
        &self.models
    }

    async fn turn(&self, request: ModelRequest<'_>) -> Result<Reply, ModelError> {
        let i = (self.route)(request.transcript);
        let Some(model) = self.models.get(i) else {
            return Err(ModelError::new(format!(
                "the router picked model {i}, and it has {} (positions 0 to {}); nothing \
                 was sent",
                self.models.len(),
                self.models.len().saturating_sub(1)
            )));
        };
        ask(&**model, i, request).await
    }
}

impl Model for Router {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        Box::pin(self.turn(request))
    }

    /// Native output when every model holds its answer to a schema itself.
    fn describe(&self) -> ModelInfo<'_> {
        ModelInfo::default().with_native_output(
            !self.models.is_empty() && self.models.iter().all(|m| m.describe().native_output),
        )
    }
}

impl fmt::Debug for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = (self.models.iter().enumerate())
            .map(|(i, m)| name_of(&**m, i))
            .collect();
        f.debug_struct("Router")
            .field("models", &names)
            .finish_non_exhaustive()
    }
}

/// A model's identity, `provider/model` (or the model's name alone), when it has one.
pub(crate) fn model_id(model: &dyn Model) -> Option<String> {
    let info = model.describe();
    match (info.provider, info.name) {
        (Some(provider), Some(name)) => Some(format!("{provider}/{name}")),
        (None, Some(name)) => Some(name.to_owned()),
        _ => None,
    }
}

fn name_of(model: &dyn Model, i: usize) -> String {
    model_id(model).unwrap_or_else(|| format!("model {i}"))
}

/// `transcript` as `model` may see it: the native turns it did not write dropped (their
/// text and calls stay). A turn stamped with its writer goes back to that model only;
/// an unstamped one to a model of the provider whose wire format it is in.
pub(crate) fn shown_to<'t>(model: &dyn Model, transcript: &'t [Message]) -> Cow<'t, [Message]> {
    let id = model_id(model);
    let provider = model.describe().provider;
    let foreign = |message: &Message| match message {
        Message::Assistant {
            native: Some(native),
            ..
        } => match &native.model {
            Some(writer) => id.as_deref() != Some(writer.as_str()),
            None => !provider.is_some_and(|p| native.provider.starts_with(p)),
        },
        _ => false,
    };
    if !transcript.iter().any(foreign) {
        return Cow::Borrowed(transcript);
    }
    let mut kept = transcript.to_vec();
    for message in &mut kept {
        if foreign(message)
            && let Message::Assistant { native, .. } = message
        {
            *native = None;
        }
    }
    Cow::Owned(kept)
}

/// One attempt on `model` (position `i`), in its `model_attempt` span: the transcript as
/// it may see it, and the reply stamped with its identity.
async fn ask(model: &dyn Model, i: usize, request: ModelRequest<'_>) -> Result<Reply, ModelError> {
    let id = model_id(model);
    let shown = shown_to(model, request.transcript);
    let info = model.describe();
    let span = if crate::trace::listening() {
        tracing::info_span!(
            target: "toolnexus",
            "model_attempt",
            "gen_ai.provider.name" = info.provider,
            "gen_ai.request.model" = info.name,
            "toolnexus.model.position" = i,
            "error.type" = Empty,
        )
    } else {
        tracing::Span::none()
    };
    let attempt = model.complete(request.with_transcript(&shown));
    let result = attempt.instrument(span.clone()).await;
    match result {
        Ok(mut reply) => {
            if let Some(native) = &mut reply.native {
                native.model = native.model.take().or_else(|| id.clone());
            }
            reply.model = reply.model.or(id);
            Ok(reply)
        }
        Err(error) => {
            span.record("error.type", error.kind().as_str());
            Err(error)
        }
    }
}

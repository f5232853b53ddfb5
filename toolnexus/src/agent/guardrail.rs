//! Guardrails: checks on a run's prompt, its final answer, and each tool call's arguments
//! and result, that pass, rewrite, or trip (stopping the run). See [`Guardrail`].

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tracing::Instrument as _;
use tracing::field::Empty;

use crate::model::Model;
use crate::model::message::{Message, ToolCall};
use crate::model::request::ModelRequest;
use crate::tool::kit::Toolkit;
use crate::tool::result::ToolResult;

/// What a [`Guardrail`] checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Stage {
    /// The prompt: the run's last user message, before the model is asked.
    Input,
    /// The final answer (the text of the turn without tool calls; for a typed run whose
    /// model holds its answer to the schema, its JSON), before the caller, the transcript
    /// or a stream gets it. A typed output given through the output tool is a tool call:
    /// tool-call guardrails see it.
    Output,
    /// A tool call's arguments, before the tool runs.
    ToolCall,
    /// A tool call's result, before the model reads it.
    ToolResult,
}

impl Stage {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Stage::Input => "input",
            Stage::Output => "output",
            Stage::ToolCall => "tool_call",
            Stage::ToolResult => "tool_result",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A guardrail's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Check {
    /// Go on as it is.
    Pass,
    /// Go on with this instead: the prompt's text, the answer's text, the call's
    /// arguments (JSON text), or the result's output text.
    Rewrite(String),
    /// Stop the run, for this reason.
    Trip(String),
}

impl Check {
    /// Trips, for `reason`.
    pub fn trip(reason: impl Into<String>) -> Check {
        Check::Trip(reason.into())
    }

    /// Rewrites what was checked to `text`.
    pub fn rewrite(text: impl Into<String>) -> Check {
        Check::Rewrite(text.into())
    }
}

/// What a guardrail is shown.
pub(crate) enum Subject {
    Text(String),
    Call(ToolCall),
    Result(ToolCall, ToolResult),
}

impl Subject {
    /// The subject as one text, for a model to judge.
    fn describe(&self) -> String {
        match self {
            Subject::Text(text) => text.clone(),
            Subject::Call(call) => {
                format!("Call of the tool `{}` with {}", call.name, call.arguments)
            }
            Subject::Result(call, result) => {
                format!("Result of the tool `{}`: {}", call.name, result.output)
            }
        }
    }
}

type CheckFn = dyn Fn(Subject) -> BoxFuture<'static, Check> + Send + Sync;

/// A check a [`Client`](crate::Client) runs on every run
/// ([`Client::guardrail`](crate::Client::guardrail)): on the prompt
/// ([`input`](Guardrail::input)), the final answer ([`output`](Guardrail::output)), each
/// tool call's arguments ([`tool_call`](Guardrail::tool_call)) or result
/// ([`tool_result`](Guardrail::tool_result)); a plain function, an async one (the
/// `_async` forms), or a model call ([`Guardrail::model`]). Its [`Check`] passes,
/// rewrites what it checked, or trips.
///
/// A trip stops the run: its status is `Incomplete` with [`StopReason::Guardrail`](crate::agent::StopReason::Guardrail)
/// (the guardrail's name, stage and reason), the
/// [`GuardrailTripped`](crate::Event::GuardrailTripped) event says so, and nothing
/// after it runs:
///
/// - an input trip: the model is not asked;
/// - a tool-call trip: none of the turn's calls runs (each is answered `cancelled: …`,
///   so the transcript stays balanced);
/// - a tool-result trip: the model is not asked again, so it never reads the result;
/// - an output trip: the answer is not the run's text, is not added to the transcript,
///   and never reaches a stream. With an output guardrail set, the loop holds back each
///   turn's text deltas until it knows the turn: a turn with tool calls releases them
///   when it ends; a final answer's go out (as one delta) only once every output
///   guardrail passed it (its rewrite, when one rewrote it), and the
///   [`ModelTurnFinished`](crate::Event::ModelTurnFinished) of a tripped answer carries
///   no text.
///
/// Guardrails of a stage run in the order they were added, each on what the one before
/// left; the first trip wins. A guardrail that panics trips (saying so). Each runs in a `guardrail {name}` span
/// (`toolnexus.guardrail.stage`, `toolnexus.guardrail.outcome`: `pass`, `rewrite`,
/// `trip`).
///
/// An input guardrail made [`concurrent`](Guardrail::concurrent) runs alongside the first
/// model turn instead of before it: a trip cancels the turn in flight; a turn that
/// finishes first waits for the verdict (its text held back) before anything comes of
/// it. Its model saw the prompt as it was, so a concurrent guardrail cannot rewrite: a
/// rewrite from one trips, saying so.
///
/// ```
/// use toolnexus::agent::{Check, Guardrail};
/// use toolnexus::{Client, ScriptedModel};
///
/// let client = Client::new(ScriptedModel::default())
///     .guardrail(Guardrail::input("no-secrets", |prompt: &str| {
///         if prompt.contains("password") { Check::trip("asks for a password") } else { Check::Pass }
///     }))
///     .guardrail(Guardrail::output("polite", |text: &str| {
///         Check::rewrite(text.replace("stupid", "unwise"))
///     }))
///     .guardrail(Guardrail::tool_call("no-prod", |call: &toolnexus::ToolCall| {
///         if call.arguments.contains("prod") { Check::trip("production is off limits") } else { Check::Pass }
///     }));
/// ```
#[derive(Clone)]
pub struct Guardrail {
    pub(crate) name: Arc<str>,
    pub(crate) stage: Stage,
    pub(crate) concurrent: bool,
    check: Arc<CheckFn>,
}

impl fmt::Debug for Guardrail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Guardrail")
            .field("name", &self.name)
            .field("stage", &self.stage)
            .field("concurrent", &self.concurrent)
            .finish_non_exhaustive()
    }
}

fn text_of(subject: Subject) -> String {
    match subject {
        Subject::Text(text) => text,
        other => other.describe(),
    }
}

impl Guardrail {
    fn new(name: impl Into<String>, stage: Stage, check: Arc<CheckFn>) -> Guardrail {
        Guardrail {
            name: Arc::from(name.into()),
            stage,
            concurrent: false,
            check,
        }
    }

    /// A check of the prompt.
    pub fn input(
        name: impl Into<String>,
        f: impl Fn(&str) -> Check + Send + Sync + 'static,
    ) -> Guardrail {
        let check = move |s: Subject| std::future::ready(f(&text_of(s))).boxed();
        Guardrail::new(name, Stage::Input, Arc::new(check))
    }

    /// An async check of the prompt.
    pub fn input_async<F, Fut>(name: impl Into<String>, f: F) -> Guardrail
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Check> + Send + 'static,
    {
        let check = move |s: Subject| f(text_of(s)).boxed();
        Guardrail::new(name, Stage::Input, Arc::new(check))
    }

    /// A check of the final answer's text.
    pub fn output(
        name: impl Into<String>,
        f: impl Fn(&str) -> Check + Send + Sync + 'static,
    ) -> Guardrail {
        Guardrail {
            stage: Stage::Output,
            ..Guardrail::input(name, f)
        }
    }

    /// An async check of the final answer's text.
    pub fn output_async<F, Fut>(name: impl Into<String>, f: F) -> Guardrail
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Check> + Send + 'static,
    {
        Guardrail {
            stage: Stage::Output,
            ..Guardrail::input_async(name, f)
        }
    }

    /// A check of each tool call (its rewrite replaces the call's arguments).
    pub fn tool_call(
        name: impl Into<String>,
        f: impl Fn(&ToolCall) -> Check + Send + Sync + 'static,
    ) -> Guardrail {
        let check = move |s: Subject| {
            let verdict = match &s {
                Subject::Call(call) => f(call),
                _ => Check::Pass,
            };
            std::future::ready(verdict).boxed()
        };
        Guardrail::new(name, Stage::ToolCall, Arc::new(check))
    }

    /// An async check of each tool call.
    pub fn tool_call_async<F, Fut>(name: impl Into<String>, f: F) -> Guardrail
    where
        F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Check> + Send + 'static,
    {
        let check = move |s: Subject| match s {
            Subject::Call(call) => f(call).boxed(),
            _ => std::future::ready(Check::Pass).boxed(),
        };
        Guardrail::new(name, Stage::ToolCall, Arc::new(check))
    }

    /// A check of each tool call's result (its rewrite replaces the result's text).
    pub fn tool_result(
        name: impl Into<String>,
        f: impl Fn(&ToolCall, &ToolResult) -> Check + Send + Sync + 'static,
    ) -> Guardrail {
        let check = move |s: Subject| {
            let verdict = match &s {
                Subject::Result(call, result) => f(call, result),
                _ => Check::Pass,
            };
            std::future::ready(verdict).boxed()
        };
        Guardrail::new(name, Stage::ToolResult, Arc::new(check))
    }

    /// An async check of each tool call's result.
    pub fn tool_result_async<F, Fut>(name: impl Into<String>, f: F) -> Guardrail
    where
        F: Fn(ToolCall, ToolResult) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Check> + Send + 'static,
    {
        let check = move |s: Subject| match s {
            Subject::Result(call, result) => f(call, result).boxed(),
            _ => std::future::ready(Check::Pass).boxed(),
        };
        Guardrail::new(name, Stage::ToolResult, Arc::new(check))
    }

    /// A model as the judge, at `stage`: it is asked with `instructions` as the system
    /// message and what is checked as the user message (the text; for a tool call
    /// ``Call of the tool `name` with {arguments}``, for a result
    /// ``Result of the tool `name`: {output}``). An answer starting with `PASS` passes;
    /// one starting with `REWRITE:` rewrites to what follows; any other answer trips,
    /// with the answer as the reason, as does a model that fails.
    pub fn model<M: Model + 'static>(
        name: impl Into<String>,
        stage: Stage,
        model: M,
        instructions: impl Into<String>,
    ) -> Guardrail {
        let model: Arc<dyn Model> = crate::model::shared(model);
        let instructions: Arc<str> = Arc::from(instructions.into());
        let check = move |s: Subject| {
            let model = Arc::clone(&model);
            let transcript = vec![Message::system(&*instructions), Message::user(s.describe())];
            async move {
                let answer = match model
                    .complete(ModelRequest::new(&transcript, &Toolkit::new()))
                    .await
                {
                    Ok(reply) => reply.content.unwrap_or_default(),
                    Err(error) => {
                        return Check::trip(format!("the guardrail's model failed: {error}"));
                    }
                };
                let answer = answer.trim();
                if answer
                    .get(..4)
                    .is_some_and(|w| w.eq_ignore_ascii_case("pass"))
                {
                    Check::Pass
                } else if let Some(text) = answer.strip_prefix("REWRITE:") {
                    Check::rewrite(text.trim())
                } else {
                    Check::trip(answer)
                }
            }
            .boxed()
        };
        Guardrail::new(name, stage, Arc::new(check))
    }

    /// Runs this input guardrail alongside the first model turn (see above). Other
    /// stages ignore it.
    #[must_use]
    pub fn concurrent(mut self) -> Guardrail {
        self.concurrent = true;
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it checks.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// One check, in its span.
    pub(crate) async fn run(&self, subject: Subject) -> Check {
        let span = if crate::trace::listening() {
            let span = tracing::info_span!(
                target: "toolnexus",
                "guardrail",
                otel.name = Empty,
                "toolnexus.guardrail.name" = &*self.name,
                "toolnexus.guardrail.stage" = self.stage.as_str(),
                "toolnexus.guardrail.outcome" = Empty,
            );
            crate::trace::named(span, || format!("guardrail {}", self.name))
        } else {
            tracing::Span::none()
        };
        // A guardrail that panics trips: a check that could not decide lets nothing by.
        let panicked = || Check::trip(format!("the guardrail `{}` panicked", self.name));
        let verdict = match std::panic::catch_unwind(AssertUnwindSafe(|| (self.check)(subject))) {
            Ok(check) => AssertUnwindSafe(check)
                .catch_unwind()
                .instrument(span.clone())
                .await
                .unwrap_or_else(|_| panicked()),
            Err(_) => panicked(),
        };
        let outcome = match &verdict {
            Check::Pass => "pass",
            Check::Rewrite(_) => "rewrite",
            Check::Trip(_) => "trip",
        };
        span.record("toolnexus.guardrail.outcome", outcome);
        verdict
    }
}

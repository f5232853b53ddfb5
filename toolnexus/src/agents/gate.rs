//! The completion gate (the contract's `loop.py`): a run that ends `done` only when a
//! verifier says its work verifies, asked again to fix it otherwise, at most a set number
//! of times, then `incomplete` with the limit `"completion"`.

use std::fmt;
use std::num::NonZeroU32;
use std::sync::Arc;

use serde_json::Value;

use crate::agent::client::Client;
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::model::message::{Message, UserContent};
use crate::tool::kit::Toolkit;

/// What a completion verifier says of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the work verifies.
    pub ok: bool,
    /// Why not, when it does not (what the model is told to fix).
    pub reason: String,
}

impl Verdict {
    /// The work verifies.
    pub fn pass() -> Verdict {
        Verdict {
            ok: true,
            reason: String::new(),
        }
    }

    /// The work does not verify, for `reason`.
    pub fn fail(reason: impl Into<String>) -> Verdict {
        Verdict {
            ok: false,
            reason: reason.into(),
        }
    }
}

type Verify = dyn Fn(&RunResult) -> Verdict + Send + Sync;

/// The gate that stops an agent claiming `done` before its work verifies: `verify`
/// judges each finished run (with the tool calls of every attempt so far), and a run
/// that does not verify is asked to fix it, `max_attempts` runs in all. Set it on an
/// agent with [`Agent::completion`](crate::agents::Agent::completion), or run a client
/// through it with [`run_gated`].
///
/// A bound is required (an unbounded verify loop spends without end), and it is a
/// [`NonZeroU32`], so no gate allows no attempt.
#[derive(Clone)]
pub struct Completion {
    verify: Arc<Verify>,
    max_attempts: NonZeroU32,
}

impl fmt::Debug for Completion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Completion")
            .field("max_attempts", &self.max_attempts)
            .finish_non_exhaustive()
    }
}

impl Completion {
    /// A gate of `verify`, allowing `max_attempts` runs.
    pub fn new<F>(max_attempts: NonZeroU32, verify: F) -> Completion
    where
        F: Fn(&RunResult) -> Verdict + Send + Sync + 'static,
    {
        Completion {
            verify: Arc::new(verify),
            max_attempts,
        }
    }

    /// The gate of [`all_todos_done`], allowing `max_attempts` runs.
    pub fn all_todos_done(max_attempts: NonZeroU32) -> Completion {
        Completion::new(max_attempts, all_todos_done)
    }

    /// The runs it allows.
    pub fn max_attempts(&self) -> NonZeroU32 {
        self.max_attempts
    }
}

/// The built-in verifier: the last `todowrite` call of the run (the built-in's
/// `metadata.todos`) has every item `completed`. A run that wrote no plan has nothing to
/// verify, and passes; so does a plan the call did not record.
pub fn all_todos_done(run: &RunResult) -> Verdict {
    let Some(plan) = run
        .tool_calls
        .iter()
        .rev()
        .find(|record| record.call.name == "todowrite")
    else {
        return Verdict::pass();
    };
    let todos = plan.result.metadata.as_ref().and_then(|m| m.get("todos"));
    let Some(Value::Array(todos)) = todos else {
        return Verdict::pass();
    };
    let open: Vec<String> = todos
        .iter()
        .filter(|todo| !todo.get("completed").is_some_and(truthy))
        .map(|todo| match todo.get("text") {
            Some(Value::String(text)) => text.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => other.to_string(),
        })
        .collect();
    if open.is_empty() {
        return Verdict::pass();
    }
    Verdict::fail(format!(
        "{} item(s) still open: {}",
        open.len(),
        open.join("; ")
    ))
}

/// Python's truth of a JSON value.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Runs `prompt` on `client` through `completion`: each run that ends `done` is
/// verified (its `tool_calls` are those of every attempt so far); one that does not
/// verify is continued with `Your work did not verify: <reason>. Fix it and finish.`
/// After `max_attempts` runs the result is incomplete, its limit `"completion"` and its
/// text `completion.verify failed <n>x: <reason>`. A run that stops for its own reason
/// (a suspension, a budget) is given back as it is: a pending run still owes an answer,
/// and an incomplete one during a retry gets the verification's reason added to its text.
pub async fn run_gated(
    client: &Client,
    prompt: impl Into<UserContent>,
    toolkit: &Toolkit,
    completion: &Completion,
) -> RunResult {
    gated(client, prompt.into(), None, toolkit, completion).await
}

/// A fresh turn of an agent: `prompt` after `history`, through the agent's gate when it
/// has one.
pub(crate) async fn fresh(
    client: &Client,
    prompt: UserContent,
    history: Option<Vec<Message>>,
    toolkit: &Toolkit,
    completion: Option<&Completion>,
) -> RunResult {
    match (completion, history) {
        (Some(completion), history) => gated(client, prompt, history, toolkit, completion).await,
        (None, None) => client.run(prompt, toolkit).await,
        (None, Some(history)) => client.run(prompt, toolkit).history(history).await,
    }
}

async fn gated(
    client: &Client,
    mut prompt: UserContent,
    mut history: Option<Vec<Message>>,
    toolkit: &Toolkit,
    completion: &Completion,
) -> RunResult {
    let mut accumulated = Vec::new();
    let mut reason = String::new();
    let attempts = completion.max_attempts.get();
    let mut attempt = 1;
    loop {
        let request = client.run(prompt, toolkit);
        let mut run = match history.take() {
            Some(history) => request.history(history).await,
            None => request.await,
        };
        accumulated.extend(run.tool_calls.iter().cloned());
        run.tool_calls.clone_from(&accumulated);
        match run.status {
            RunStatus::Done => {}
            RunStatus::Pending => return run,
            _ => {
                if !reason.is_empty() {
                    run.text = format!(
                        "{} [while verifying: attempt {attempt} last failed: {reason}]",
                        run.text
                    );
                }
                return run;
            }
        }
        let verdict = (completion.verify)(&run);
        if verdict.ok {
            return run;
        }
        reason = if verdict.reason.is_empty() {
            "unspecified".to_owned()
        } else {
            verdict.reason
        };
        if attempt == attempts {
            run.text = format!("completion.verify failed {attempts}x: {reason}");
            run.status = RunStatus::Incomplete {
                reason: StopReason::Completion { attempts, reason },
            };
            return run;
        }
        prompt = format!("Your work did not verify: {reason}. Fix it and finish.").into();
        history = Some(run.messages);
        attempt += 1;
    }
}

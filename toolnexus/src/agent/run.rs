//! [`RunResult`]: what a [`Client`](crate::Client) run gives back, and the records in it.

use std::fmt;

use serde::{Deserialize, Serialize};

mod form;

use crate::model::Usage;
use crate::model::message::{Message, ToolCall};
use crate::tool::request::{Answer, Request};
use crate::tool::result::ToolResult;

/// The outcome of a run: its status, the final text, the full transcript, every tool call
/// with its result, how many model turns it took and the tokens they cost.
///
/// The transcript is always balanced except where a run halted: every tool call of every
/// assistant turn has exactly one tool message, and the calls of a halted turn that are
/// not finished are the ones [`resume`](crate::dispatch::resume) completes.
///
/// It is serde-serializable, so a run that halted on a suspension can be written to disk,
/// read back in another process and resumed with
/// [`Client::resume`](crate::Client::resume).
///
/// # JSON form
///
/// The contract's `RunResult`, as the Python port writes it: `status` is the string
/// `"done"`, `"pending"` or `"incomplete"`; `limit` names what stopped an incomplete run
/// (`"maxTurns"`, `"timeout"`, …, see [`StopReason::limit`]) and `reason` holds this
/// crate's whole [`StopReason`]; then `text`, `messages`, `tool_calls` (each
/// `{id, name, args, output, is_error, metadata?, parts?, turn, status, request?,
/// answer?}`, see [`CallRecord`]), `tool_call_count`, `turns`, `usage` (with
/// `total_tokens`), `model`, `pending`, `id`, `compacted`. JSON written by earlier builds
/// (`transcript`, `calls`, the object-shaped `status: {"state": …}`) still loads.
///
/// ```
/// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
///
/// let client = Client::new(ScriptedModel::new([Reply::text("Hello")]));
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let run = rt.block_on(client.run("Hi", &Toolkit::new()));
/// let json = serde_json::to_value(&run).unwrap();
/// assert_eq!(json["status"], "done");
/// assert_eq!(json["tool_call_count"], 0);
/// assert_eq!(json["messages"][1]["content"], "Hello");
/// let back: toolnexus::RunResult = serde_json::from_value(json).unwrap();
/// assert_eq!(back, run);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunResult {
    /// Whether the run finished, halted on a request, or stopped early.
    pub status: RunStatus,
    /// The text of the last assistant turn of this run (the answer, when the run is
    /// done); empty when that turn had no text. When the run is
    /// [pending](RunStatus::Pending), the prompt of the request it halted on.
    pub text: String,
    /// The whole conversation, including any transcript the run continued.
    pub messages: Vec<Message>,
    /// Every tool call this run executed or resolved, turn by turn, in call order.
    pub tool_calls: Vec<CallRecord>,
    /// How many times this run called the model.
    pub turns: u32,
    /// The tokens those turns cost, summed.
    pub usage: Usage,
    /// The request the run halted on, when [`status`](RunResult::status) is
    /// [`RunStatus::Pending`] (or incomplete on [`StopReason::WaitFor`]).
    pub pending: Option<Request>,
    /// The run's id in the run store, for a client
    /// [with a store](crate::Client::store); for a run of a conversation the client
    /// keeps itself ([`Client::ask`](crate::Client::ask) without a store),
    /// `session:<conversation id>/run_<uuid>`, by which [`Client::resume`](crate::Client::resume)
    /// brings the conversation up to date; `None` otherwise.
    pub id: Option<String>,
    /// How the transcript the model is shown was compacted, for a client with
    /// [`compaction`](crate::Client::compaction) whose run went over its budget; `None`
    /// otherwise. [`messages`](RunResult::messages) stay whole:
    /// [`Compacted::apply`](crate::agent::Compacted::apply) gives the compacted one.
    pub compacted: Option<crate::agent::compaction::Compacted>,
    /// The model that answered this run's last model turn: its name as the requests
    /// carried it ([`ModelInfo::name`](crate::model::ModelInfo::name), `gpt-4o-mini`), the
    /// contract's `model` as the Python port reports it; with a
    /// [`FallbackModel`](crate::model::FallbackModel) or a [`Router`](crate::model::Router),
    /// the one of theirs that answered, as `provider/model`. Each turn's `provider/model`
    /// is on its [`ModelTurnFinished`](crate::Event::ModelTurnFinished) event. `None`
    /// before the first turn, or when nothing names the model.
    pub model: Option<String>,
}

impl RunResult {
    /// A run on `messages` that has not called the model yet.
    pub(crate) fn empty(messages: Vec<Message>) -> RunResult {
        RunResult {
            status: RunStatus::Done,
            text: String::new(),
            messages,
            tool_calls: Vec::new(),
            turns: 0,
            usage: Usage::default(),
            pending: None,
            id: None,
            compacted: None,
            model: None,
        }
    }

    /// What a run, resume or answer request that was already started (polled by hand,
    /// then finished again) gives: an incomplete run saying a request runs once.
    pub(crate) fn started_twice() -> RunResult {
        let mut run = RunResult::empty(Vec::new());
        run.status = RunStatus::Incomplete {
            reason: StopReason::ModelError {
                message: "this request was already started: a request runs once".to_owned(),
            },
        };
        run
    }

    /// Whether the model gave its final answer.
    pub fn is_done(&self) -> bool {
        self.status == RunStatus::Done
    }

    /// Whether the run halted on a request (see [`RunResult::pending`]).
    pub fn is_pending(&self) -> bool {
        self.status == RunStatus::Pending
    }

    /// The calls that failed. Suspensions, and their declined or unresolved outcomes,
    /// are not tool errors and are never counted here.
    pub fn tool_errors(&self) -> impl Iterator<Item = &CallRecord> {
        self.tool_calls.iter().filter(|c| c.is_tool_error())
    }

    /// How many tool calls the run made: `tool_calls.len()`, the contract's
    /// `tool_call_count`.
    pub fn tool_call_count(&self) -> usize {
        self.tool_calls.len()
    }

    /// What stopped an [incomplete](RunStatus::Incomplete) run, in the contract's words
    /// (`"maxTurns"`, `"timeout"`, …: [`StopReason::limit`]); `None` for a run that is done
    /// or pending.
    pub fn limit(&self) -> Option<&str> {
        match &self.status {
            RunStatus::Incomplete { reason } => Some(reason.limit()),
            _ => None,
        }
    }
}

/// How a run ended.
///
/// Inside a [`RunResult`]'s JSON it is the contract's string (`"done"`, `"pending"`,
/// `"incomplete"`, see [`RunStatus::as_str`]) with the reason beside it; on its own it
/// keeps the object form earlier builds wrote, `{"state": "incomplete", "reason": {…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStatus {
    /// The model answered without asking for more tools.
    Done,
    /// A tool suspended and no `wait_for` was set: the run halted, with the request in
    /// [`RunResult::pending`] and its prompt in [`RunResult::text`]. Answer it and call
    /// [`Client::resume`](crate::Client::resume).
    Pending,
    /// The run stopped before the model answered. The transcript is balanced (every
    /// call answered) except after [`StopReason::WaitFor`], where the call whose
    /// `wait_for` failed stays parked on [`RunResult::pending`], to resume.
    Incomplete {
        /// What stopped it.
        reason: StopReason,
    },
}

impl RunStatus {
    /// The contract's name of the status: `"done"`, `"pending"` or `"incomplete"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            RunStatus::Done => "done",
            RunStatus::Pending => "pending",
            RunStatus::Incomplete { .. } => "incomplete",
        }
    }
}

/// Why a run stopped before the model answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The model was called `limit` times and still asked for tools.
    MaxTurns {
        /// The limit that was reached.
        limit: u32,
    },
    /// The model failed to produce a turn.
    ModelError {
        /// What it said.
        message: String,
    },
    /// The run's [cancellation token](crate::Client::cancellation) was cancelled. Calls
    /// that had not finished got `cancelled: …` or `unanswered: …` results; pick the run up
    /// with [`Client::run_from`](crate::Client::run_from).
    Cancelled,
    /// The run reached its [deadline](crate::Client::run_timeout) of `limit_ms`
    /// milliseconds. Unfinished calls are answered as for [`StopReason::Cancelled`].
    Deadline {
        /// The deadline, in milliseconds from the start of the run.
        limit_ms: u64,
    },
    /// The [`wait_for`](crate::Client::wait_for) slot failed on the request `request`.
    /// The run halted there: the request is in [`RunResult::pending`], and
    /// [`Client::resume`](crate::Client::resume) continues once it has an answer.
    WaitFor {
        /// The id of the request that could not be answered.
        request: String,
        /// The error `wait_for` gave.
        message: String,
    },
    /// A hook around a model turn panicked.
    Hook {
        /// Which hook, and what it said.
        message: String,
    },
    /// A [before-turn hook](crate::agent::Hooks::before_turn) aborted the run
    /// ([`TurnDecision::Abort`](crate::agent::TurnDecision::Abort)) before the model was
    /// asked.
    Aborted {
        /// The reason the hook gave.
        reason: String,
    },
    /// The [run store](crate::Client::store) refused or failed a write (unreachable,
    /// locked, or the lease was lost to another worker). The last checkpoint stands:
    /// [`Client::recover`](crate::Client::recover) continues from it.
    Store {
        /// What the store said.
        message: String,
    },
    /// The run spent `limit` tokens or more ([`UsageLimits::total_tokens`](crate::agent::UsageLimits::total_tokens));
    /// the model was not asked again.
    TokenLimit {
        /// The cap.
        limit: u64,
    },
    /// The run made `limit` model requests ([`UsageLimits::requests`](crate::agent::UsageLimits::requests)).
    RequestLimit {
        /// The cap.
        limit: u32,
    },
    /// The model asked for more tool calls than `limit` allows
    /// ([`UsageLimits::tool_calls`](crate::agent::UsageLimits::tool_calls)); that turn's
    /// calls were not run (each answered `not run: …`).
    ToolCallLimit {
        /// The cap.
        limit: u32,
    },
    /// The [compaction](crate::Client::compaction)'s summarizer failed, so the transcript
    /// could not be brought under its budget.
    Compaction {
        /// What failed.
        message: String,
    },
    /// The run's next request would have passed a spend cap
    /// ([`UsageLimits::cost`](crate::agent::UsageLimits::cost) for a run,
    /// [`UsageLimits::conversation_cost`](crate::agent::UsageLimits::conversation_cost)
    /// for a conversation): the model was not asked again.
    SpendLimit {
        /// The cap.
        limit: crate::model::cost::Cost,
        /// What the run (or the conversation, run included) had spent.
        spent: crate::model::cost::Cost,
        /// Which cap.
        scope: SpendScope,
    },
    /// A [guardrail](crate::agent::Guardrail) tripped; nothing it guarded ran or was
    /// shown.
    Guardrail {
        /// The guardrail's name.
        name: String,
        /// What it guarded.
        stage: crate::agent::guardrail::Stage,
        /// Why it tripped.
        reason: String,
    },
    /// A [typed run](crate::agent::RunRequest::typed)'s output did not validate, after `retries`
    /// tries to correct it. The run's text is the last output.
    InvalidOutput {
        /// The retries it had.
        retries: u32,
        /// What was wrong with the last output.
        message: String,
    },
    /// The completion gate ([`agents::Completion`](crate::agents::Completion)) judged
    /// the work unfinished `attempts` times; the run's text says why.
    Completion {
        /// The attempts the gate allowed, all used.
        attempts: u32,
        /// What the last verdict said.
        reason: String,
    },
    /// A limit this crate has no variant for, named by another port's `RunResult` (its
    /// `limit`), read from JSON that carries no `reason`.
    Named {
        /// The limit's name.
        limit: String,
    },
}

impl StopReason {
    /// The contract's name for what stopped the run (a `RunResult`'s `limit`):
    /// `"maxTurns"`, `"timeout"` (a deadline), `"cancelled"`, `"modelError"`, `"waitFor"`,
    /// `"hook"`, `"aborted"`, `"store"`, `"totalTokens"`, `"requests"`, `"toolCalls"`, `"compaction"`,
    /// `"cost"`, `"guardrail"`, `"output"`, `"completion"`, or a
    /// [`Named`](StopReason::Named) one.
    pub fn limit(&self) -> &str {
        match self {
            StopReason::MaxTurns { .. } => "maxTurns",
            StopReason::ModelError { .. } => "modelError",
            StopReason::Cancelled => "cancelled",
            StopReason::Deadline { .. } => "timeout",
            StopReason::WaitFor { .. } => "waitFor",
            StopReason::Hook { .. } => "hook",
            StopReason::Aborted { .. } => "aborted",
            StopReason::Store { .. } => "store",
            StopReason::TokenLimit { .. } => "totalTokens",
            StopReason::RequestLimit { .. } => "requests",
            StopReason::ToolCallLimit { .. } => "toolCalls",
            StopReason::Compaction { .. } => "compaction",
            StopReason::SpendLimit { .. } => "cost",
            StopReason::Guardrail { .. } => "guardrail",
            StopReason::InvalidOutput { .. } => "output",
            StopReason::Completion { .. } => "completion",
            StopReason::Named { limit } => limit,
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::MaxTurns { limit } => write!(f, "stopped after {limit} model turns"),
            StopReason::ModelError { message } => write!(f, "model error: {message}"),
            StopReason::Cancelled => f.write_str("the run was cancelled"),
            StopReason::Deadline { limit_ms } => {
                write!(f, "the run reached its deadline of {limit_ms}ms")
            }
            StopReason::WaitFor { request, message } => {
                write!(f, "wait_for failed on request `{request}`: {message}")
            }
            StopReason::Hook { message } => write!(f, "hook failed: {message}"),
            StopReason::Aborted { reason } => {
                write!(f, "a before-turn hook aborted the run: {reason}")
            }
            StopReason::Store { message } => write!(f, "run store failed: {message}"),
            StopReason::TokenLimit { limit } => {
                write!(f, "the run reached its limit of {limit} tokens")
            }
            StopReason::RequestLimit { limit } => {
                write!(f, "the run reached its limit of {limit} model requests")
            }
            StopReason::ToolCallLimit { limit } => {
                write!(f, "the run reached its limit of {limit} tool calls")
            }
            StopReason::Compaction { message } => write!(f, "compaction failed: {message}"),
            StopReason::Guardrail {
                name,
                stage,
                reason,
            } => write!(f, "the {stage} guardrail `{name}` tripped: {reason}"),
            StopReason::SpendLimit {
                limit,
                spent,
                scope,
            } => write!(
                f,
                "the {scope} reached its spend limit of {limit} (spent {spent}; the next \
                 request would pass it)"
            ),
            StopReason::InvalidOutput { retries, message } => write!(
                f,
                "the output did not validate after {retries} retries: {message}"
            ),
            StopReason::Completion { attempts, reason } => {
                write!(f, "completion.verify failed {attempts}x: {reason}")
            }
            StopReason::Named { limit } => write!(f, "the run reached its `{limit}` limit"),
        }
    }
}

/// One tool call of a run: what was asked, what came back, and how a suspension on the
/// way was resolved.
///
/// Its JSON is the contract's flat tool-call record, `{name, args, output, is_error,
/// metadata}` (`args` the parsed arguments; the raw text when they are not JSON), with
/// this crate's `id`, `parts`, `turn`, `status`, `request` and `answer` beside them. The
/// nested form earlier builds wrote (`{turn, call, result, status, …}`) still loads.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallRecord {
    /// The model turn (1-based, within this run) that asked for the call; `0` for a call
    /// of a halted turn finished by a resume.
    pub turn: u32,
    /// The call as the model made it.
    pub call: ToolCall,
    /// The result fed back to the model (for a [`CallStatus::Pending`] call, the
    /// suspension itself).
    pub result: ToolResult,
    /// How the call ended.
    pub status: CallStatus,
    /// The request the call suspended on, if it did.
    pub request: Option<Request>,
    /// The answer the request got, if it got one.
    pub answer: Option<Answer>,
}

impl CallRecord {
    /// Whether the tool failed (an error result, a panic, a timeout, bad arguments, an
    /// unknown tool). A suspension is never a tool error, whatever its outcome.
    pub fn is_tool_error(&self) -> bool {
        self.status == CallStatus::Error
    }
}

/// How one tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallStatus {
    /// The tool succeeded (possibly on the re-run after an answer).
    Ok,
    /// The tool failed (possibly on the re-run after an answer).
    Error,
    /// The tool suspended and the run halted on it.
    Pending,
    /// The tool suspended and the answer declined (or the request expired); the model
    /// got `declined/expired: <prompt>`.
    Declined,
    /// The tool suspended, was answered, and suspended again (or the answer was for
    /// another request); the model got `unresolved: <prompt>`.
    Unresolved,
    /// A [before-tool hook](crate::agent::Hooks::before_tool) denied the call; the model got
    /// `denied: <reason>` and the tool did not run.
    Denied,
    /// The run stopped (cancelled, or past its deadline) before the call finished; the
    /// model will read `cancelled: …` (or `unanswered: <prompt> …` for a suspension).
    Cancelled,
}

/// The arguments' JSON text as a value: the parsed arguments, or the text itself when it
/// is not JSON (so it reads back unchanged).
pub(crate) fn args_value(arguments: &str) -> serde_json::Value {
    serde_json::from_str(arguments)
        .unwrap_or_else(|_| serde_json::Value::String(arguments.to_owned()))
}

/// What a spend cap covers (see [`StopReason::SpendLimit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SpendScope {
    /// One run ([`UsageLimits::cost`](crate::agent::UsageLimits::cost)).
    Run,
    /// A conversation by id, across its runs ([`UsageLimits::conversation_cost`](crate::agent::UsageLimits::conversation_cost)).
    Conversation,
}

impl fmt::Display for SpendScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SpendScope::Run => "run",
            SpendScope::Conversation => "conversation",
        })
    }
}

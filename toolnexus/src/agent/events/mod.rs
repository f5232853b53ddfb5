//! [`Event`]: what a run reports as it happens, for a UI to show progress; borrowed by a
//! listener ([`Client::on_event`](crate::Client::on_event)), owned by a stream
//! ([`RunRequest::stream`](crate::agent::RunRequest::stream)), and the same JSON either way (see
//! [`Event`]'s "JSON form").

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use crate::agent::run::{CallStatus, RunResult};
use crate::model::message::ToolCall;
use crate::model::usage::Usage;
use crate::model::{Delta, Reply};
use crate::tool::caller::{LogLevel, ToolView};
use crate::tool::request::Request;
use crate::tool::result::ToolResult;

mod json;
mod owned;

/// An owned event, as a stream yields it: every field owned ([`Cow::Owned`]), `'static`
/// and `Send`, kept as long as you like.
pub type OwnedEvent = Event<'static>;

/// One thing that happened in a run, sent to the listener set with
/// [`Client::on_event`](crate::Client::on_event) as it happens, or yielded by a
/// [stream](crate::agent::RunRequest::stream).
///
/// Its data fields are [`Cow`]s: a listener gets `&Event<'_>`, whose fields borrow from
/// the run ([`Cow::Borrowed`]; it copies what it keeps, or calls [`Event::owned`]); a
/// stream yields `Event<'static>` ([`OwnedEvent`]), whose fields are owned
/// ([`Cow::Owned`], see [`Event::into_owned`]). Patterns read them the same either way:
/// `Event::TextDelta { text, .. }` gives a `Cow<str>` that dereferences to `str`. `turn` is the model turn (1-based within the run) that asked for a call; `0`
/// for the calls of a halted turn finished by a resume.
///
/// The events of one run come in this order: for each model turn,
/// [`ModelTurnStarted`](Event::ModelTurnStarted), any deltas
/// ([`TextDelta`](Event::TextDelta), [`ReasoningDelta`](Event::ReasoningDelta),
/// [`ToolCallDelta`](Event::ToolCallDelta)) as the model streams them,
/// [`ModelTurnFinished`](Event::ModelTurnFinished) (with the turn's usage) and one
/// [`ToolCall`](Event::ToolCall) per call the turn asks for; then for each
/// call [`ToolCallStarted`](Event::ToolCallStarted) and
/// [`ToolCallFinished`](Event::ToolCallFinished) (interleaved across calls when they run
/// concurrently, but the finishes in call order, as the Python port's `tool_result`
/// events: a call that finishes early is reported once the calls before it have), with
/// [`Pending`](Event::Pending) between them when the call suspends;
/// and, when the model answered, [`Usage`](Event::Usage), then
/// [`RunFinished`](Event::RunFinished) last, exactly once. A running call may report
/// [`Progress`](Event::Progress) and [`Log`](Event::Log) lines, and a
/// [`View`](Event::View), between its start and finish. A stream starts with
/// [`RunStarted`](Event::RunStarted), which listeners do not
/// get.
///
/// # JSON form
///
/// `Event` is `Serialize`, in a form that is a wire contract (it changes only with a new
/// major version; new event types may be added, so a reader skips types it does not
/// know): one object per event, its kind under `"type"`, its fields in `snake_case` beside
/// it. The contract's six stream events come first, in the Python port's shape (its
/// `is_error` where the specification's text says `isError`); the rest are this crate's,
/// which a reader of the contract skips. Values of the crate's own types keep their own
/// serde forms ([`ToolResult`], [`Request`], [`RunResult`], [`Usage`](crate::Usage));
/// `args` is the call's arguments parsed (their raw text when they are not JSON); a `call`
/// is `{"id", "name", "arguments"}` with the model's JSON text.
///
/// | `type` | fields |
/// | --- | --- |
/// | `text` | `delta` (the next piece of the answer), `turn` |
/// | `tool_call` | `id`, `name`, `args`, `turn` |
/// | `tool_result` | `id`, `name`, `output`, `is_error`, `metadata`?, `parts`?, `turn`, `status` (`ok`, `error`, `declined`, …) |
/// | `usage` | `usage` (the run's, summed) |
/// | `pending` | `request`, `turn`, `call` |
/// | `done` | `result` (the [`RunResult`]) |
/// | `run_started` | `run_id`? (the run store's id, when there is one) |
/// | `model_turn_started` | `turn` |
/// | `reasoning_delta` | `turn`, `text` |
/// | `tool_call_delta` | `turn`, `index`, `id`?, `name`?, `arguments` (the next piece) |
/// | `model_turn_finished` | `turn`, `text`?, `tool_calls`, `usage`, `finish_reason`?, `model`? (`provider/model`, the one that answered) |
/// | `tool_call_started` | `turn`, `call` |
/// | `progress` | `call_id`, `done`, `total`?, `message`? |
/// | `log` | `call_id`, `level` (`debug` … `emergency`), `message` |
/// | `view` | `call_id`, `view` (a [`ToolView`]: `uri`, `server`, `tool`, `html`, `ui`, `input`, `result`) |
/// | `agent` | `path` (agent names, outermost first), `event` (the inner event) |
/// | `compacted` | `turn`, `summarized`, `tokens_before`, `tokens_after` |
/// | `guardrail_tripped` | `turn`, `name`, `stage` (`input`, `output`, `tool_call`, `tool_result`), `reason` |
///
/// ```
/// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
/// use futures_util::StreamExt as _;
///
/// let client = Client::new(ScriptedModel::new([Reply::text("Hello")]));
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let events: Vec<_> = rt.block_on(client.run("Hi", &Toolkit::new()).stream().collect());
/// let json = serde_json::to_value(&events[2]).unwrap();
/// assert_eq!(json["type"], "model_turn_finished");
/// assert_eq!(json["text"], "Hello");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A stream began (the first event of every [stream](crate::agent::RunRequest::stream); never
    /// sent to a listener).
    RunStarted {
        /// The run's id in the run store, for a client
        /// [with a store](crate::Client::store).
        run_id: Option<Cow<'a, str>>,
    },
    /// The model is being asked for turn `turn`.
    ModelTurnStarted {
        /// The model turn.
        turn: u32,
    },
    /// More text of the turn, as the model streams it (see
    /// [`ModelRequest::on_delta`](crate::model::ModelRequest::on_delta)); a model that
    /// does not stream sends none.
    TextDelta {
        /// The model turn.
        turn: u32,
        /// The new piece of text.
        text: Cow<'a, str>,
    },
    /// More of the model's reasoning, where the provider shows it (Anthropic's thinking,
    /// OpenAI's and Gemini's reasoning summaries). Not part of the turn's text.
    ReasoningDelta {
        /// The model turn.
        turn: u32,
        /// The new piece of reasoning.
        text: Cow<'a, str>,
    },
    /// More of one tool call's arguments, as the model streams them.
    ToolCallDelta {
        /// The model turn.
        turn: u32,
        /// The call's position in the turn.
        index: usize,
        /// The call's id, on its first delta (when the provider gives it there).
        id: Option<Cow<'a, str>>,
        /// The tool's name, on the call's first delta.
        name: Option<Cow<'a, str>>,
        /// The next piece of the arguments' JSON text.
        arguments: Cow<'a, str>,
    },
    /// The model gave its turn.
    ModelTurnFinished {
        /// The model turn.
        turn: u32,
        /// The whole turn: text, tool calls, usage.
        reply: Cow<'a, Reply>,
    },
    /// The model asked for a tool call: one per call of a model turn, in the model's order,
    /// right after the turn's [`ModelTurnFinished`](Event::ModelTurnFinished) and before any
    /// of them runs, or a hook rewrites, denies or answers it. The contract's `tool_call`.
    ToolCall {
        /// The model turn that asked for the call.
        turn: u32,
        /// The call as the model made it.
        call: Cow<'a, ToolCall>,
    },
    /// A tool call starts running (again, on the re-run after a suspension was answered).
    /// A call a hook denies does not start.
    ToolCallStarted {
        /// The model turn that asked for the call.
        turn: u32,
        /// The call as it runs (after any rewrite by a hook).
        call: Cow<'a, ToolCall>,
    },
    /// A tool call has the result the model will read.
    ToolCallFinished {
        /// The model turn that asked for the call.
        turn: u32,
        /// The call as the model made it.
        call: Cow<'a, ToolCall>,
        /// Its result.
        result: Cow<'a, ToolResult>,
        /// How it ended.
        status: CallStatus,
    },
    /// A tool call suspended and is waiting on `request`: with a
    /// [`wait_for`](crate::Client::wait_for) slot, the loop is asking it; without one, the
    /// run is about to halt (on the first such call in call order). The specification's
    /// `pending` stream event: show the request's prompt (or URL) to whoever answers it.
    Pending {
        /// The model turn that asked for the call.
        turn: u32,
        /// The suspended call.
        call: Cow<'a, ToolCall>,
        /// What it waits on.
        request: Cow<'a, Request>,
    },
    /// A running tool reported progress ([`Context::progress`](crate::Context::progress)),
    /// or a remote tool did, through `McpClient` (feature `mcp`). Comes between
    /// the call's [`ToolCallStarted`](Event::ToolCallStarted) and
    /// [`ToolCallFinished`](Event::ToolCallFinished).
    Progress {
        /// The id of the call reporting (the [`ToolCall::id`] of its `ToolCallStarted`).
        call_id: Cow<'a, str>,
        /// How much is done.
        done: f64,
        /// Of how much, when known.
        total: Option<f64>,
        /// What the tool says about it.
        message: Option<Cow<'a, str>>,
    },
    /// A running tool wrote a log line ([`Context::log`](crate::Context::log)), or a
    /// remote tool did.
    Log {
        /// The id of the call logging.
        call_id: Cow<'a, str>,
        /// The line's severity.
        level: LogLevel,
        /// The line.
        message: Cow<'a, str>,
    },
    /// A tool with an MCP Apps view returned: the view's page, the call's input and its
    /// result in MCP's form, for a page to render in a sandboxed frame (a remote tool
    /// whose listing names a `ui://` view sends it through `McpClient`, feature `mcp`).
    /// Comes between the call's [`ToolCallStarted`](Event::ToolCallStarted) and
    /// [`ToolCallFinished`](Event::ToolCallFinished).
    View {
        /// The id of the call the view shows (the [`ToolCall::id`] of its
        /// `ToolCallStarted`).
        call_id: Cow<'a, str>,
        /// The view, with the server it came from.
        view: Cow<'a, ToolView>,
    },
    /// An event of an agent run as a tool ([`Client::as_tool`](crate::Client::as_tool))
    /// somewhere below this run: `path` names the agents from this run down to the one
    /// the event is from (`["research", "search"]` for an agent two levels down).
    Agent {
        /// The names of the nested agents, outermost first.
        path: Cow<'a, [String]>,
        /// The event, as that agent's run reported it.
        event: Box<Event<'a>>,
    },
    /// The transcript the model is about to be shown for turn `turn` was over the
    /// [compaction](crate::Client::compaction) budget and was compacted: `summarized`
    /// messages became one summary, and the estimate went from `tokens_before` to
    /// `tokens_after`. Comes before that turn's
    /// [`ModelTurnStarted`](Event::ModelTurnStarted).
    Compacted {
        /// The model turn about to be asked.
        turn: u32,
        /// How many messages were summarized.
        summarized: usize,
        /// The estimate before compacting.
        tokens_before: usize,
        /// The estimate of what the model is shown now.
        tokens_after: usize,
    },
    /// A [guardrail](crate::agent::Guardrail) tripped: the run stops there, with
    /// [`StopReason::Guardrail`](crate::agent::StopReason::Guardrail); nothing it guarded runs or
    /// is shown (a tripped output guardrail's text never reaches a stream).
    GuardrailTripped {
        /// The model turn it guarded (0 for the prompt, before the first turn).
        turn: u32,
        /// The guardrail's name.
        name: Cow<'a, str>,
        /// What it guarded.
        stage: crate::agent::guardrail::Stage,
        /// Why it tripped.
        reason: Cow<'a, str>,
    },
    /// The tokens the run spent, summed across its turns: sent once, right before
    /// [`RunFinished`](Event::RunFinished), when the model gave its final answer (a run that
    /// halts or stops early sends none, as in the Python port). The contract's `usage`.
    Usage {
        /// The run's usage, as its [`RunResult::usage`].
        usage: Usage,
    },
    /// The run ended, in any status; the last event of the run.
    RunFinished {
        /// The whole result, as the run returns it.
        run: Cow<'a, RunResult>,
    },
}

impl<'d> Event<'d> {
    /// The event of a piece of model turn `turn`, borrowing from it.
    pub(crate) fn of_delta(turn: u32, delta: &'d Delta) -> Self {
        match delta {
            Delta::Text(text) => Event::TextDelta {
                turn,
                text: Cow::Borrowed(text),
            },
            Delta::Reasoning(text) => Event::ReasoningDelta {
                turn,
                text: Cow::Borrowed(text),
            },
            Delta::ToolCall {
                index,
                id,
                name,
                arguments,
            } => Event::ToolCallDelta {
                turn,
                index: *index,
                id: id.as_deref().map(Cow::Borrowed),
                name: name.as_deref().map(Cow::Borrowed),
                arguments: Cow::Borrowed(arguments),
            },
        }
    }
}

/// The listener of a client's events.
pub(crate) type Listener = dyn Fn(&Event<'_>) + Send + Sync;

/// Where a run sends its events: nowhere, or one listener.
#[derive(Clone, Copy)]
pub(crate) struct Events<'l>(pub(crate) Option<&'l Listener>);

impl Events<'_> {
    pub(crate) fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Sends `event`; a listener that panics is reported and ignored.
    pub(crate) fn emit(&self, event: Event<'_>) {
        if let Some(listener) = self.0
            && std::panic::catch_unwind(AssertUnwindSafe(|| listener(&event))).is_err()
        {
            tracing::warn!("an event listener panicked; the run goes on");
        }
    }
}

/// A listener from a client's options.
pub(crate) fn events(listener: &Option<Arc<Listener>>) -> Events<'_> {
    Events(listener.as_deref())
}

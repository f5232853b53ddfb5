//! [`Event`]: what a run reports as it happens, for a UI to show progress.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use crate::agent::message::ToolCall;
use crate::agent::model::Reply;
use crate::agent::run::{CallStatus, RunResult};
use crate::tool::caller::LogLevel;
use crate::tool::request::Request;
use crate::tool::result::ToolResult;

/// One thing that happened in a run, sent to the listener set with
/// [`Client::on_event`](crate::Client::on_event) as it happens.
///
/// Events borrow from the run; a listener copies what it keeps (or sends it on a
/// channel). `turn` is the model turn (1-based within the run) that asked for a call;
/// `0` for the calls of a halted turn finished by a resume.
///
/// The events of one run come in this order: for each model turn,
/// [`ModelTurnStarted`](Event::ModelTurnStarted), any
/// [`TextDelta`](Event::TextDelta)s, [`ModelTurnFinished`](Event::ModelTurnFinished);
/// then for each call [`ToolCallStarted`](Event::ToolCallStarted) and
/// [`ToolCallFinished`](Event::ToolCallFinished) (interleaved across calls when they run
/// concurrently), with [`Pending`](Event::Pending) between them when the call suspends;
/// and [`RunFinished`](Event::RunFinished) last, exactly once. A running call may report
/// [`Progress`](Event::Progress) and [`Log`](Event::Log) lines between its start and
/// finish.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The model is being asked for turn `turn`.
    ModelTurnStarted {
        /// The model turn.
        turn: u32,
    },
    /// More text of the turn, as the model streams it (see
    /// [`Model::complete_streaming`](crate::Model::complete_streaming)); a model that
    /// does not stream sends none.
    TextDelta {
        /// The model turn.
        turn: u32,
        /// The new piece of text.
        text: &'a str,
    },
    /// The model gave its turn.
    ModelTurnFinished {
        /// The model turn.
        turn: u32,
        /// The whole turn: text, tool calls, usage.
        reply: &'a Reply,
    },
    /// A tool call starts running (again, on the re-run after a suspension was answered).
    /// A call a hook denies does not start.
    ToolCallStarted {
        /// The model turn that asked for the call.
        turn: u32,
        /// The call as it runs (after any rewrite by a hook).
        call: &'a ToolCall,
    },
    /// A tool call has the result the model will read.
    ToolCallFinished {
        /// The model turn that asked for the call.
        turn: u32,
        /// The call as the model made it.
        call: &'a ToolCall,
        /// Its result.
        result: &'a ToolResult,
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
        call: &'a ToolCall,
        /// What it waits on.
        request: &'a Request,
    },
    /// A running tool reported progress ([`Context::progress`](crate::Context::progress)),
    /// or a remote tool did, through `McpClient` (feature `mcp`). Comes between
    /// the call's [`ToolCallStarted`](Event::ToolCallStarted) and
    /// [`ToolCallFinished`](Event::ToolCallFinished).
    Progress {
        /// The id of the call reporting (the [`ToolCall::id`] of its `ToolCallStarted`).
        call_id: &'a str,
        /// How much is done.
        done: f64,
        /// Of how much, when known.
        total: Option<f64>,
        /// What the tool says about it.
        message: Option<&'a str>,
    },
    /// A running tool wrote a log line ([`Context::log`](crate::Context::log)), or a
    /// remote tool did.
    Log {
        /// The id of the call logging.
        call_id: &'a str,
        /// The line's severity.
        level: LogLevel,
        /// The line.
        message: &'a str,
    },
    /// An event of an agent run as a tool ([`Client::as_tool`](crate::Client::as_tool))
    /// somewhere below this run: `path` names the agents from this run down to the one
    /// the event is from (`["research", "search"]` for an agent two levels down).
    Agent {
        /// The names of the nested agents, outermost first.
        path: &'a [String],
        /// The event, as that agent's run reported it.
        event: &'a Event<'a>,
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
    /// The run ended, in any status; the last event of the run.
    RunFinished {
        /// The whole result, as the run returns it.
        run: &'a RunResult,
    },
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

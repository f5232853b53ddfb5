//! An [`Event`]'s JSON form (its `Serialize`, a wire contract: see [`Event`]).

use std::fmt;

use serde::Serialize;

use crate::agent::events::Event;
use crate::agent::run::{CallStatus, RunResult};
use serde_json::{Map, Value};

use crate::agent::run::args_value;
use crate::model::message::ToolCall;
use crate::model::usage::Usage;
use crate::tool::caller::{LogLevel, ToolView};
use crate::tool::content::ContentPart;
use crate::tool::request::Request;

impl Event<'_> {
    /// The event's `type` in its [JSON form](Event#json-form): `"text"`, `"tool_call"`, …
    pub fn kind(&self) -> &'static str {
        match self {
            Event::RunStarted { .. } => "run_started",
            Event::ModelTurnStarted { .. } => "model_turn_started",
            Event::TextDelta { .. } => "text",
            Event::ReasoningDelta { .. } => "reasoning_delta",
            Event::ToolCallDelta { .. } => "tool_call_delta",
            Event::ModelTurnFinished { .. } => "model_turn_finished",
            Event::ToolCall { .. } => "tool_call",
            Event::ToolCallStarted { .. } => "tool_call_started",
            Event::ToolCallFinished { .. } => "tool_result",
            Event::Pending { .. } => "pending",
            Event::Progress { .. } => "progress",
            Event::Log { .. } => "log",
            Event::View { .. } => "view",
            Event::Agent { .. } => "agent",
            Event::Compacted { .. } => "compacted",
            Event::GuardrailTripped { .. } => "guardrail_tripped",
            Event::Usage { .. } => "usage",
            Event::RunFinished { .. } => "done",
        }
    }

    fn wire(&self) -> Wire<'_> {
        match self {
            Event::RunStarted { run_id } => Wire::RunStarted {
                run_id: run_id.as_deref(),
            },
            Event::ModelTurnStarted { turn } => Wire::ModelTurnStarted { turn: *turn },
            Event::TextDelta { turn, text } => Wire::Text {
                delta: text,
                turn: *turn,
            },
            Event::ReasoningDelta { turn, text } => Wire::ReasoningDelta { turn: *turn, text },
            Event::ToolCallDelta {
                turn,
                index,
                id,
                name,
                arguments,
            } => Wire::ToolCallDelta {
                turn: *turn,
                index: *index,
                id: id.as_deref(),
                name: name.as_deref(),
                arguments,
            },
            Event::ModelTurnFinished { turn, reply } => Wire::ModelTurnFinished {
                turn: *turn,
                text: reply.content.as_deref(),
                tool_calls: reply.tool_calls.iter().map(wire_call).collect(),
                usage: &reply.usage,
                finish_reason: reply.finish_reason.as_ref(),
                model: reply.model.as_deref(),
            },
            Event::ToolCall { turn, call: c } => Wire::ToolCall {
                id: &c.id,
                name: &c.name,
                args: args_value(&c.arguments),
                turn: *turn,
            },
            Event::ToolCallStarted { turn, call: c } => Wire::ToolCallStarted {
                turn: *turn,
                call: wire_call(c),
            },
            Event::ToolCallFinished {
                turn,
                call: c,
                result,
                status,
            } => Wire::ToolResult {
                id: &c.id,
                name: &c.name,
                output: &result.output,
                is_error: result.is_error,
                metadata: result.metadata.as_ref(),
                parts: result.parts.as_deref(),
                turn: *turn,
                status: *status,
            },
            Event::Pending {
                turn,
                call: c,
                request,
            } => Wire::Pending {
                request,
                turn: *turn,
                call: wire_call(c),
            },
            Event::Progress {
                call_id,
                done,
                total,
                message,
            } => Wire::Progress {
                call_id,
                done: *done,
                total: *total,
                message: message.as_deref(),
            },
            Event::Log {
                call_id,
                level,
                message,
            } => Wire::Log {
                call_id,
                level: *level,
                message,
            },
            Event::View { call_id, view } => Wire::View { call_id, view },
            Event::Agent { path, event } => Wire::Agent { path, event },
            Event::Compacted {
                turn,
                summarized,
                tokens_before,
                tokens_after,
            } => Wire::Compacted {
                turn: *turn,
                summarized: *summarized,
                tokens_before: *tokens_before,
                tokens_after: *tokens_after,
            },
            Event::GuardrailTripped {
                turn,
                name,
                stage,
                reason,
            } => Wire::GuardrailTripped {
                turn: *turn,
                name,
                stage: *stage,
                reason,
            },
            Event::Usage { usage } => Wire::Usage { usage },
            Event::RunFinished { run } => Wire::Done { result: run },
        }
    }
}

fn wire_call(call: &ToolCall) -> WireCall<'_> {
    WireCall {
        id: &call.id,
        name: &call.name,
        arguments: &call.arguments,
    }
}

impl Serialize for Event<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.wire().serialize(serializer)
    }
}

impl fmt::Display for Event<'_> {
    /// The event's [JSON form](Event#json-form).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&json)
    }
}

/// A tool call in the JSON form.
#[derive(Serialize)]
struct WireCall<'w> {
    id: &'w str,
    name: &'w str,
    arguments: &'w str,
}

/// The JSON form of an event (see [`Event`]).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Wire<'w> {
    RunStarted {
        #[serde(skip_serializing_if = "Option::is_none")]
        run_id: Option<&'w str>,
    },
    ModelTurnStarted {
        turn: u32,
    },
    Text {
        delta: &'w str,
        turn: u32,
    },
    ReasoningDelta {
        turn: u32,
        text: &'w str,
    },
    ToolCallDelta {
        turn: u32,
        index: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<&'w str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<&'w str>,
        arguments: &'w str,
    },
    ModelTurnFinished {
        turn: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<&'w str>,
        tool_calls: Vec<WireCall<'w>>,
        usage: &'w crate::model::usage::Usage,
        #[serde(skip_serializing_if = "Option::is_none")]
        finish_reason: Option<&'w crate::model::FinishReason>,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<&'w str>,
    },
    ToolCall {
        id: &'w str,
        name: &'w str,
        args: Value,
        turn: u32,
    },
    ToolCallStarted {
        turn: u32,
        call: WireCall<'w>,
    },
    ToolResult {
        id: &'w str,
        name: &'w str,
        output: &'w str,
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<&'w Map<String, Value>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        parts: Option<&'w [ContentPart]>,
        turn: u32,
        status: CallStatus,
    },
    Pending {
        request: &'w Request,
        turn: u32,
        call: WireCall<'w>,
    },
    Progress {
        call_id: &'w str,
        done: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<&'w str>,
    },
    Log {
        call_id: &'w str,
        level: LogLevel,
        message: &'w str,
    },
    View {
        call_id: &'w str,
        view: &'w ToolView,
    },
    Agent {
        path: &'w [String],
        event: &'w Event<'w>,
    },
    Compacted {
        turn: u32,
        summarized: usize,
        tokens_before: usize,
        tokens_after: usize,
    },
    GuardrailTripped {
        turn: u32,
        name: &'w str,
        stage: crate::agent::guardrail::Stage,
        reason: &'w str,
    },
    Usage {
        usage: &'w Usage,
    },
    Done {
        result: &'w RunResult,
    },
}

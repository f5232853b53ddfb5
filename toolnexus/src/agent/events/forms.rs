//! The two forms of an [`Event`]: copying a borrowed one out ([`Event::owned`]),
//! shortening its borrow, and cloning either.

use crate::agent::events::{Borrowed, Event, Owned, OwnedEvent};

fn boxed(text: &str) -> Box<str> {
    Box::from(text)
}

impl Event<'_, Borrowed> {
    /// This event with its data copied out of the run: what a stream yields.
    pub fn owned(&self) -> OwnedEvent {
        match *self {
            Event::RunStarted { run_id } => Event::RunStarted {
                run_id: run_id.map(boxed),
            },
            Event::ModelTurnStarted { turn } => Event::ModelTurnStarted { turn },
            Event::TextDelta { turn, text } => Event::TextDelta {
                turn,
                text: boxed(text),
            },
            Event::ReasoningDelta { turn, text } => Event::ReasoningDelta {
                turn,
                text: boxed(text),
            },
            Event::ToolCallDelta {
                turn,
                index,
                id,
                name,
                arguments,
            } => Event::ToolCallDelta {
                turn,
                index,
                id: id.map(boxed),
                name: name.map(boxed),
                arguments: boxed(arguments),
            },
            Event::ModelTurnFinished { turn, reply } => Event::ModelTurnFinished {
                turn,
                reply: Box::new(reply.clone()),
            },
            Event::ToolCall { turn, call } => Event::ToolCall {
                turn,
                call: Box::new(call.clone()),
            },
            Event::Usage { usage } => Event::Usage { usage },
            Event::ToolCallStarted { turn, call } => Event::ToolCallStarted {
                turn,
                call: Box::new(call.clone()),
            },
            Event::ToolCallFinished {
                turn,
                call,
                result,
                status,
            } => Event::ToolCallFinished {
                turn,
                call: Box::new(call.clone()),
                result: Box::new(result.clone()),
                status,
            },
            Event::Pending {
                turn,
                call,
                request,
            } => Event::Pending {
                turn,
                call: Box::new(call.clone()),
                request: Box::new(request.clone()),
            },
            Event::Progress {
                call_id,
                done,
                total,
                message,
            } => Event::Progress {
                call_id: boxed(call_id),
                done,
                total,
                message: message.map(boxed),
            },
            Event::Log {
                call_id,
                level,
                message,
            } => Event::Log {
                call_id: boxed(call_id),
                level,
                message: boxed(message),
            },
            Event::View { call_id, view } => Event::View {
                call_id: boxed(call_id),
                view: Box::new(view.clone()),
            },
            Event::Agent { path, event } => Event::Agent {
                path: path.into(),
                event: Box::new(event.owned()),
            },
            Event::Compacted {
                turn,
                summarized,
                tokens_before,
                tokens_after,
            } => Event::Compacted {
                turn,
                summarized,
                tokens_before,
                tokens_after,
            },
            Event::GuardrailTripped {
                turn,
                name,
                stage,
                reason,
            } => Event::GuardrailTripped {
                turn,
                name: boxed(name),
                stage,
                reason: boxed(reason),
            },
            Event::RunFinished { run } => Event::RunFinished {
                run: Box::new(run.clone()),
            },
        }
    }
}

impl<'a> Event<'a, Borrowed> {
    /// This event with its fields borrowed for `'s` only (what covariance would give, had
    /// the type it: its fields are projections, which are invariant). `None` for
    /// [`Event::Agent`], whose inner event cannot be re-borrowed in place.
    pub(crate) fn reborrowed<'s>(&'s self) -> Option<Event<'s, Borrowed>> {
        Some(match *self {
            Event::RunStarted { run_id } => Event::RunStarted { run_id },
            Event::ModelTurnStarted { turn } => Event::ModelTurnStarted { turn },
            Event::TextDelta { turn, text } => Event::TextDelta { turn, text },
            Event::ReasoningDelta { turn, text } => Event::ReasoningDelta { turn, text },
            Event::ToolCallDelta {
                turn,
                index,
                id,
                name,
                arguments,
            } => Event::ToolCallDelta {
                turn,
                index,
                id,
                name,
                arguments,
            },
            Event::ModelTurnFinished { turn, reply } => Event::ModelTurnFinished { turn, reply },
            Event::ToolCall { turn, call } => Event::ToolCall { turn, call },
            Event::Usage { usage } => Event::Usage { usage },
            Event::ToolCallStarted { turn, call } => Event::ToolCallStarted { turn, call },
            Event::ToolCallFinished {
                turn,
                call,
                result,
                status,
            } => Event::ToolCallFinished {
                turn,
                call,
                result,
                status,
            },
            Event::Pending {
                turn,
                call,
                request,
            } => Event::Pending {
                turn,
                call,
                request,
            },
            Event::Progress {
                call_id,
                done,
                total,
                message,
            } => Event::Progress {
                call_id,
                done,
                total,
                message,
            },
            Event::Log {
                call_id,
                level,
                message,
            } => Event::Log {
                call_id,
                level,
                message,
            },
            Event::View { call_id, view } => Event::View { call_id, view },
            Event::Agent { .. } => return None,
            Event::Compacted {
                turn,
                summarized,
                tokens_before,
                tokens_after,
            } => Event::Compacted {
                turn,
                summarized,
                tokens_before,
                tokens_after,
            },
            Event::GuardrailTripped {
                turn,
                name,
                stage,
                reason,
            } => Event::GuardrailTripped {
                turn,
                name,
                stage,
                reason,
            },
            Event::RunFinished { run } => Event::RunFinished { run },
        })
    }
}

impl Clone for Event<'_, Borrowed> {
    fn clone(&self) -> Self {
        *self
    }
}

impl Copy for Event<'_, Borrowed> {}

impl Clone for Event<'_, Owned> {
    fn clone(&self) -> Self {
        match self {
            Event::RunStarted { run_id } => Event::RunStarted {
                run_id: run_id.clone(),
            },
            Event::ModelTurnStarted { turn } => Event::ModelTurnStarted { turn: *turn },
            Event::TextDelta { turn, text } => Event::TextDelta {
                turn: *turn,
                text: text.clone(),
            },
            Event::ReasoningDelta { turn, text } => Event::ReasoningDelta {
                turn: *turn,
                text: text.clone(),
            },
            Event::ToolCallDelta {
                turn,
                index,
                id,
                name,
                arguments,
            } => Event::ToolCallDelta {
                turn: *turn,
                index: *index,
                id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            },
            Event::ModelTurnFinished { turn, reply } => Event::ModelTurnFinished {
                turn: *turn,
                reply: reply.clone(),
            },
            Event::ToolCall { turn, call } => Event::ToolCall {
                turn: *turn,
                call: call.clone(),
            },
            Event::Usage { usage } => Event::Usage { usage: *usage },
            Event::ToolCallStarted { turn, call } => Event::ToolCallStarted {
                turn: *turn,
                call: call.clone(),
            },
            Event::ToolCallFinished {
                turn,
                call,
                result,
                status,
            } => Event::ToolCallFinished {
                turn: *turn,
                call: call.clone(),
                result: result.clone(),
                status: *status,
            },
            Event::Pending {
                turn,
                call,
                request,
            } => Event::Pending {
                turn: *turn,
                call: call.clone(),
                request: request.clone(),
            },
            Event::Progress {
                call_id,
                done,
                total,
                message,
            } => Event::Progress {
                call_id: call_id.clone(),
                done: *done,
                total: *total,
                message: message.clone(),
            },
            Event::Log {
                call_id,
                level,
                message,
            } => Event::Log {
                call_id: call_id.clone(),
                level: *level,
                message: message.clone(),
            },
            Event::View { call_id, view } => Event::View {
                call_id: call_id.clone(),
                view: view.clone(),
            },
            Event::Agent { path, event } => Event::Agent {
                path: path.clone(),
                event: Box::new(Event::clone(event)),
            },
            Event::Compacted {
                turn,
                summarized,
                tokens_before,
                tokens_after,
            } => Event::Compacted {
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
            } => Event::GuardrailTripped {
                turn: *turn,
                name: name.clone(),
                stage: *stage,
                reason: reason.clone(),
            },
            Event::RunFinished { run } => Event::RunFinished { run: run.clone() },
        }
    }
}

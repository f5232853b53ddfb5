//! Copying an [`Event`] out of the run: [`Event::into_owned`] and [`Event::owned`].

use std::borrow::Cow;

use crate::agent::events::{Event, OwnedEvent};

/// `field`'s data, owned: a borrowed one is copied, an owned one moved.
fn own<T: ?Sized + ToOwned>(field: Cow<'_, T>) -> Cow<'static, T> {
    Cow::Owned(field.into_owned())
}

impl Event<'_> {
    /// This event with every field owned: what a stream yields. Fields the event already
    /// owns are moved, borrowed ones copied.
    pub fn into_owned(self) -> OwnedEvent {
        match self {
            Event::RunStarted { run_id } => Event::RunStarted {
                run_id: run_id.map(own),
            },
            Event::ModelTurnStarted { turn } => Event::ModelTurnStarted { turn },
            Event::TextDelta { turn, text } => Event::TextDelta {
                turn,
                text: own(text),
            },
            Event::ReasoningDelta { turn, text } => Event::ReasoningDelta {
                turn,
                text: own(text),
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
                id: id.map(own),
                name: name.map(own),
                arguments: own(arguments),
            },
            Event::ModelTurnFinished { turn, reply } => Event::ModelTurnFinished {
                turn,
                reply: own(reply),
            },
            Event::ToolCall { turn, call } => Event::ToolCall {
                turn,
                call: own(call),
            },
            Event::ToolCallStarted { turn, call } => Event::ToolCallStarted {
                turn,
                call: own(call),
            },
            Event::ToolCallFinished {
                turn,
                call,
                result,
                status,
            } => Event::ToolCallFinished {
                turn,
                call: own(call),
                result: own(result),
                status,
            },
            Event::Pending {
                turn,
                call,
                request,
            } => Event::Pending {
                turn,
                call: own(call),
                request: own(request),
            },
            Event::Progress {
                call_id,
                done,
                total,
                message,
            } => Event::Progress {
                call_id: own(call_id),
                done,
                total,
                message: message.map(own),
            },
            Event::Log {
                call_id,
                level,
                message,
            } => Event::Log {
                call_id: own(call_id),
                level,
                message: own(message),
            },
            Event::View { call_id, view } => Event::View {
                call_id: own(call_id),
                view: own(view),
            },
            Event::Agent { path, event } => Event::Agent {
                path: own(path),
                event: Box::new((*event).into_owned()),
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
                name: own(name),
                stage,
                reason: own(reason),
            },
            Event::Usage { usage } => Event::Usage { usage },
            Event::RunFinished { run } => Event::RunFinished { run: own(run) },
        }
    }

    /// This event with its data copied out of the run, leaving it as it is: what a stream
    /// yields. The same as `event.clone().into_owned()`, which copies each field once.
    pub fn owned(&self) -> OwnedEvent {
        self.clone().into_owned()
    }
}

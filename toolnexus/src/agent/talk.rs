//! The loop's [`Caller`]: what a tool's progress, log lines and sampling requests become
//! inside a run.
//!
//! - progress and log lines go to the client's event listener ([`Event::Progress`],
//!   [`Event::Log`]) and to `tracing` (target `toolnexus::tool`, with the call id);
//! - an MCP Apps view goes to the listener ([`Event::View`]);
//! - a sampling request is answered by the client's own model, with the request's
//!   messages and system prompt and no tools. The model works for the same user as the
//!   run, so it is the model a tool would be asking anyway. Its usage is not added to the
//!   run's.
//!
//! One caller is shared by every call of a client (one `Arc` clone per call).

use std::borrow::Cow;
use std::sync::Arc;

use crate::agent::events::{Event, Events, Listener};
use crate::model::Model;
use crate::model::message::Message;
use crate::model::request::ModelRequest;
use crate::tool::caller::{LogLevel, Sampled, Sampling, SamplingError, SamplingRole, ToolView};
use crate::tool::context::Caller;
use crate::tool::context::Context;
use crate::tool::handler::BoxFuture;
use crate::tool::kit::Toolkit;

/// The loop's caller: the client's listener and model.
pub(crate) struct LoopCaller {
    pub(crate) listener: Option<Arc<Listener>>,
    pub(crate) model: Arc<dyn Model>,
}

impl LoopCaller {
    pub(crate) fn shared(
        listener: Option<Arc<Listener>>,
        model: Arc<dyn Model>,
    ) -> Arc<dyn Caller> {
        Arc::new(LoopCaller { listener, model })
    }

    fn events(&self) -> Events<'_> {
        Events(self.listener.as_deref())
    }
}

impl Caller for LoopCaller {
    fn progress(&self, ctx: &Context, done: f64, total: Option<f64>, message: Option<&str>) {
        let call_id = ctx.call_id().unwrap_or_default();
        tracing::debug!(target: "toolnexus::tool", call_id, done, total, message, "tool progress");
        self.events().emit(Event::Progress {
            call_id: Cow::Borrowed(call_id),
            done,
            total,
            message: message.map(Cow::Borrowed),
        });
    }

    fn log(&self, ctx: &Context, level: LogLevel, message: &str) {
        let call_id = ctx.call_id().unwrap_or_default();
        match level {
            LogLevel::Debug => tracing::debug!(target: "toolnexus::tool", call_id, "{message}"),
            LogLevel::Info | LogLevel::Notice => {
                tracing::info!(target: "toolnexus::tool", call_id, "{message}");
            }
            LogLevel::Warning => tracing::warn!(target: "toolnexus::tool", call_id, "{message}"),
            _ => tracing::error!(target: "toolnexus::tool", call_id, %level, "{message}"),
        }
        self.events().emit(Event::Log {
            call_id: Cow::Borrowed(call_id),
            level,
            message: Cow::Borrowed(message),
        });
    }

    fn view(&self, ctx: &Context, view: &ToolView) {
        self.events().emit(Event::View {
            call_id: Cow::Borrowed(ctx.call_id().unwrap_or_default()),
            view: Cow::Borrowed(view),
        });
    }

    fn sample<'a>(
        &'a self,
        _ctx: &'a Context,
        request: Sampling,
    ) -> BoxFuture<'a, Result<Sampled, SamplingError>> {
        Box::pin(async move {
            let mut transcript = Vec::with_capacity(request.messages.len() + 1);
            if let Some(system) = request.system {
                transcript.push(Message::system(system));
            }
            for message in request.messages {
                transcript.push(match message.role {
                    SamplingRole::User => Message::user(message.text),
                    SamplingRole::Assistant => Message::assistant(message.text),
                });
            }
            let no_tools = Toolkit::new();
            match self
                .model
                .complete(ModelRequest::new(&transcript, &no_tools))
                .await
            {
                Ok(reply) => Ok(Sampled {
                    text: reply.content.unwrap_or_default(),
                    model: None,
                    stop_reason: reply.finish_reason.map(|reason| format!("{reason:?}")),
                }),
                Err(error) => Err(SamplingError::Failed(format!(
                    "the client's model: {error}"
                ))),
            }
        })
    }
}

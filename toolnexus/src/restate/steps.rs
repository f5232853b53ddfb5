//! Each model turn and each tool call of a run as one journaled step: the loop's model and
//! tools are wrapped so that their work is sent to the handler's task, which runs it
//! through `ctx.run` (executed once, its result journaled; replayed from the journal after
//! a crash) and sends the result back.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::model::message::Message;
use crate::model::{Model, ModelError, ModelFuture, ModelInfo, ModelRequest, Reply};
use crate::tool::def::Tool;
use crate::tool::kit::Toolkit;
use crate::tool::result::ToolResult;

/// One step for the handler to journal: its name in the journal, the work (run only when
/// the journal does not hold its result yet), and where its result goes.
pub(crate) struct Step {
    pub(crate) name: String,
    pub(crate) work: BoxFuture<'static, Result<Value, String>>,
    pub(crate) reply: oneshot::Sender<Result<Value, String>>,
}

/// Where the wrapped model and tools send their steps.
#[derive(Clone, Debug)]
pub(crate) struct Steps(mpsc::UnboundedSender<Step>);

impl Steps {
    /// A sender and the handler's receiving end.
    pub(crate) fn new() -> (Steps, mpsc::UnboundedReceiver<Step>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Steps(tx), rx)
    }

    /// Sends `work` as step `name` and waits for its journaled result.
    async fn step(
        &self,
        name: String,
        work: BoxFuture<'static, Result<Value, String>>,
    ) -> Result<Value, String> {
        let (reply, answer) = oneshot::channel();
        let sent = self.0.send(Step { name, work, reply });
        if sent.is_err() {
            return Err("the Restate handler stopped taking steps".to_owned());
        }
        answer
            .await
            .unwrap_or_else(|_| Err("the Restate handler dropped the step".to_owned()))
    }
}

/// The client's model, each turn one journaled step.
pub(crate) struct JournaledModel {
    pub(crate) inner: Arc<dyn Model>,
    pub(crate) steps: Steps,
}

impl Model for JournaledModel {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        if let Err(error) = request.refuse_settings() {
            return Box::pin(async move { Err(error) });
        }
        let (inner, transcript, toolkit) = (
            Arc::clone(&self.inner),
            request.transcript.to_vec(),
            request.toolkit.clone(),
        );
        let turn = transcript
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        let work = Box::pin(async move {
            let reply = inner
                .complete(ModelRequest::new(&transcript, &toolkit))
                .await
                .map_err(|e| e.to_string())?;
            serde_json::to_value(reply).map_err(|e| e.to_string())
        });
        Box::pin(async move {
            let value = self
                .steps
                .step(format!("model turn {turn}"), work)
                .await
                .map_err(ModelError::new)?;
            serde_json::from_value::<Reply>(value)
                .map_err(|e| ModelError::new(format!("a journaled model turn: {e}")))
        })
    }

    fn describe(&self) -> ModelInfo<'_> {
        let name = self.inner.describe().name;
        ModelInfo {
            name,
            ..ModelInfo::default()
        }
    }
}

/// `toolkit` with each tool's call one journaled step (named by the tool and call id),
/// run by the original toolkit.
pub(crate) fn journaled_toolkit(toolkit: &Toolkit, steps: &Steps) -> Toolkit {
    let mut journaled = Toolkit::new();
    let inner = Arc::new(toolkit.clone());
    for tool in toolkit.tools() {
        let (name, inner, steps) = (tool.name().to_owned(), Arc::clone(&inner), steps.clone());
        let wrapped = Tool::new(
            tool.name(),
            tool.description(),
            tool.input_schema().clone(),
            move |args, ctx| {
                let (name, inner, steps) = (name.clone(), Arc::clone(&inner), steps.clone());
                async move {
                    let call = ctx.call_id().unwrap_or("").to_owned();
                    let answered = ctx.answer().map(|a| a.id.clone());
                    let step = match answered {
                        Some(id) => format!("tool {name} {call} answered {id}"),
                        None => format!("tool {name} {call}"),
                    };
                    let work = Box::pin(async move {
                        let result = inner.execute(&name, args, ctx).await;
                        serde_json::to_value(result).map_err(|e| e.to_string())
                    });
                    match steps.step(step, work).await {
                        Ok(value) => serde_json::from_value(value).unwrap_or_else(|e| {
                            ToolResult::error(format!("a journaled tool result: {e}"))
                        }),
                        Err(error) => ToolResult::error(error),
                    }
                }
            },
        );
        // The original toolkit runs the call, with its states.
        journaled = journaled.with(wrapped);
    }
    journaled
}

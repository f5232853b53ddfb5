//! Runs on [Restate](https://restate.dev), a durable execution engine: a [`Client`] and
//! its [`Toolkit`] served as a Restate virtual object (feature `restate`).
//!
//! [`RestateAgent`] is a virtual object named `Agent`, keyed by conversation: the turns of one
//! conversation never run at once (Restate queues the second invocation until the first
//! ends), and the conversation's transcript is kept in the object's state. Its handlers:
//!
//! - `run` (exclusive): takes a prompt, runs the client on the conversation, and returns
//!   the [`RunResult`] as JSON. Each model turn and each tool call is
//!   one journaled step (`ctx.run`): after a crash Restate replays the invocation, and a
//!   turn or call whose result is in the journal is not asked or run again.
//! - `answer` (shared): answers a request the run waits on, by the request's id alone.
//!
//! A suspension (a tool's `Err(Suspend::…)`, an approval) is a Restate awakeable: the run
//! records which awakeable stands for which request id in the object's state, and awaits
//! it; the invocation suspends and holds no worker while it waits. The `answer` handler
//! ([`Ingress::answer`], given the conversation) resolves it; so does
//! [`Ingress::answer_request`] given the request's id alone (it finds the conversation
//! through Restate's admin API), and Restate's own `/restate/awakeables/{id}/resolve`,
//! given the awakeable id.
//!
//! Retries, timeouts and cancellation are Restate's: a step that fails with a model
//! error is retried by Restate with its retry policy (a tool's error result is a result,
//! journaled as it is); the invocation's inactivity and abort timeouts are the server's;
//! `restate invocations cancel` (or the admin API) cancels a run between steps. The
//! client's own store ([`Client::store`]) is not used inside a Restate invocation.
//!
//! With the `ui` feature, [`ag_ui`] is an AG-UI endpoint on the ingress: a chat page
//! starts runs on the object and answers their approvals, as it does with
//! [`ui::ag_ui`](crate::ui::ag_ui).
//!
//! ```no_run
//! # async fn demo(model: toolnexus::ScriptedModel, toolkit: toolnexus::Toolkit) {
//! use toolnexus::Client;
//! use toolnexus::restate::RestateAgent;
//!
//! let agent = RestateAgent::new(Client::new(model), toolkit);
//! agent.serve("127.0.0.1:9080".parse().unwrap()).await; // register it with restate
//! # }
//! ```

#[cfg(feature = "ui")]
mod ag_ui;
mod ingress;
mod steps;

use std::net::SocketAddr;
use std::sync::Arc;

use restate_sdk::prelude::*;
use serde_json::Value;

use crate::agent::client::Client;
use crate::agent::run::RunResult;
use crate::model::message::Message;
use crate::tool::kit::Toolkit;
use crate::tool::request::{Answer, Request};

#[cfg(feature = "ui")]
pub use ag_ui::{ag_ui, ag_ui_with};
pub use ingress::{Ingress, IngressError, Waiting, register};
use steps::{JournaledModel, Steps, journaled_toolkit};

/// The state key of the conversation's transcript.
const TRANSCRIPT: &str = "transcript";

/// The state key of the requests the running run waits on.
const PENDING: &str = "pending";

/// The state key of the run waiting on an answer, as it was when it halted, and its
/// invocation ([`Waiting`]).
const WAITING: &str = "waiting";

/// The state key of the awakeable that stands for request `id`.
fn awakeable_key(id: &str) -> String {
    format!("request:{id}")
}

/// A [`Client`] and [`Toolkit`] served as the Restate virtual object `Agent`, keyed by
/// conversation (see the [module](self)).
#[derive(Clone, Debug)]
pub struct RestateAgent {
    client: Client,
    toolkit: Arc<Toolkit>,
}

impl RestateAgent {
    /// The agent of `client` with `toolkit`.
    pub fn new(client: Client, toolkit: Toolkit) -> Self {
        RestateAgent {
            client,
            toolkit: Arc::new(toolkit),
        }
    }

    /// Serves the object's handlers on `addr` (HTTP/2, Restate's service protocol) until
    /// the process ends; register the address with the Restate server's admin API
    /// (`POST /deployments`, or `restate deployments register`).
    pub async fn serve(self, addr: SocketAddr) {
        HttpServer::new(Endpoint::builder().bind(object::AgentObject(self)).build())
            .listen_and_serve(addr)
            .await;
    }

    /// Serves the object's handlers on `listener` until the process ends.
    pub async fn serve_on(self, listener: tokio::net::TcpListener) {
        HttpServer::new(Endpoint::builder().bind(object::AgentObject(self)).build())
            .serve(listener)
            .await;
    }

    /// The run of `prompt` on `transcript`, each step journaled through `ctx`; a
    /// suspension awaits its awakeable and the run resumes with the answer.
    async fn run_in(
        &self,
        ctx: &ObjectContext<'_>,
        transcript: Vec<Message>,
        prompt: String,
    ) -> Result<RunResult, HandlerError> {
        let (steps, mut queue) = Steps::new();
        let mut client = self.client.clone();
        client.model = Arc::new(JournaledModel {
            inner: Arc::clone(&self.client.model),
            steps: steps.clone(),
        });
        // One call at a time: the journal's steps come in the same order on replay.
        client = client.concurrent(false);
        client.store = None;
        let toolkit = journaled_toolkit(&self.toolkit, &steps);
        let mut run = {
            let driven = client.run(prompt, &toolkit).history(transcript);
            pump(ctx, &mut queue, driven).await?
        };
        while let Some(request) = run.pending.clone() {
            let (id, answered) = ctx.awakeable::<Json<Answer>>();
            ctx.set(&awakeable_key(&request.id), id);
            ctx.set(PENDING, Json(vec![request.clone()]));
            let waiting = Waiting {
                invocation: ctx.invocation_id().to_owned(),
                run: run.clone(),
            };
            ctx.set(WAITING, Json(waiting));
            let answer = answered.await?.into_inner();
            ctx.clear(&awakeable_key(&request.id));
            ctx.clear(PENDING);
            ctx.clear(WAITING);
            let resumed = client.resume(run.clone(), answer, &toolkit);
            run = match pump(ctx, &mut queue, resumed).await? {
                Ok(run) => run,
                Err(error) => return Err(TerminalError::new(error.to_string()).into()),
            };
        }
        Ok(run)
    }
}

/// Drives `driven` to its end, journaling each step it sends on the way.
async fn pump<T>(
    ctx: &ObjectContext<'_>,
    queue: &mut tokio::sync::mpsc::UnboundedReceiver<steps::Step>,
    driven: impl Future<Output = T>,
) -> Result<T, HandlerError> {
    let mut driven = std::pin::pin!(driven);
    loop {
        tokio::select! {
            biased;
            step = queue.recv() => {
                let Some(step) = step else { continue };
                let work = step.work;
                let done = ctx
                    .run(|| async move {
                        work.await.map(Json).map_err(HandlerError::from)
                    })
                    .name(step.name)
                    .await;
                let _ = step.reply.send(done.map(Json::into_inner).map_err(|e| e.to_string()));
            }
            out = &mut driven => return Ok(out),
        }
    }
}

/// The object Restate calls, and what the SDK's macro makes of it (a client type among
/// them, undocumented).
#[allow(missing_docs, unreachable_pub)]
mod object {
    use super::*;

    /// The object Restate calls (the macro's service type).
    #[derive(Clone)]
    pub(super) struct AgentObject(pub(super) RestateAgent);

    #[restate_sdk::object(name = "Agent")]
    impl AgentObject {
        /// Runs `prompt` on the conversation of this object's key.
        #[handler]
        async fn run(&self, ctx: ObjectContext<'_>, prompt: String) -> HandlerResult<Json<Value>> {
            let transcript = ctx
                .get::<Json<Vec<Message>>>(TRANSCRIPT)
                .await?
                .map(Json::into_inner)
                .unwrap_or_default();
            let run = self.0.run_in(&ctx, transcript, prompt).await?;
            ctx.set(TRANSCRIPT, Json(run.messages.clone()));
            Ok(Json(
                serde_json::to_value(&run).map_err(HandlerError::from)?,
            ))
        }

        /// The requests the conversation's run waits on.
        #[handler]
        async fn pending(&self, ctx: SharedObjectContext<'_>) -> HandlerResult<Json<Vec<Request>>> {
            Ok(ctx
                .get::<Json<Vec<Request>>>(PENDING)
                .await?
                .unwrap_or_default())
        }

        /// The conversation's run waiting on an answer, and its invocation (`null` when
        /// none waits).
        #[handler]
        async fn waiting(&self, ctx: SharedObjectContext<'_>) -> HandlerResult<Json<Value>> {
            Ok(Json(
                ctx.get::<Json<Value>>(WAITING)
                    .await?
                    .map(Json::into_inner)
                    .unwrap_or(Value::Null),
            ))
        }

        /// Answers the request `answer.id` the conversation's run waits on: `false` when no
        /// run of this conversation waits on it.
        #[handler]
        async fn answer(
            &self,
            ctx: SharedObjectContext<'_>,
            answer: Json<Answer>,
        ) -> HandlerResult<bool> {
            let answer = answer.into_inner();
            let Some(id) = ctx.get::<String>(&awakeable_key(&answer.id)).await? else {
                return Ok(false);
            };
            ctx.resolve_awakeable(&id, Json(answer));
            Ok(true)
        }
    }
}

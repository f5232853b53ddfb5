//! [`ag_ui`]: the `Agent` object's runs as an AG-UI 1.0 endpoint, through a Restate
//! server's ingress (features `restate` and `ui`).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::request::Parts;
use axum::response::Response;
use axum::routing::post;
use futures_util::StreamExt as _;
use futures_util::stream::{self, BoxStream};
use serde_json::{Value, json};

use crate::agent::run::{CallStatus, RunResult, RunStatus};
use crate::restate::ingress::{Ingress, IngressError, Waiting};
use crate::ui::ag_ui::{self as agui, Input};
use crate::ui::threads::Refused;
use crate::ui::{UiOptions, User, caller_of};

/// How often a run is looked at for a new suspension while it runs.
const POLL: Duration = Duration::from_millis(100);

/// What an endpoint's requests share.
struct Shared {
    ingress: Ingress,
    user: Option<User>,
}

/// An axum router serving the `Agent` object's runs (see the [module](super)) over
/// [AG-UI](https://docs.ag-ui.com) 1.0, through the Restate ingress `ingress`: the page
/// that drives [`ui::ag_ui`](crate::ui::ag_ui) drives a run on Restate unchanged.
///
/// `POST /` takes a `RunAgentInput`. A thread is a conversation (the object's key; in the
/// signed-in user's namespace with [`UiOptions::user`]), so two runs of one thread
/// never run at once. A new run is sent to the ingress (its idempotency key the thread and
/// the input's `runId`, so a retried request starts one run) and the endpoint waits for
/// it: when it ends, its tool calls (`TOOL_CALL_START` / `ARGS` / `END` / `RESULT`), its
/// answer (`TEXT_MESSAGE_*`) and `RUN_FINISHED`; when it suspends (it waits on an
/// awakeable, holding no worker), the calls so far and `RUN_FINISHED` with
/// `outcome: {type: "interrupt"}`, whose interrupt is the run's pending request, as
/// [`ui::ag_ui`](crate::ui::ag_ui) gives it.
///
/// The next input answers it with a `resume` entry (`resolved` accepts, with the
/// `payload` as the answer's data; `cancelled` declines). The interrupt id names the
/// request and the invocation, and is checked against what the thread's conversation
/// waits on in Restate (any replica of this endpoint, or this one after a restart,
/// answers it): an id of another thread, of another invocation or a request the run no
/// longer waits on is `unknown_interrupt`, and the awakeable resolves once. The answered
/// invocation is then followed to its end, or to its next suspension, as above.
///
/// Errors of the ingress are `RUN_ERROR` with code `restate`. The router is behind the
/// options' [`WebGuard`](crate::web::WebGuard), as [`ui::ag_ui`](crate::ui::ag_ui) is.
pub fn ag_ui(ingress: Ingress) -> Router {
    ag_ui_with(ingress, UiOptions::new())
}

/// [`ag_ui`] with [`UiOptions`]: the hosts and origins it accepts and the app's users (the
/// bounds on kept threads do not apply: the threads live in Restate).
pub fn ag_ui_with(ingress: Ingress, options: UiOptions) -> Router {
    let shared = Arc::new(Shared {
        ingress,
        user: options.user.clone(),
    });
    crate::ui::guarded(
        Router::new().route("/", post(run)).with_state(shared),
        &options,
    )
}

async fn run(State(shared): State<Arc<Shared>>, request: Parts, body: Bytes) -> Response {
    let caller = caller_of(shared.user.as_ref(), &request);
    let events = match agui::parse(&body) {
        Ok(input) => {
            let input = Input {
                key: caller.key(&input.thread),
                ..input
            };
            let head = agui::started(&input.thread, &input.run);
            let rest =
                stream::once(async move { events(&shared, &input).await }).flat_map(stream::iter);
            stream::once(async move { head }).chain(rest).boxed()
        }
        Err((ids, error)) => {
            let head = ids.map(|(thread, run)| agui::started(&thread, &run));
            stream::iter(head.into_iter().chain([error])).boxed()
        }
    };
    crate::ui::sse::response(events as BoxStream<'static, Value>, None)
}

fn restate(error: IngressError) -> Value {
    agui::error(error.to_string(), "restate")
}

/// The events of one input after `RUN_STARTED`.
async fn events(shared: &Shared, input: &Input) -> Vec<Value> {
    match follow_input(shared, input).await {
        Ok(events) | Err(events) => events,
    }
}

async fn follow_input(shared: &Shared, input: &Input) -> Result<Vec<Value>, Vec<Value>> {
    let ingress = &shared.ingress;
    let waiting = ingress
        .waiting(&input.key)
        .await
        .map_err(|e| vec![restate(e)])?;
    if input.resume.is_empty() {
        let Some(prompt) = &input.prompt else {
            return Err(vec![agui::error(
                "RunAgentInput: no user message to run on",
                "invalid_input",
            )]);
        };
        if waiting.is_some() {
            return Err(vec![agui::error(
                "the thread has an open interrupt the input does not answer: resume it \
                 with the id its run finished with",
                "interrupt_not_answered",
            )]);
        }
        let key = format!("ag-ui:{}:{}", input.key, input.run);
        let invocation = ingress
            .send(&input.key, prompt, Some(&key))
            .await
            .map_err(|e| vec![restate(e)])?;
        return follow(ingress, input, &invocation, Shown::default()).await;
    }
    let (id, status, payload) = agui::resume_entry(input).map_err(|e| vec![e])?;
    let unknown = || {
        vec![agui::error(
            Refused::Unknown.message(id),
            Refused::Unknown.code(),
        )]
    };
    let (request, invocation) = id.rsplit_once('@').ok_or_else(unknown)?;
    let Some(Waiting {
        invocation: at,
        run,
    }) = waiting
    else {
        return Err(unknown());
    };
    let pending = run.pending.as_ref().map(|r| r.id.as_str());
    if at != invocation || pending != Some(request) {
        return Err(unknown());
    }
    let answered = ingress
        .answer(&input.key, &agui::answer(request, status, payload))
        .await
        .map_err(|e| vec![restate(e)])?;
    if !answered {
        return Err(vec![agui::error(
            Refused::Answered.message(id),
            Refused::Answered.code(),
        )]);
    }
    let shown = Shown {
        calls: run.tool_calls.iter().map(|c| c.call.id.clone()).collect(),
        answered: Some(request.to_owned()),
        call: agui::parked_call(&run).map(str::to_owned),
    };
    follow(ingress, input, invocation, shown).await
}

/// What an earlier response of the same run showed: its calls, and the request answered.
#[derive(Default)]
struct Shown {
    calls: HashSet<String>,
    /// The request answered, and the call that waited on it.
    answered: Option<String>,
    call: Option<String>,
}

/// Follows invocation `invocation` to its end or its next suspension.
async fn follow(
    ingress: &Ingress,
    input: &Input,
    invocation: &str,
    shown: Shown,
) -> Result<Vec<Value>, Vec<Value>> {
    let attached = ingress.attach(invocation);
    tokio::pin!(attached);
    loop {
        tokio::select! {
            ended = &mut attached => {
                let run = ended.map_err(|e| vec![restate(e)])?;
                return Ok(finished(input, &run, &shown, invocation));
            }
            () = tokio::time::sleep(POLL) => {
                let waiting = ingress.waiting(&input.key).await.map_err(|e| vec![restate(e)])?;
                if let Some(waiting) = waiting.filter(|w| w.invocation == invocation) {
                    let request = waiting.run.pending.as_ref().map(|r| &r.id);
                    if request.is_some() && request != shown.answered.as_ref() {
                        return Ok(finished(input, &waiting.run, &shown, invocation));
                    }
                }
            }
        }
    }
}

/// The events of `run` (ended, or halted on a request) that `shown` did not show yet.
fn finished(input: &Input, run: &RunResult, shown: &Shown, invocation: &str) -> Vec<Value> {
    let (thread, run_id) = (&input.thread, &input.run);
    let mut out = Vec::new();
    for record in &run.tool_calls {
        let id = &record.call.id;
        if !shown.calls.contains(id) {
            out.push(json!({
                "type": "TOOL_CALL_START", "toolCallId": id,
                "toolCallName": record.call.name, "parentMessageId": format!("{run_id}-m"),
            }));
            out.push(
                json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": record.call.arguments}),
            );
            out.push(json!({"type": "TOOL_CALL_END", "toolCallId": id}));
        }
        let was_pending = !shown.calls.contains(id) || shown.call.as_ref() == Some(id);
        if record.status != CallStatus::Pending && was_pending {
            out.push(agui::call_result(run_id, id, &record.result.output));
        }
    }
    match &run.status {
        RunStatus::Pending => {
            let interrupt = run.pending.as_ref().map(|request| {
                let id = format!("{}@{invocation}", request.id);
                agui::interrupt(&id, agui::parked_call(run), request)
            });
            out.push(agui::finished_interrupt(thread, run_id, interrupt));
        }
        RunStatus::Done => {
            if !run.text.is_empty() {
                let message = format!("{run_id}-m-answer");
                out.push(json!({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"}));
                out.push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": run.text}));
                out.push(json!({"type": "TEXT_MESSAGE_END", "messageId": message}));
            }
            out.push(agui::finished_success(thread, run_id, &run.text));
        }
        RunStatus::Incomplete { reason } => out.push(agui::error(
            format!("the run stopped: {reason:?}"),
            "incomplete",
        )),
    }
    out
}

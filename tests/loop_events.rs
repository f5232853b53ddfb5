//! Events: what a UI sees of a run as it happens.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use toolnexus::model::{Delta, ModelFuture, ModelRequest};
use toolnexus::{Client, Event, Model, Reply, Request, RunStatus, ScriptedModel};

#[path = "support/agent.rs"]
#[allow(dead_code)]
mod agent;
use agent::{call, kit};

/// Plays a script; when asked to stream, sends each turn's text in two pieces first.
/// Counts how it was asked.
struct Streaming {
    script: ScriptedModel,
    streamed: AtomicUsize,
    plain: AtomicUsize,
}

impl Streaming {
    fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        Streaming {
            script: ScriptedModel::new(replies),
            streamed: AtomicUsize::new(0),
            plain: AtomicUsize::new(0),
        }
    }
}

impl Model for Streaming {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        let Some(on_delta) = request.on_delta else {
            self.plain.fetch_add(1, Ordering::SeqCst);
            return self.script.complete(request);
        };
        self.streamed.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            let reply = self.script.complete(request).await?;
            if let Some(text) = &reply.content {
                let (head, tail) = text.split_at(text.len() / 2);
                on_delta(Delta::Text(head.to_owned()));
                on_delta(Delta::Text(tail.to_owned()));
            }
            Ok(reply)
        })
    }
}

/// One line per event, for comparing sequences.
fn line(event: &Event<'_>) -> String {
    match event {
        Event::ModelTurnStarted { turn } => format!("turn {turn} started"),
        Event::TextDelta { turn, text } => format!("turn {turn} text {text:?}"),
        Event::ModelTurnFinished { turn, reply } => {
            format!("turn {turn} finished ({} calls)", reply.tool_calls.len())
        }
        Event::ToolCall { turn, call } => format!("turn {turn} asks call {}", call.id),
        Event::ToolCallStarted { turn, call } => format!("turn {turn} call {} started", call.id),
        Event::ToolCallFinished {
            turn,
            call,
            result,
            status,
        } => format!("turn {turn} call {} {status:?}: {}", call.id, result.output),
        Event::Pending {
            turn,
            call,
            request,
        } => format!(
            "turn {turn} call {} pending on {}: {}",
            call.id, request.id, request.prompt
        ),
        Event::Usage { usage } => format!("usage {}", usage.total_tokens()),
        Event::RunFinished { run } => format!("run finished {:?}", run.status),
        other => format!("unexpected {other:?}"),
    }
}

fn recorder() -> (
    Arc<Mutex<Vec<String>>>,
    impl Fn(&Event<'_>) + Send + Sync + 'static,
) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    (log, move |event: &Event<'_>| {
        sink.lock().unwrap().push(line(event))
    })
}

#[tokio::test]
async fn the_event_sequence_of_a_run_with_a_suspension() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(Streaming::new([
        Reply::calls([call("c1", "login", r#"{"user":"ann"}"#)]).with_content("Logging in"),
        Reply::text("Logged in"),
    ]));
    let (log, listener) = recorder();
    let run = Client::new(model.clone())
        .wait_for(|request: Request| async move { request.answer("ann") })
        .on_event(listener)
        .run("log in", &kit(&runs))
        .await;

    assert!(run.is_done());
    assert_eq!(
        *log.lock().unwrap(),
        [
            "turn 1 started",
            r#"turn 1 text "Loggi""#,
            r#"turn 1 text "ng in""#,
            "turn 1 finished (1 calls)",
            "turn 1 asks call c1",
            "turn 1 call c1 started",
            "turn 1 call c1 pending on login-ann: Log in",
            "turn 1 call c1 started",
            "turn 1 call c1 Ok: logged in as ann",
            "turn 2 started",
            r#"turn 2 text "Logg""#,
            r#"turn 2 text "ed in""#,
            "turn 2 finished (0 calls)",
            "usage 0",
            "run finished Done",
        ]
    );
    assert_eq!(model.streamed.load(Ordering::SeqCst), 2);
    assert_eq!(model.plain.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn without_wait_for_the_pending_event_comes_before_the_halt() {
    let runs = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let (log, listener) = recorder();
    let client = Client::new(ScriptedModel::new([Reply::calls([
        call("c1", "add", r#"{"a":1,"b":1}"#),
        call("c2", "login", r#"{"user":"ann"}"#),
    ])]))
    .on_event({
        let requests = requests.clone();
        move |event| {
            if let Event::Pending { request, .. } = event {
                requests.lock().unwrap().push(Request::clone(request));
            }
            listener(event);
        }
    });
    let run = client.run("go", &kit(&runs)).await;

    assert!(run.is_pending());
    assert_eq!(
        requests.lock().unwrap().as_slice(),
        [run.pending.clone().unwrap()]
    );
    assert_eq!(
        *log.lock().unwrap(),
        [
            "turn 1 started",
            "turn 1 finished (2 calls)",
            "turn 1 asks call c1",
            "turn 1 asks call c2",
            // Synchronous tools finish on their first poll, so nothing interleaves here.
            "turn 1 call c1 started",
            "turn 1 call c1 Ok: 2",
            "turn 1 call c2 started",
            "turn 1 call c2 pending on login-ann: Log in",
            "run finished Pending",
        ]
    );
}

#[tokio::test]
async fn a_resumed_turn_reports_its_calls_as_turn_zero() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit(&runs);
    let halted = Client::new(ScriptedModel::new([Reply::call(
        "c1",
        "login",
        r#"{"user":"ann"}"#,
    )]))
    .run("log in", &toolkit)
    .await;
    let request = halted.pending.clone().unwrap();
    let (log, listener) = recorder();
    let done = Client::new(ScriptedModel::new([Reply::text("in")]))
        .on_event(listener)
        .resume(halted.messages, request.answer("ann"), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done());
    assert_eq!(
        log.lock().unwrap()[..2],
        [
            "turn 0 call c1 started",
            "turn 0 call c1 Ok: logged in as ann"
        ]
    );
}

#[tokio::test]
async fn without_a_listener_the_model_is_not_asked_to_stream() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(Streaming::new([Reply::text("hi")]));
    let run = Client::new(model.clone()).run("hi", &kit(&runs)).await;
    assert!(run.is_done());
    assert_eq!(model.plain.load(Ordering::SeqCst), 1);
    assert_eq!(model.streamed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_panicking_listener_is_ignored() {
    let runs = Arc::new(AtomicUsize::new(0));
    let run = Client::new(ScriptedModel::new([
        Reply::call("c1", "add", r#"{"a":1,"b":1}"#),
        Reply::text("2"),
    ]))
    .on_event(|_| panic!("ui bug"))
    .run("add", &kit(&runs))
    .await;
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!(run.text, "2");
}

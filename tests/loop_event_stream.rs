//! `Client::stream`: a run as an owned stream of events: its order and JSON form, the
//! same stream for resuming and answering, and a dropped stream cancelling the run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt as _;
use serde_json::{Value, json};
use toolnexus::agent::OwnedEvent;
use toolnexus::agent::StopReason;
use toolnexus::model::{Delta, ModelFuture, ModelRequest};
use toolnexus::store::RunStore;
use toolnexus::{
    Answer, Client, Event, Message, Model, Reply, RunStatus, ScriptedModel, Tool, ToolCall,
    ToolResult, Toolkit,
};

#[path = "support/durable.rs"]
mod durable;

use durable::{approving, steps};

/// A model that streams each turn: text in two pieces, a reasoning piece, and each call's
/// arguments in two pieces.
struct Streaming(ScriptedModel);

impl Model for Streaming {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        let Some(on_delta) = request.on_delta else {
            return self.0.complete(request);
        };
        Box::pin(async move {
            let reply = self.0.complete(request).await?;
            on_delta(Delta::Reasoning("thinking".into()));
            if let Some(text) = &reply.content {
                let (head, tail) = text.split_at(text.len() / 2);
                on_delta(Delta::Text(head.to_owned()));
                on_delta(Delta::Text(tail.to_owned()));
            }
            for (index, call) in reply.tool_calls.iter().enumerate() {
                let (head, tail) = call.arguments.split_at(call.arguments.len() / 2);
                on_delta(Delta::ToolCall {
                    index,
                    id: Some(call.id.clone()),
                    name: Some(call.name.clone()),
                    arguments: head.to_owned(),
                });
                on_delta(Delta::ToolCall {
                    index,
                    id: None,
                    name: None,
                    arguments: tail.to_owned(),
                });
            }
            Ok(reply)
        })
    }
}

fn echo() -> Tool {
    Tool::new_sync("echo", "Echoes.", json!({"type": "object"}), |args, _| {
        ToolResult::ok(format!("echo {}", args["say"]))
    })
}

fn json_of(events: &[OwnedEvent]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(e).expect("an event serializes"))
        .collect()
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn a_stream_yields_every_event_in_order_with_a_stable_json_form() {
    let model = Streaming(ScriptedModel::new([
        Reply::calls([ToolCall::new("c1", "echo", r#"{"say":"hi"}"#)]),
        Reply::text("All done"),
    ]));
    let client = Client::new(model);
    let toolkit = Toolkit::new().with(echo());
    // Owned and 'static: the stream outlives the client and the toolkit it was made from.
    let stream = client.run("Echo hi", &toolkit).stream();
    drop((client, toolkit));
    let events: Vec<OwnedEvent> = tokio::spawn(stream.collect()).await.unwrap();
    let json = json_of(&events);
    assert_eq!(
        types(&json),
        [
            "run_started",
            "model_turn_started",
            "reasoning_delta",
            "tool_call_delta",
            "tool_call_delta",
            "model_turn_finished",
            "tool_call",
            "tool_call_started",
            "tool_result",
            "model_turn_started",
            "reasoning_delta",
            "text",
            "text",
            "model_turn_finished",
            "usage",
            "done",
        ]
    );
    assert_eq!(json[3]["id"], "c1");
    assert_eq!(json[3]["name"], "echo");
    let args = format!(
        "{}{}",
        json[3]["arguments"].as_str().unwrap(),
        json[4]["arguments"].as_str().unwrap()
    );
    assert_eq!(args, r#"{"say":"hi"}"#);
    assert!(json[4]["id"].is_null() || json[4].get("id").is_none());
    assert_eq!(json[5]["tool_calls"][0]["name"], "echo");
    assert!(json[5]["usage"].is_object(), "{}", json[5]);
    assert_eq!(json[6]["id"], "c1");
    assert_eq!(json[6]["name"], "echo");
    assert_eq!(json[6]["args"], json!({"say": "hi"}));
    assert_eq!(json[8]["id"], "c1");
    assert_eq!(json[8]["name"], "echo");
    assert_eq!(json[8]["status"], "ok");
    assert_eq!(json[8]["output"], "echo \"hi\"");
    assert_eq!(json[8]["is_error"], false);
    assert_eq!(
        format!(
            "{}{}",
            json[11]["delta"].as_str().unwrap(),
            json[12]["delta"].as_str().unwrap()
        ),
        "All done"
    );
    assert_eq!(
        json[14]["usage"]["total_tokens"],
        json[15]["result"]["usage"]["total_tokens"]
    );
    assert_eq!(json[15]["result"]["text"], "All done");
    assert_eq!(json[15]["result"]["status"], "done");
    // The owned events read like the borrowed ones.
    match events.last().unwrap() {
        Event::RunFinished { run } => assert!(run.is_done()),
        other => panic!("last event {other:?}"),
    }
}

#[tokio::test]
async fn a_halted_run_streams_its_pending_request_and_resumes_as_a_stream() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let toolkit = Toolkit::new().with(approving(seen.clone(), "s", None));
    let client = Client::new(steps("approve", 1));
    let events: Vec<OwnedEvent> = client.run("go", &toolkit).stream().collect().await;
    let json = json_of(&events);
    let pending = json
        .iter()
        .find(|e| e["type"] == "pending")
        .expect("a pending event");
    assert_eq!(pending["request"]["id"], "approve-s-0");
    assert_eq!(pending["request"]["kind"], "approval");
    let Some(Event::RunFinished { run }) = events.last() else {
        panic!("no run end")
    };
    assert_eq!(run.status, RunStatus::Pending);
    let halted = (**run).clone();

    // Resumed on a request it did not ask: an error at once, no stream.
    assert!(
        client
            .resume(halted.clone(), Answer::accept("nope"), &toolkit)
            .stream()
            .is_err()
    );
    let resumed: Vec<OwnedEvent> = client
        .resume(halted, Answer::accept("approve-s-0"), &toolkit)
        .stream()
        .expect("halted on that request")
        .collect()
        .await;
    let json = json_of(&resumed);
    let finished = json
        .iter()
        .find(|e| e["type"] == "tool_result")
        .expect("the approved call finishes");
    assert!(
        finished["output"]
            .as_str()
            .unwrap()
            .starts_with("approved 0"),
        "{finished}"
    );
    assert_eq!(json.last().unwrap()["result"]["text"], "done");
}

/// A model whose second turn never comes: it waits until the run is cancelled.
fn stalls_after_first_turn(asked: Arc<AtomicUsize>) -> toolnexus::model::FnModel {
    toolnexus::model::FnModel::new(move |transcript, _| {
        let n = asked.fetch_add(1, Ordering::SeqCst);
        let done = transcript.iter().any(|m| matches!(m, Message::Tool { .. }));
        Box::pin(async move {
            if n == 0 && !done {
                Ok(Reply::calls([ToolCall::new("c1", "slow", "{}")]))
            } else {
                Ok(Reply::text("finished"))
            }
        })
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_stream_cancels_the_run_and_a_store_keeps_it_recoverable() {
    let store = RunStore::sqlite(":memory:").await.unwrap();
    let started = Arc::new(tokio::sync::Notify::new());
    let slow = Tool::new("slow", "Takes forever.", json!({"type": "object"}), {
        let started = started.clone();
        move |_, _| {
            let started = started.clone();
            async move {
                started.notify_one();
                tokio::time::sleep(Duration::from_secs(3600)).await;
                ToolResult::ok("never")
            }
        }
    });
    let toolkit = Toolkit::new().with(slow);
    let asked = Arc::new(AtomicUsize::new(0));
    let client = Client::new(stalls_after_first_turn(asked.clone())).store(store.clone());
    let mut stream = client.run("go slow", &toolkit).stream();
    let id = stream
        .run_id()
        .expect("a stored run's id is known at once")
        .to_owned();
    let first = stream.next().await.unwrap();
    assert_eq!(serde_json::to_value(&first).unwrap()["run_id"], id.as_str());
    // Read until the tool runs, then walk away.
    let reading = async {
        while let Some(event) = stream.next().await {
            if matches!(event, Event::ToolCallStarted { .. }) {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), reading)
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), started.notified())
        .await
        .unwrap();
    drop(stream);

    // The wind-down records the run's end: incomplete, cancelled, transcript balanced.
    let run = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Some(run) = store.result(&id).await.unwrap() {
                break run;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the cancelled run is recorded");
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Cancelled
        }
    );
    let tool_text = run
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Tool { content, .. } => Some(content.clone()),
            _ => None,
        })
        .expect("the cancelled call has its result");
    assert!(
        format!("{tool_text:?}").contains("cancelled"),
        "{tool_text:?}"
    );

    // And it picks up from there.
    let again = client.run_from(run.messages.clone(), &toolkit).await;
    assert!(again.is_done(), "{:?}", again.status);
    assert_eq!(again.text, "finished");
}

#[tokio::test]
async fn a_slow_reader_holds_the_run_back() {
    let turns = Arc::new(AtomicUsize::new(0));
    let model = toolnexus::model::FnModel::new_sync({
        let turns = turns.clone();
        move |transcript, _| {
            turns.fetch_add(1, Ordering::SeqCst);
            let done = transcript
                .iter()
                .filter(|m| matches!(m, Message::Tool { .. }))
                .count();
            Ok(if done < 5 {
                Reply::calls([ToolCall::new(format!("c{done}"), "echo", "{}")])
            } else {
                Reply::text("done")
            })
        }
    });
    let client = Client::new(model);
    let toolkit = Toolkit::new().with(echo());
    let mut stream = client.run("loop", &toolkit).stream();
    for _ in 0..3 {
        stream.next().await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The run went no further than the reader did.
    assert!(
        turns.load(Ordering::SeqCst) <= 2,
        "{}",
        turns.load(Ordering::SeqCst)
    );
    let rest: Vec<_> = stream.collect().await;
    assert!(matches!(rest.last(), Some(Event::RunFinished { .. })));
    assert_eq!(turns.load(Ordering::SeqCst), 6);
}

//! The tool-calling loop: `Client` over scripted models. Each rule of the loop
//! (call order, concurrency, limits, errors, suspensions with and without `wait_for`,
//! durable resume) is pinned here, plus the human-in-the-loop example end to end.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use toolnexus::agent::{CallStatus, ResumeError, StopReason};
use toolnexus::model::FnModel;
use toolnexus::{
    Answer, Client, ContentPart, Message, ModelError, Reply, Request, RunResult, RunStatus,
    ScriptedModel, Tool, ToolResult, Toolkit, Usage,
};

#[path = "support/agent.rs"]
#[allow(dead_code)]
mod agent;
use agent::{add, assert_balanced, call, sleep, tool_outputs};
use toolnexus::dispatch::resume;

#[allow(dead_code)]
#[path = "../examples/human_in_the_loop.rs"]
mod example;

// ---------------------------------------------------------------- fixtures

/// Waits until `parties` calls of it are in flight at once: a barrier. Calls that never
/// meet only end through the client's tool timeout.
fn rendezvous(parties: usize) -> Tool {
    let arrived = Arc::new(AtomicUsize::new(0));
    Tool::new(
        "rendezvous",
        "Waits for the others.",
        json!({"type": "object"}),
        move |_, _| {
            let arrived = arrived.clone();
            async move {
                arrived.fetch_add(1, Ordering::SeqCst);
                while arrived.load(Ordering::SeqCst) < parties {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                ToolResult::ok("met")
            }
        },
    )
}

/// Asks which environment unless given one (by argument or by answer); counts its runs.
fn deploy(runs: Arc<AtomicUsize>) -> Tool {
    Tool::new_sync(
        "deploy",
        "Deploys.",
        json!({"type": "object"}),
        move |args, ctx| {
            runs.fetch_add(1, Ordering::SeqCst);
            let answered = ctx.answer().and_then(Answer::text).map(str::to_owned);
            match args["env"].as_str().map(str::to_owned).or(answered) {
                Some(env) => ToolResult::ok(format!("deployed to {env}")),
                None => ToolResult::pending(Request::input("Which environment?")),
            }
        },
    )
}

/// Always suspends, answer or not.
fn stubborn() -> Tool {
    Tool::new_sync(
        "stubborn",
        "Never satisfied.",
        json!({"type": "object"}),
        |_, _| ToolResult::pending(Request::approval("Approve again?")),
    )
}

fn kit() -> Toolkit {
    Toolkit::new()
        .with(add())
        .with(sleep())
        .with(stubborn())
        .with(Tool::new(
            "boom",
            "Panics.",
            json!({"type": "object"}),
            |_, _| async move { panic!("kaboom") },
        ))
}

fn kit_with_deploy(runs: &Arc<AtomicUsize>) -> Toolkit {
    kit().with(deploy(runs.clone()))
}

fn users(transcript: &[Message]) -> usize {
    transcript.iter().filter(|m| m.role() == "user").count()
}

async fn within<F: std::future::Future>(future: F) -> F::Output {
    // Guards against a hang turning into a stuck test; not a timing assertion.
    tokio::time::timeout(Duration::from_secs(30), future)
        .await
        .expect("the run hung")
}

// ---------------------------------------------------------------- the loop

#[tokio::test]
async fn a_reply_without_tool_calls_is_the_answer() {
    let client = Client::new(ScriptedModel::new([Reply::text("hello")])).system("Be brief.");
    let run = client.run("hi", &kit()).await;
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!(run.text, "hello");
    assert_eq!(run.turns, 1);
    assert!(run.tool_calls.is_empty());
    assert_eq!(
        run.messages,
        vec![
            Message::system("Be brief."),
            Message::user("hi"),
            Message::assistant("hello")
        ]
    );
}

#[tokio::test]
async fn tool_results_go_back_keyed_by_call_id_and_usage_adds_up() {
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "add", r#"{"a":1,"b":2}"#),
            call("c2", "add", r#"{"a":3,"b":4}"#),
        ])
        .with_usage(Usage::new(10, 5)),
        Reply::text("3 and 7").with_usage(Usage::new(20, 3)),
    ]));
    let run = Client::new(model.clone()).run("add", &kit()).await;

    assert!(run.is_done());
    assert_eq!(run.turns, 2);
    assert_eq!(run.usage, Usage::new(30, 8));
    assert_eq!(run.tool_calls.len(), 2);
    assert_eq!(run.tool_calls[0].call.id, "c1");
    assert_eq!(run.tool_calls[0].result.output, "3");
    assert_eq!(run.tool_calls[1].result.output, "7");
    assert_eq!(run.tool_calls[1].turn, 1);
    assert_balanced(&run.messages);

    // The model's second turn saw both results.
    let seen = model.transcripts();
    assert_eq!(seen.len(), 2);
    let outputs = tool_outputs(&seen[1]);
    assert_eq!(outputs["c1"], "3");
    assert_eq!(outputs["c2"], "7");
}

#[tokio::test]
async fn results_go_back_in_call_order_even_when_later_calls_finish_first() {
    let model = ScriptedModel::new([
        Reply::calls([
            call("slow", "sleep", r#"{"ms":60}"#),
            call("mid", "sleep", r#"{"ms":30}"#),
            call("fast", "sleep", r#"{"ms":0}"#),
        ]),
        Reply::text("done"),
    ]);
    let run = Client::new(model).run("sleep", &kit()).await;
    let ids: Vec<&str> = run.messages[2..5]
        .iter()
        .filter_map(Message::tool_call_id)
        .collect();
    assert_eq!(ids, ["slow", "mid", "fast"]);
    assert_balanced(&run.messages);
}

#[tokio::test]
async fn concurrent_calls_meet_at_a_barrier_and_sequential_ones_cannot() {
    let turn = || {
        ScriptedModel::new([
            Reply::calls([
                call("r1", "rendezvous", "{}"),
                call("r2", "rendezvous", "{}"),
            ]),
            Reply::text("done"),
        ])
    };
    let timeout = Duration::from_millis(300);

    let toolkit = Toolkit::new().with(rendezvous(2));
    let run = within(
        Client::new(turn())
            .tool_timeout(timeout)
            .run("meet", &toolkit),
    )
    .await;
    let outputs = tool_outputs(&run.messages);
    assert_eq!(
        (outputs["r1"].as_str(), outputs["r2"].as_str()),
        ("met", "met")
    );

    // One after the other, the first call waits for a second that has not started.
    let toolkit = Toolkit::new().with(rendezvous(2));
    let client = Client::new(turn()).tool_timeout(timeout).concurrent(false);
    let run = within(client.run("meet", &toolkit)).await;
    assert!(
        run.tool_calls[0].result.output.contains("timed out"),
        "{:?}",
        run.tool_calls[0]
    );
    assert!(run.tool_calls[0].is_tool_error());
    assert_balanced(&run.messages);
}

#[tokio::test]
async fn concurrent_sleeps_overlap_measured_as_a_ratio() {
    let four = || {
        ScriptedModel::new([
            Reply::calls((1..=4).map(|i| call(&format!("s{i}"), "sleep", r#"{"ms":80}"#))),
            Reply::text("done"),
        ])
    };
    let start = Instant::now();
    let run = Client::new(four()).run("sleep", &kit()).await;
    let concurrent = start.elapsed();
    assert!(run.is_done());

    let start = Instant::now();
    let run = Client::new(four())
        .concurrent(false)
        .run("sleep", &kit())
        .await;
    let sequential = start.elapsed();
    assert!(run.is_done());

    // Four 80ms sleeps: ideally 4x apart. Demand well over 2x, whatever the machine speed.
    let ratio = sequential.as_secs_f64() / concurrent.as_secs_f64();
    assert!(
        ratio > 2.5,
        "sequential/concurrent = {ratio:.2} ({sequential:?} / {concurrent:?})"
    );
}

#[tokio::test]
async fn max_turns_stops_the_run_incomplete_and_balanced() {
    let model = FnModel::new_sync(|transcript, _| {
        Ok(Reply::call(
            format!("c{}", transcript.len()),
            "add",
            r#"{"a":1,"b":1}"#,
        ))
    });
    let run = Client::new(model)
        .max_turns(3)
        .run("loop forever", &kit())
        .await;
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::MaxTurns { limit: 3 }
        }
    );
    assert_eq!(run.turns, 3);
    assert_eq!(run.tool_calls.len(), 3);
    assert_balanced(&run.messages);
    assert_eq!(run.messages.last().map(Message::role), Some("tool"));
}

#[tokio::test]
async fn the_default_limit_is_ten_turns() {
    let model = FnModel::new_sync(|_, _| Ok(Reply::call("", "add", r#"{"a":1,"b":1}"#)));
    let run = Client::new(model).run("loop forever", &kit()).await;
    assert_eq!(run.turns, 10);
    assert!(matches!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::MaxTurns { limit: 10 }
        }
    ));
}

#[tokio::test]
async fn a_model_error_ends_the_run_with_a_clear_reason_and_a_balanced_transcript() {
    let model = ScriptedModel::new([Reply::call("c1", "add", r#"{"a":1,"b":2}"#)])
        .then_fail(ModelError::new("rate limited"));
    let run = Client::new(model).run("add", &kit()).await;
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::ModelError {
                message: "rate limited".into()
            }
        }
    );
    assert_eq!(run.turns, 2);
    assert_eq!(run.tool_calls[0].result.output, "3");
    assert_balanced(&run.messages);
}

#[tokio::test]
async fn a_panicking_model_is_a_model_error() {
    let model = FnModel::new_sync(|_, _| panic!("model bug"));
    let run = Client::new(model).run("hi", &kit()).await;
    let RunStatus::Incomplete {
        reason: StopReason::ModelError { message },
    } = &run.status
    else {
        panic!("expected a model error, got {:?}", run.status);
    };
    assert!(message.contains("panicked"), "{message}");
}

#[tokio::test]
async fn bad_calls_become_error_results_and_the_run_goes_on() {
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([
            call("unknown", "nope", "{}"),
            call("malformed", "add", r#"{"a": 1,"#),
            call("panics", "boom", "{}"),
            call("slow", "sleep", r#"{"ms": 60000}"#),
            call("fine", "add", r#"{"a":2,"b":2}"#),
        ]),
        Reply::text("recovered"),
    ]));
    let client = Client::new(model.clone()).tool_timeout(Duration::from_millis(50));
    let run = within(client.run("try everything", &kit())).await;

    assert!(run.is_done());
    assert_eq!(run.text, "recovered");
    assert_balanced(&run.messages);
    let outputs = tool_outputs(&model.transcripts()[1]);
    assert_eq!(outputs["unknown"], "Unknown tool: nope");
    assert!(
        outputs["malformed"].contains("not valid JSON"),
        "{}",
        outputs["malformed"]
    );
    assert_eq!(outputs["panics"], "boom panicked: kaboom");
    assert!(outputs["slow"].contains("timed out"), "{}", outputs["slow"]);
    assert_eq!(outputs["fine"], "4");
    assert_eq!(run.tool_errors().count(), 4);
    // The malformed text is kept as the model wrote it.
    assert_eq!(run.messages[1].calls()[1].arguments, r#"{"a": 1,"#);
}

#[tokio::test]
async fn empty_and_repeated_call_ids_are_made_unique() {
    let model = ScriptedModel::new([
        Reply::calls([
            call("", "add", r#"{"a":1,"b":1}"#),
            call("x", "add", r#"{"a":2,"b":2}"#),
            call("x", "add", r#"{"a":3,"b":3}"#),
        ]),
        Reply::text("ok"),
    ]);
    let run = Client::new(model).run("add", &kit()).await;
    let ids: Vec<&str> = run.messages[1]
        .calls()
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| !id.is_empty()));
    assert_eq!(ids[1], "x");
    assert_ne!(ids[2], "x");
    assert_balanced(&run.messages);
}

#[tokio::test]
async fn history_puts_a_prior_transcript_before_the_prompt() {
    let model = Arc::new(ScriptedModel::new([
        Reply::text("first"),
        Reply::text("second"),
    ]));
    let client = Client::new(model.clone()).system("sys");
    let first = client.run("one", &kit()).await;
    let second = client.run("two", &kit()).history(first.messages).await;
    assert_eq!(second.text, "second");
    assert_eq!(users(&second.messages), 2);
    assert_eq!(
        second
            .messages
            .iter()
            .filter(|m| m.role() == "system")
            .count(),
        1
    );
    assert_eq!(model.transcripts()[1].len(), 4); // sys, one, first, two
}

#[tokio::test]
async fn parts_travel_with_the_tool_message() {
    let png = std::fs::read(repo_root().join("examples/media/fixture.png")).unwrap();
    let shot = ContentPart::image_bytes(png, "image/png").unwrap();
    let screenshot = {
        let shot = shot.clone();
        Tool::new_sync(
            "screenshot",
            "Takes one.",
            json!({"type": "object"}),
            move |_, _| ToolResult::ok(shot.summary()).with_parts([shot.clone()]),
        )
    };
    let model = ScriptedModel::new([Reply::call("c1", "screenshot", "{}"), Reply::text("seen")]);
    let run = Client::new(model)
        .run("look", &Toolkit::new().with(screenshot))
        .await;
    let Message::Tool { parts, content, .. } = &run.messages[2] else {
        panic!("expected a tool message");
    };
    assert_eq!(content, "image (image/png, 82 bytes)");
    assert_eq!(parts.as_deref(), Some(&[shot][..]));
    let back: Vec<Message> =
        serde_json::from_str(&serde_json::to_string(&run.messages).unwrap()).unwrap();
    assert_eq!(back, run.messages);
}

#[test]
fn messages_serialize_in_openai_shape() {
    let transcript = vec![
        Message::system("sys"),
        Message::user("hi"),
        Message::tool_calls(None, vec![call("c1", "add", r#"{"a":1}"#)]),
        Message::tool_result("c1", &ToolResult::error("bad")),
        Message::assistant("done"),
    ];
    assert_eq!(
        serde_json::to_value(&transcript).unwrap(),
        json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":1}"}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "bad", "is_error": true},
            {"role": "assistant", "content": "done"}
        ])
    );
}

#[test]
fn the_run_future_is_send() {
    fn send<T: Send>(_: T) {}
    let client = Client::new(ScriptedModel::new([]));
    let toolkit = kit();
    send(client.run("hi", &toolkit));
}

// ---------------------------------------------------------------- suspensions: wait_for

#[tokio::test]
async fn wait_for_answers_and_the_same_call_runs_again_with_the_answer() {
    let runs = Arc::new(AtomicUsize::new(0));
    let asked = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "deploy", "{}"),
        Reply::text("deployed"),
    ]));
    let client = Client::new(model.clone()).wait_for({
        let asked = asked.clone();
        move |request: Request| {
            asked.fetch_add(1, Ordering::SeqCst);
            async move { request.answer("staging") }
        }
    });
    let run = within(client.run("deploy", &kit_with_deploy(&runs))).await;

    assert!(run.is_done());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    let record = &run.tool_calls[0];
    assert_eq!(record.result.output, "deployed to staging");
    assert_eq!(record.status, CallStatus::Ok);
    assert_eq!(
        record.request.as_ref().map(|r| r.prompt.as_str()),
        Some("Which environment?")
    );
    assert_eq!(
        record.answer.as_ref().and_then(Answer::text),
        Some("staging")
    );
    assert_eq!(
        tool_outputs(&model.transcripts()[1])["c1"],
        "deployed to staging"
    );
    assert_eq!(run.tool_errors().count(), 0);
    assert_balanced(&run.messages);
}

#[tokio::test]
async fn a_declined_answer_feeds_back_declined_and_the_loop_continues() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "deploy", "{}"),
        Reply::text("ok, not deploying"),
    ]));
    let client = Client::new(model.clone())
        .wait_for(|request: Request| async move { request.decline("user said no") });
    let run = within(client.run("deploy", &kit_with_deploy(&runs))).await;

    assert!(run.is_done());
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "a declined call is not run again"
    );
    assert_eq!(
        tool_outputs(&model.transcripts()[1])["c1"],
        "declined/expired: Which environment?"
    );
    assert_eq!(run.tool_calls[0].status, CallStatus::Declined);
    assert_eq!(run.tool_errors().count(), 0);
}

#[tokio::test]
async fn a_retry_that_suspends_again_is_unresolved() {
    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "stubborn", "{}"),
        Reply::text("gave up"),
    ]));
    let client = Client::new(model.clone()).wait_for(|r: Request| async move { r.answer(true) });
    let run = within(client.run("approve", &kit())).await;

    assert!(run.is_done());
    assert_eq!(
        tool_outputs(&model.transcripts()[1])["c1"],
        "unresolved: Approve again?"
    );
    assert_eq!(run.tool_calls[0].status, CallStatus::Unresolved);
    assert_eq!(run.tool_errors().count(), 0);
}

#[tokio::test]
async fn wait_for_resolves_several_suspensions_in_call_order() {
    let runs = Arc::new(AtomicUsize::new(0));
    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    let model = ScriptedModel::new([
        Reply::calls([call("c1", "deploy", "{}"), call("c2", "deploy", "{}")]),
        Reply::text("both"),
    ]);
    let client = Client::new(model).wait_for({
        let order = order.clone();
        move |request: Request| {
            let n = {
                let mut order = order.lock().unwrap();
                order.push(request.id.clone());
                order.len()
            };
            async move { request.answer(format!("env{n}")) }
        }
    });
    let run = within(client.run("deploy twice", &kit_with_deploy(&runs))).await;
    let outputs = tool_outputs(&run.messages);
    assert_eq!(outputs["c1"], "deployed to env1");
    assert_eq!(outputs["c2"], "deployed to env2");
    assert_eq!(order.lock().unwrap().len(), 2);
}

// ---------------------------------------------------------------- suspensions: halting

#[tokio::test]
async fn without_wait_for_the_run_halts_pending_instead_of_hanging() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new([Reply::call("c1", "deploy", "{}")]);
    let run = within(Client::new(model).run("deploy", &kit_with_deploy(&runs))).await;

    assert_eq!(run.status, RunStatus::Pending);
    let request = run.pending.clone().expect("a pending request");
    assert_eq!(request.prompt, "Which environment?");
    assert_eq!(run.tool_calls[0].status, CallStatus::Pending);
    assert_eq!(
        run.tool_errors().count(),
        0,
        "a suspension is not a tool error"
    );
    assert_eq!(
        run.messages.last().and_then(Message::pending),
        Some(&request)
    );
}

#[tokio::test]
async fn two_concurrent_suspensions_halt_on_the_first_in_call_order() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit_with_deploy(&runs);
    let model = ScriptedModel::new([
        Reply::calls([
            call("c1", "add", r#"{"a":1,"b":1}"#),
            call("c2", "deploy", "{}"),
            call("c3", "deploy", "{}"),
        ]),
        Reply::text("all deployed"),
    ]);
    let client = Client::new(Arc::new(model));
    let run = within(client.run("deploy twice", &toolkit)).await;

    assert!(run.is_pending());
    assert_eq!(runs.load(Ordering::SeqCst), 2, "both suspended calls ran");
    let first = run.pending.clone().unwrap();
    assert_eq!(run.tool_calls[1].request.as_ref(), Some(&first));
    assert_eq!(run.tool_errors().count(), 0);

    // Answer the first: the run halts again on the second call's own request.
    let again = client
        .resume(run.messages, first.answer("staging"), &toolkit)
        .await
        .unwrap();
    assert!(again.is_pending());
    let second = again.pending.clone().unwrap();
    assert_eq!(Some(&second), run.tool_calls[2].request.as_ref());
    assert_eq!(
        again.turns, 0,
        "the model is not called while the turn is open"
    );

    let done = client
        .resume(again.messages, second.answer("production"), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done());
    assert_eq!(done.text, "all deployed");
    assert_balanced(&done.messages);
    let outputs = tool_outputs(&done.messages);
    assert_eq!(outputs["c1"], "2");
    assert_eq!(outputs["c2"], "deployed to staging");
    assert_eq!(outputs["c3"], "deployed to production");
    assert_eq!(users(&done.messages), 1);
}

#[tokio::test]
async fn resume_after_a_json_round_trip_in_a_fresh_client() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new([Reply::call("c1", "deploy", "{}")]);
    let halted = within(Client::new(model).run("deploy", &kit_with_deploy(&runs))).await;
    let saved = serde_json::to_string(&halted).unwrap();

    // A new process: nothing but the JSON, a fresh toolkit and a fresh model.
    let restored: RunResult = serde_json::from_str(&saved).unwrap();
    assert_eq!(restored, halted);
    let request = restored.pending.clone().unwrap();
    let later = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(ScriptedModel::new([Reply::text(
        "deployed to staging, done",
    )]));
    let run = Client::new(model.clone())
        .resume(
            restored.messages,
            request.answer("staging"),
            &kit_with_deploy(&later),
        )
        .await
        .unwrap();

    assert!(run.is_done());
    assert_eq!(
        later.load(Ordering::SeqCst),
        1,
        "the halted call ran again, once"
    );
    assert_eq!(run.tool_calls[0].result.output, "deployed to staging");
    assert_eq!(run.tool_calls[0].turn, 0);
    assert_balanced(&run.messages);
    assert_eq!(users(&run.messages), 1, "no new user turn");
    // The model picked up right after the tool result.
    let seen = &model.transcripts()[0];
    assert_eq!(
        seen.last().and_then(Message::text),
        Some("deployed to staging")
    );
}

#[tokio::test]
async fn resume_rejects_an_answer_for_another_request() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit_with_deploy(&runs);
    let model = ScriptedModel::new([Reply::call("c1", "deploy", "{}")]);
    let halted = Client::new(model).run("deploy", &toolkit).await;
    let request = halted.pending.clone().unwrap();

    // The request is the one of the answer's id: an answer to another one finds none.
    let wrong = Answer::accept("req-someone-else").with_data("staging");
    let err = resume(halted.messages.clone(), wrong.clone(), &toolkit)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ResumeError::UnknownRequest {
            request: "req-someone-else".into()
        }
    );
    assert!(err.to_string().contains("req-someone-else"));
    let err = Client::new(ScriptedModel::default())
        .resume(&halted, wrong.clone(), &toolkit)
        .await
        .unwrap_err();
    assert!(matches!(err, ResumeError::UnknownRequest { .. }), "{err:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 1, "nothing ran");

    // A request the transcript is not waiting on, and a transcript with nothing halted.
    let stranger = Request::input("?").with_id("req-x");
    let err = resume(halted.messages.clone(), stranger.answer("a"), &toolkit).await;
    assert_eq!(
        err.unwrap_err(),
        ResumeError::UnknownRequest {
            request: "req-x".into()
        }
    );
    let done = vec![Message::user("hi"), Message::assistant("hello")];
    let err = resume(done, request.answer("a"), &toolkit).await;
    assert_eq!(err.unwrap_err(), ResumeError::NotHalted);
}

#[tokio::test]
async fn resume_runs_the_calls_a_sequential_turn_never_reached() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit_with_deploy(&runs);
    let model = ScriptedModel::new([Reply::calls([
        call("c1", "deploy", "{}"),
        call("c2", "add", r#"{"a":5,"b":5}"#),
        call("c3", "nope", "{}"),
    ])]);
    let halted = Client::new(model)
        .concurrent(false)
        .run("go", &toolkit)
        .await;
    assert!(halted.is_pending());
    assert_eq!(halted.tool_calls.len(), 1, "c2 and c3 never ran");
    assert_eq!(halted.messages.len(), 3); // user, assistant, c1 (pending)

    let request = halted.pending.unwrap();
    let resumed = resume(halted.messages, request.answer("qa"), &toolkit)
        .await
        .unwrap();
    assert_eq!(resumed.pending, None);
    assert_balanced(&resumed.transcript);
    let outputs = tool_outputs(&resumed.transcript);
    assert_eq!(outputs["c1"], "deployed to qa");
    assert_eq!(outputs["c2"], "10");
    assert_eq!(outputs["c3"], "Unknown tool: nope");
    assert_eq!(resumed.calls.len(), 3);
    assert!(resumed.calls[2].is_tool_error());
    assert!(!resumed.calls[0].is_tool_error());
}

#[tokio::test]
async fn resume_with_a_declining_answer_feeds_back_declined() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit_with_deploy(&runs);
    let model = ScriptedModel::new([Reply::call("c1", "deploy", "{}")]);
    let halted = Client::new(model).run("deploy", &toolkit).await;
    let request = halted.pending.unwrap();
    let resumed = resume(halted.messages, request.decline("expired"), &toolkit)
        .await
        .unwrap();
    assert_eq!(
        tool_outputs(&resumed.transcript)["c1"],
        "declined/expired: Which environment?"
    );
    assert_eq!(resumed.calls[0].status, CallStatus::Declined);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_new_prompt_on_a_halted_transcript_closes_the_open_turn() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit_with_deploy(&runs);
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "deploy", "{}"),
            call("c2", "add", r#"{"a":1,"b":1}"#),
        ]),
        Reply::text("never mind then"),
    ]));
    let client = Client::new(model.clone()).concurrent(false);
    let halted = client.run("deploy", &toolkit).await;
    let run = client
        .run("forget it", &toolkit)
        .history(halted.messages)
        .await;
    assert!(run.is_done());
    assert_balanced(&run.messages);
    let outputs = tool_outputs(&run.messages);
    assert_eq!(outputs["c1"], "unanswered: Which environment?");
    assert!(outputs["c2"].starts_with("not run:"), "{}", outputs["c2"]);
}

// ---------------------------------------------------------------- the example

#[tokio::test]
async fn example_wait_for_path_deploys_with_the_given_answer() {
    let run = example::interactive(example::AnswerSource::Fixed("production".into())).await;
    assert!(run.is_done());
    assert_eq!(
        run.text,
        "The deploy tool said: deployed build 42 to production"
    );
    assert_eq!(
        run.tool_calls[0].answer.as_ref().and_then(Answer::text),
        Some("production")
    );
}

#[tokio::test]
async fn example_saved_path_halts_saves_and_resumes_from_the_file() {
    let path = std::env::temp_dir().join(format!(
        "toolnexus-example-test-{}.json",
        std::process::id()
    ));
    let source = example::AnswerSource::Fixed("staging".into());
    let (halted, finished) = example::saved(&source, &path).await.unwrap();

    assert!(halted.is_pending());
    let saved: RunResult = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved, halted);
    assert!(finished.is_done());
    assert_eq!(
        finished.text,
        "The deploy tool said: deployed build 42 to staging"
    );
    assert_balanced(&finished.messages);
    std::fs::remove_file(&path).ok();
}

#[test]
fn example_reads_its_answer_from_the_command_line() {
    use example::{AnswerSource, parse_args};
    let args = |a: &[&str]| parse_args(a.iter().map(|s| s.to_string()));
    assert_eq!(args(&[]), Ok(AnswerSource::Fixed("staging".into())));
    assert_eq!(
        args(&["--env", "prod"]),
        Ok(AnswerSource::Fixed("prod".into()))
    );
    assert_eq!(args(&["--env=qa"]), Ok(AnswerSource::Fixed("qa".into())));
    assert_eq!(args(&["--stdin"]), Ok(AnswerSource::Stdin));
    assert!(args(&["--env"]).is_err());
    assert!(args(&["--what"]).unwrap_err().contains("--what"));
}

fn repo_root() -> std::path::PathBuf {
    std::env::var_os("TOOLNEXUS_REPO")
        .map(Into::into)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

//! Suspensions under real conditions: several answered at once, a `wait_for` that fails,
//! one that never answers, and the text of a pending run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use toolnexus::agent::{CallStatus, StopReason};
use toolnexus::{Answer, Client, Reply, Request, RunStatus, ScriptedModel};

#[path = "support/agent.rs"]
#[allow(dead_code)]
mod agent;
use agent::{assert_balanced, call, kit, tool_ids, tool_outputs};

/// Two logins in one turn, then an answer.
fn two_logins() -> ScriptedModel {
    ScriptedModel::new([
        Reply::calls([
            call("c1", "login", r#"{"user":"ann"}"#),
            call("c2", "login", r#"{"user":"bob"}"#),
        ]),
        Reply::text("both logged in"),
    ])
}

/// Answers every request after `ms` of tokio's clock, with the request's id as the name.
fn slow_answer(
    ms: u64,
) -> impl Fn(Request) -> std::pin::Pin<Box<dyn Future<Output = Answer> + Send>> + Send + Sync + 'static
{
    move |request: Request| {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            request.answer(request.id.trim_start_matches("login-").to_owned())
        })
    }
}

#[tokio::test(start_paused = true)]
async fn two_300ms_waits_in_one_turn_take_300ms_not_600ms() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = Client::new(two_logins()).wait_for(slow_answer(300));
    let started = Instant::now();
    let run = client.run("log both in", &kit(&runs)).await;
    let took = started.elapsed();

    assert!(run.is_done(), "{:?}", run.status);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(
        took < Duration::from_millis(400),
        "the waits overlap: {took:?}"
    );
    let outputs = tool_outputs(&run.messages);
    assert_eq!(outputs["c1"], "logged in as ann");
    assert_eq!(outputs["c2"], "logged in as bob");
    assert_eq!(tool_ids(&run.messages), ["c1", "c2"]);
    assert_eq!(
        runs.load(Ordering::SeqCst),
        4,
        "each call ran, then re-ran once"
    );
    assert_balanced(&run.messages);
}

#[tokio::test(start_paused = true)]
async fn sequential_mode_still_waits_one_after_the_other() {
    // The control for the test above: the same clock does see 600 ms when the waits
    // cannot overlap.
    let runs = Arc::new(AtomicUsize::new(0));
    let client = Client::new(two_logins())
        .concurrent(false)
        .wait_for(slow_answer(300));
    let started = Instant::now();
    let run = client.run("log both in", &kit(&runs)).await;
    assert!(run.is_done());
    assert!(started.elapsed() >= Duration::from_millis(600));
}

#[tokio::test(start_paused = true)]
async fn results_stay_in_call_order_when_the_second_wait_answers_first() {
    let runs = Arc::new(AtomicUsize::new(0));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let finished = Arc::new(Mutex::new(Vec::new()));
    let client = Client::new(two_logins()).wait_for({
        let (asked, finished) = (asked.clone(), finished.clone());
        move |request: Request| {
            asked.lock().unwrap().push(request.id.clone());
            let finished = finished.clone();
            async move {
                // ann answers slowly, bob quickly.
                let ms = if request.id == "login-ann" { 500 } else { 100 };
                tokio::time::sleep(Duration::from_millis(ms)).await;
                finished.lock().unwrap().push(request.id.clone());
                request.answer(request.id.trim_start_matches("login-").to_owned())
            }
        }
    });
    let run = client.run("log both in", &kit(&runs)).await;

    assert_eq!(*asked.lock().unwrap(), ["login-ann", "login-bob"]);
    assert_eq!(*finished.lock().unwrap(), ["login-bob", "login-ann"]);
    assert_eq!(tool_ids(&run.messages), ["c1", "c2"]);
    let ids: Vec<&str> = run.tool_calls.iter().map(|c| c.call.id.as_str()).collect();
    assert_eq!(ids, ["c1", "c2"]);
    assert!(run.tool_calls.iter().all(|c| c.status == CallStatus::Ok));
}

#[tokio::test]
async fn a_failing_wait_for_ends_the_run_halted_on_the_request_and_resumable() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit(&runs);
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "add", r#"{"a":1,"b":2}"#),
            call("c2", "login", r#"{"user":"ann"}"#),
        ]),
        Reply::text("logged in"),
    ]));
    let client = Client::new(model.clone())
        .wait_for(|_: Request| async move { Err::<Answer, _>("the approval service is down") });
    let run = client.run("log in", &toolkit).await;

    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::WaitFor {
                request: "login-ann".into(),
                message: "the approval service is down".into(),
            }
        }
    );
    let request = run.pending.clone().expect("halted on the request");
    assert_eq!(request.id, "login-ann");
    assert_eq!(
        run.messages.last().and_then(|m| m.pending()),
        Some(&request)
    );
    assert_eq!(
        tool_outputs(&run.messages)["c1"],
        "3",
        "the other call is kept"
    );
    assert_eq!(
        run.status.clone(),
        serde_json::from_value(serde_json::to_value(&run.status).unwrap()).unwrap()
    );

    // Later, with an answer: the run finishes from where it halted.
    let done = Client::new(model.clone())
        .resume(run.messages, request.answer("ann"), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    assert_eq!(done.text, "logged in");
    assert_eq!(tool_outputs(&done.messages)["c2"], "logged in as ann");
    assert_balanced(&done.messages);
}

#[tokio::test(start_paused = true)]
async fn a_wait_for_that_never_answers_expires_at_its_deadline() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "login", r#"{"user":"ann"}"#),
        Reply::text("could not log in"),
    ]));
    let client = Client::new(model.clone())
        .wait_for(|_: Request| std::future::pending::<Answer>())
        .wait_timeout(Duration::from_secs(5));
    let started = Instant::now();
    let run = client.run("log in", &kit(&runs)).await;

    assert_eq!(started.elapsed(), Duration::from_secs(5));
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(
        tool_outputs(&model.transcripts()[1])["c1"],
        "declined/expired: Log in"
    );
    let record = &run.tool_calls[0];
    assert_eq!(record.status, CallStatus::Declined);
    let answer = record
        .answer
        .as_ref()
        .expect("the expiry is recorded as an answer");
    assert!(!answer.ok);
    assert_eq!(answer.reason.as_deref(), Some("no answer within 5s"));
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "an expired request is not re-run"
    );
}

#[tokio::test(start_paused = true)]
async fn a_wait_for_that_never_answers_is_stopped_by_the_run_deadline() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = Client::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "login", r#"{"user":"ann"}"#),
            call("c2", "add", r#"{"a":1,"b":1}"#),
        ]),
        Reply::text("unreachable"),
    ]))
    .wait_for(|_: Request| std::future::pending::<Answer>())
    .run_timeout(Duration::from_secs(2));
    let started = Instant::now();
    let run = client.run("log in", &kit(&runs)).await;

    assert_eq!(started.elapsed(), Duration::from_secs(2));
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Deadline { limit_ms: 2000 }
        }
    );
    assert_balanced(&run.messages);
    let outputs = tool_outputs(&run.messages);
    assert_eq!(
        outputs["c1"],
        "unanswered: Log in (the run reached its deadline of 2000ms)"
    );
    assert_eq!(outputs["c2"], "2");
    assert_eq!(run.tool_calls[0].status, CallStatus::Cancelled);
    assert_eq!(run.tool_calls[1].status, CallStatus::Ok);
}

#[tokio::test]
async fn a_pending_runs_text_is_the_request_prompt() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit(&runs);
    let client = Client::new(two_logins()).system("sys");
    let run = client.run("log both in", &toolkit).await;
    assert!(run.is_pending());
    assert_eq!(run.text, "Log in");
    assert_eq!(run.pending.as_ref().unwrap().id, "login-ann");

    // Resumed on the first, pending again on the second: the text is its prompt too.
    let first = run.pending.clone().unwrap();
    let again = client
        .resume(run.messages, first.answer("ann"), &toolkit)
        .await
        .unwrap();
    assert!(again.is_pending());
    assert_eq!(again.pending.as_ref().unwrap().id, "login-bob");
    assert_eq!(again.text, "Log in");
}

#[tokio::test]
async fn a_panicking_wait_for_still_leaves_the_call_unresolved_and_goes_on() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = Client::new(two_logins()).wait_for(|request: Request| async move {
        if request.id == "login-ann" {
            panic!("terminal closed");
        }
        request.answer("bob")
    });
    let run = client.run("log both in", &kit(&runs)).await;
    assert!(run.is_done());
    let outputs = tool_outputs(&run.messages);
    assert_eq!(outputs["c1"], "unresolved: Log in (wait_for panicked)");
    assert_eq!(outputs["c2"], "logged in as bob");
}

//! How a run ends early: cancellation and run deadlines (mid tool, mid model turn, before
//! the first turn), picking a stopped run up again; and the failures that must not end a
//! run (bad calls) or must keep ending it as they always did (model errors, panics).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;
use toolnexus::agent::{CallStatus, StopReason};
use toolnexus::model::FnModel;
use toolnexus::tool::CancellationToken;
use toolnexus::{Client, Message, ModelError, Reply, RunStatus, ScriptedModel, Tool, ToolResult};

#[path = "support/agent.rs"]
#[allow(dead_code)]
mod agent;
use agent::{assert_balanced, call, kit, tool_outputs};

/// Cancels `token` after `ms` of tokio's clock.
fn cancel_after(token: &CancellationToken, ms: u64) {
    let token = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        token.cancel();
    });
}

fn cancelled() -> RunStatus {
    RunStatus::Incomplete {
        reason: StopReason::Cancelled,
    }
}

#[tokio::test(start_paused = true)]
async fn cancelled_mid_tool_the_run_returns_at_once_balanced_and_can_be_picked_up() {
    let runs = Arc::new(AtomicUsize::new(0));
    let saw_cancel = Arc::new(AtomicBool::new(false));
    // A tool that hands its context's token to background work, then runs forever.
    let watcher = Tool::new("watch", "Watches.", json!({"type": "object"}), {
        let saw_cancel = saw_cancel.clone();
        move |_, ctx| {
            let saw_cancel = saw_cancel.clone();
            async move {
                if let Some(token) = ctx.cancellation().cloned() {
                    tokio::spawn(async move {
                        token.cancelled().await;
                        saw_cancel.store(true, Ordering::SeqCst);
                    });
                }
                std::future::pending::<()>().await;
                ToolResult::ok("unreachable")
            }
        }
    });
    let toolkit = kit(&runs).with(watcher);
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "add", r#"{"a":1,"b":2}"#),
            call("c2", "sleep", r#"{"ms":60000}"#),
            call("c3", "watch", "{}"),
        ]),
        Reply::text("picked up"),
    ]));
    let token = CancellationToken::new();
    cancel_after(&token, 1000);
    let started = Instant::now();
    let run = Client::new(model.clone())
        .cancellation(token)
        .run("go", &toolkit)
        .await;

    assert_eq!(started.elapsed(), Duration::from_secs(1));
    assert_eq!(run.status, cancelled());
    assert_eq!(run.turns, 1);
    assert_balanced(&run.messages);
    let outputs = tool_outputs(&run.messages);
    assert_eq!(outputs["c1"], "3");
    assert_eq!(
        outputs["c2"],
        "cancelled: sleep did not finish: the run was cancelled"
    );
    assert_eq!(
        outputs["c3"],
        "cancelled: watch did not finish: the run was cancelled"
    );
    let statuses: Vec<CallStatus> = run.tool_calls.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [CallStatus::Ok, CallStatus::Cancelled, CallStatus::Cancelled]
    );
    assert_eq!(
        run.tool_errors().count(),
        0,
        "a cancelled call is not a tool error"
    );
    tokio::task::yield_now().await;
    assert!(
        saw_cancel.load(Ordering::SeqCst),
        "tools see the cancellation"
    );

    // Picked up with a fresh token: the model reads what happened and answers.
    let picked = Client::new(model.clone())
        .run_from(run.messages.clone(), &toolkit)
        .await;
    assert!(picked.is_done(), "{:?}", picked.status);
    assert_eq!(picked.text, "picked up");
    assert_eq!(model.transcripts()[1], run.messages);
    assert_balanced(&picked.messages);
}

#[tokio::test(start_paused = true)]
async fn cancelled_mid_model_turn_the_transcript_ends_before_that_turn() {
    let runs = Arc::new(AtomicUsize::new(0));
    let turns = Arc::new(AtomicUsize::new(0));
    // Turn 1 asks for a call; turn 2 takes a minute.
    let model = FnModel::new({
        let turns = turns.clone();
        move |_: Vec<Message>, _| {
            let turn = turns.fetch_add(1, Ordering::SeqCst) + 1;
            async move {
                if turn == 1 {
                    return Ok(Reply::call("c1", "add", r#"{"a":2,"b":2}"#));
                }
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok(Reply::text("too late"))
            }
        }
    });
    let token = CancellationToken::new();
    cancel_after(&token, 500);
    let started = Instant::now();
    let run = Client::new(model)
        .cancellation(token)
        .run("add", &kit(&runs))
        .await;

    assert_eq!(started.elapsed(), Duration::from_millis(500));
    assert_eq!(run.status, cancelled());
    assert_eq!(run.turns, 2);
    assert_balanced(&run.messages);
    let roles: Vec<&str> = run.messages.iter().map(Message::role).collect();
    assert_eq!(roles, ["user", "assistant", "tool"]);
    assert_eq!(run.tool_calls[0].result.output, "4");
}

#[tokio::test(start_paused = true)]
async fn a_run_deadline_stops_a_slow_tool_and_says_so() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = Client::new(ScriptedModel::new([
        Reply::call("c1", "sleep", r#"{"ms":60000}"#),
        Reply::text("unreachable"),
    ]))
    .run_timeout(Duration::from_secs(2));
    let started = Instant::now();
    let run = client.run("sleep", &kit(&runs)).await;

    assert_eq!(started.elapsed(), Duration::from_secs(2));
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Deadline { limit_ms: 2000 }
        }
    );
    assert_balanced(&run.messages);
    assert_eq!(
        tool_outputs(&run.messages)["c1"],
        "cancelled: sleep did not finish: the run reached its deadline of 2000ms"
    );
    assert_eq!(
        StopReason::Deadline { limit_ms: 2000 }.to_string(),
        "the run reached its deadline of 2000ms"
    );
}

#[tokio::test(start_paused = true)]
async fn a_run_deadline_that_is_not_reached_changes_nothing() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = Client::new(ScriptedModel::new([
        Reply::call("c1", "sleep", r#"{"ms":1000}"#),
        Reply::text("done"),
    ]))
    .run_timeout(Duration::from_secs(2))
    .cancellation(CancellationToken::new());
    let run = client.run("sleep", &kit(&runs)).await;
    assert!(run.is_done());
    assert_eq!(run.tool_calls[0].result.output, "slept 1000ms");
}

#[tokio::test]
async fn a_token_cancelled_before_the_run_stops_it_before_the_model_is_asked() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(ScriptedModel::new([Reply::text("never")]));
    let token = CancellationToken::new();
    token.cancel();
    let run = Client::new(model.clone())
        .cancellation(token)
        .run("hi", &kit(&runs))
        .await;
    assert_eq!(run.status, cancelled());
    assert_eq!(run.turns, 0);
    assert_eq!(model.remaining(), 1);
    assert_eq!(run.messages.len(), 1);
}

// ---------------------------------------------------------------- failures

#[tokio::test]
async fn a_model_error_still_ends_the_run_incomplete_and_balanced() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new([Reply::call("c1", "add", r#"{"a":1,"b":2}"#)])
        .then_fail(ModelError::new("rate limited"));
    // Hooks and a listener do not change how a model error ends the run.
    let run = Client::new(model)
        .after_turn(|_, _| async {})
        .on_event(|_| {})
        .run("add", &kit(&runs))
        .await;
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::ModelError {
                message: "rate limited".into()
            }
        }
    );
    assert_eq!(run.tool_calls[0].result.output, "3");
    assert_balanced(&run.messages);
}

#[tokio::test]
async fn a_panicking_model_is_still_a_model_error() {
    let runs = Arc::new(AtomicUsize::new(0));
    for streaming in [false, true] {
        let mut client = Client::new(FnModel::new_sync(|_, _| panic!("model bug")));
        if streaming {
            client = client.on_event(|_| {});
        }
        let run = client.run("hi", &kit(&runs)).await;
        let RunStatus::Incomplete {
            reason: StopReason::ModelError { message },
        } = &run.status
        else {
            panic!("expected a model error, got {:?}", run.status);
        };
        assert!(message.contains("panicked"), "{message}");
        assert_balanced(&run.messages);
    }
}

#[tokio::test]
async fn malformed_arguments_a_duplicate_id_and_an_unknown_tool_go_back_as_error_results() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([
            call("a", "add", r#"{"a": 1,"#),
            call("b", "add", r#"{"a":1,"b":1}"#),
            call("b", "login", r#"{"user":"ann"}"#),
            call("c", "no_such_tool", "{}"),
        ]),
        Reply::text("recovered"),
    ]));
    let run = Client::new(model.clone()).run("try", &kit(&runs)).await;

    assert!(run.is_done(), "not a failed run: {:?}", run.status);
    assert_eq!(run.text, "recovered");
    assert_balanced(&run.messages);
    let shown = &model.transcripts()[1];
    let outputs = tool_outputs(shown);
    assert!(outputs["a"].contains("not valid JSON"), "{}", outputs["a"]);
    assert_eq!(outputs["b"], "2");
    let renamed = &run.messages[1].calls()[2].id;
    assert_ne!(renamed, "b", "the repeated id is replaced");
    assert!(
        outputs[renamed.as_str()].contains("the call id `b` repeats an earlier call"),
        "{}",
        outputs[renamed.as_str()]
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        0,
        "the duplicate call did not run"
    );
    assert_eq!(outputs["c"], "Unknown tool: no_such_tool");
    let errors = shown
        .iter()
        .filter(|m| matches!(m, Message::Tool { is_error: true, .. }))
        .count();
    assert_eq!(
        errors, 3,
        "each bad call is an error result the model reads"
    );
    assert_eq!(run.tool_errors().count(), 3);
}

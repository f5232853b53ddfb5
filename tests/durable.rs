//! Durable runs (`toolnexus::store`) on SQLite and on a real PostgreSQL server: every
//! behaviour is checked on both backends, through the public API only.
//!
//! PostgreSQL is Debian's server, started once for this test binary in a temp directory
//! on 127.0.0.1 (tests/support/postgres.rs); each test gets a database of its own.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use toolnexus::agent::{CallStatus, StopReason};
use toolnexus::model::FnModel;
use toolnexus::store::{RunStore, StoreError};
use toolnexus::{
    Answer, Client, Message, Reply, Request, RunStatus, ScriptedModel, Tool, ToolCall, ToolResult,
    Toolkit,
};

#[path = "support/durable.rs"]
mod durable;
#[path = "support/postgres.rs"]
mod postgres;

use durable::{Seen, approving, counting, on_both, steps};

async fn sqlite(_name: &str) -> RunStore {
    RunStore::sqlite(":memory:").await.expect("in-memory store")
}

async fn pg(name: &str) -> RunStore {
    let url = tokio::task::spawn_blocking({
        let name = format!("durable_{name}");
        move || postgres::server().database(&name)
    })
    .await
    .unwrap();
    RunStore::postgres(url).await.expect("PostgreSQL store")
}

fn seen() -> Seen {
    Arc::new(Mutex::new(Vec::new()))
}

fn tool_messages(transcript: &[Message]) -> usize {
    transcript
        .iter()
        .filter(|m| matches!(m, Message::Tool { .. }))
        .count()
}

// ---------------------------------------------------------------------------------------

on_both!(a_run_is_checkpointed_under_its_id, checkpointed);
async fn checkpointed(store: RunStore) {
    let seen = seen();
    let toolkit = Toolkit::new().with(counting(seen.clone()));
    let client = Client::new(steps("count", 3)).store(store.clone());
    let run = client.run("count to three", &toolkit).await;
    assert!(run.is_done(), "{:?}", run.status);
    let id = run.id.clone().expect("a durable run has an id");
    assert!(id.starts_with("run_"), "{id}");
    assert_eq!(store.result(&id).await.unwrap(), Some(run.clone()));
    let keys: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.1.clone().unwrap())
        .collect();
    assert_eq!(keys.len(), 3);
    assert!(keys.iter().all(|k| k.starts_with(&id)), "{keys:?}");
    let mut distinct = keys.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "one key per call: {keys:?}");

    // A given id is used, and a second run under it is refused, not mixed in.
    let named = client.clone().run_id("nightly-1");
    assert_eq!(
        named.run("again", &toolkit).await.id.as_deref(),
        Some("nightly-1")
    );
    let twice = named.run("again", &toolkit).await;
    match &twice.status {
        RunStatus::Incomplete {
            reason: StopReason::Store { message },
        } => assert!(message.contains("nightly-1"), "{message}"),
        other => panic!("a second run under one id: {other:?}"),
    }
    // The id (and the lease) may be set before the store: the order of setters is free.
    let first = Client::new(ScriptedModel::new([Reply::text("done")]))
        .run_id("set-before-the-store")
        .lease(std::time::Duration::from_secs(5))
        .store(store.clone());
    let run = first.run("go", &Toolkit::new()).await;
    assert_eq!(run.id.as_deref(), Some("set-before-the-store"));
    assert!(
        store
            .result("set-before-the-store")
            .await
            .unwrap()
            .is_some()
    );
    assert!(matches!(
        store.result("no-such-run").await,
        Err(StoreError::UnknownRun(id)) if id == "no-such-run"
    ));
}

// ---------------------------------------------------------------------------------------

/// A tool `count` that, on its first execution with `n == crash_at`, never returns (the
/// worker "dies" there: the test drops the run); records executions.
fn crashing(seen: Seen, crash_at: i64, crashed: Arc<AtomicBool>) -> Tool {
    Tool::new(
        "count",
        "Counts.",
        json!({"type": "object"}),
        move |args, ctx| {
            let seen = seen.clone();
            let crashed = crashed.clone();
            async move {
                let n = args["n"].as_i64().unwrap_or(-1);
                seen.lock()
                    .unwrap()
                    .push((n, ctx.idempotency_key().map(str::to_owned), None));
                if n == crash_at && !crashed.swap(true, Ordering::SeqCst) {
                    std::future::pending::<()>().await;
                }
                ToolResult::ok(format!("ok {n}"))
            }
        },
    )
}

async fn until(flag: &AtomicBool) {
    while !flag.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

on_both!(recovery_never_runs_a_settled_call_again, recovery);
async fn recovery(store: RunStore) {
    let seen = seen();
    let crashed = Arc::new(AtomicBool::new(false));
    let toolkit = Toolkit::new().with(crashing(seen.clone(), 2, crashed.clone()));
    let lease = Duration::from_millis(150);
    let worker = Client::new(steps("count", 5))
        .store(store.clone())
        .lease(lease);
    tokio::select! {
        run = worker.run("count to five", &toolkit) => panic!("the run ended: {run:?}"),
        () = until(&crashed) => {} // the worker dies in call 2: its future is dropped
    }
    // Before the lease expires nobody takes the run over.
    let other = Client::new(steps("count", 5))
        .store(store.clone())
        .lease(lease);
    assert!(other.recover(&toolkit).await.unwrap().is_empty());
    tokio::time::sleep(lease * 2).await;
    let recovered = other.recover(&toolkit).await.unwrap();
    assert_eq!(recovered.len(), 1);
    let run = &recovered[0];
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(tool_messages(&run.messages), 5);
    let seen = seen.lock().unwrap().clone();
    let runs_of = |n| seen.iter().filter(|s| s.0 == n).count();
    assert_eq!(
        [0, 1, 3, 4].map(runs_of),
        [1, 1, 1, 1],
        "settled calls ran once: {seen:?}"
    );
    assert_eq!(runs_of(2), 2, "the call in flight ran again: {seen:?}");
    let keys: Vec<_> = seen
        .iter()
        .filter(|s| s.0 == 2)
        .map(|s| s.1.clone())
        .collect();
    assert_eq!(keys[0], keys[1], "with the same idempotency key");
    assert!(
        other.recover(&toolkit).await.unwrap().is_empty(),
        "recovered once"
    );
}

// ---------------------------------------------------------------------------------------

on_both!(a_parked_run_is_answered_from_another_client, parked);
async fn parked(store: RunStore) {
    let seen = seen();
    let toolkit = Toolkit::new().with(approving(seen.clone(), "p", None));
    let first = Client::new(steps("approve", 1)).store(store.clone());
    let run = first.run("do it", &toolkit).await;
    assert!(run.is_pending(), "{:?}", run.status);
    let id = run.id.clone().unwrap();

    let waiting = store.pending().await.unwrap();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let w = &waiting[0];
    assert_eq!(
        (w.run_id.as_str(), w.tool.as_str()),
        (id.as_str(), "approve")
    );
    assert_eq!(w.prompt, "May I do step 0?");
    assert_eq!(w.request.id, "approve-p-0");
    assert!(w.age < Duration::from_secs(60));

    // Another client (another process, in real life) answers it.
    let second = Client::new(steps("approve", 1)).store(store.clone());
    let answer = Answer::accept("approve-p-0").with_data("ana");
    let resumed = second.answer(answer.clone(), &toolkit).await.unwrap();
    assert!(resumed.is_done(), "{:?}", resumed.status);
    assert_eq!(resumed.id.as_deref(), Some(id.as_str()));
    assert_eq!(resumed.tool_calls[0].result.output, "approved 0 by ana");
    assert!(store.pending().await.unwrap().is_empty());
    assert_eq!(store.result(&id).await.unwrap(), Some(resumed));

    match second.answer(answer, &toolkit).await {
        Err(e @ StoreError::AlreadyAnswered { .. }) => {
            assert!(
                e.to_string().contains("approve-p-0") && e.to_string().contains(&id),
                "{e}"
            )
        }
        other => panic!("a second answer: {other:?}"),
    }
    assert!(matches!(
        second.answer(Answer::accept("nobody-asked"), &toolkit).await,
        Err(StoreError::UnknownRequest(r)) if r == "nobody-asked"
    ));
    assert_eq!(
        seen.lock().unwrap().len(),
        2,
        "asked once, ran once with the answer"
    );
}

// ---------------------------------------------------------------------------------------

on_both!(an_expired_request_is_answered_as_expired, expired);
async fn expired(store: RunStore) {
    let seen = seen();
    let toolkit = Toolkit::new().with(approving(seen.clone(), "e", Some("2000-01-01T00:00:00Z")));
    let client = Client::new(steps("approve", 1)).store(store.clone());

    // Whoever looks first: the inbox answers it as expired, recover finishes the run.
    let run = client.run("do it", &toolkit).await;
    assert!(run.is_pending());
    assert!(store.pending().await.unwrap().is_empty(), "not listed");
    let recovered = client.recover(&toolkit).await.unwrap();
    assert_eq!(recovered.len(), 1);
    assert!(recovered[0].is_done());
    assert_eq!(recovered[0].tool_calls[0].status, CallStatus::Declined);
    assert!(
        recovered[0].tool_calls[0]
            .result
            .output
            .starts_with("declined/expired:")
    );

    // An answer that comes too late is recorded as expired; the tool does not run again.
    let toolkit = Toolkit::new().with(approving(
        seen.clone(),
        "f",
        Some("2000-01-01T00:00:00+02:00"),
    ));
    let run = client.run("do it", &toolkit).await;
    assert!(run.is_pending());
    let late = client
        .answer(Answer::accept("approve-f-0"), &toolkit)
        .await
        .unwrap();
    assert_eq!(late.tool_calls[0].status, CallStatus::Declined);
    assert_eq!(
        late.tool_calls[0].answer.as_ref().map(|a| a.ok),
        Some(false)
    );
    assert_eq!(
        seen.lock()
            .unwrap()
            .iter()
            .filter(|s| s.2.is_some())
            .count(),
        0
    );
}

// ---------------------------------------------------------------------------------------

/// `gate`: asks (`gate-<n>`) until answered; with the answer, call 0 waits for `release`.
fn gate(entered: Arc<AtomicBool>, release: Arc<AtomicBool>, runs: Arc<AtomicUsize>) -> Tool {
    Tool::new(
        "gate",
        "Waits.",
        json!({"type": "object"}),
        move |args, ctx| {
            let (entered, release, runs) = (entered.clone(), release.clone(), runs.clone());
            async move {
                let n = args["n"].as_i64().unwrap_or(-1);
                if ctx.answer().is_none() {
                    return ToolResult::pending(
                        Request::approval("open?").with_id(format!("gate-{n}")),
                    );
                }
                runs.fetch_add(1, Ordering::SeqCst);
                if n == 0 {
                    entered.store(true, Ordering::SeqCst);
                    until(&release).await;
                }
                ToolResult::ok(format!("opened {n}"))
            }
        },
    )
}

fn two_gates() -> FnModel {
    FnModel::new_sync(|transcript, _| {
        Ok(if tool_messages(transcript) == 0 {
            Reply::calls([
                ToolCall::new("g0", "gate", r#"{"n":0}"#),
                ToolCall::new("g1", "gate", r#"{"n":1}"#),
            ])
        } else {
            Reply::text("both open")
        })
    })
}

on_both!(a_run_being_driven_is_held_by_its_worker, held);
async fn held(store: RunStore) {
    let (entered, release, runs) = Default::default();
    let toolkit = Toolkit::new().with(gate(
        Arc::clone(&entered),
        Arc::clone(&release),
        Arc::clone(&runs),
    ));
    let a = Client::new(two_gates()).store(store.clone());
    let b = Client::new(two_gates()).store(store.clone());
    let run = a.run("open both", &toolkit).await;
    assert!(run.is_pending());
    assert_eq!(store.pending().await.unwrap().len(), 2);

    let driving = a.answer(Answer::accept("gate-0"), &toolkit);
    let racing = async {
        until(&entered).await; // a is inside gate 0, holding the run
        let refused = b.answer(Answer::accept("gate-1"), &toolkit).await;
        release.store(true, Ordering::SeqCst);
        refused
    };
    let (driven, refused) = tokio::join!(driving, racing);
    match refused {
        Err(e @ StoreError::HeldByAnotherWorker { .. }) => {
            assert!(e.to_string().contains("held by another worker"), "{e}")
        }
        other => panic!("a second worker on a held run: {other:?}"),
    }
    // a finished gate 0 and parked again on gate 1, which is still unanswered.
    let driven = driven.unwrap();
    assert!(driven.is_pending(), "{:?}", driven.status);
    assert_eq!(
        driven.pending.as_ref().map(|r| r.id.as_str()),
        Some("gate-1")
    );
    let done = b.answer(Answer::accept("gate-1"), &toolkit).await.unwrap();
    assert_eq!(done.text, "both open");
    assert_eq!(runs.load(Ordering::SeqCst), 2, "each gate opened once");
}

// ---------------------------------------------------------------------------------------

on_both!(a_session_keeps_its_conversation, sessions);
async fn sessions(store: RunStore) {
    let model = ScriptedModel::new([Reply::text("hi"), Reply::text("fine"), Reply::text("bye")]);
    let client = Client::new(model).system("Be brief.").store(store);
    let session = client.session("user-42");
    client
        .ask("user-42", "hello", &Toolkit::new())
        .await
        .unwrap();
    let second = client
        .ask("user-42", "how are you?", &Toolkit::new())
        .await
        .unwrap();
    assert_eq!(second.messages.len(), 5, "system + both exchanges");
    let texts = |m: &[Message]| {
        m.iter()
            .map(|m| match m {
                Message::User { content } => content.to_string(),
                Message::Assistant { content, .. } => content.clone().unwrap_or_default(),
                _ => String::new(),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        texts(&session.messages().await.unwrap()),
        ["hello", "hi", "how are you?", "fine"]
    );
    session.trim(2).await.unwrap();
    assert_eq!(
        texts(&session.messages().await.unwrap()),
        ["how are you?", "fine"]
    );
    assert!(
        client
            .session("someone-else")
            .messages()
            .await
            .unwrap()
            .is_empty()
    );
    session.clear().await.unwrap();
    assert!(session.messages().await.unwrap().is_empty());
    let no_store = Client::new(ScriptedModel::default()).session("x");
    assert!(matches!(
        no_store.messages().await,
        Err(StoreError::NoStore)
    ));
}

// ---------------------------------------------------------------------------------------

/// Asks (request `ask-<idempotency key>`) until answered; then records the call.
fn asking(ran: Arc<Mutex<Vec<String>>>) -> Tool {
    Tool::new_sync(
        "approve",
        "Asks first.",
        json!({"type": "object"}),
        move |_, ctx| {
            let key = ctx.idempotency_key().unwrap_or("no key").to_owned();
            if ctx.answer().is_none() {
                return ToolResult::pending(Request::approval("go?").with_id(format!("ask-{key}")));
            }
            ran.lock().unwrap().push(key);
            ToolResult::ok("went")
        },
    )
}

/// Two workers (two connection pools) race to answer the same 200 parked runs, each
/// answering every request it lists: each run is resumed once, no tool runs twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_postgres_workers_race_on_200_parked_runs() {
    let url = tokio::task::spawn_blocking(|| postgres::server().database("durable_race"))
        .await
        .unwrap();
    let ran = Arc::new(Mutex::new(Vec::new()));
    let toolkit = Toolkit::new().with(asking(ran.clone()));
    let parker = Client::new(steps("approve", 1)).store(RunStore::postgres(&url).await.unwrap());
    for i in 0..200 {
        let run = parker
            .clone()
            .run_id(format!("race-{i}"))
            .run("go", &toolkit)
            .await;
        assert!(run.is_pending(), "{:?}", run.status);
    }
    let worker = |store: RunStore| {
        let toolkit = toolkit.clone();
        async move {
            let client = Client::new(steps("approve", 1)).store(store.clone());
            let (mut resumed, mut refused) = (Vec::new(), 0);
            for waiting in store.pending().await.unwrap() {
                match client
                    .answer(Answer::accept(&waiting.request.id), &toolkit)
                    .await
                {
                    Ok(run) => {
                        assert!(run.is_done(), "{:?}", run.status);
                        resumed.push(run.id.unwrap());
                    }
                    Err(
                        StoreError::HeldByAnotherWorker { .. } | StoreError::AlreadyAnswered { .. },
                    ) => refused += 1,
                    Err(e) => panic!("{e}"),
                }
            }
            (resumed, refused)
        }
    };
    let (a, b) = tokio::join!(
        worker(RunStore::postgres(&url).await.unwrap()),
        worker(RunStore::postgres(&url).await.unwrap())
    );
    let mut all: Vec<String> = a.0.iter().chain(&b.0).cloned().collect();
    eprintln!(
        "race: worker A resumed {}, B resumed {}, refused {} + {}",
        a.0.len(),
        b.0.len(),
        a.1,
        b.1
    );
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 200, "every run resumed");
    assert_eq!(a.0.len() + b.0.len(), 200, "…and each once");
    let mut ran = ran.lock().unwrap().clone();
    assert_eq!(ran.len(), 200, "each tool ran once with its answer");
    ran.sort();
    ran.dedup();
    assert_eq!(ran.len(), 200);
}

// ---------------------------------------------------------------------------------------

#[path = "support/example.rs"]
mod example;

/// `examples/durable.rs` parks a run, exits, and answers it from a second invocation.
#[test]
fn the_durable_example_answers_a_run_parked_by_another_process() {
    let db = std::env::temp_dir().join(format!(
        "toolnexus-durable-example-{}.db",
        std::process::id()
    ));
    let run = |extra: &[&str]| {
        let output = std::process::Command::new(example::example("durable"))
            .args(["--db", db.to_str().unwrap()])
            .args(extra)
            .output()
            .expect("the example runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let first = run(&[]);
    assert!(
        first.contains("parked: Deploy build 42 to production?"),
        "{first}"
    );
    let second = run(&["--answer"]);
    assert!(second.contains("waits on deploy"), "{second}");
    assert!(
        second.contains("resumed: Done: deployed build 42 (approved by ana)"),
        "{second}"
    );
    let third = run(&["--answer"]);
    assert!(third.contains("nothing is waiting"), "{third}");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
}

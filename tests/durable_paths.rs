//! Every way of running goes through the run store when the client has one: continuing a
//! transcript, picking up an incomplete run, resuming a halted one, sessions, and agents
//! run as tools. Each is checked on SQLite and on a real PostgreSQL server, through the
//! public API only: the run gets an id, its calls their idempotency keys, the store holds
//! its result, and a run that parks is listed among the store's pending requests.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolnexus::agent::StopReason;
use toolnexus::store::RunStore;
use toolnexus::{Answer, Client, Message, RunStatus, Tool, ToolResult, Toolkit};

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
        let name = format!("paths_{name}");
        move || postgres::server().database(&name)
    })
    .await
    .unwrap();
    RunStore::postgres(url).await.expect("PostgreSQL store")
}

fn seen() -> Seen {
    Arc::new(Mutex::new(Vec::new()))
}

/// The idempotency keys the tools saw, in order.
fn keys(seen: &Seen) -> Vec<String> {
    seen.lock()
        .unwrap()
        .iter()
        .map(|s| s.1.clone().unwrap_or_else(|| "no key".to_owned()))
        .collect()
}

/// Checks that `run` is recorded: it has an id, the store gives it back as it ended, and
/// every call it ran got an idempotency key under that id.
async fn recorded(store: &RunStore, run: &toolnexus::RunResult, seen: &Seen) -> String {
    let id = run.id.clone().expect("a recorded run has an id");
    assert_eq!(store.result(&id).await.unwrap().as_ref(), Some(run));
    let keys = keys(seen);
    assert!(!keys.is_empty());
    assert!(
        keys.iter().all(|k| k.starts_with(&format!("{id}:"))),
        "{id}: {keys:?}"
    );
    id
}

// ---------------------------------------------------------------------------------------

on_both!(a_continued_run_is_recorded, continued);
async fn continued(store: RunStore) {
    let client = Client::new(steps("count", 1)).store(store.clone());
    let first = client.run("count once", &Toolkit::new()).await;
    let seen = seen();
    let toolkit = Toolkit::new().with(counting(seen.clone()));
    // The model counts again: the transcript it continues has one tool message, so the
    // second run makes one more call before it answers.
    let client = Client::new(steps("count", 2)).store(store.clone());
    let run = client
        .run("and once more", &toolkit)
        .history(first.messages.clone())
        .await;
    assert!(run.is_done(), "{:?}", run.status);
    let id = recorded(&store, &run, &seen).await;
    assert_ne!(Some(id), first.id, "a run of its own");
}

on_both!(an_incomplete_run_picked_up_is_recorded, picked_up);
async fn picked_up(store: RunStore) {
    let seen = seen();
    let toolkit = Toolkit::new().with(counting(seen.clone()));
    // Out of turns after one call, without a store.
    let stopped = Client::new(steps("count", 3))
        .max_turns(1)
        .run("count to three", &toolkit)
        .await;
    assert!(
        matches!(
            stopped.status,
            RunStatus::Incomplete {
                reason: StopReason::MaxTurns { .. }
            }
        ),
        "{:?}",
        stopped.status
    );
    seen.lock().unwrap().clear();
    let client = Client::new(steps("count", 3)).store(store.clone());
    let run = client.run_from(stopped.messages, &toolkit).await;
    assert!(run.is_done(), "{:?}", run.status);
    recorded(&store, &run, &seen).await;
    assert_eq!(seen.lock().unwrap().len(), 2, "the two calls left");
}

on_both!(a_resumed_run_is_answered_through_the_store, resumed);
async fn resumed(store: RunStore) {
    let seen = seen();
    let toolkit = Toolkit::new().with(approving(seen.clone(), "r", None));
    let client = Client::new(steps("approve", 1)).store(store.clone());
    let halted = client.run("do it", &toolkit).await;
    assert!(halted.is_pending(), "{:?}", halted.status);
    let request = halted.pending.clone().unwrap();
    assert_eq!(store.pending().await.unwrap().len(), 1);

    // Resumed in memory (from the serialized run): the store's request is answered.
    let saved: toolnexus::RunResult =
        serde_json::from_str(&serde_json::to_string(&halted).unwrap()).unwrap();
    let answer = request.answer("ana");
    let done = client
        .resume(saved.messages.clone(), answer.clone(), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    assert_eq!(done.id, halted.id, "the same run, taken up from the store");
    assert!(store.pending().await.unwrap().is_empty(), "answered");
    assert_eq!(
        store.result(halted.id.as_deref().unwrap()).await.unwrap(),
        Some(done.clone())
    );
    // The store answers each request once.
    let again = client
        .resume(saved.messages, answer, &toolkit)
        .await
        .unwrap();
    match &again.status {
        RunStatus::Incomplete {
            reason: StopReason::Store { message },
        } => assert!(message.contains("already answered"), "{message}"),
        other => panic!("a second resume: {other:?}"),
    }

    // A run halted without a store is recorded anew when resumed with one.
    let plain = Client::new(steps("approve", 1))
        .run(
            "do it again",
            &Toolkit::new().with(approving(seen.clone(), "s", None)),
        )
        .await;
    let request = plain.pending.clone().unwrap();
    let toolkit = Toolkit::new().with(approving(seen.clone(), "s", None));
    seen.lock().unwrap().clear();
    let done = client
        .resume(plain.messages, request.answer("bo"), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    recorded(&store, &done, &seen).await;
}

// ---------------------------------------------------------------------------------------

on_both!(a_session_run_that_parks_is_pending, session_parks);
async fn session_parks(store: RunStore) {
    let seen = seen();
    let toolkit = Toolkit::new().with(approving(seen.clone(), "q", None));
    let client = Client::new(steps("approve", 1))
        .system("Be brief.")
        .store(store.clone());
    let session = client.session("user-7");
    let halted = client.ask(session.id(), "deploy", &toolkit).await.unwrap();
    assert!(halted.is_pending(), "{:?}", halted.status);
    let id = halted.id.clone().expect("a session run is recorded");
    assert!(id.starts_with("session:user-7/run_"), "{id}");
    let waiting = store.pending().await.unwrap();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(
        (waiting[0].run_id.as_str(), waiting[0].request.id.as_str()),
        (id.as_str(), "approve-q-0")
    );
    // The session holds the halted turn.
    let messages = session.messages().await.unwrap();
    assert!(
        matches!(
            messages.last(),
            Some(Message::Tool {
                pending: Some(_),
                ..
            })
        ),
        "{messages:?}"
    );

    // Answered by another client: the run finishes, and the session with it.
    let other = Client::new(steps("approve", 1)).store(store.clone());
    let done = other
        .answer(Answer::accept("approve-q-0").with_data("ana"), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    assert!(store.pending().await.unwrap().is_empty());
    let messages = session.messages().await.unwrap();
    assert_eq!(
        messages.len(),
        4,
        "user, call, result, answer: {messages:?}"
    );
    assert_eq!(messages[2].text(), Some("approved 0 by ana"));
    assert_eq!(messages[3].text(), Some("done"));
    assert!(!matches!(messages[0], Message::System { .. }));

    // The conversation goes on from there.
    let next = Client::new(toolnexus::ScriptedModel::new([toolnexus::Reply::text(
        "bye",
    )]))
    .store(store.clone())
    .ask("user-7", "thanks", &toolkit)
    .await
    .unwrap();
    assert!(next.is_done(), "{:?}", next.status);
    assert_eq!(session.messages().await.unwrap().len(), 6);
}

on_both!(
    an_answer_after_the_session_moved_on_leaves_it,
    session_moved_on
);
async fn session_moved_on(store: RunStore) {
    let seen = seen();
    let toolkit = Toolkit::new().with(approving(seen.clone(), "m", None));
    let client = Client::new(steps("approve", 1)).store(store.clone());
    let session = client.session("user-8");
    let halted = client.ask(session.id(), "deploy", &toolkit).await.unwrap();
    assert!(halted.is_pending(), "{:?}", halted.status);
    // A new prompt abandons the halted turn; its run stays parked.
    let chat = Client::new(toolnexus::ScriptedModel::new([toolnexus::Reply::text(
        "ok",
    )]))
    .store(store.clone());
    chat.ask("user-8", "never mind", &toolkit).await.unwrap();
    let before = session.messages().await.unwrap();
    assert_eq!(before.last().and_then(Message::text), Some("ok"));
    let done = client
        .answer(Answer::accept("approve-m-0"), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    assert_eq!(
        session.messages().await.unwrap(),
        before,
        "the newer exchange stands"
    );
}

// ---------------------------------------------------------------------------------------

/// An agent `ops`, run as a tool, whose tool `deploy` asks for approval `asks`.
fn ops(client: Client, ran: Arc<Mutex<Vec<String>>>, asks: &'static str) -> Tool {
    let deploy = Tool::new_sync(
        "deploy",
        "Deploys.",
        json!({"type": "object"}),
        move |_, ctx| match ctx.answer() {
            None => ToolResult::pending(toolnexus::Request::approval("Deploy?").with_id(asks)),
            Some(_) => {
                ran.lock()
                    .unwrap()
                    .push(ctx.idempotency_key().unwrap_or("no key").to_owned());
                ToolResult::ok("deployed")
            }
        },
    );
    client.as_tool("ops", "Deploys things.", Toolkit::new().with(deploy))
}

fn calls_ops() -> toolnexus::model::FnModel {
    toolnexus::model::FnModel::new_sync(|transcript: &[Message], _| {
        Ok(match transcript.last() {
            Some(Message::User { .. }) => toolnexus::Reply::calls([toolnexus::ToolCall::new(
                "o1",
                "ops",
                json!({"prompt": "deploy"}).to_string(),
            )]),
            _ => toolnexus::Reply::text("lead done"),
        })
    })
}

on_both!(an_agent_run_as_a_tool_keeps_its_runs, agent_tool);
async fn agent_tool(store: RunStore) {
    let ran = Arc::new(Mutex::new(Vec::new()));
    let inner = Client::new(steps("deploy", 1)).store(store.clone());
    let toolkit = Toolkit::new().with(ops(inner.clone(), ran.clone(), "deploy-1"));
    // The lead has no store: the agent's own run is the one kept, and it waits.
    let lead = Client::new(calls_ops());
    let halted = lead.run("ship", &toolkit).await;
    assert!(halted.is_pending(), "{:?}", halted.status);
    assert_eq!(halted.id, None);
    let waiting = store.pending().await.unwrap();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(waiting[0].request.id, "deploy-1");
    let inner_run = waiting[0].run_id.clone();
    let request = halted.pending.clone().unwrap();
    let done = lead
        .resume(halted.messages, request.answer(true), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    assert_eq!(done.text, "lead done");
    assert!(
        store.pending().await.unwrap().is_empty(),
        "answered in the store"
    );
    let inner_done = store.result(&inner_run).await.unwrap().unwrap();
    assert!(inner_done.is_done(), "{:?}", inner_done.status);
    assert_eq!(ran.lock().unwrap().len(), 1);
    assert!(ran.lock().unwrap()[0].starts_with(&format!("{inner_run}:")));

    // The lead in the same store: its run is the one kept, the agent's call with it, and
    // one request waits.
    ran.lock().unwrap().clear();
    let toolkit = Toolkit::new().with(ops(inner, ran.clone(), "deploy-2"));
    let lead = Client::new(calls_ops()).store(store.clone());
    let halted = lead.run("ship again", &toolkit).await;
    assert!(halted.is_pending(), "{:?}", halted.status);
    let waiting = store.pending().await.unwrap();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(Some(&waiting[0].run_id), halted.id.as_ref());
    let done = lead
        .answer(Answer::accept("deploy-2"), &toolkit)
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    assert_eq!(done.id, halted.id);
    assert!(store.pending().await.unwrap().is_empty());
    assert_eq!(ran.lock().unwrap().len(), 1, "deployed once");
}

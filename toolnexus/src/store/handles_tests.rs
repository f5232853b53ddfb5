//! Durable agent runtimes (`agents/runtime/keep.rs`) on a SQLite store: what comes back after a
//! stop, and what is refused.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::agents::{Agent, Budget, HandleState, InboxItem, ROOT, Runtime, TaskStatus, Woken};
use crate::model::message::Message;
use crate::model::{Model, ModelFuture, ModelRequest, Reply, Usage};
use crate::store::RunStore;

/// Answers its first call with `one` (5 tokens), and never answers the ones after.
struct FirstThenHang(Arc<AtomicUsize>);

impl Model for FirstThenHang {
    fn complete<'a>(&'a self, _: ModelRequest<'a>) -> ModelFuture<'a> {
        let n = self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            if n > 0 {
                std::future::pending::<()>().await;
            }
            Ok(Reply::text("one").with_usage(Usage::new(3, 2)))
        })
    }
}

/// Says what its last user message was (5 tokens).
struct Echo;

impl Model for Echo {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        let last = request
            .transcript
            .iter()
            .rev()
            .find(|m| matches!(m, Message::User { .. }))
            .and_then(Message::text)
            .unwrap_or_default()
            .to_owned();
        Box::pin(
            async move { Ok(Reply::text(format!("read: {last}")).with_usage(Usage::new(3, 2))) },
        )
    }
}

async fn store() -> (RunStore, std::path::PathBuf) {
    let path = std::env::temp_dir().join(format!("toolnexus-keep-{}.db", uuid::Uuid::new_v4()));
    let store = RunStore::sqlite(path.to_str().unwrap()).await.unwrap();
    (store, path)
}

/// Runs whose lease runs out soon: a turn is taken over (or found held) in a few tries.
const LEASE: std::time::Duration = std::time::Duration::from_millis(100);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_still_held_by_a_live_process_is_not_taken_and_comes_back_idle_with_its_inbox() {
    let (store, path) = store().await;
    let worker = Agent::new("worker").does("Works.");
    let calls = Arc::new(AtomicUsize::new(0));
    let first = Runtime::builder(FirstThenHang(Arc::clone(&calls)))
        .agent(&worker)
        .lease(LEASE)
        .open(store.clone(), "office")
        .await
        .unwrap();
    let h = first
        .spawn(&first.root(), "worker", Some(Budget::new().max_tokens(100)))
        .unwrap();
    first.wake(&h, Some("first".into())).unwrap();
    assert_eq!(first.wait(&h, None).await.status, TaskStatus::Done);
    first.post(&h, InboxItem::external("a")).unwrap();
    first.post(&h, InboxItem::new("root", "peer", "b")).unwrap();
    assert_eq!(
        first.wake(&h, Some("second".into())).unwrap(),
        Woken::Started
    );
    // The second turn is under way (its run stored, its model asked) before the handle
    // rows are written: a run not stored yet has nothing to take over.
    for _ in 0..500 {
        if calls.load(Ordering::SeqCst) >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        calls.load(Ordering::SeqCst) >= 2,
        "the second turn never asked its model"
    );
    first.flush().await.unwrap();

    // Another runtime on the same store and name, as a process after a stop would open it;
    // but the first one still drives its turn and renews its lease: the turn is not
    // taken over, and comes back idle with its inbox.
    let second = Runtime::builder(Echo)
        .agent(&worker)
        .lease(LEASE)
        .open(store.clone(), "office")
        .await
        .unwrap();
    let h2 = second.handle("root/worker.1").expect("the handle is back");
    assert!(
        second
            .trace()
            .iter()
            .any(|l| l.contains("its stored run is taken over")),
        "{:?}",
        second.trace()
    );
    let cut = second.wait(&h2, None).await;
    assert_eq!(cut.status, TaskStatus::Error);
    assert!(
        cut.text
            .contains("taking over run agents:office:root/worker.1#2-")
            && cut.text.contains("another worker"),
        "{}",
        cut.text
    );
    let view = second.inspect(&h2).unwrap();
    assert_eq!(
        (view.state, view.tokens, view.inbox),
        (HandleState::Idle, 5, 2),
        "idle, the first turn's 5 tokens spent, the drained inbox restored"
    );

    // Woken again, it reads its inbox and spends from the pool it had.
    second.wake(&h2, Some("again".into())).unwrap();
    let r = second.wait(&h2, None).await;
    assert_eq!(r.status, TaskStatus::Done, "{r:?}");
    assert!(
        r.text.contains("1. [from=root channel=peer] b"),
        "{}",
        r.text
    );
    assert!(
        r.text.contains("[from=external channel=external] a"),
        "{}",
        r.text
    );
    assert_eq!(r.total_tokens, 10);
    second.flush().await.unwrap();

    // A third opening finds the spend of the second.
    let third = Runtime::builder(Echo)
        .agent(&worker)
        .lease(LEASE)
        .open(store, "office")
        .await
        .unwrap();
    let h3 = third.handle("root/worker.1").unwrap();
    assert_eq!(third.inspect(&h3).unwrap().tokens, 10);
    assert_eq!(third.wait(&h3, None).await.text, r.text);
    let _ = std::fs::remove_file(path);
}

/// The handle row of `id` in runtime `runtime`, rewritten by `change` (as a stop at a
/// chosen moment would have left it).
async fn rewrite_row(path: &std::path::Path, runtime: &str, id: &str, change: impl Fn(&mut Value)) {
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let (json,): (String,) =
        sqlx::query_as("SELECT handle FROM toolnexus_agent_handles WHERE runtime = ?1 AND id = ?2")
            .bind(runtime)
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    let mut row: Value = serde_json::from_str(&json).unwrap();
    change(&mut row);
    sqlx::query("UPDATE toolnexus_agent_handles SET handle = ?1 WHERE runtime = ?2 AND id = ?3")
        .bind(row.to_string())
        .bind(runtime)
        .bind(id)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_whose_run_a_stop_left_unwritten_runs_again_from_its_input() {
    let (store, path) = store().await;
    let worker = Agent::new("worker").does("Works.");
    let first = Runtime::builder(Echo)
        .agent(&worker)
        .open(store.clone(), "office")
        .await
        .unwrap();
    let h = first.spawn(&first.root(), "worker", None).unwrap();
    first.flush().await.unwrap();
    drop(first);
    // The row as a stop leaves it between the wake (the row says `running`, with the
    // turn's run id and input) and the run's first write: no such run is stored.
    rewrite_row(&path, "office", h.id(), |row| {
        row["state"] = serde_json::to_value(HandleState::Running).unwrap();
        row["generation"] = json!(1);
        row["run"] = json!("agents:office:root/worker.1#1-00000000");
        row["input"] = json!("the first task");
    })
    .await;

    let second = Runtime::builder(Echo)
        .agent(&worker)
        .open(store.clone(), "office")
        .await
        .unwrap();
    let h2 = second.handle("root/worker.1").expect("the handle is back");
    let r = second.wait(&h2, None).await;
    assert_eq!(
        (r.status, r.text.as_str()),
        (TaskStatus::Done, "read: the first task"),
        "{r:?}"
    );
    assert!(
        second
            .trace()
            .iter()
            .any(|l| l.contains("was never written")),
        "{:?}",
        second.trace()
    );
    // The run it recorded has the id its row named.
    second.flush().await.unwrap();
    let stored = store
        .result("agents:office:root/worker.1#1-00000000")
        .await
        .unwrap();
    assert_eq!(
        stored.map(|run| run.text).as_deref(),
        Some("read: the first task"),
        "the turn recorded its run under the id its row named"
    );
    drop(second);

    // A row of an older build (no input kept) still comes back idle with an error.
    rewrite_row(&path, "office", h2.id(), |row| {
        row["state"] = serde_json::to_value(HandleState::Running).unwrap();
        row["run"] = json!("agents:office:root/worker.1#9-00000000");
        row.as_object_mut().unwrap().remove("input");
    })
    .await;
    let third = Runtime::builder(Echo)
        .agent(&worker)
        .open(store, "office")
        .await
        .unwrap();
    let h3 = third.handle("root/worker.1").unwrap();
    let cut = third.wait(&h3, None).await;
    assert_eq!(cut.status, TaskStatus::Error, "{cut:?}");
    assert!(cut.text.contains("#9-00000000"), "{}", cut.text);
    let _ = std::fs::remove_file(path);
}

#[tokio::test]
async fn purge_deletes_idle_runtimes_and_purge_unanswered_the_ones_left_waiting() {
    let (store, path) = store().await;
    let worker = Agent::new("worker").does("Works.");
    for name in ["idle", "waiting", "running"] {
        let rt = Runtime::builder(Echo)
            .agent(&worker)
            .open(store.clone(), name)
            .await
            .unwrap();
        let h = rt.spawn(&rt.root(), "worker", None).unwrap();
        rt.wake(&h, Some("go".into())).unwrap();
        assert_eq!(rt.wait(&h, None).await.status, TaskStatus::Done);
        rt.flush().await.unwrap();
    }
    // As a handle waiting on a request, and one whose turn is running, leave their rows.
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    for (runtime, state) in [("waiting", "suspended"), ("running", "running")] {
        sqlx::query("UPDATE toolnexus_agent_handles SET state = ?1 WHERE runtime = ?2 AND id = ?3")
            .bind(state)
            .bind(runtime)
            .bind("root/worker.1")
            .execute(&pool)
            .await
            .unwrap();
    }
    let runtimes = || async {
        let rows: Vec<(String,)> =
            sqlx::query_as("SELECT DISTINCT runtime FROM toolnexus_agent_handles ORDER BY runtime")
                .fetch_all(&pool)
                .await
                .unwrap();
        rows.into_iter().map(|(r,)| r).collect::<Vec<_>>()
    };

    // A day's age keeps them all.
    let day = std::time::Duration::from_secs(86_400);
    assert_eq!(store.purge(day).await.unwrap().agent_runtimes, 0);
    assert_eq!(store.purge_unanswered(day).await.unwrap().agent_runtimes, 0);
    assert_eq!(runtimes().await, ["idle", "running", "waiting"]);
    // At no age: `purge` takes the idle runtime alone, `purge_unanswered` the waiting one;
    // the one with a running turn stays.
    let zero = std::time::Duration::ZERO;
    assert_eq!(store.purge(zero).await.unwrap().agent_runtimes, 1);
    assert_eq!(runtimes().await, ["running", "waiting"]);
    assert_eq!(
        store.purge_unanswered(zero).await.unwrap().agent_runtimes,
        1
    );
    assert_eq!(runtimes().await, ["running"]);
    pool.close().await;
    // Opened again, a purged runtime starts empty.
    let again = Runtime::builder(Echo)
        .agent(&worker)
        .open(store, "idle")
        .await
        .unwrap();
    assert!(again.list().is_empty());
    let _ = std::fs::remove_file(path);
}

#[tokio::test]
async fn a_stored_handle_of_an_agent_not_registered_is_refused_by_name() {
    let (store, path) = store().await;
    let worker = Agent::new("worker").does("Works.");
    let rt = Runtime::builder(Echo)
        .agent(&worker)
        .open(store.clone(), "office")
        .await
        .unwrap();
    rt.spawn(&rt.root(), "worker", None).unwrap();
    rt.flush().await.unwrap();
    let other = Agent::new("other").does("Other.");
    let error = Runtime::builder(Echo)
        .agent(&other)
        .open(store.clone(), "office")
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("root/worker.1") && text.contains("`worker` is not registered"),
        "{text}"
    );
    // Another name in the same store is another runtime.
    let fresh = Runtime::builder(Echo)
        .agent(&other)
        .open(store, "elsewhere")
        .await
        .unwrap();
    assert!(fresh.list().is_empty());
    let _ = std::fs::remove_file(path);
}

#[tokio::test]
async fn without_a_store_flush_does_nothing_and_handles_are_found_by_id() {
    let rt = Runtime::new(Echo, &Agent::new("worker"));
    assert!(rt.pending().is_empty());
    rt.flush().await.unwrap();
    assert!(rt.handle("root/nobody.1").is_none());
    assert!(rt.handle(ROOT).is_some());
}

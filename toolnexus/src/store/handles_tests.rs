//! Durable agent runtimes (`agents/keep.rs`) on a SQLite store: what comes back after a
//! stop, and what is refused.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::agents::{Agent, Budget, HandleState, InboxItem, ROOT, Runtime, TaskStatus, Woken};
use crate::model::message::Message;
use crate::model::{Model, ModelFuture, Reply, Usage};
use crate::store::RunStore;
use crate::tool::kit::Toolkit;

/// Answers its first call with `one` (5 tokens), and never answers the ones after.
struct FirstThenHang(Arc<AtomicUsize>);

impl Model for FirstThenHang {
    fn complete<'a>(&'a self, _: &'a [Message], _: &'a Toolkit) -> ModelFuture<'a> {
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
    fn complete<'a>(&'a self, transcript: &'a [Message], _: &'a Toolkit) -> ModelFuture<'a> {
        let last = transcript
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

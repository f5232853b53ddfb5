//! The A2A task rows on SQLite: compare-and-set writes, owners, limits, listing, sweeping.

use serde_json::json;

use crate::a2a::TaskState;
use crate::a2a::server::store::{ListQuery, SharedTasks, TaskRecord};
use crate::agent::journal::Journal as _;
use crate::store::RunStore;

fn record(id: &str, owner: Option<&str>, expires_ms: i64) -> TaskRecord {
    TaskRecord {
        id: id.to_owned(),
        owner: owner.map(str::to_owned),
        context_id: "ctx".to_owned(),
        state: TaskState::Submitted,
        task: json!({"id": id}),
        run: None,
        version: 0,
        created_ms: 1,
        updated_ms: 1,
        expires_ms,
        lease_until_ms: 5,
        cancel_requested: false,
    }
}

async fn tasks(store: &RunStore) -> SharedTasks {
    let part = store
        .part(std::any::TypeId::of::<SharedTasks>())
        .expect("a run store keeps A2A tasks");
    *part
        .downcast::<SharedTasks>()
        .expect("as the type asked for")
}

#[test]
fn ended_states_are_the_terminal_ones() {
    let all = [
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::AuthRequired,
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::Rejected,
        TaskState::Unknown,
    ];
    for state in all {
        let listed = super::ENDED.contains(&format!("'{}'", state.as_str()));
        assert_eq!(listed, state.is_terminal(), "{state:?}");
    }
}

#[tokio::test]
async fn rows_are_written_compare_and_set_and_keep_their_owner() {
    let store = RunStore::sqlite(":memory:").await.unwrap();
    let tasks = tasks(&store).await;
    assert!(store.part(std::any::TypeId::of::<String>()).is_none());
    assert!(
        tasks
            .insert(record("t1", Some("ann"), i64::MAX), 1)
            .await
            .unwrap()
    );
    // Ann has one unfinished task, her limit here: a second is not written.
    assert!(
        !tasks
            .insert(record("t9", Some("ann"), i64::MAX), 1)
            .await
            .unwrap()
    );
    assert!(tasks.get("t9").await.unwrap().is_none());
    let again = tasks.insert(record("t1", None, i64::MAX), 5).await;
    assert!(again.unwrap_err().contains("exists already"));

    let mut changed = tasks.get("t1").await.unwrap().expect("stored");
    assert_eq!(changed, record("t1", Some("ann"), i64::MAX));
    changed.version = 1;
    changed.state = TaskState::InputRequired;
    changed.run = Some(json!({"transcript": []}));
    changed.owner = Some("bob".to_owned()); // never rewritten
    assert!(tasks.replace(changed.clone(), 0).await.unwrap());
    // A second writer that read version 0 loses.
    assert!(!tasks.replace(changed.clone(), 0).await.unwrap());
    let read = tasks.get("t1").await.unwrap().unwrap();
    assert_eq!(read.owner.as_deref(), Some("ann"));
    assert_eq!(read.state, TaskState::InputRequired);
    assert_eq!(read.run, Some(json!({"transcript": []})));
    assert_eq!(read.version, 1);

    assert!(tasks.insert(record("t2", None, 10), 5).await.unwrap());
    let all = ListQuery {
        limit: 10,
        ..ListQuery::default()
    };
    let ann: Vec<String> = tasks
        .list(Some("ann"), &all)
        .await
        .unwrap()
        .records
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ann, ["t1"]);
    let nobody = tasks.list(None, &all).await.unwrap();
    assert_eq!(nobody.records.len(), 1);
    assert_eq!(nobody.records[0].owner, None);

    tasks
        .save_context(Some("ann"), "ctx", json!(["hi"]), 10)
        .await
        .unwrap();
    tasks
        .save_context(Some("ann"), "ctx", json!(["hi", "again"]), i64::MAX)
        .await
        .unwrap();
    assert_eq!(
        tasks.context(Some("ann"), "ctx").await.unwrap(),
        Some(json!(["hi", "again"]))
    );
    assert_eq!(tasks.context(None, "ctx").await.unwrap(), None);

    // Swept: t2, which expired at 10; t1 and the conversation are kept.
    assert_eq!(tasks.sweep(11).await.unwrap(), 1);
    assert!(tasks.get("t2").await.unwrap().is_none());
    assert!(tasks.get("t1").await.unwrap().is_some());
}

/// Pages in the store's order, and room made by deleting what ended, oldest first: the
/// same on SQLite and in memory.
async fn pages_and_room(tasks: SharedTasks) {
    for (i, state) in [
        TaskState::Completed,
        TaskState::InputRequired,
        TaskState::Failed,
        TaskState::Working,
        TaskState::Completed,
    ]
    .into_iter()
    .enumerate()
    {
        let mut r = record(&format!("p{i}"), Some("ann"), i64::MAX);
        r.state = state;
        r.updated_ms = 100 + i as i64;
        r.task = json!({"id": r.id, "pad": "x".repeat(100)});
        assert!(tasks.insert(r, 10).await.unwrap());
    }
    let mut query = ListQuery {
        limit: 2,
        ..ListQuery::default()
    };
    let mut seen = Vec::new();
    loop {
        let page = tasks.list(Some("ann"), &query).await.unwrap();
        assert_eq!(page.total, 5);
        let more = page.records.len() > 2;
        let ids: Vec<_> = page.records.iter().take(2).map(|r| r.id.clone()).collect();
        let last = page.records[ids.len() - 1].clone();
        seen.extend(ids);
        if !more {
            break;
        }
        query.cursor = Some((last.updated_ms, last.id));
    }
    assert_eq!(seen, ["p4", "p3", "p2", "p1", "p0"]);
    let waiting = ListQuery {
        state: Some(TaskState::InputRequired),
        limit: 10,
        ..ListQuery::default()
    };
    let page = tasks.list(Some("ann"), &waiting).await.unwrap();
    assert_eq!((page.total, page.records[0].id.as_str()), (1, "p1"));
    assert_eq!(tasks.list(None, &waiting).await.unwrap().total, 0);

    // Room for a fourth task: the oldest that ended (p0, then p2) go; those that have
    // not ended stay, however old.
    let usage = tasks.make_room(0, 4, u64::MAX).await.unwrap();
    assert_eq!(usage.tasks, 3, "{usage:?}");
    assert!(tasks.get("p0").await.unwrap().is_none());
    assert!(tasks.get("p2").await.unwrap().is_none());
    assert!(tasks.get("p4").await.unwrap().is_some());
    // By bytes: only p4 has ended; the two waiting tasks are kept, over the bound.
    let usage = tasks.make_room(0, 100, 10).await.unwrap();
    assert_eq!(usage.tasks, 2, "{usage:?}");
    assert!(usage.bytes >= 200, "{usage:?}");
    assert!(tasks.get("p1").await.unwrap().is_some());
    assert!(tasks.get("p3").await.unwrap().is_some());
}

#[tokio::test]
async fn pages_and_room_on_sqlite() {
    let store = RunStore::sqlite(":memory:").await.unwrap();
    pages_and_room(tasks(&store).await).await;
}

#[tokio::test]
async fn pages_and_room_in_memory() {
    let memory = crate::a2a::server::store::MemoryTasks::default();
    pages_and_room(std::sync::Arc::new(memory)).await;
}

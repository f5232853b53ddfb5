//! The in-memory task storage's bounds: the anonymous callers' shared allowance and the
//! finished tasks kept.

use super::*;

fn new_task<'a>(id: &'a str, caller: &'a str, limit: usize) -> NewTask<'a> {
    NewTask {
        id,
        tool: "build",
        args: "{}",
        owner: "me",
        lease_ms: 30_000,
        ttl_ms: 3_600_000,
        caller,
        limit,
    }
}

/// Task `id`, created then ended with a payload of `bytes` bytes, `at` ms after an epoch
/// of the test's own (so that the order of ends is the test's, not the clock's).
async fn ended(memory: &Memory, id: &str, bytes: usize, at: i64) {
    memory
        .create(new_task(id, "c", usize::MAX))
        .await
        .unwrap()
        .expect("created");
    let payload = "x".repeat(bytes);
    let settled = memory
        .settle(id, "me", Status::Completed, "", &payload, None)
        .await
        .unwrap();
    assert!(settled);
    memory.locked().get_mut(id).unwrap().updated_at = at;
}

fn kept(memory: &Memory) -> Vec<String> {
    let mut ids: Vec<String> = memory.locked().keys().cloned().collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn callers_with_no_identity_share_one_allowance() {
    let memory = Memory::default();
    assert!(
        memory
            .create(new_task("a1", "", 2))
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        memory
            .create(new_task("a2", "", 2))
            .await
            .unwrap()
            .is_some()
    );
    // A third anonymous task is refused, whoever sends it: they cannot be told apart.
    assert!(
        memory
            .create(new_task("a3", "", 2))
            .await
            .unwrap()
            .is_none()
    );
    // A caller with an identity has its own places.
    assert!(
        memory
            .create(new_task("b1", "0123", 2))
            .await
            .unwrap()
            .is_some()
    );
    // An anonymous task that ends gives its place back.
    memory
        .settle("a1", "me", Status::Completed, "", "{}", None)
        .await
        .unwrap();
    assert!(
        memory
            .create(new_task("a3", "", 2))
            .await
            .unwrap()
            .is_some()
    );
}

#[tokio::test]
async fn the_oldest_finished_tasks_go_first_past_the_count() {
    let memory = Memory::default();
    for (n, id) in ["t1", "t2", "t3", "t4"].into_iter().enumerate() {
        ended(&memory, id, 10, n as i64).await;
    }
    memory
        .create(new_task("running", "c", usize::MAX))
        .await
        .unwrap();
    let bound = Finished {
        count: 2,
        bytes: u64::MAX,
    };
    assert_eq!(memory.trim(bound).await.unwrap(), 2);
    // The two that ended last, and the unfinished one, whatever the bound.
    assert_eq!(kept(&memory), ["running", "t3", "t4"]);
    assert_eq!(memory.trim(bound).await.unwrap(), 0);
}

#[tokio::test]
async fn the_oldest_finished_tasks_go_first_past_the_bytes() {
    let memory = Memory::default();
    ended(&memory, "old", 400, 1).await;
    ended(&memory, "mid", 400, 2).await;
    ended(&memory, "new", 400, 3).await;
    let bound = Finished {
        count: 100,
        bytes: 1000,
    };
    // 400 + 400 + the two bytes of `{}` each fit; the third does not.
    assert_eq!(memory.trim(bound).await.unwrap(), 1);
    assert_eq!(kept(&memory), ["mid", "new"]);
    // A single task larger than the bound stays, as the last that ended.
    ended(&memory, "huge", 5000, 4).await;
    assert_eq!(memory.trim(bound).await.unwrap(), 2);
    assert_eq!(kept(&memory), ["huge"]);
}

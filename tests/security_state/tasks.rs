//! Tasks belong to whoever created them, are bounded, and expire on a timer.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Listening;
use super::wire::{PATIENCE, Peer, error, normalized, result, scratch, with_tasks};

/// A task server (`tests/tasks/server.rs`) named `name` on `store`, with `env`.
fn task_server(name: &str, store: &str, stateless: bool, env: &[(&str, &str)]) -> Listening {
    let mut args = vec![name, "127.0.0.1:0", store];
    if stateless {
        args.push("stateless");
    }
    Listening::start_with("task_server", &args, env)
}

fn task_id(response: &Value) -> String {
    result(response)["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("not a task: {response}"))
        .to_owned()
}

/// `tasks/get` until the task leaves `working` (bounded).
async fn settled(peer: &Peer, id: &str) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let task = result(&peer.rpc(9, "tasks/get", json!({"taskId": id})).await).clone();
        if task["status"] != "working" {
            return task;
        }
        assert!(Instant::now() < deadline, "task {id} still working: {task}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The three task requests for task `id`, answering `key` when it is waiting.
fn requests(id: &str, key: &str) -> [(&'static str, Value); 3] {
    let answer = json!({"action": "accept", "content": {"answer": "prod"}});
    [
        ("tasks/get", json!({"taskId": id})),
        (
            "tasks/update",
            json!({"taskId": id, "inputResponses": {key: answer}}),
        ),
        ("tasks/cancel", json!({"taskId": id})),
    ]
}

/// `stranger` gets, for each task request on `id`, exactly the error an id nobody ever
/// issued gets.
async fn refused_as_unknown(stranger: &Peer, id: &str, key: &str) {
    let never = uuid_like();
    for ((method, foreign), (_, unknown)) in
        requests(id, key).into_iter().zip(requests(&never, key))
    {
        let foreign = stranger.rpc(21, method, foreign).await;
        let unknown = stranger.rpc(21, method, unknown).await;
        assert_eq!(
            normalized(&foreign, id),
            normalized(&unknown, &never),
            "{method} of another caller's task must read as an unknown id"
        );
        assert_eq!(
            error(&foreign)["data"]["reason"],
            "unknown_task",
            "{foreign}"
        );
    }
}

/// A well-formed task id no server issued.
fn uuid_like() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("0badc0de-0000-4000-8000-{nanos:012x}")
}

/// The key a waiting task's input request is answered under.
fn input_key(task: &Value) -> String {
    assert_eq!(task["status"], "input_required", "{task}");
    let requests = task["inputRequests"].as_object().expect("inputRequests");
    requests.keys().next().expect("one request").clone()
}

#[tokio::test]
async fn another_session_cannot_read_answer_or_cancel_a_task() {
    let server = task_server("one", "memory", false, &[]);
    let owner = Peer::session(&server.url, with_tasks()).await;
    let stranger = Peer::session(&server.url, with_tasks()).await;

    let deploy = task_id(&owner.call(1, "deploy", json!({}), json!({})).await);
    let key = input_key(&settled(&owner, &deploy).await);
    let hang = task_id(&owner.call(2, "hang", json!({}), json!({})).await);
    refused_as_unknown(&stranger, &deploy, &key).await;
    refused_as_unknown(&stranger, &hang, &key).await;

    // Nothing the stranger sent reached the tasks: one still waits, one still runs.
    let waiting = settled(&owner, &deploy).await;
    assert_eq!(input_key(&waiting), key);
    let running = result(&owner.rpc(3, "tasks/get", json!({"taskId": hang})).await).clone();
    assert_eq!(running["status"], "working", "{running}");
    // Their owner still answers and cancels them.
    let [_, update, cancel] = requests(&deploy, &key);
    result(&owner.rpc(4, update.0, update.1).await);
    let done = settled(&owner, &deploy).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "deployed to prod by one",
        "{done}"
    );
    result(&owner.rpc(5, cancel.0, json!({"taskId": hang})).await);
    assert_eq!(settled(&owner, &hang).await["status"], "cancelled");
}

#[tokio::test]
async fn another_principal_on_another_replica_cannot_touch_a_task() {
    let dir = scratch("principal");
    let db = dir.join("tasks.db");
    let db = db.to_str().unwrap();
    let env = [("TASK_PRINCIPAL_HEADER", "x-user")];
    let one = task_server("one", db, true, &env);
    let two = task_server("two", db, true, &env);
    let alice = Peer::modern(&one.url, with_tasks()).with_header("x-user", "alice");
    let deploy = task_id(&alice.call(1, "deploy", json!({}), json!({})).await);
    let key = input_key(&settled(&alice, &deploy).await);

    // On the other replica: bob, and a caller who names nobody, learn nothing.
    let bob = Peer::modern(&two.url, with_tasks()).with_header("x-user", "bob");
    refused_as_unknown(&bob, &deploy, &key).await;
    refused_as_unknown(&Peer::modern(&two.url, with_tasks()), &deploy, &key).await;

    // Alice, there, finds her task still waiting, and answers it.
    let alice_there = Peer::modern(&two.url, with_tasks()).with_header("x-user", "alice");
    assert_eq!(input_key(&settled(&alice_there, &deploy).await), key);
    let [_, update, _] = requests(&deploy, &key);
    result(&alice_there.rpc(2, update.0, update.1).await);
    let done = settled(&alice_there, &deploy).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "deployed to prod by two",
        "{done}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn tasks_are_capped_per_session_and_per_server() {
    let env = [("TASK_MAX_PER_CALLER", "2"), ("TASK_MAX_RUNNING", "3")];
    let server = task_server("one", "memory", false, &env);
    let a = Peer::session(&server.url, with_tasks()).await;
    let b = Peer::session(&server.url, with_tasks()).await;
    let first = task_id(&a.call(1, "hang", json!({}), json!({})).await);
    task_id(&a.call(2, "hang", json!({}), json!({})).await);
    // A third for the same session: refused, saying why; the tool does not start.
    let third = a.call(3, "hang", json!({}), json!({})).await;
    let refusal = error(&third);
    assert_eq!(refusal["data"]["reason"], "task_limit", "{third}");
    assert_eq!(refusal["data"]["scope"], "caller", "{third}");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("2 unfinished tasks"),
        "{third}"
    );

    // Another session has places of its own, until the server's limit.
    task_id(&b.call(1, "hang", json!({}), json!({})).await);
    let over = b.call(2, "hang", json!({}), json!({})).await;
    assert_eq!(error(&over)["data"]["scope"], "server", "{over}");
    assert!(
        error(&over)["message"]
            .as_str()
            .unwrap()
            .contains("3 tasks"),
        "{over}"
    );

    // A task that ends gives its place back.
    result(&a.rpc(4, "tasks/cancel", json!({"taskId": first})).await);
    assert_eq!(settled(&a, &first).await["status"], "cancelled");
    task_id(&a.call(5, "hang", json!({}), json!({})).await);
}

#[tokio::test]
async fn callers_with_no_identity_share_one_task_allowance() {
    let env = [
        ("TASK_MAX_ANONYMOUS", "2"),
        ("TASK_MAX_PER_CALLER", "5"),
        ("TASK_PRINCIPAL_HEADER", "x-user"),
    ];
    let server = task_server("one", "memory", true, &env);
    // 2026-07-28 without a principal: no session, no identity.
    let first = Peer::modern(&server.url, with_tasks());
    let hang = task_id(&first.call(1, "hang", json!({}), json!({})).await);
    task_id(&first.call(2, "hang", json!({}), json!({})).await);
    // Another such caller is the same as far as the server can tell: refused, saying why.
    for peer in [first.clone(), Peer::modern(&server.url, with_tasks())] {
        let over = peer.call(3, "hang", json!({}), json!({})).await;
        let refusal = error(&over);
        assert_eq!(refusal["data"]["reason"], "task_limit", "{over}");
        assert_eq!(refusal["data"]["scope"], "anonymous", "{over}");
        assert_eq!(refusal["data"]["limit"], 2, "{over}");
        let message = refusal["message"].as_str().unwrap();
        assert!(message.contains("max_anonymous_tasks"), "{over}");
        assert!(message.contains("principal"), "{over}");
    }
    // A caller with a principal has places of its own.
    let alice = Peer::modern(&server.url, with_tasks()).with_header("x-user", "alice");
    task_id(&alice.call(4, "hang", json!({}), json!({})).await);
    // An anonymous task that ends gives its place back (its id is the capability).
    result(&first.rpc(5, "tasks/cancel", json!({"taskId": hang})).await);
    assert_eq!(settled(&first, &hang).await["status"], "cancelled");
    task_id(&first.call(6, "hang", json!({}), json!({})).await);
}

/// Runs `build` to its end (`pad`: bytes of padding in its arguments); its id.
async fn built(peer: &Peer, n: i64, pad: usize) -> String {
    let args = json!({"ms": 1, "pad": "x".repeat(pad)});
    let id = task_id(&peer.call(n, "build", args, json!({})).await);
    assert_eq!(settled(peer, &id).await["status"], "completed");
    id
}

/// Whether `peer` still reads task `id` (`false`: it is unknown).
async fn known(peer: &Peer, id: &str) -> bool {
    let response = peer.rpc(30, "tasks/get", json!({"taskId": id})).await;
    match response.get("error") {
        Some(e) => {
            assert_eq!(e["data"]["reason"], "unknown_task", "{response}");
            false
        }
        None => true,
    }
}

/// Waits until task `id` reads as unknown (its runner trims the finished tasks just
/// after recording the end, so a `tasks/get` may come in between); bounded.
async fn forgotten(peer: &Peer, id: &str, store: &str) {
    let deadline = Instant::now() + PATIENCE;
    while known(peer, id).await {
        assert!(
            Instant::now() < deadline,
            "{store}: task {id} was never deleted"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn finished_tasks_are_bounded(store: &str) {
    // By count: the two that ended last are kept.
    let env = [("TASK_MAX_FINISHED", "2")];
    let server = task_server("one", store, true, &env);
    let peer = Peer::modern(&server.url, with_tasks());
    let hang = task_id(&peer.call(1, "hang", json!({}), json!({})).await);
    let mut ids = Vec::new();
    for n in 0..4 {
        ids.push(built(&peer, 2 + n, 0).await);
    }
    forgotten(&peer, &ids[1], store).await;
    let mut seen = Vec::new();
    for id in &ids {
        seen.push(known(&peer, id).await);
    }
    assert_eq!(seen, [false, false, true, true], "{store}");
    // What has not ended is never counted, nor deleted.
    assert!(known(&peer, &hang).await, "{store}");
    drop(server);

    // By bytes: two padded tasks do not fit in 6000 bytes, one does.
    let env = [("TASK_MAX_FINISHED_BYTES", "6000")];
    let server = task_server("two", store, true, &env);
    let peer = Peer::modern(&server.url, with_tasks());
    let old = built(&peer, 1, 4000).await;
    assert!(known(&peer, &old).await, "{store}");
    let new = built(&peer, 2, 4000).await;
    forgotten(&peer, &old, store).await;
    assert!(known(&peer, &new).await, "{store}");
    // The one that ended last stays, however large.
    let huge = built(&peer, 3, 9000).await;
    forgotten(&peer, &new, store).await;
    assert!(known(&peer, &huge).await, "{store}");
}

#[tokio::test]
async fn finished_tasks_are_bounded_in_memory() {
    finished_tasks_are_bounded("memory").await;
}

#[tokio::test]
async fn finished_tasks_are_bounded_in_sqlite() {
    let dir = scratch("finished");
    finished_tasks_are_bounded(dir.join("tasks.db").to_str().unwrap()).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn finished_tasks_are_bounded_in_postgres() {
    let url = tokio::task::spawn_blocking(|| {
        crate::postgres::server().database("security_finished_tasks")
    })
    .await
    .unwrap();
    finished_tasks_are_bounded(&url).await;
}

#[tokio::test]
async fn expired_tasks_are_deleted_by_a_timer() {
    let dir = scratch("sweep");
    let db = dir.join("tasks.db");
    for store in ["memory", db.to_str().unwrap()] {
        let env = [("TASK_TTL_MS", "300"), ("TASK_SWEEP_MS", "100")];
        let server = task_server("one", store, true, &env);
        let peer = Peer::modern(&server.url, with_tasks());
        let id = task_id(&peer.call(1, "build", json!({"ms": 1}), json!({})).await);
        assert_eq!(settled(&peer, &id).await["status"], "completed");
        // No task is created after it: only a timer can delete it. Until then it reads
        // as expired; once deleted, as unknown.
        let deadline = Instant::now() + PATIENCE;
        loop {
            let response = peer.rpc(2, "tasks/get", json!({"taskId": id})).await;
            if response
                .get("error")
                .is_some_and(|e| e["data"]["reason"] == "unknown_task")
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{store}: the expired task was never deleted: {response}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_task_store_from_before_owners_upgrades_in_place() {
    let dir = scratch("upgrade");
    let db = dir.join("tasks.db");
    let path = db.to_str().unwrap();
    let server = task_server("one", path, true, &[]);
    let peer = Peer::modern(&server.url, with_tasks());
    let old = task_id(&peer.call(1, "build", json!({"ms": 1}), json!({})).await);
    assert_eq!(settled(&peer, &old).await["status"], "completed");
    drop(server);
    // Back to the schema before migration 4: no `caller`, no spent states (and none of
    // what later migrations add).
    let raw = sqlx::SqlitePool::connect(&format!("sqlite://{path}"))
        .await
        .expect("the file opens");
    sqlx::raw_sql(
        "DROP INDEX toolnexus_tasks_caller; ALTER TABLE toolnexus_tasks DROP COLUMN caller; \
         DROP TABLE toolnexus_spent_states; DROP TABLE IF EXISTS toolnexus_a2a_tasks; \
         DROP INDEX IF EXISTS toolnexus_sessions_written; \
         ALTER TABLE toolnexus_sessions DROP COLUMN updated_at; \
         DROP TABLE IF EXISTS toolnexus_a2a_contexts; DROP TABLE IF EXISTS toolnexus_run_messages; \
         DROP TABLE IF EXISTS toolnexus_agent_handles; \
         DELETE FROM toolnexus_schema WHERE version >= 4",
    )
    .execute(&raw)
    .await
    .expect("the downgrade");
    raw.close().await;

    // Migrated on open: the old task is kept (it belongs to nobody in particular), and
    // new ones belong to their principal.
    let env = [("TASK_PRINCIPAL_HEADER", "x-user")];
    let server = task_server("two", path, true, &env);
    let peer = Peer::modern(&server.url, with_tasks());
    let kept = settled(&peer, &old).await;
    assert_eq!(
        kept["result"]["content"][0]["text"], "built in 1 ms by one",
        "{kept}"
    );
    let alice = peer.clone().with_header("x-user", "alice");
    let new = task_id(&alice.call(2, "build", json!({"ms": 1}), json!({})).await);
    assert_eq!(settled(&alice, &new).await["status"], "completed");
    refused_as_unknown(&peer, &new, "none").await;
    let _ = std::fs::remove_dir_all(dir);
}

//! `A2aServer` with its tasks in the served client's run store, on SQLite and on a real
//! PostgreSQL (started by the suite, as for `tests/durable*.rs`):
//!
//! - two replicas on one database (two stores opened apart, two servers): replica B
//!   answers `GetTask` and `ListTasks` for a task replica A started, continues it with
//!   the answer to its question, continues its conversation (`contextId`), and keeps it
//!   from any other principal; two answers sent to both replicas at once resume the run
//!   once;
//! - a restart: the server stopped and its store closed, a new one on the same database
//!   answers the waiting task;
//! - retention: `RunStore::purge` deletes ended A2A tasks (and conversations) older than
//!   its age, and those past the server's time to live, which are gone from `GetTask`
//!   even before;
//! - the caps, counted in the store: unfinished tasks per principal, and the tasks kept
//!   (the oldest that ended deleted to make room, a new one refused when only waiting
//!   ones are left); `ListTasks` paged by the store's cursor.
//!
//! The official SDKs' clients across a SIGKILL are in `tests/a2a_restart.rs`.

#[path = "support/a2a.rs"]
mod a2a;
#[path = "support/postgres.rs"]
mod postgres;

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::a2a::{A2aServer, ServedA2a};
use toolnexus::model::FnModel;
use toolnexus::store::{DEFAULT_RETENTION, RunStore};
use toolnexus::{Client, Context, Message, Reply, Suspend, Tool, ToolResult, Toolkit};

const V1: (&str, &str) = ("A2A-Version", "1.0");
const ANN: (&str, &str) = ("x-user", "ann");
const BOB: (&str, &str) = ("x-user", "bob");

/// The next message id.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The agent: `ask` suspends for a name and greets it; `count` says how many user
/// messages its conversation holds; anything else is echoed.
fn server(store: &RunStore, ttl: Duration) -> A2aServer {
    let model = FnModel::new_sync(|transcript, _| {
        let users = transcript
            .iter()
            .filter(|m| matches!(m, Message::User { .. }))
            .count();
        Ok(match transcript.last() {
            Some(Message::User { content }) => match content.as_text().unwrap_or_default() {
                "ask" => Reply::call(format!("c{}", transcript.len()), "ask", "{}"),
                "count" => Reply::text(format!("{users} user messages")),
                other => Reply::text(format!("echo: {other}")),
            },
            Some(Message::Tool { content, .. }) => Reply::text(content.clone()),
            _ => Reply::text("?"),
        })
    });
    let ask = Tool::new(
        "ask",
        "Asks a name.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            match ctx.answer().and_then(|a| a.text()) {
                Some(name) => ToolResult::ok(format!("hello {name}")),
                None => Suspend::input("What name?").0.into(),
            }
        },
    );
    let client = Client::new(model).store(store.clone());
    A2aServer::new(client, Toolkit::new().with(ask))
        .principal(|parts| {
            parts
                .headers
                .get("x-user")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .task_ttl(ttl)
}

async fn serve(store: &RunStore, ttl: Duration) -> ServedA2a {
    server(store, ttl).serve("127.0.0.1:0").await.unwrap()
}

/// A JSON-RPC call, off the runtime's workers (the client is blocking).
async fn rpc(
    url: &str,
    headers: &[(&'static str, &'static str)],
    method: &str,
    params: Value,
) -> Value {
    let (url, headers, method) = (url.to_owned(), headers.to_vec(), method.to_owned());
    tokio::task::spawn_blocking(move || a2a::rpc(&url, &headers, &method, params))
        .await
        .unwrap()
}

async fn send(url: &str, who: (&'static str, &'static str), text: &str, extra: Value) -> Value {
    let mut message = json!({
        "messageId": format!("m-{}", NEXT.fetch_add(1, Ordering::Relaxed)),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
    });
    for (key, value) in extra.as_object().unwrap() {
        message[key] = value.clone();
    }
    rpc(url, &[V1, who], "SendMessage", json!({"message": message})).await
}

async fn get(url: &str, who: (&'static str, &'static str), id: &str) -> Value {
    rpc(url, &[V1, who], "GetTask", json!({"id": id})).await
}

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

fn state(task: &Value) -> &str {
    task["status"]["state"].as_str().unwrap_or_default()
}

fn answer_text(task: &Value) -> &str {
    task["artifacts"][0]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// Runs `check` on a SQLite file and on a PostgreSQL database, each opened by `open`
/// as often as the check asks (each time a store of its own, as a replica would).
macro_rules! on_both {
    ($name:ident, $check:ident) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let path = std::env::temp_dir().join(format!(
                    "toolnexus-a2a-{}-{}.db",
                    std::process::id(),
                    stringify!($check)
                ));
                let path = path.display().to_string();
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{path}{suffix}"));
                }
                let open = || {
                    let path = path.clone();
                    async move { toolnexus::store::RunStore::sqlite(&path).await.unwrap() }
                };
                super::$check(open).await;
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{path}{suffix}"));
                }
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let url = tokio::task::spawn_blocking(|| {
                    super::postgres::server().database(concat!("a2a_", stringify!($check)))
                })
                .await
                .unwrap();
                let open = || {
                    let url = url.clone();
                    async move { toolnexus::store::RunStore::postgres(&url).await.unwrap() }
                };
                super::$check(open).await;
            }
        }
    };
}

// ---------------------------------------------------------------------------------------

on_both!(replicas_answer_for_and_continue_each_others_tasks, replicas);
async fn replicas<F>(open: impl Fn() -> F)
where
    F: Future<Output = RunStore>,
{
    let (store_a, store_b) = (open().await, open().await);
    let a = serve(&store_a, Duration::from_secs(3600)).await;
    let b = serve(&store_b, Duration::from_secs(3600)).await;
    let (url_a, url_b) = (a.url(), b.url());

    // Replica A starts the task; it asks.
    let asked = send(&url_a, ANN, "ask", json!({})).await;
    let task = &asked["result"]["task"];
    assert_eq!(state(task), "TASK_STATE_INPUT_REQUIRED", "{asked}");
    assert_eq!(task["status"]["message"]["parts"][0]["text"], "What name?");
    let id = task["id"].as_str().unwrap().to_owned();
    let context = task["contextId"].as_str().unwrap().to_owned();

    // Replica B sees it, and only for its principal.
    let fetched = get(&url_b, ANN, &id).await;
    assert_eq!(
        state(&fetched["result"]),
        "TASK_STATE_INPUT_REQUIRED",
        "{fetched}"
    );
    assert_eq!(fetched["result"]["history"], task["history"]);
    assert_eq!(code(&get(&url_b, BOB, &id).await), -32001);
    let listed = rpc(&url_b, &[V1, ANN], "ListTasks", json!({})).await;
    assert_eq!(listed["result"]["tasks"][0]["id"], id.as_str(), "{listed}");
    let listed = rpc(&url_b, &[V1, BOB], "ListTasks", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
    assert_eq!(
        code(&send(&url_b, BOB, "Bob", json!({"taskId": id})).await),
        -32001,
        "another principal cannot answer it"
    );

    // Replica B continues it with the answer.
    let done = send(&url_b, ANN, "Ann", json!({"taskId": id})).await;
    let done = &done["result"]["task"];
    assert_eq!(state(done), "TASK_STATE_COMPLETED", "{done}");
    assert_eq!(answer_text(done), "hello Ann");
    let fetched = get(&url_a, ANN, &id).await;
    assert_eq!(
        state(&fetched["result"]),
        "TASK_STATE_COMPLETED",
        "{fetched}"
    );
    assert_eq!(answer_text(&fetched["result"]), "hello Ann");
    assert_eq!(
        code(&send(&url_a, ANN, "again", json!({"taskId": id})).await),
        -32004
    );
    // The run itself was resumed through the store: nothing waits there any more.
    assert!(store_a.pending().await.unwrap().is_empty());

    // Its conversation goes on on replica A, for its principal only.
    let next = send(&url_a, ANN, "count", json!({"contextId": context})).await;
    assert_eq!(
        answer_text(&next["result"]["task"]),
        "2 user messages",
        "{next}"
    );
    let other = send(&url_a, BOB, "count", json!({"contextId": context})).await;
    assert_eq!(
        answer_text(&other["result"]["task"]),
        "1 user messages",
        "{other}"
    );

    // Two answers to one question, one to each replica at once: one resumes the run.
    let asked = send(&url_b, ANN, "ask", json!({})).await;
    let id = asked["result"]["task"]["id"].as_str().unwrap().to_owned();
    let (first, second) = tokio::join!(
        send(&url_a, ANN, "Ann", json!({"taskId": id})),
        send(&url_b, ANN, "Anne", json!({"taskId": id})),
    );
    let results = [&first, &second];
    let won: Vec<&&Value> = results
        .iter()
        .filter(|r| r.get("result").is_some())
        .collect();
    assert_eq!(won.len(), 1, "exactly one answer resumes: {first} {second}");
    let lost = results.iter().find(|r| r.get("error").is_some()).unwrap();
    assert_eq!(code(lost), -32004, "{lost}");
    let winner = answer_text(&won[0]["result"]["task"]).to_owned();
    assert!(
        ["hello Ann", "hello Anne"].contains(&winner.as_str()),
        "{winner}"
    );
    let fetched = get(&url_a, ANN, &id).await;
    assert_eq!(answer_text(&fetched["result"]), winner);
    a.shutdown().await.unwrap();
    b.shutdown().await.unwrap();
}

on_both!(a_restarted_server_answers_the_waiting_task, restart);
async fn restart<F>(open: impl Fn() -> F)
where
    F: Future<Output = RunStore>,
{
    let store = open().await;
    let served = serve(&store, Duration::from_secs(3600)).await;
    let asked = send(&served.url(), ANN, "ask", json!({})).await;
    let id = asked["result"]["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(state(&asked["result"]["task"]), "TASK_STATE_INPUT_REQUIRED");
    served.shutdown().await.unwrap();
    drop(store);

    let store = open().await;
    let served = serve(&store, Duration::from_secs(3600)).await;
    let url = served.url();
    assert_eq!(
        state(&get(&url, ANN, &id).await["result"]),
        "TASK_STATE_INPUT_REQUIRED"
    );
    let done = send(&url, ANN, "Ann", json!({"taskId": id})).await;
    assert_eq!(
        state(&done["result"]["task"]),
        "TASK_STATE_COMPLETED",
        "{done}"
    );
    assert_eq!(answer_text(&done["result"]["task"]), "hello Ann");
    served.shutdown().await.unwrap();
}

on_both!(purge_deletes_ended_and_expired_a2a_tasks, retention);
async fn retention<F>(open: impl Fn() -> F)
where
    F: Future<Output = RunStore>,
{
    let store = open().await;
    let served = serve(&store, Duration::from_secs(3600)).await;
    let url = served.url();
    let ended = send(&url, ANN, "hi", json!({})).await;
    let ended = ended["result"]["task"]["id"].as_str().unwrap().to_owned();
    let waiting = send(&url, ANN, "ask", json!({})).await;
    let waiting = waiting["result"]["task"]["id"].as_str().unwrap().to_owned();

    // Nothing is that old yet.
    let purged = store.purge(DEFAULT_RETENTION).await.unwrap();
    assert_eq!((purged.a2a_tasks, purged.a2a_conversations), (0, 0));
    // An age of zero takes the ended task and its conversation, not the waiting one.
    let purged = store.purge(Duration::ZERO).await.unwrap();
    assert_eq!(
        (purged.a2a_tasks, purged.a2a_conversations),
        (1, 1),
        "{purged:?}"
    );
    assert_eq!(code(&get(&url, ANN, &ended).await), -32001);
    assert_eq!(
        state(&get(&url, ANN, &waiting).await["result"]),
        "TASK_STATE_INPUT_REQUIRED"
    );
    served.shutdown().await.unwrap();

    // A task past the server's time to live is gone at once, and purged with it.
    let short = serve(&store, Duration::from_millis(300)).await;
    let url = short.url();
    let asked = send(&url, ANN, "ask", json!({})).await;
    let id = asked["result"]["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        state(&get(&url, ANN, &id).await["result"]),
        "TASK_STATE_INPUT_REQUIRED"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(code(&get(&url, ANN, &id).await), -32001, "expired");
    assert_eq!(
        code(&send(&url, ANN, "Ann", json!({"taskId": id})).await),
        -32001
    );
    let purged = store.purge(DEFAULT_RETENTION).await.unwrap();
    assert_eq!(purged.a2a_tasks, 1, "{purged:?}");
    short.shutdown().await.unwrap();
}

on_both!(caps_and_pages_hold_in_the_store, caps);
async fn caps<F>(open: impl Fn() -> F)
where
    F: Future<Output = RunStore>,
{
    let store = open().await;
    let served = server(&store, Duration::from_secs(3600))
        .max_unfinished_tasks_per_caller(2)
        .max_stored_tasks(4)
        .serve("127.0.0.1:0")
        .await
        .unwrap();
    let url = served.url();
    let scope = |refused: &Value| refused["error"]["data"][0]["metadata"]["scope"].clone();
    // Two waiting tasks are Ann's limit; Bob has his own.
    for _ in 0..2 {
        let asked = send(&url, ANN, "ask", json!({})).await;
        assert_eq!(state(&asked["result"]["task"]), "TASK_STATE_INPUT_REQUIRED");
    }
    let third = send(&url, ANN, "ask", json!({})).await;
    assert_eq!(
        (code(&third), scope(&third)),
        (-32000, json!("unfinished_per_caller"))
    );
    let bobs = send(&url, BOB, "ask", json!({})).await;
    assert_eq!(state(&bobs["result"]["task"]), "TASK_STATE_INPUT_REQUIRED");
    // Four tasks kept at most: a new one makes room by deleting the oldest that ended.
    let first = send(&url, BOB, "hi", json!({})).await;
    let first = first["result"]["task"]["id"].as_str().unwrap().to_owned();
    let second = send(&url, BOB, "hi again", json!({})).await;
    assert_eq!(answer_text(&second["result"]["task"]), "echo: hi again");
    assert_eq!(code(&get(&url, BOB, &first).await), -32001, "evicted");
    let again = send(&url, BOB, "ask", json!({})).await;
    assert_eq!(state(&again["result"]["task"]), "TASK_STATE_INPUT_REQUIRED");
    // Only waiting tasks left: nothing to delete, so the next is refused.
    let full = send(&url, ANN, "hi", json!({})).await;
    assert_eq!((code(&full), scope(&full)), (-32000, json!("stored_tasks")));

    // ListTasks pages through Ann's two tasks, one at a time, by the store's cursor.
    let (mut seen, mut token) = (Vec::new(), String::new());
    loop {
        let page = rpc(
            &url,
            &[V1, ANN],
            "ListTasks",
            json!({"pageSize": 1, "pageToken": token}),
        )
        .await;
        assert_eq!(page["result"]["totalSize"], 2, "{page}");
        for task in page["result"]["tasks"].as_array().unwrap() {
            seen.push(task["id"].as_str().unwrap().to_owned());
        }
        token = page["result"]["nextPageToken"].as_str().unwrap().to_owned();
        if token.is_empty() {
            break;
        }
    }
    seen.dedup();
    assert_eq!(seen.len(), 2, "{seen:?}");
    served.shutdown().await.unwrap();
}

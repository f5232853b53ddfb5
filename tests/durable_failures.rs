//! Durable runs when things go wrong: a damaged row, a row written by a newer toolnexus,
//! ids that are not there, a second answer, a locked SQLite file, an unreachable
//! PostgreSQL server, and writes that fail in the middle of a run. Each test asserts the
//! exact error (what went wrong, and which run, request or row), that nothing was
//! half-written, and that the last checkpoint still stands.
//!
//! Rows are damaged, and writes made to fail, from a second connection of the test's own
//! (sqlx), on a SQLite file and on the real PostgreSQL server of tests/support/postgres.rs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolnexus::agent::StopReason;
use toolnexus::store::{RunStore, StoreError};
use toolnexus::{Answer, Client, RunResult, RunStatus, Toolkit};

#[path = "support/durable.rs"]
mod durable;
#[path = "support/postgres.rs"]
mod postgres;

use durable::{Seen, approving, counting, on_both, steps};

/// Every store call of these tests is bounded: a hang fails the test.
const BOUND: Duration = Duration::from_secs(20);

async fn bounded<F: std::future::Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(BOUND, f)
        .await
        .unwrap_or_else(|_| panic!("{what} hung for {BOUND:?}"))
}

#[path = "durable/raw.rs"]
mod raw;

use raw::{Raw, pg, sqlite, sqlite_path, sqlite_path_of};

fn seen() -> Seen {
    Arc::new(Mutex::new(Vec::new()))
}

/// The store's message of a run that stopped on a store failure.
fn store_failure(run: &RunResult) -> &str {
    match &run.status {
        RunStatus::Incomplete {
            reason: StopReason::Store { message },
        } => message,
        other => panic!("expected a store failure, the run is {other:?}"),
    }
}

/// How many times call `n` ran, per `n` in `0..calls`.
fn runs_per_call(seen: &Seen, calls: i64) -> Vec<usize> {
    let seen = seen.lock().unwrap();
    (0..calls)
        .map(|n| seen.iter().filter(|s| s.0 == n).count())
        .collect()
}

/// Parks one run on request `approve-<tag>-0`; its id.
async fn park(store: &RunStore, tag: &'static str) -> (String, Toolkit, Seen) {
    let seen = seen();
    let toolkit = Toolkit::new().with(approving(seen.clone(), tag, None));
    let client = Client::new(steps("approve", 1)).store(store.clone());
    let run = bounded("parking", client.run("do it", &toolkit)).await;
    assert!(run.is_pending(), "{:?}", run.status);
    (run.id.unwrap(), toolkit, seen)
}

/// The parked run is untouched: still parked, unleased, its request unanswered.
async fn still_parked(raw: &Raw, run: &str, request: &str) {
    let status = raw
        .text(&format!(
            "SELECT status FROM toolnexus_runs WHERE id = '{run}'"
        ))
        .await;
    assert_eq!(status.as_deref(), Some("parked"));
    let lease = raw
        .text(&format!(
            "SELECT lease_token FROM toolnexus_runs WHERE id = '{run}'"
        ))
        .await;
    assert_eq!(lease, None, "no lease left behind");
    let answered = raw
        .int(&format!(
            "SELECT answered_at FROM toolnexus_requests WHERE id = '{request}'"
        ))
        .await;
    assert_eq!(answered, None, "the refused answer was not recorded");
}

// ---------------------------------------------------------------------------------------

on_both!(a_corrupted_checkpoint_is_reported_by_row, corrupted);
async fn corrupted((store, raw): (RunStore, Raw)) {
    let (id, toolkit, seen) = park(&store, "c").await;
    let client = Client::new(steps("approve", 1)).store(store.clone());
    let run_row = format!("run `{id}`");
    let good = raw
        .text(&format!(
            "SELECT transcript FROM toolnexus_runs WHERE id = '{id}'"
        ))
        .await
        .unwrap();

    // Damaged JSON, then JSON of the wrong shape: each answer refused, naming the run.
    for (damage, says) in [
        (&good[..good.len() / 2], "EOF while parsing"),
        (
            r#"{"role":"user"}"#,
            "invalid type: map, expected a sequence",
        ),
    ] {
        raw.exec(&format!(
            "UPDATE toolnexus_runs SET transcript = '{}' WHERE id = '{id}'",
            damage.replace('\'', "''")
        ))
        .await;
        let answered = bounded(
            "answering",
            client.answer(Answer::accept("approve-c-0"), &toolkit),
        )
        .await;
        match answered {
            Err(StoreError::Corrupted { row, message }) => {
                assert_eq!(row, run_row);
                assert!(message.contains(says), "{message}");
            }
            other => panic!("an answer to a damaged run: {other:?}"),
        }
        still_parked(&raw, &id, "approve-c-0").await;
    }

    // A damaged result column.
    raw.exec(&format!(
        "UPDATE toolnexus_runs SET result = '[1, 2]' WHERE id = '{id}'"
    ))
    .await;
    match store.result(&id).await {
        Err(e @ StoreError::Corrupted { .. }) => {
            let shown = e.to_string();
            assert!(
                shown.starts_with(&format!("{run_row} is corrupted: ")),
                "{shown}"
            );
            // What serde found, and where.
            assert!(shown.contains("at line 1 column"), "{shown}");
        }
        other => panic!("a damaged result: {other:?}"),
    }

    // A damaged request: the inbox names it.
    raw.exec("UPDATE toolnexus_requests SET request = '{\"id\": 7}'")
        .await;
    match store.pending().await {
        Err(StoreError::Corrupted { row, message }) => {
            assert_eq!(row, "request `approve-c-0`");
            assert!(message.contains("invalid type: integer"), "{message}");
        }
        other => panic!("a damaged request in the inbox: {other:?}"),
    }

    // A damaged run does not stop recovery of the others, and is left as it is.
    raw.exec(&format!(
        "UPDATE toolnexus_runs SET status = 'running', lease_until = 0, \
         transcript = '[' WHERE id = '{id}'"
    ))
    .await;
    let recovered = bounded("recovering", client.recover(&toolkit))
        .await
        .unwrap();
    assert_eq!(recovered.len(), 1, "{recovered:?}");
    assert_eq!(recovered[0].id.as_deref(), Some(id.as_str()));
    let message = store_failure(&recovered[0]);
    assert!(
        message.starts_with(&format!("{run_row} is corrupted: EOF while parsing")),
        "{message}"
    );
    assert_eq!(
        raw.text(&format!(
            "SELECT transcript FROM toolnexus_runs WHERE id = '{id}'"
        ))
        .await
        .as_deref(),
        Some("["),
        "left as it was"
    );

    // Repaired, the run is answered as if nothing happened.
    raw.exec(&format!(
        "UPDATE toolnexus_runs SET status = 'parked', transcript = '{}' WHERE id = '{id}'",
        good.replace('\'', "''")
    ))
    .await;
    let request = raw
        .text(&format!(
            "SELECT request FROM toolnexus_requests WHERE id = 'approve-c-0' AND run_id = '{id}'"
        ))
        .await;
    assert!(request.is_some());
    let done = bounded(
        "answering",
        client.answer(Answer::accept("approve-c-0").with_data("ana"), &toolkit),
    )
    .await
    .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    assert_eq!(done.tool_calls[0].result.output, "approved 0 by ana");
    assert_eq!(
        runs_per_call(&seen, 1),
        [2],
        "asked once, ran once answered"
    );
}

// ---------------------------------------------------------------------------------------

on_both!(a_row_from_a_newer_version_is_refused, newer);
async fn newer((store, raw): (RunStore, Raw)) {
    let (id, toolkit, _) = park(&store, "n").await;
    let client = Client::new(steps("approve", 1)).store(store.clone());
    raw.exec(&format!(
        "UPDATE toolnexus_runs SET format = 2 WHERE id = '{id}'"
    ))
    .await;
    let expect_newer = |got: Result<_, StoreError>| match got {
        Err(e @ StoreError::NewerFormat { .. }) => {
            let StoreError::NewerFormat { row, found, known } = &e else {
                unreachable!()
            };
            assert_eq!(
                (row.as_str(), *found, *known),
                (&*format!("run `{id}`"), 2, 1)
            );
            assert!(e.to_string().contains("upgrade toolnexus"), "{e}");
        }
        other => panic!("a run of format 2: {other:?}"),
    };
    expect_newer(
        bounded(
            "answering",
            client.answer(Answer::accept("approve-n-0"), &toolkit),
        )
        .await
        .map(|_| ()),
    );
    still_parked(&raw, &id, "approve-n-0").await;
    expect_newer(store.result(&id).await.map(|_| ()));

    // A session message of a newer format. (A session run is a run of the store, and may
    // not park on the request id the run above waits on: its tool asks under another tag.)
    let session = client.session("chat");
    let asks_again = Toolkit::new().with(approving(seen(), "s", None));
    let said = bounded("a session run", client.ask("chat", "hello", &asks_again))
        .await
        .unwrap();
    assert!(said.is_pending(), "{:?}", said.status);
    let first = raw
        .int("SELECT MIN(seq) FROM toolnexus_sessions WHERE session_id = 'chat'")
        .await
        .unwrap();
    raw.exec("UPDATE toolnexus_sessions SET format = 7").await;
    match session.messages().await {
        Err(StoreError::NewerFormat { row, found, known }) => assert_eq!(
            (row, found, known),
            (format!("message {first} of session `chat`"), 7, 1)
        ),
        other => panic!("a session message of format 7: {other:?}"),
    }

    // A database whose schema a newer toolnexus migrated is not opened.
    raw.exec("INSERT INTO toolnexus_schema (version) VALUES (99)")
        .await;
    let reopened = if raw.is_postgres() {
        let Raw::Postgres(pool) = &raw else {
            unreachable!()
        };
        let db: String = sqlx::query_scalar("SELECT current_database()")
            .fetch_one(pool)
            .await
            .unwrap();
        let url = postgres::server().url(&db);
        RunStore::postgres(url).await.map(|_| ())
    } else {
        RunStore::sqlite(sqlite_path_of(&raw).await)
            .await
            .map(|_| ())
    };
    match reopened {
        Err(e @ StoreError::NewerSchema { found: 99, .. }) => {
            assert!(e.to_string().contains("schema is version 99"), "{e}")
        }
        other => panic!("a schema of version 99: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------

on_both!(unknown_ids_and_second_answers_are_refused, unknown);
async fn unknown((store, raw): (RunStore, Raw)) {
    match store.result("run_nobody").await {
        Err(e @ StoreError::UnknownRun(_)) => {
            assert_eq!(e.to_string(), "no run `run_nobody` in the run store")
        }
        other => panic!("an unknown run: {other:?}"),
    }
    let (id, toolkit, seen) = park(&store, "u").await;
    let client = Client::new(steps("approve", 1)).store(store.clone());
    match client.answer(Answer::accept("approve-x-9"), &toolkit).await {
        Err(e @ StoreError::UnknownRequest(_)) => {
            assert_eq!(e.to_string(), "no request `approve-x-9` in the run store")
        }
        other => panic!("an unknown request: {other:?}"),
    }
    still_parked(&raw, &id, "approve-u-0").await;

    let done = bounded(
        "answering",
        client.answer(Answer::decline("approve-u-0", "no"), &toolkit),
    )
    .await
    .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    for again in [
        Answer::accept("approve-u-0"),
        Answer::decline("approve-u-0", "no"),
    ] {
        match client.answer(again, &toolkit).await {
            Err(e @ StoreError::AlreadyAnswered { .. }) => assert_eq!(
                e.to_string(),
                format!("request `approve-u-0` of run `{id}` was already answered")
            ),
            other => panic!("a second answer: {other:?}"),
        }
    }
    assert_eq!(store.result(&id).await.unwrap(), Some(done), "unchanged");
    assert_eq!(
        runs_per_call(&seen, 1),
        [1],
        "asked once; declined, not run again"
    );
}

// ---------------------------------------------------------------------------------------

on_both!(a_failed_write_keeps_the_checkpoint_before_it, failed_writes);
async fn failed_writes((store, raw): (RunStore, Raw)) {
    let lease = Duration::from_millis(200);
    let client = |id: &str| {
        Client::new(steps("count", 4))
            .store(store.clone())
            .lease(lease)
            .run_id(id)
    };
    let disk_full = "could not write: No space left on device";

    // 1. The second checkpoint fails (the model turn at transcript position 3).
    let seen = seen();
    let toolkit = Toolkit::new().with(counting(seen.clone()));
    raw.fail_updates("toolnexus_runs", "NEW.turn_at = 3", disk_full)
        .await;
    let run = bounded("a run", client("full-1").run("count", &toolkit)).await;
    let message = store_failure(&run);
    assert!(
        message.starts_with("run store unavailable while checkpointing run `full-1`: "),
        "{message}"
    );
    assert!(message.contains(disk_full), "{message}");
    // The checkpoint before it stands, whole: the first turn and its settled call.
    assert_eq!(checkpoint_at(&raw, "full-1").await, Some(1));
    let settled = raw
        .int("SELECT COUNT(*) FROM toolnexus_calls WHERE run_id = 'full-1' AND message IS NOT NULL")
        .await;
    assert_eq!(settled, Some(1));
    assert_eq!(runs_per_call(&seen, 4), [1, 0, 0, 0]);
    raw.heal("toolnexus_runs").await;
    let done = recover_one(&client("full-1"), &toolkit, lease).await;
    assert_eq!(done.text, "done");
    assert_eq!(
        runs_per_call(&seen, 4),
        [1, 1, 1, 1],
        "no settled call ran again"
    );

    // 2. Recording the result of call 1 fails: the call ran, its start is recorded, so
    //    it is in flight and runs again (at least once), with the same idempotency key.
    let seen = self::seen();
    let toolkit = Toolkit::new().with(counting(seen.clone()));
    raw.fail_updates(
        "toolnexus_calls",
        "NEW.call_id = 'call_1' AND NEW.message IS NOT NULL",
        disk_full,
    )
    .await;
    let run = bounded("a run", client("full-2").run("count", &toolkit)).await;
    let message = store_failure(&run);
    assert!(
        message.starts_with("run store unavailable while settling call `call_1` of run `full-2`: "),
        "{message}"
    );
    let in_flight = raw
        .int("SELECT attempts FROM toolnexus_calls WHERE run_id = 'full-2' AND call_id = 'call_1' AND message IS NULL")
        .await;
    assert_eq!(in_flight, Some(1), "recorded as started, not settled");
    raw.heal("toolnexus_calls").await;
    let done = recover_one(&client("full-2"), &toolkit, lease).await;
    assert_eq!(done.text, "done");
    assert_eq!(runs_per_call(&seen, 4), [1, 2, 1, 1]);
    let keys: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s.0 == 1)
        .map(|s| s.1.clone())
        .collect();
    assert_eq!(keys[0], keys[1], "the same idempotency key: {keys:?}");

    // 3. Recording the end fails: the run stays as its last checkpoint left it, and is
    //    finished by recovery without running a tool again.
    let seen = self::seen();
    let toolkit = Toolkit::new().with(counting(seen.clone()));
    raw.fail_updates("toolnexus_runs", "NEW.status = 'finished'", disk_full)
        .await;
    let run = bounded("a run", client("full-3").run("count", &toolkit)).await;
    let message = store_failure(&run);
    assert!(
        message.starts_with("run store unavailable while recording the end of run `full-3`: "),
        "{message}"
    );
    assert_eq!(checkpoint_at(&raw, "full-3").await, Some(7));
    let result = raw
        .text("SELECT result FROM toolnexus_runs WHERE id = 'full-3'")
        .await;
    assert_eq!(result, None, "no result half-written");
    raw.heal("toolnexus_runs").await;
    let done = recover_one(&client("full-3"), &toolkit, lease).await;
    assert_eq!(done.text, "done");
    assert_eq!(runs_per_call(&seen, 4), [1, 1, 1, 1]);
    assert_eq!(store.result("full-3").await.unwrap(), Some(done));
}

/// The transcript position of run `id`'s last checkpoint.
async fn checkpoint_at(raw: &Raw, id: &str) -> Option<i64> {
    raw.int(&format!(
        "SELECT turn_at FROM toolnexus_runs WHERE id = '{id}'"
    ))
    .await
}

/// Waits out the lease of the failed worker, then recovers its one run.
async fn recover_one(client: &Client, toolkit: &Toolkit, lease: Duration) -> RunResult {
    tokio::time::sleep(lease * 2).await;
    let mut recovered = bounded("recovering", client.recover(toolkit))
        .await
        .unwrap();
    assert_eq!(recovered.len(), 1, "{recovered:?}");
    let run = recovered.remove(0);
    assert!(run.is_done(), "{:?}", run.status);
    run
}

// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_sqlite_file_is_waited_on_then_reported() {
    let path = sqlite_path("locked");
    let busy = Duration::from_millis(300);
    let store = RunStore::sqlite_with_busy_timeout(&path, busy)
        .await
        .unwrap();
    let raw = sqlx::SqlitePool::connect(&format!("sqlite://{path}"))
        .await
        .unwrap();
    let mut holder = raw.acquire().await.unwrap();
    sqlx::raw_sql("BEGIN IMMEDIATE")
        .execute(&mut *holder)
        .await
        .unwrap();

    // A run cannot start: refused after the busy timeout, nothing recorded.
    let seen = seen();
    let toolkit = Toolkit::new().with(counting(seen.clone()));
    let client = Client::new(steps("count", 2))
        .store(store.clone())
        .run_id("locked-1");
    let run = bounded("a run on a locked file", client.run("count", &toolkit)).await;
    let message = store_failure(&run);
    assert!(
        message.starts_with("run store unavailable while creating run `locked-1`: "),
        "{message}"
    );
    assert!(message.contains("database is locked"), "{message}");
    assert!(seen.lock().unwrap().is_empty(), "no tool ran");

    // Readers are not blocked (WAL): the inbox still lists.
    assert_eq!(bounded("listing", store.pending()).await.unwrap(), vec![]);

    // Opening it (the migration takes the write lock) is refused, naming the file.
    match bounded(
        "opening a locked file",
        RunStore::sqlite_with_busy_timeout(&path, busy),
    )
    .await
    {
        Err(e @ StoreError::Unavailable { .. }) => {
            let shown = e.to_string();
            assert!(
                shown.starts_with(&format!(
                    "run store unavailable while migrating the schema of SQLite store `{path}`: "
                )),
                "{shown}"
            );
            assert!(shown.contains("database is locked"), "{shown}");
        }
        other => panic!("opening a locked file: {other:?}"),
    }

    // Released, the same store goes on.
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut *holder)
        .await
        .unwrap();
    drop(holder);
    assert!(matches!(
        store.result("locked-1").await,
        Err(StoreError::UnknownRun(_))
    ));
    let run = bounded("a run", client.run("count", &toolkit)).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(runs_per_call(&seen, 2), [1, 1]);
}

#[tokio::test]
async fn an_unreachable_postgres_is_reported_in_bounded_time() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port(); // closed again: nothing listens there
    let url = format!("postgres://toolnexus:secret@127.0.0.1:{port}/runs");
    let connected = bounded(
        "connecting to a closed port",
        RunStore::postgres_with_timeout(&url, Duration::from_secs(2)),
    )
    .await;
    match connected {
        Err(e @ StoreError::Unavailable { .. }) => {
            let shown = e.to_string();
            assert!(
                shown.starts_with(&format!(
                    "run store unavailable while connecting to PostgreSQL at `127.0.0.1:{port}/runs`: "
                )),
                "{shown}"
            );
            assert!(
                shown.to_lowercase().contains("connection refused"),
                "the reason, not a timeout: {shown}"
            );
            assert!(!shown.contains("secret"), "no password shown: {shown}");
        }
        other => panic!("a closed port: {other:?}"),
    }
}

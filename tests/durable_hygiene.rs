//! What keeps a run store usable over time, on a SQLite file and on the real PostgreSQL
//! server of tests/support/postgres.rs, through the public API (and a connection of the
//! test's own, to age rows and to write tasks):
//!
//! - runs that make the same call wait on the same request id (an approval id is a digest
//!   of the call, and `call_N_I` ids repeat from run to run): each one parks, and each is
//!   answered, by naming its run when several wait;
//! - `RunStore::purge` deletes the runs that finished before a given age, their requests
//!   and the tasks that ended, and the sessions nobody wrote to since, and keeps
//!   everything still running or waiting; `RunStore::purge_unanswered` deletes the runs
//!   parked before its own age, nobody having answered them;
//! - a store made by the previous schema (requests keyed by id alone) is migrated with
//!   its waiting requests.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use toolnexus::store::{DEFAULT_RETENTION, RunStore, StoreError};
use toolnexus::{Answer, Client, Request, Toolkit};

#[path = "support/durable.rs"]
mod durable;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "durable/raw.rs"]
#[allow(dead_code)]
mod raw;

use durable::{Seen, approving, counting, on_both, steps};
use raw::{Raw, pg, sqlite};

fn seen() -> Seen {
    Arc::new(Mutex::new(Vec::new()))
}

// ---------------------------------------------------------------------------------------

on_both!(runs_that_ask_the_same_request_each_park, same_request);
async fn same_request((store, _raw): (RunStore, Raw)) {
    let seen = seen();
    let toolkit = Toolkit::new().with(approving(seen.clone(), "same", None));
    let client = Client::new(steps("approve", 1)).store(store.clone());
    let first = client.run("do it", &toolkit).await;
    let second = client.run("do it", &toolkit).await;
    let third = client.run("do it", &toolkit).await;
    for run in [&first, &second, &third] {
        assert!(run.is_pending(), "{:?}", run.status);
    }
    let ids: Vec<String> = [&first, &second, &third]
        .iter()
        .map(|r| r.id.clone().unwrap())
        .collect();
    let waiting = store.pending().await.unwrap();
    let mut waiting_runs: Vec<&str> = waiting.iter().map(|w| w.run_id.as_str()).collect();
    waiting_runs.sort_unstable();
    let mut expected: Vec<&str> = ids.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(waiting_runs, expected);
    assert!(waiting.iter().all(|w| w.request.id == "approve-same-0"));
    // Paging walks all three, one at a time, though they share the id.
    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let page = store.pending_page(1, after.as_deref()).await.unwrap();
        paged.extend(page.requests.into_iter().map(|r| r.run_id));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    paged.sort_unstable();
    assert_eq!(paged, expected);

    // By id alone the answer is ambiguous; naming the run resumes that run only.
    let answer = Answer::accept("approve-same-0").with_data("ana");
    match client.answer(answer.clone(), &toolkit).await {
        Err(e @ StoreError::AmbiguousRequest { .. }) => {
            let text = e.to_string();
            assert!(
                ids.iter().all(|id| text.contains(id.as_str())) && text.contains(".run(run_id)"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    let resumed = client
        .answer(answer.clone(), &toolkit)
        .run(&ids[1])
        .await
        .unwrap();
    assert!(resumed.is_done(), "{:?}", resumed.status);
    assert_eq!(resumed.id.as_deref(), Some(ids[1].as_str()));
    assert_eq!(resumed.tool_calls[0].result.output, "approved 0 by ana");
    assert!(matches!(
        client.answer(answer.clone(), &toolkit).run(&ids[1]).await,
        Err(StoreError::AlreadyAnswered { run, .. }) if run == ids[1]
    ));
    assert!(matches!(
        client.answer(Answer::accept("nobody-asked"), &toolkit).run(&ids[1]).await,
        Err(StoreError::UnknownRequest(r)) if r == "nobody-asked"
    ));
    // Two left: still ambiguous. One left: the id alone is enough again.
    assert!(matches!(
        client.answer(answer.clone(), &toolkit).await,
        Err(StoreError::AmbiguousRequest { runs, .. }) if runs.len() == 2
    ));
    let resumed = client
        .answer(answer.clone(), &toolkit)
        .run(&ids[0])
        .await
        .unwrap();
    assert_eq!(resumed.id.as_deref(), Some(ids[0].as_str()));
    let resumed = client.answer(answer.clone(), &toolkit).await.unwrap();
    assert_eq!(resumed.id.as_deref(), Some(ids[2].as_str()));
    assert!(resumed.is_done());
    assert!(store.pending().await.unwrap().is_empty());
    // Each ran once without the answer (asking) and once with it.
    assert_eq!(seen.lock().unwrap().len(), 6);
    match client.answer(answer, &toolkit).await {
        Err(StoreError::AlreadyAnswered { .. }) => {}
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------

fn now_ms() -> i64 {
    i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// A task row as the MCP task store writes one, `age_days` since its last change,
/// expiring in `ttl_days`.
async fn task(raw: &Raw, id: &str, status: &str, age_days: i64, ttl_days: i64) {
    let now = now_ms();
    let updated = now - age_days * DAY_MS;
    raw.exec(&format!(
        "INSERT INTO toolnexus_tasks (id, format, tool, args, status, message, payload, \
         pending, rounds, cancel, owner, lease_until, created_at, updated_at, ttl_ms, \
         expires_at) VALUES ('{id}', 1, 't', '{{}}', '{status}', NULL, NULL, NULL, 0, 0, \
         NULL, 0, {updated}, {updated}, {}, {})",
        ttl_days * DAY_MS,
        now + ttl_days * DAY_MS
    ))
    .await;
}

async fn count(raw: &Raw, table: &str) -> i64 {
    raw.int(&format!("SELECT COUNT(*) FROM {table}"))
        .await
        .unwrap_or(0)
}

on_both!(
    purge_deletes_what_ended_long_ago_and_keeps_the_rest,
    retention
);
async fn retention((store, raw): (RunStore, Raw)) {
    assert_eq!(DEFAULT_RETENTION, Duration::from_secs(30 * 24 * 60 * 60));
    let toolkit = Toolkit::new()
        .with(counting(seen()))
        .with(approving(seen(), "r", None));
    let counting_client = Client::new(steps("count", 1)).store(store.clone());
    let asking = Client::new(steps("approve", 1)).store(store.clone());
    // Old: a finished run, a run that parked and was answered (its request answered), a
    // run still parked. Recent: a finished run.
    let finished = counting_client.run("go", &toolkit).await.id.unwrap();
    let answered = asking.run("go", &toolkit).await.id.unwrap();
    asking
        .answer(Answer::accept("approve-r-0"), &toolkit)
        .await
        .unwrap();
    let parked = asking.run("go", &toolkit).await.id.unwrap();
    raw.exec(&format!(
        "UPDATE toolnexus_runs SET updated_at = updated_at - {} WHERE id IN \
         ('{finished}', '{answered}', '{parked}')",
        40 * DAY_MS
    ))
    .await;
    let recent = counting_client.run("go", &toolkit).await.id.unwrap();
    task(&raw, "old-completed", "completed", 40, 400).await;
    task(&raw, "old-failed", "failed", 40, 400).await;
    task(&raw, "old-cancelled", "cancelled", 40, 400).await;
    task(&raw, "old-working", "working", 40, 400).await;
    task(&raw, "old-waiting", "input_required", 40, 400).await;
    task(&raw, "new-completed", "completed", 1, 400).await;
    task(&raw, "expired-working", "working", 1, -1).await;
    assert_eq!(count(&raw, "toolnexus_requests").await, 2);

    // Nothing is that old.
    let none = store.purge(Duration::from_secs(60 * 86400)).await.unwrap();
    assert_eq!((none.runs, none.requests), (0, 0));
    assert_eq!(none.tasks, 1, "only the expired task");

    let purged = store.purge(DEFAULT_RETENTION).await.unwrap();
    assert_eq!((purged.runs, purged.requests, purged.tasks), (2, 1, 3));
    for gone in [&finished, &answered] {
        assert!(
            matches!(store.result(gone).await, Err(StoreError::UnknownRun(r)) if r == *gone),
            "{gone}"
        );
    }
    assert!(store.result(&recent).await.unwrap().is_some());
    assert_eq!(count(&raw, "toolnexus_runs").await, 2);
    assert_eq!(count(&raw, "toolnexus_requests").await, 1);
    let mut kept: Vec<String> = Vec::new();
    for id in [
        "old-working",
        "old-waiting",
        "new-completed",
        "old-completed",
    ] {
        let n = raw
            .int(&format!(
                "SELECT COUNT(*) FROM toolnexus_tasks WHERE id = '{id}'"
            ))
            .await;
        if n == Some(1) {
            kept.push(id.to_owned());
        }
    }
    assert_eq!(kept, ["old-working", "old-waiting", "new-completed"]);

    // The parked run, however old, still waits, and is answered.
    let waiting = store.pending().await.unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].run_id, parked);
    let resumed = asking
        .answer(Answer::accept("approve-r-0"), &toolkit)
        .await
        .unwrap();
    assert_eq!(resumed.id.as_deref(), Some(parked.as_str()));
    assert!(resumed.is_done());

    // Again: nothing more is that old.
    assert_eq!(
        store.purge(DEFAULT_RETENTION).await.unwrap(),
        Default::default()
    );
    // An age of zero takes every finished run.
    let all = store.purge(Duration::ZERO).await.unwrap();
    assert_eq!((all.runs, all.requests), (2, 1));
    assert_eq!(count(&raw, "toolnexus_runs").await, 0);
}

// ---------------------------------------------------------------------------------------

on_both!(
    purge_deletes_old_sessions_and_runs_nobody_answered,
    sessions_and_parked
);
async fn sessions_and_parked((store, raw): (RunStore, Raw)) {
    let toolkit = Toolkit::new()
        .with(counting(seen()))
        .with(approving(seen(), "p", None));
    let client = Client::new(steps("count", 1)).store(store.clone());
    // Three threads: one nobody wrote to for 40 days, one written to since, one new.
    let mut threads = Vec::new();
    for id in ["old", "old-then-new", "new"] {
        let session = client.session(id);
        assert!(client.ask(id, "hi", &toolkit).await.unwrap().is_done());
        threads.push(session);
    }
    raw.exec(&format!(
        "UPDATE toolnexus_sessions SET updated_at = updated_at - {} \
         WHERE session_id IN ('old', 'old-then-new')",
        40 * DAY_MS
    ))
    .await;
    let written = threads[1].messages().await.unwrap().len();
    let more = Client::new(steps("count", 0)).store(store.clone());
    assert!(
        more.ask("old-then-new", "again", &toolkit)
            .await
            .unwrap()
            .is_done()
    );

    let purged = store.purge(DEFAULT_RETENTION).await.unwrap();
    assert_eq!(purged.sessions, 1, "{purged:?}");
    assert!(threads[0].messages().await.unwrap().is_empty());
    // A thread is kept whole while any of it is recent.
    assert!(threads[1].messages().await.unwrap().len() > written);
    assert!(!threads[2].messages().await.unwrap().is_empty());
    let rows = count(&raw, "toolnexus_sessions").await;
    assert_eq!(store.purge(DEFAULT_RETENTION).await.unwrap().sessions, 0);
    assert_eq!(count(&raw, "toolnexus_sessions").await, rows);

    // Two runs parked on the same request: one 40 days ago, one now.
    let asking = Client::new(steps("approve", 1)).store(store.clone());
    let stale = asking.run("go", &toolkit).await.id.unwrap();
    let fresh = asking.run("go", &toolkit).await.id.unwrap();
    raw.exec(&format!(
        "UPDATE toolnexus_runs SET updated_at = updated_at - {} WHERE id = '{stale}'",
        40 * DAY_MS
    ))
    .await;
    // `purge` keeps every parked run, however old.
    assert_eq!(store.purge(DEFAULT_RETENTION).await.unwrap().parked, 0);
    assert_eq!(store.pending().await.unwrap().len(), 2);

    let gone = store.purge_unanswered(DEFAULT_RETENTION).await.unwrap();
    assert_eq!(
        (gone.parked, gone.requests, gone.runs),
        (1, 1, 0),
        "{gone:?}"
    );
    assert!(
        matches!(store.result(&stale).await, Err(StoreError::UnknownRun(r)) if r == stale),
        "the stale parked run is gone"
    );
    let waiting = store.pending().await.unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].run_id, fresh);
    // The one left is answered by the request id alone: nothing else waits on it.
    let resumed = asking
        .answer(Answer::accept("approve-p-0"), &toolkit)
        .await
        .unwrap();
    assert_eq!(resumed.id.as_deref(), Some(fresh.as_str()));
    assert!(resumed.is_done());
    assert_eq!(
        store.purge_unanswered(Duration::ZERO).await.unwrap(),
        Default::default()
    );
}

// ---------------------------------------------------------------------------------------

/// The schema before version 3, as its migrations made it (frozen here: released
/// migrations never change).
const SCHEMA_2: &[&str] = &[
    "CREATE TABLE toolnexus_schema (version BIGINT NOT NULL)",
    "INSERT INTO toolnexus_schema (version) VALUES (1)",
    "INSERT INTO toolnexus_schema (version) VALUES (2)",
    "CREATE TABLE toolnexus_runs (id TEXT PRIMARY KEY, format BIGINT NOT NULL, \
     status TEXT NOT NULL, transcript TEXT NOT NULL, turn_at BIGINT NOT NULL, result TEXT, \
     lease_token TEXT, lease_until BIGINT NOT NULL, created_at BIGINT NOT NULL, \
     updated_at BIGINT NOT NULL)",
    "CREATE INDEX toolnexus_runs_leases ON toolnexus_runs (status, lease_until)",
    "CREATE TABLE toolnexus_calls (run_id TEXT NOT NULL, turn_at BIGINT NOT NULL, \
     call_id TEXT NOT NULL, attempts BIGINT NOT NULL, message TEXT, \
     PRIMARY KEY (run_id, turn_at, call_id))",
    "CREATE TABLE toolnexus_requests (id TEXT PRIMARY KEY, run_id TEXT NOT NULL, \
     call_id TEXT NOT NULL, tool TEXT NOT NULL, prompt TEXT NOT NULL, request TEXT NOT NULL, \
     created_at BIGINT NOT NULL, expires_at BIGINT, answer TEXT, answered_at BIGINT)",
    "CREATE INDEX toolnexus_requests_waiting ON toolnexus_requests (created_at, id) \
     WHERE answered_at IS NULL",
    "CREATE INDEX toolnexus_requests_run ON toolnexus_requests (run_id)",
    "CREATE TABLE toolnexus_sessions (session_id TEXT NOT NULL, seq BIGINT NOT NULL, \
     format BIGINT NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session_id, seq))",
    "CREATE TABLE toolnexus_tasks (id TEXT PRIMARY KEY, format BIGINT NOT NULL, \
     tool TEXT NOT NULL, args TEXT NOT NULL, status TEXT NOT NULL, message TEXT, \
     payload TEXT, pending TEXT, rounds BIGINT NOT NULL, cancel BIGINT NOT NULL, owner TEXT, \
     lease_until BIGINT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, \
     ttl_ms BIGINT NOT NULL, expires_at BIGINT NOT NULL)",
    "CREATE INDEX toolnexus_tasks_expiry ON toolnexus_tasks (expires_at)",
];

/// A version-2 database with one parked run waiting on `approve-m-0`, and a session of
/// one message.
async fn schema_2(raw: &Raw) {
    for statement in SCHEMA_2 {
        raw.exec(statement).await;
    }
    let request =
        serde_json::to_string(&Request::approval("May I do step 0?").with_id("approve-m-0"))
            .unwrap()
            .replace('\'', "''");
    let now = now_ms();
    raw.exec(&format!(
        "INSERT INTO toolnexus_runs (id, format, status, transcript, turn_at, result, \
         lease_token, lease_until, created_at, updated_at) VALUES ('run_old', 1, 'parked', \
         '[]', -1, NULL, NULL, 0, {now}, {now})"
    ))
    .await;
    raw.exec(&format!(
        "INSERT INTO toolnexus_requests (id, run_id, call_id, tool, prompt, request, \
         created_at) VALUES ('approve-m-0', 'run_old', 'call_0', 'approve', \
         'May I do step 0?', '{request}', {now})"
    ))
    .await;
    let message = serde_json::to_string(&toolnexus::Message::user("hello")).unwrap();
    raw.exec(&format!(
        "INSERT INTO toolnexus_sessions (session_id, seq, format, message) \
         VALUES ('thread-1', 1, 1, '{message}')"
    ))
    .await;
}

async fn migrated(store: RunStore, raw: Raw) {
    let version = raw.int("SELECT MAX(version) FROM toolnexus_schema").await;
    assert_eq!(version, Some(8));
    // Migration 8: no agent handles.
    assert_eq!(count(&raw, "toolnexus_agent_handles").await, 0);
    // Migration 7: no appended messages.
    assert_eq!(count(&raw, "toolnexus_run_messages").await, 0);
    // Migration 5: the tables of served A2A tasks, empty.
    assert_eq!(count(&raw, "toolnexus_a2a_tasks").await, 0);
    assert_eq!(count(&raw, "toolnexus_a2a_contexts").await, 0);
    // Migration 6: the session rows there count as written now, so retention keeps them.
    let stamped = raw
        .int("SELECT MIN(updated_at) FROM toolnexus_sessions")
        .await
        .unwrap();
    assert!((now_ms() - stamped).abs() < DAY_MS, "stamped at {stamped}");
    assert_eq!(store.purge(DEFAULT_RETENTION).await.unwrap().sessions, 0);
    assert_eq!(count(&raw, "toolnexus_sessions").await, 1);
    let waiting = store.pending().await.unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        (waiting[0].run_id.as_str(), waiting[0].call_id.as_str()),
        ("run_old", "call_0")
    );
    assert_eq!(waiting[0].request.id, "approve-m-0");
    // A new run asks the same request, and parks beside it.
    let toolkit = Toolkit::new().with(approving(seen(), "m", None));
    let client = Client::new(steps("approve", 1)).store(store.clone());
    let run = client.run("do it", &toolkit).await;
    assert!(run.is_pending(), "{:?}", run.status);
    assert_eq!(store.pending().await.unwrap().len(), 2);
    let resumed = client
        .answer(Answer::accept("approve-m-0"), &toolkit)
        .run(run.id.as_deref().unwrap())
        .await
        .unwrap();
    assert!(resumed.is_done());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_sqlite_store_is_migrated_with_its_waiting_requests() {
    let path = raw::sqlite_path("hygiene_migration");
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .connect(&format!("sqlite://{path}?mode=rwc"))
        .await
        .unwrap();
    let raw = Raw::Sqlite(pool);
    schema_2(&raw).await;
    let store = RunStore::sqlite(&path).await.unwrap();
    migrated(store, raw).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_postgres_store_is_migrated_with_its_waiting_requests() {
    let url = tokio::task::spawn_blocking(|| postgres::server().database("hygiene_migration"))
        .await
        .unwrap();
    let raw = Raw::Postgres(sqlx::PgPool::connect(&url).await.unwrap());
    schema_2(&raw).await;
    let store = RunStore::postgres(&url).await.unwrap();
    migrated(store, raw).await;
}

// ---------------------------------------------------------------------------------------

/// A SQLite store's file, and the `-wal` and `-shm` files SQLite keeps beside it, are
/// readable and writable by their owner only, whatever the process's umask allows.
#[cfg(unix)]
#[tokio::test]
async fn a_new_sqlite_file_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = std::env::temp_dir().join(format!("toolnexus-mode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("runs.db");
    let store = RunStore::sqlite(path.to_str().unwrap()).await.unwrap();
    // A write, so that the WAL and the shared-memory index exist.
    let client = Client::new(steps("count", 1)).store(store.clone());
    let toolkit = Toolkit::new().with(counting(seen()));
    assert!(client.run("go", &toolkit).await.is_done());
    for suffix in ["", "-wal", "-shm"] {
        let file = format!("{}{suffix}", path.display());
        let mode = std::fs::metadata(&file)
            .unwrap_or_else(|e| panic!("{file}: {e}"))
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{file} has mode {:o}", mode & 0o777);
    }
    drop((client, store));
    let _ = std::fs::remove_dir_all(dir);
}

/// A connection error names where it connected, never the password: neither the one in
/// the URL's userinfo nor one in its query string.
#[tokio::test]
async fn a_postgres_connection_error_never_shows_the_password() {
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    for url in [
        format!("postgres://alice:userinfo-s3cret@127.0.0.1:{port}/runs"),
        format!("postgres://alice@127.0.0.1:{port}/runs?password=query-s3cret"),
        format!(
            "postgres://127.0.0.1:{port}/runs?user=alice&password=query-s3cret&sslmode=disable"
        ),
        format!("postgres://alice:userinfo-s3cret@127.0.0.1:{port}/runs?password=query-s3cret"),
    ] {
        let error = RunStore::postgres_with_timeout(&url, Duration::from_secs(5))
            .await
            .expect_err("nothing listens there");
        for shown in [error.to_string(), format!("{error:?}")] {
            assert!(!shown.contains("s3cret"), "{url}: {shown}");
            assert!(
                shown.contains(&format!("127.0.0.1:{port}/runs")),
                "{url}: {shown}"
            );
        }
    }
    // A URL that does not parse is not shown either.
    let error = RunStore::postgres("postgres://alice:s3cret@127.0.0.1:notaport/runs")
        .await
        .expect_err("not a URL");
    assert!(!error.to_string().contains("s3cret"), "{error}");
    assert!(!format!("{error:?}").contains("s3cret"), "{error:?}");
}

//! The store's tables, and the versioned migrations that make them on open.

use crate::store::StoreError;
use crate::store::db::{Arg, Pool};

/// The migrations, in order: migration `i` brings the schema to version `i + 1`. A
/// migration is never edited once released; a change is a new entry.
const MIGRATIONS: &[&str] = &[
    // 1: runs, their tool calls, the requests they wait on, sessions.
    "CREATE TABLE toolnexus_runs (
        id TEXT PRIMARY KEY,
        format BIGINT NOT NULL,
        status TEXT NOT NULL,
        transcript TEXT NOT NULL,
        turn_at BIGINT NOT NULL,
        result TEXT,
        lease_token TEXT,
        lease_until BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE INDEX toolnexus_runs_leases ON toolnexus_runs (status, lease_until);
    CREATE TABLE toolnexus_calls (
        run_id TEXT NOT NULL,
        turn_at BIGINT NOT NULL,
        call_id TEXT NOT NULL,
        attempts BIGINT NOT NULL,
        message TEXT,
        PRIMARY KEY (run_id, turn_at, call_id)
    );
    CREATE TABLE toolnexus_requests (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        prompt TEXT NOT NULL,
        request TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        answer TEXT,
        answered_at BIGINT
    );
    CREATE INDEX toolnexus_requests_waiting ON toolnexus_requests (created_at, id)
        WHERE answered_at IS NULL;
    CREATE INDEX toolnexus_requests_run ON toolnexus_requests (run_id);
    CREATE TABLE toolnexus_sessions (
        session_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        format BIGINT NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    )",
    // 2: the tasks of long-running MCP tools (`store/mcp_tasks.rs`).
    crate::store::mcp_tasks::MIGRATION,
    // 3: requests keyed by their run and their id, so that runs that ask the same
    // request (a deterministic approval id) each park on their own; an index for the
    // retention of ended runs (`store/retention.rs`).
    "CREATE TABLE toolnexus_requests_v3 (
        run_id TEXT NOT NULL,
        id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        prompt TEXT NOT NULL,
        request TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        answer TEXT,
        answered_at BIGINT,
        PRIMARY KEY (run_id, id)
    );
    INSERT INTO toolnexus_requests_v3 (run_id, id, call_id, tool, prompt, request,
        created_at, expires_at, answer, answered_at)
        SELECT run_id, id, call_id, tool, prompt, request, created_at, expires_at, answer,
        answered_at FROM toolnexus_requests;
    DROP TABLE toolnexus_requests;
    ALTER TABLE toolnexus_requests_v3 RENAME TO toolnexus_requests;
    CREATE INDEX toolnexus_requests_waiting ON toolnexus_requests (created_at, id, run_id)
        WHERE answered_at IS NULL;
    CREATE INDEX toolnexus_requests_id ON toolnexus_requests (id);
    CREATE INDEX toolnexus_runs_ended ON toolnexus_runs (status, updated_at)",
    // 4: whom a task belongs to, and the sealed request states already spent.
    crate::store::mcp_tasks::MIGRATION_4,
    // 5: the tasks of served A2A agents, and their conversations (`store/a2a_tasks.rs`).
    crate::store::a2a_tasks::MIGRATION,
    // 6: when each session row was written, for retention (`store/sessions.rs`).
    crate::store::sessions::MIGRATION_6,
    // 7: a running run's messages appended one row each, not its transcript rewritten
    // at every checkpoint (`store/appended.rs`).
    crate::store::appended::MIGRATION,
    // 8: the handles of durable agent runtimes (`store/handles.rs`).
    crate::store::handles::MIGRATION,
];

/// Brings the database's schema to the newest version, one transaction per migration (a
/// failed one leaves the version before it); refuses a schema newer than this build's.
/// `store` names the database in errors.
pub(crate) async fn migrate(pool: &Pool, store: &str) -> Result<(), StoreError> {
    let doing = || StoreError::unavailable(format!("migrating the schema of {store}"));
    loop {
        let mut tx = pool.begin().await.map_err(doing())?;
        if tx.dialect().is_postgres() {
            // PostgreSQL: one migrating worker at a time, however many start together.
            tx.exec("SELECT pg_advisory_xact_lock(7261736)", &[])
                .await
                .map_err(doing())?;
        }
        Pool::batch(
            &mut tx,
            "CREATE TABLE IF NOT EXISTS toolnexus_schema (version BIGINT NOT NULL)",
        )
        .await
        .map_err(doing())?;
        let rows = tx
            .fetch("SELECT MAX(version) FROM toolnexus_schema", &[])
            .await
            .map_err(doing())?;
        let found = match rows.first() {
            Some(row) => row.int(0).map_err(doing())?.unwrap_or(0),
            None => 0,
        };
        let known = MIGRATIONS.len() as i64;
        if found > known {
            return Err(StoreError::NewerSchema { found, known });
        }
        if found == known {
            return tx.commit().await.map_err(doing());
        }
        Pool::batch(&mut tx, MIGRATIONS[found as usize])
            .await
            .map_err(doing())?;
        tx.exec(
            "INSERT INTO toolnexus_schema (version) VALUES ($1)",
            &[Arg::Int(found + 1)],
        )
        .await
        .map_err(doing())?;
        tx.commit().await.map_err(doing())?;
    }
}

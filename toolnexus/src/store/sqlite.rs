//! [`RunStore::sqlite`]: runs in one SQLite file (WAL), or in memory.

use std::str::FromStr as _;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::store::StoreError;
use crate::store::db::Pool;
use crate::store::runs::SqlEngine;
use crate::store::{RunStore, schema};

impl RunStore {
    /// The embedded run store: opens (creating if missing) the SQLite file at `path`, in
    /// WAL mode, or a private in-memory store for `":memory:"`, and migrates its schema.
    /// A locked file is waited on for 5 seconds, then reported. The SQLite library is
    /// bundled.
    ///
    /// A file it creates is readable and writable by its owner only (mode `0600` on Unix),
    /// and so are the `-wal` and `-shm` files SQLite keeps beside it (SQLite gives them the
    /// database file's mode): the rows hold transcripts, tool results and answers. A file
    /// that already exists keeps its mode.
    ///
    /// Several processes may share the file: writes are serialized by SQLite, each in one
    /// transaction. Commits are synchronous in WAL's `NORMAL` mode: a process that dies
    /// loses nothing it committed; an operating-system crash or power loss may lose the last
    /// commits (never corrupting the file).
    pub async fn sqlite(path: impl AsRef<str>) -> Result<RunStore, StoreError> {
        RunStore::sqlite_with_busy_timeout(path, Duration::from_secs(5)).await
    }

    /// As [`RunStore::sqlite`], waiting up to `busy_timeout` for a file another
    /// connection has locked before failing with [`StoreError::Unavailable`].
    pub async fn sqlite_with_busy_timeout(
        path: impl AsRef<str>,
        busy_timeout: Duration,
    ) -> Result<RunStore, StoreError> {
        let path = path.as_ref();
        let doing = || StoreError::unavailable(format!("opening SQLite store `{path}`"));
        let memory = path == ":memory:" || path.is_empty();
        if !memory {
            create_private(path).map_err(|e| doing()(sqlx::Error::Io(e)))?;
        }
        let options = if memory {
            SqliteConnectOptions::from_str("sqlite::memory:").map_err(doing())?
        } else {
            SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
        }
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(busy_timeout);
        let pool = if memory {
            // One connection, kept for the store's life: the database is that connection.
            SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
        } else {
            SqlitePoolOptions::new().max_connections(4)
        }
        .acquire_timeout(busy_timeout.max(Duration::from_secs(1)))
        .connect_with(options)
        .await
        .map_err(doing())?;
        let pool = Pool::Sqlite(pool);
        schema::migrate(&pool, &format!("SQLite store `{path}`")).await?;
        Ok(RunStore {
            engine: SqlEngine { pool },
        })
    }
}

/// Creates the database file at `path`, empty (SQLite reads an empty file as an empty
/// database), readable and writable by its owner only, unless it exists.
fn create_private(path: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

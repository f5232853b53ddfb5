//! [`PostgresStore`]: runs in PostgreSQL, shared by many workers on many machines.

use std::str::FromStr as _;
use std::time::Duration;

use sqlx::Connection as _;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};

use crate::store::StoreError;
use crate::store::db::Pool;
use crate::store::runs::Engine;
use crate::store::{RunStore, schema, sealed};

/// The run store for many workers: PostgreSQL, leases taken with
/// `SELECT … FOR UPDATE SKIP LOCKED`, times from the server's clock. Cheap to clone;
/// clones share the connection pool.
#[derive(Clone, Debug)]
pub struct PostgresStore {
    engine: Engine,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`) and migrates the
    /// schema (one worker at a time, however many start together). A server that cannot
    /// be reached, or does not answer within 10 seconds, is reported as
    /// [`StoreError::Unavailable`], with the driver's reason (refused, timed out, …).
    pub async fn connect(url: impl AsRef<str>) -> Result<PostgresStore, StoreError> {
        PostgresStore::connect_with_timeout(url, Duration::from_secs(10)).await
    }

    /// As [`PostgresStore::connect`], waiting at most `timeout` for the server, and for a
    /// free connection of the pool later on.
    pub async fn connect_with_timeout(
        url: impl AsRef<str>,
        timeout: Duration,
    ) -> Result<PostgresStore, StoreError> {
        let url = url.as_ref();
        let shown = url.rsplit('@').next().unwrap_or(url);
        let doing = || StoreError::unavailable(format!("connecting to PostgreSQL at `{shown}`"));
        let options = PgConnectOptions::from_str(url).map_err(doing())?;
        // One connection first, tried once: the pool would retry a refused connection until
        // its timeout and then report only that it timed out, not why.
        let first = tokio::time::timeout(timeout, PgConnection::connect_with(&options))
            .await
            .map_err(|_| {
                doing()(sqlx::Error::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no answer within {timeout:?}"),
                )))
            })?
            .map_err(doing())?;
        let _ = first.close().await;
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(timeout)
            .connect_with(options)
            .await
            .map_err(doing())?;
        let pool = Pool::Postgres(pool);
        schema::migrate(&pool, &format!("PostgreSQL store `{shown}`")).await?;
        Ok(PostgresStore {
            engine: Engine { pool },
        })
    }
}

impl sealed::Sealed for PostgresStore {
    fn engine(&self) -> &Engine {
        &self.engine
    }
}

impl RunStore for PostgresStore {}

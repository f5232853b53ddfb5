//! [`PostgresStore`]: runs in PostgreSQL, shared by many workers on many machines.

use std::time::Duration;

use sqlx::postgres::PgPoolOptions;

use crate::store::db::Pool;
use crate::store::error::StoreError;
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
    /// schema (one worker at a time, however many start together). A server that does not
    /// answer within 10 seconds is reported as [`StoreError::Unavailable`].
    pub async fn connect(url: impl AsRef<str>) -> Result<PostgresStore, StoreError> {
        let url = url.as_ref();
        let shown = url.rsplit('@').next().unwrap_or(url);
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await
            .map_err(StoreError::unavailable(format!(
                "connecting to PostgreSQL at `{shown}`"
            )))?;
        let pool = Pool::Postgres(pool);
        schema::migrate(&pool).await?;
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

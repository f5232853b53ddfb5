//! [`RunStore::postgres`]: runs in PostgreSQL, shared by many workers on many machines.

use std::str::FromStr as _;
use std::time::Duration;

use sqlx::Connection as _;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};

use crate::store::StoreError;
use crate::store::db::Pool;
use crate::store::runs::SqlEngine;
use crate::store::{RunStore, schema};

impl RunStore {
    /// The run store for many workers: PostgreSQL, leases taken with
    /// `SELECT … FOR UPDATE SKIP LOCKED`, times from the server's clock.
    ///
    /// Connects to `url` (`postgres://user:password@host:port/database`) and migrates the
    /// schema (one worker at a time, however many start together). A server that cannot
    /// be reached, or does not answer within 10 seconds, is reported as
    /// [`StoreError::Unavailable`], with the driver's reason (refused, timed out, …).
    pub async fn postgres(url: impl AsRef<str>) -> Result<RunStore, StoreError> {
        RunStore::postgres_with_timeout(url, Duration::from_secs(10)).await
    }

    /// As [`RunStore::postgres`], waiting at most `timeout` for the server, and for a
    /// free connection of the pool later on.
    pub async fn postgres_with_timeout(
        url: impl AsRef<str>,
        timeout: Duration,
    ) -> Result<RunStore, StoreError> {
        let options = PgConnectOptions::from_str(url.as_ref()).map_err(|e| {
            // The driver's reason names no part of the URL; the URL is not shown: its
            // userinfo or its query string (`?password=`) may hold the password.
            StoreError::unavailable("connecting to PostgreSQL (the URL does not parse)")(e)
        })?;
        let shown = shown(&options);
        let doing = || StoreError::unavailable(format!("connecting to PostgreSQL at `{shown}`"));
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
        Ok(RunStore {
            engine: SqlEngine { pool },
        })
    }
}

/// Where `options` connect, for messages: the host (or socket), port and database, never
/// the user's password, wherever the URL carried it.
fn shown(options: &PgConnectOptions) -> String {
    let database = options.get_database().unwrap_or("");
    match options.get_socket() {
        Some(socket) => format!("{}/{database}", socket.display()),
        None => format!("{}:{}/{database}", options.get_host(), options.get_port()),
    }
}

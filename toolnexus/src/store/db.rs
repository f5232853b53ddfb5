//! The one SQL layer both backends share: a pool or a transaction of either database,
//! statements written once (with `$N` parameters, which SQLite reads too), rows read by
//! column index, and the helpers every table's rows are read and written with.

use std::borrow::Cow;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::Row as _;

use crate::store::StoreError;

/// A connection pool of either backend.
#[derive(Clone, Debug)]
pub(crate) enum Pool {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlx::SqlitePool),
    #[cfg(feature = "postgres")]
    Postgres(sqlx::PgPool),
}

/// An open transaction of either backend; dropped without [`Tx::commit`], it rolls back.
pub(crate) enum Tx {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlx::Transaction<'static, sqlx::Sqlite>),
    #[cfg(feature = "postgres")]
    Postgres(sqlx::Transaction<'static, sqlx::Postgres>),
}

/// One bound parameter.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arg<'a> {
    Text(&'a str),
    Int(i64),
    OptInt(Option<i64>),
}

/// One row of either backend.
pub(crate) enum Row {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlx::sqlite::SqliteRow),
    #[cfg(feature = "postgres")]
    Postgres(sqlx::postgres::PgRow),
}

/// Which SQL the statement is turned into.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Dialect {
    #[cfg(feature = "sqlite")]
    Sqlite,
    #[cfg(feature = "postgres")]
    Postgres,
}

impl Dialect {
    /// Whether this is PostgreSQL.
    pub(crate) fn is_postgres(self) -> bool {
        #[cfg(feature = "postgres")]
        return self == Dialect::Postgres;
        #[cfg(not(feature = "postgres"))]
        false
    }
}

/// The statement `sql` in `dialect`: `{now}` becomes the database's clock in milliseconds
/// since the Unix epoch (one clock for every worker), `{lock}` a row lock that skips rows
/// another transaction holds and `{lock_row}` one that waits for it (PostgreSQL; SQLite
/// has one writer at a time instead).
pub(crate) fn dialect(sql: &str, dialect: Dialect) -> Cow<'_, str> {
    if !sql.contains('{') {
        return Cow::Borrowed(sql);
    }
    let (now, lock, lock_row) = match dialect {
        #[cfg(feature = "sqlite")]
        Dialect::Sqlite => (
            "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
            "",
            "",
        ),
        #[cfg(feature = "postgres")]
        Dialect::Postgres => (
            "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
            "FOR UPDATE SKIP LOCKED",
            "FOR UPDATE",
        ),
    };
    Cow::Owned(
        sql.replace("{now}", now)
            .replace("{lock_row}", lock_row)
            .replace("{lock}", lock),
    )
}

macro_rules! bind_all {
    ($query:expr, $args:expr) => {{
        let mut query = $query;
        for arg in $args {
            query = match *arg {
                Arg::Text(v) => query.bind(v),
                Arg::Int(v) => query.bind(v),
                Arg::OptInt(v) => query.bind(v),
            };
        }
        query
    }};
}

/// One arm per compiled backend, with the executor `$ex`, the dialect `$d` and the
/// row wrapper `$row` bound.
macro_rules! each {
    ($on:expr, $ty:ident, |$ex:ident, $d:ident, $row:ident| $body:expr) => {
        match $on {
            #[cfg(feature = "sqlite")]
            $ty::Sqlite($ex) => {
                let $d = Dialect::Sqlite;
                let $row = Row::Sqlite;
                $body
            }
            #[cfg(feature = "postgres")]
            $ty::Postgres($ex) => {
                let $d = Dialect::Postgres;
                let $row = Row::Postgres;
                $body
            }
        }
    };
}

impl Pool {
    /// The pool's dialect.
    pub(crate) fn dialect(&self) -> Dialect {
        each!(self, Pool, |_p, d, _r| d)
    }

    /// Runs one statement; the number of rows it changed.
    pub(crate) async fn exec(&self, sql: &str, args: &[Arg<'_>]) -> Result<u64, sqlx::Error> {
        each!(self, Pool, |p, d, _r| {
            let sql = dialect(sql, d);
            Ok(bind_all!(sqlx::query(&sql), args)
                .execute(p)
                .await?
                .rows_affected())
        })
    }

    /// Runs one query; its rows.
    pub(crate) async fn fetch(&self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<Row>, sqlx::Error> {
        each!(self, Pool, |p, d, wrap| {
            let sql = dialect(sql, d);
            let rows = bind_all!(sqlx::query(&sql), args).fetch_all(p).await?;
            Ok(rows.into_iter().map(wrap).collect())
        })
    }

    /// Opens a transaction that takes the write lock at once (`BEGIN IMMEDIATE` on
    /// SQLite, so that two writers never both read and then fail to write).
    pub(crate) async fn begin(&self) -> Result<Tx, sqlx::Error> {
        Ok(match self {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(p) => Tx::Sqlite(p.begin_with("BEGIN IMMEDIATE").await?),
            #[cfg(feature = "postgres")]
            Pool::Postgres(p) => Tx::Postgres(p.begin().await?),
        })
    }

    /// Runs several statements, separated by `;`, with no parameters (migrations).
    pub(crate) async fn batch(tx: &mut Tx, sql: &str) -> Result<(), sqlx::Error> {
        each!(tx, Tx, |t, d, _r| {
            let sql = dialect(sql, d);
            for statement in sql.split(';').filter(|s| !s.trim().is_empty()) {
                sqlx::query(statement).execute(&mut **t).await?;
            }
            Ok(())
        })
    }
}

impl Tx {
    /// The transaction's dialect.
    pub(crate) fn dialect(&self) -> Dialect {
        each!(self, Tx, |_t, d, _r| d)
    }

    /// Runs one statement in the transaction; the number of rows it changed.
    pub(crate) async fn exec(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<u64, sqlx::Error> {
        each!(self, Tx, |t, d, _r| {
            let sql = dialect(sql, d);
            Ok(bind_all!(sqlx::query(&sql), args)
                .execute(&mut **t)
                .await?
                .rows_affected())
        })
    }

    /// Runs one query in the transaction; its rows.
    pub(crate) async fn fetch(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
    ) -> Result<Vec<Row>, sqlx::Error> {
        each!(self, Tx, |t, d, wrap| {
            let sql = dialect(sql, d);
            let rows = bind_all!(sqlx::query(&sql), args)
                .fetch_all(&mut **t)
                .await?;
            Ok(rows.into_iter().map(wrap).collect())
        })
    }

    /// Makes the transaction's writes durable, all together.
    pub(crate) async fn commit(self) -> Result<(), sqlx::Error> {
        each!(self, Tx, |t, _d, _r| t.commit().await)
    }
}

impl Row {
    /// Column `i` as text (`None` for NULL).
    pub(crate) fn text(&self, i: usize) -> Result<Option<String>, sqlx::Error> {
        each!(self, Row, |r, _d, _w| r.try_get(i))
    }

    /// Column `i` as an integer (`None` for NULL).
    pub(crate) fn int(&self, i: usize) -> Result<Option<i64>, sqlx::Error> {
        each!(self, Row, |r, _d, _w| r.try_get(i))
    }
}

/// The format of the JSON this build writes into rows (the `format` columns). A row with a
/// higher one was written by a newer toolnexus and is refused, not misread.
pub(crate) const FORMAT: i64 = 1;

/// `value` as the JSON text of a row.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    // Messages, results and answers are plain data: serializing them cannot fail.
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

/// The JSON text of `row` read back.
pub(crate) fn from_json<T: DeserializeOwned>(row: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::corrupted(row, e))
}

/// Column `i` of `row` (`what`, in errors) as text that must be there.
pub(crate) fn text(row: &Row, i: usize, what: &str) -> Result<String, StoreError> {
    row.text(i)
        .map_err(|e| StoreError::corrupted(what, e))?
        .ok_or_else(|| StoreError::corrupted(what, format!("column {i} is NULL")))
}

/// Column `i` of `row` (`what`, in errors) as an integer, `None` for NULL.
pub(crate) fn int(row: &Row, i: usize, what: &str) -> Result<Option<i64>, StoreError> {
    row.int(i).map_err(|e| StoreError::corrupted(what, e))
}

/// Refuses `row` (`what`, in errors) when its format column `i` is newer than [`FORMAT`].
pub(crate) fn check_format(row: &Row, i: usize, what: &str) -> Result<(), StoreError> {
    let found = int(row, i, what)?.unwrap_or(0);
    if found > FORMAT {
        return Err(StoreError::NewerFormat {
            row: what.to_owned(),
            found,
            known: FORMAT,
        });
    }
    Ok(())
}

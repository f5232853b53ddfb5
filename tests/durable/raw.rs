//! The second connection of tests/durable_failures.rs: stores on a SQLite file and on a
//! PostgreSQL database, each with a connection of the test's own to damage rows and add
//! failing triggers.

use toolnexus::store::RunStore;

use crate::postgres;

/// A second connection to the store's database, to damage rows and add triggers.
pub(crate) enum Raw {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Raw {
    pub(crate) async fn exec(&self, sql: &str) {
        let done = match self {
            Raw::Sqlite(p) => sqlx::query(sql).execute(p).await.map(|_| ()),
            Raw::Postgres(p) => sqlx::raw_sql(sql).execute(p).await.map(|_| ()),
        };
        done.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    pub(crate) async fn int(&self, sql: &str) -> Option<i64> {
        match self {
            Raw::Sqlite(p) => sqlx::query_scalar(sql).fetch_one(p).await,
            Raw::Postgres(p) => sqlx::query_scalar(sql).fetch_one(p).await,
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    pub(crate) async fn text(&self, sql: &str) -> Option<String> {
        match self {
            Raw::Sqlite(p) => sqlx::query_scalar(sql).fetch_one(p).await,
            Raw::Postgres(p) => sqlx::query_scalar(sql).fetch_one(p).await,
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    pub(crate) fn is_postgres(&self) -> bool {
        matches!(self, Raw::Postgres(_))
    }

    /// A trigger that fails every `UPDATE` of `table` whose new row matches `when` (SQL
    /// on `NEW`), with `message`, as a full disk or a failing server would.
    pub(crate) async fn fail_updates(&self, table: &str, when: &str, message: &str) {
        match self {
            Raw::Sqlite(_) => {
                self.exec(&format!(
                    "CREATE TRIGGER test_failing BEFORE UPDATE ON {table} WHEN {when} \
                     BEGIN SELECT RAISE(ABORT, '{message}'); END"
                ))
                .await
            }
            Raw::Postgres(_) => {
                self.exec(&format!(
                    "CREATE FUNCTION test_failing() RETURNS trigger AS $$ BEGIN \
                     IF {when} THEN RAISE EXCEPTION '{message}'; END IF; RETURN NEW; END \
                     $$ LANGUAGE plpgsql; \
                     CREATE TRIGGER test_failing BEFORE UPDATE ON {table} \
                     FOR EACH ROW EXECUTE FUNCTION test_failing()"
                ))
                .await
            }
        }
    }

    pub(crate) async fn heal(&self, table: &str) {
        match self {
            Raw::Sqlite(_) => self.exec("DROP TRIGGER test_failing").await,
            Raw::Postgres(_) => {
                self.exec(&format!(
                    "DROP TRIGGER test_failing ON {table}; DROP FUNCTION test_failing()"
                ))
                .await
            }
        }
    }
}

pub(crate) fn sqlite_path(name: &str) -> String {
    let path = std::env::temp_dir().join(format!(
        "toolnexus-failures-{}-{name}.db",
        std::process::id()
    ));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path.display().to_string()
}

pub(crate) async fn sqlite(name: &str) -> (RunStore, Raw) {
    let path = sqlite_path(name);
    let store = RunStore::sqlite(&path).await.expect("SQLite store");
    // One connection: the triggers it makes and drops are the ones it sees next.
    let raw = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .connect(&format!("sqlite://{path}"))
        .await
        .expect("a second connection");
    (store, Raw::Sqlite(raw))
}

fn pg_url(name: &str) -> String {
    postgres::server().database(&format!("failures_{name}"))
}

pub(crate) async fn pg(name: &str) -> (RunStore, Raw) {
    let url = tokio::task::spawn_blocking({
        let name = name.to_owned();
        move || pg_url(&name)
    })
    .await
    .unwrap();
    let store = RunStore::postgres(&url).await.expect("PostgreSQL store");
    let raw = sqlx::PgPool::connect(&url)
        .await
        .expect("a second connection");
    (store, Raw::Postgres(raw))
}

/// The file of a SQLite connection.
pub(crate) async fn sqlite_path_of(raw: &Raw) -> String {
    let Raw::Sqlite(pool) = raw else {
        unreachable!()
    };
    let row: (i64, String, String) = sqlx::query_as("PRAGMA database_list")
        .fetch_one(pool)
        .await
        .unwrap();
    row.2
}

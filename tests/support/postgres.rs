//! A real PostgreSQL server for the tests: Debian's server binaries, `initdb` in a temp
//! directory (as the `postgres` user when the tests run as root, since initdb refuses
//! root), 127.0.0.1 on a free port. Started once per test binary; a watcher process stops
//! it (fast shutdown) and removes its directory as soon as the test binary exits, however
//! it exits.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The running server: where to connect.
pub(crate) struct Postgres {
    pub(crate) port: u16,
    bin: PathBuf,
}

static SERVER: OnceLock<Postgres> = OnceLock::new();

/// The server of this test binary, started on first use.
pub(crate) fn server() -> &'static Postgres {
    SERVER.get_or_init(start)
}

impl Postgres {
    /// A new, empty database on the server; its URL.
    pub(crate) fn database(&self, name: &str) -> String {
        // One at a time: CREATE DATABASE copies template1, which must be idle.
        static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = CREATING.lock().unwrap_or_else(|e| e.into_inner());
        let port = self.port.to_string();
        let status = Command::new(self.bin.join("psql"))
            .args(["-h", "127.0.0.1", "-p", &port, "-U", "postgres"])
            .args(["-v", "ON_ERROR_STOP=1", "-q", "-d", "postgres"])
            .args(["-c", &format!("DROP DATABASE IF EXISTS {name}")])
            .args(["-c", &format!("CREATE DATABASE {name}")])
            .env("PGOPTIONS", "-c client_min_messages=warning")
            .stdout(Stdio::null())
            .status()
            .expect("psql runs");
        assert!(status.success(), "creating database {name}");
        self.url(name)
    }

    /// The URL of database `name`.
    pub(crate) fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }
}

/// Where Debian keeps the server binaries (`TOOLNEXUS_PG_BIN` overrides).
fn bin_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("TOOLNEXUS_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)")
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort();
    found
        .pop()
        .expect("an initdb under /usr/lib/postgresql/*/bin")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `program` with `args`, as the `postgres` user when running as root.
fn as_postgres(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

// The watcher outlives the test binary on purpose (it stops the server once the binary
// is gone), so it is never waited on.
#[allow(clippy::zombie_processes)]
fn start() -> Postgres {
    let bin = bin_dir();
    let dir = std::env::temp_dir().join(format!("toolnexus-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    if is_root() {
        let ok = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "chown the data directory to postgres");
    }
    let data = dir.join("data");
    let status = as_postgres(&bin.join("initdb"))
        .args([
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
            "-D",
        ])
        .arg(&data)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("initdb runs");
    assert!(status.success(), "initdb in {}", data.display());
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    // The watcher: postgres in the background, stopped (fast shutdown) once the test
    // binary is gone, then the directory removed.
    let script = format!(
        "{postgres} -D {data} -p {port} -k {dir} -c listen_addresses=127.0.0.1 \
         -c fsync=off -c max_connections=200 > {dir}/log 2>&1 & pg=$!; \
         while [ -d /proc/{parent} ] && [ -d /proc/$pg ]; do sleep 0.2; done; \
         kill -INT $pg 2>/dev/null; wait $pg; rm -rf {dir}",
        postgres = bin.join("postgres").display(),
        data = data.display(),
        dir = dir.display(),
        parent = std::process::id(),
    );
    as_postgres(Path::new("/bin/sh"))
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("postgres starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ready = Command::new(bin.join("pg_isready"))
            .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if ready {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "PostgreSQL did not start on port {port}: {}",
            std::fs::read_to_string(dir.join("log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Postgres { port, bin }
}

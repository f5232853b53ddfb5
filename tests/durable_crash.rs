//! Crash test with real processes: a worker (tests/durable/worker.rs) drives a run of 10
//! tool calls, each appending its idempotency key to a side-effect log, and is killed
//! with SIGKILL at a random point, 50 times over, on SQLite and on PostgreSQL; after each
//! kill another process recovers the run. Every run must end done, exactly once; no
//! settled call may appear twice in the log: the only key allowed twice is the call in
//! flight at the kill (the last one the killed worker logged), and the test counts those.
//! Runs of a session are killed and recovered the same way, fewer times: the session then
//! holds the whole run.

use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[path = "support/example.rs"]
mod example;
#[path = "support/postgres.rs"]
mod postgres;

use example::example;

const KILLS: usize = 50;
/// Kills of session runs: the same machinery, checked more briefly.
const SESSION_KILLS: usize = 12;

/// What the worker drives: a run under a given id, or a run of a session of that id.
#[derive(Clone, Copy)]
enum Mode {
    Run,
    Session,
}

impl Mode {
    fn start(self) -> &'static str {
        match self {
            Mode::Run => "run",
            Mode::Session => "session",
        }
    }

    fn recover(self) -> &'static str {
        match self {
            Mode::Run => "recover",
            Mode::Session => "session-recover",
        }
    }

    /// The start of the idempotency keys of the calls made for `id`.
    fn keys(self, id: &str) -> String {
        match self {
            Mode::Run => format!("{id}:"),
            Mode::Session => format!("session:{id}/"),
        }
    }
}

/// xorshift64*: the kill points, reproducible from the seed the test prints.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

fn crash_many_times(store: &str, label: &str, mode: Mode, kills: usize) {
    let dir = std::env::temp_dir().join(format!("toolnexus-crash-{label}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("effects.log");
    let log = log.to_str().unwrap();
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("{label}: seed {seed}");
    let mut rng = Rng(seed);
    let worker = example("durable_worker");
    for i in 0..kills {
        let run_id = format!("crash-{label}-{i}");
        let mut child = Command::new(&worker)
            .args([store, mode.start(), &run_id, log])
            .stdout(Stdio::piped())
            .spawn()
            .expect("the worker starts");
        // Once it is connected to the store (a PostgreSQL connection takes longer than
        // the run), kill it somewhere in the run.
        let mut ready = String::new();
        let stdout = child.stdout.take().expect("piped");
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut ready);
        std::thread::sleep(Duration::from_millis(rng.below(90)));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        append(log, &format!("KILL {run_id}"));
        let status = Command::new(&worker)
            .args([store, mode.recover(), &run_id, log])
            .stdout(Stdio::null())
            .status()
            .expect("the recovering worker runs");
        match status.code() {
            Some(0) => {}
            Some(3) => append(log, &format!("NEVER-STARTED {run_id}")),
            other => panic!("recovering {run_id} ended with {other:?}"),
        }
    }
    let text = std::fs::read_to_string(log).unwrap();
    let (mut reruns, mut never_started, mut finished_by_worker) = (0, 0, 0);
    for i in 0..kills {
        let run_id = format!("crash-{label}-{i}");
        let prefix = mode.keys(&run_id);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(&prefix) || l.ends_with(&format!(" {run_id}")))
            .collect();
        if lines.contains(&format!("NEVER-STARTED {run_id}").as_str()) {
            never_started += 1;
            assert!(
                lines
                    .iter()
                    .all(|l| l.starts_with("KILL") || l.starts_with("NEVER")),
                "{lines:?}"
            );
            continue;
        }
        let kill = lines
            .iter()
            .position(|l| l.starts_with("KILL"))
            .expect("the kill is logged");
        let finished = lines.iter().filter(|l| l.starts_with("FINISHED")).count();
        assert!(
            finished <= 1,
            "{run_id} finished {finished} times: {lines:?}"
        );
        if lines[..kill].iter().any(|l| l.starts_with("FINISHED")) {
            finished_by_worker += 1;
        }
        let keys: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| l.starts_with(&prefix))
            .collect();
        let before: Vec<&str> = lines[..kill]
            .iter()
            .copied()
            .filter(|l| l.starts_with(&prefix))
            .collect();
        let mut distinct = keys.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 10, "{run_id}: every call ran: {lines:?}");
        for key in &distinct {
            let times = keys.iter().filter(|k| *k == key).count();
            if times == 1 {
                continue;
            }
            // Only the call in flight at the kill may run again, and only once.
            assert_eq!(times, 2, "{run_id}: {key} ran {times} times: {lines:?}");
            assert_eq!(
                before.last(),
                Some(key),
                "{run_id}: settled call {key} ran twice: {lines:?}"
            );
            reruns += 1;
        }
    }
    eprintln!(
        "{label}: {kills} kills; {reruns} calls in flight at the kill ran again; \
         {finished_by_worker} runs had finished before their kill; {never_started} were \
         killed before the run was recorded"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn append(log: &str, line: &str) {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
        .unwrap();
    file.write_all(format!("{line}\n").as_bytes()).unwrap();
}

#[test]
fn sqlite_runs_survive_50_kills() {
    let dir = std::env::temp_dir().join(format!("toolnexus-crash-db-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("runs.db");
    crash_many_times(db.to_str().unwrap(), "sqlite", Mode::Run, KILLS);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn postgres_runs_survive_50_kills() {
    let url = postgres::server().database("durable_crash");
    crash_many_times(&url, "postgres", Mode::Run, KILLS);
}

#[test]
fn sqlite_session_runs_survive_kills() {
    let dir = std::env::temp_dir().join(format!("toolnexus-crash-sdb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("runs.db");
    crash_many_times(
        db.to_str().unwrap(),
        "sqlite-session",
        Mode::Session,
        SESSION_KILLS,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn postgres_session_runs_survive_kills() {
    let url = postgres::server().database("durable_crash_sessions");
    crash_many_times(&url, "postgres-session", Mode::Session, SESSION_KILLS);
}

//! Runs on Restate: a real `restate-server` (the npm package `@restatedev/restate-server`,
//! pinned and installed by .ci/test; `TOOLNEXUS_RESTATE_SERVER` is its binary) on
//! 127.0.0.1 with free ports and its data in a temporary directory, and the `Agent`
//! object of tests/restate/service.rs as a child process, registered with it. Through the
//! ingress:
//!
//! - the service SIGKILLed before, and after, a tool's side effect: the run completes,
//!   each model turn answered before the crash is not asked again and each settled call
//!   ran once (the call in flight at the crash runs again, as with the built-in store);
//! - the restate-server itself restarted while a run waits for approval: the answer,
//!   given by the request's id alone, still resumes it;
//! - two runs of one conversation sent at once: the second runs after the first.
//!
//! Every wait is bounded.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use toolnexus::restate::{Ingress, register};
use toolnexus::{Answer, Message, RunResult};

#[path = "support/example.rs"]
mod example;
#[path = "support/restate_server.rs"]
mod restate_server;
use restate_server::{Server, free_port, fresh_dir};

/// The bound of every wait.
const BOUND: Duration = Duration::from_secs(60);

/// The service, on a fixed port (so Restate finds it again after a restart).
struct Service {
    child: Child,
}

impl Service {
    fn start(port: u16, log: &Path, marks: &Path) -> Service {
        use std::io::BufRead as _;
        let mut child = Command::new(example::example("restate_service"))
            .arg(format!("127.0.0.1:{port}"))
            .env("RESTATE_TEST_LOG", log)
            .env("RESTATE_TEST_MARKS", marks)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the service starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.starts_with("listening on "), "{line:?}");
        Service { child }
    }

    /// Waits (bounded) for the service to die by its own hand.
    fn died(&mut self) -> bool {
        let start = Instant::now();
        while start.elapsed() < BOUND {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Retries `f` until it succeeds, for at most BOUND.
async fn retry<T, E: std::fmt::Display, F: std::future::Future<Output = Result<T, E>>>(
    what: &str,
    mut f: impl FnMut() -> F,
) -> T {
    let start = Instant::now();
    loop {
        match f().await {
            Ok(value) => return value,
            Err(error) if start.elapsed() > BOUND => panic!("{what}: {error}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

fn lines(log: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

async fn attach(ingress: &Ingress, invocation: &str) -> RunResult {
    tokio::time::timeout(BOUND, retry("attach", || ingress.attach(invocation)))
        .await
        .expect("the run ended in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_on_restate_survive_crashes_restarts_and_are_serialized() {
    let work = fresh_dir("work");
    let log = work.path().join("log");
    let marks = work.path().join("marks");
    std::fs::create_dir(&marks).unwrap();
    let mut server = Server::start();
    server.ready().await;
    let port = free_port();
    let uri = format!("http://127.0.0.1:{port}");
    let mut service = Service::start(port, &log, &marks);
    let admin = server.admin();
    retry("registering the service", || register(&admin, &uri)).await;
    let ingress = server.ingress();

    // The service SIGKILLed before, then after, the side effect of the second call.
    for (conversation, mode, runs_of_c1) in [("k-before", "before", 1), ("k-after", "after", 2)] {
        let _ = std::fs::remove_file(&log);
        let invocation = ingress
            .send(conversation, &format!("effects {mode}"), None)
            .await
            .unwrap();
        assert!(service.died(), "the service did not crash ({mode})");
        service = Service::start(port, &log, &marks);
        let run = attach(&ingress, &invocation).await;
        assert!(run.is_done(), "{mode}: {:?}", run.status);
        assert_eq!(run.messages.last().and_then(Message::text), Some("done"));
        // c0 settled before the crash: it ran once. c1 was in flight: it ran once more
        // when its effect had happened before the crash.
        assert_eq!(lines(&log, "effect c0").len(), 1, "{mode}");
        assert_eq!(lines(&log, "effect c1").len(), runs_of_c1, "{mode}");
        // Every model turn was asked once: the answered ones replayed from the journal.
        let asked = lines(&log, "model ");
        assert_eq!(
            asked,
            [0, 1, 2].map(|n| format!("model effects {mode} {n}")),
            "{mode}"
        );
    }

    // The server restarted while a run waits for approval: the answer resumes it.
    let _ = std::fs::remove_file(&log);
    let invocation = ingress.send("k-approve", "approve", None).await.unwrap();
    let pending = retry("the run's request", || async {
        match ingress.pending("k-approve").await {
            Ok(pending) if !pending.is_empty() => Ok(pending),
            Ok(_) => Err("not waiting yet".to_owned()),
            Err(error) => Err(error.to_string()),
        }
    })
    .await;
    assert_eq!(pending[0].id, "deploy-approval");
    server.kill();
    server.spawn();
    server.ready().await;
    // By the request's id alone: the conversation is found through the admin API.
    let accept = Answer::accept("deploy-approval");
    let admin = server.admin();
    let answered = retry("answering after the restart", || {
        ingress.answer_request(&admin, &accept)
    })
    .await;
    assert_eq!(answered, "k-approve");
    let run = attach(&ingress, &invocation).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(lines(&log, "deployed").len(), 1);

    // Two runs of one conversation sent at once run one after the other.
    let _ = std::fs::remove_file(&log);
    let (a, b) = tokio::join!(
        ingress.send("k-serial", "slow a", None),
        ingress.send("k-serial", "slow b", None)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    let (ra, rb) = tokio::join!(attach(&ingress, &a), attach(&ingress, &b));
    assert!(ra.is_done() && rb.is_done());
    let order = [lines(&log, "enter "), lines(&log, "leave ")].concat();
    let log_text = std::fs::read_to_string(&log).unwrap();
    let steps: Vec<&str> = log_text
        .lines()
        .filter(|l| l.starts_with("enter ") || l.starts_with("leave "))
        .collect();
    assert_eq!(order.len(), 4);
    assert_eq!(steps.len(), 4);
    // Each entry is followed by its own exit before the other run enters.
    assert_eq!(steps[0].replace("enter", "leave"), steps[1], "{steps:?}");
    assert_eq!(steps[2].replace("enter", "leave"), steps[3], "{steps:?}");
    assert_ne!(steps[0], steps[2], "{steps:?}");
}

//! A real `restate-server` for the tests (the npm package `@restatedev/restate-server`,
//! pinned and installed by .ci/test; `TOOLNEXUS_RESTATE_SERVER` is its binary) on
//! 127.0.0.1 with free ports and its data in a temporary directory. What it prints goes
//! to `server.log` there, and a server that does not come up says why: its exit status,
//! its last health answers, the free space where it writes and the end of its log.
#![allow(dead_code)]

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;
use toolnexus::restate::Ingress;

/// How long a restarted server has to answer its health checks.
const READY: Duration = Duration::from_secs(60);

/// How long a new server has to answer them (it takes under a second here) before it is
/// started again.
const FIRST_START: Duration = Duration::from_secs(30);

/// How many times in all a new server is started before the test gives up: another
/// process can take a free port before the server binds it.
const STARTS: u32 = 3;

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn free_ports() -> [u16; 4] {
    [free_port(), free_port(), free_port(), free_port()]
}

pub(crate) fn server_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOLNEXUS_RESTATE_SERVER") {
        return path.into();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "target/node-restate/node_modules/@restatedev/restate-server-linux-x64/bin/restate-server",
    )
}

/// A new empty directory, removed when dropped.
pub(crate) fn fresh_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("toolnexus-restate-{name}-"))
        .tempdir()
        .expect("a temporary directory")
}

/// A restate-server on its ports and data directory; SIGKILLed when dropped.
pub(crate) struct Server {
    child: Option<Child>,
    dir: TempDir,
    ports: [u16; 4],
    /// Whether it has answered its health checks once: from then on its ports are known
    /// to the test and stay.
    answered: bool,
}

impl Server {
    pub(crate) fn start() -> Server {
        let mut server = Server {
            child: None,
            dir: fresh_dir("server"),
            ports: free_ports(),
            answered: false,
        };
        server.spawn();
        server
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    pub(crate) fn spawn(&mut self) {
        let [ingress, admin, node, pg] = self.ports;
        let binary = server_binary();
        assert!(binary.exists(), "no restate-server at {}", binary.display());
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.log())
            .expect("the server's log file");
        let child = Command::new(binary)
            .arg("--base-dir")
            .arg(self.dir.path())
            .args(["--no-logo", "--node-name", "test-node"])
            .env("RESTATE_LISTEN_MODE", "tcp")
            .env("RESTATE_DISABLE_TELEMETRY", "true")
            .env("RESTATE_LOG_DISABLE_ANSI_CODES", "true")
            .env("DO_NOT_TRACK", "1")
            .env(
                "RESTATE_INGRESS__BIND_ADDRESS",
                format!("127.0.0.1:{ingress}"),
            )
            .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin}"))
            .env(
                "RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS",
                format!("127.0.0.1:{pg}"),
            )
            .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{node}"))
            .env(
                "RESTATE_ADVERTISED_ADDRESS",
                format!("http://127.0.0.1:{node}"),
            )
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the server's log file"))
            .stderr(log)
            .spawn()
            .expect("restate-server starts");
        self.child = Some(child);
    }

    pub(crate) fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub(crate) fn ingress(&self) -> Ingress {
        Ingress::new(self.ingress_url())
    }

    /// The ingress's URL.
    pub(crate) fn ingress_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.ports[0])
    }

    pub(crate) fn admin(&self) -> String {
        format!("http://127.0.0.1:{}", self.ports[1])
    }

    /// Waits (bounded) until the admin API and the ingress answer their health checks.
    /// A server that has never answered is given [`FIRST_START`] at a time, and is
    /// started again on new ports and a new directory when it exits or does not answer in
    /// time, at most [`STARTS`] times in all; after a restart, on the ports the test
    /// already knows, it is given [`READY`].
    pub(crate) async fn ready(&mut self) {
        if self.answered {
            if let Err(why) = self.wait(READY).await {
                self.fail(&why);
            }
            return;
        }
        for start in 1..=STARTS {
            match self.wait(FIRST_START).await {
                Ok(()) => {
                    self.answered = true;
                    return;
                }
                Err(why) if start < STARTS => {
                    eprintln!(
                        "the restate-server is not up ({why}); starting it again on new \
                         ports and a new directory. The end of its log:\n{}",
                        self.log_tail()
                    );
                    self.kill();
                    self.dir = fresh_dir("server");
                    self.ports = free_ports();
                    self.spawn();
                }
                Err(why) => self.fail(&why),
            }
        }
    }

    /// Waits at most `bound` for the health checks to answer 200; why not, if not.
    async fn wait(&mut self, bound: Duration) -> Result<(), String> {
        let deadline = Instant::now() + bound;
        let mut last = String::from("not asked yet");
        while Instant::now() < deadline {
            if let Some(status) = self.exited() {
                return Err(format!("it exited ({status})"));
            }
            let checks = [
                (self.ports[1], "/health"),
                (self.ports[0], "/restate/health"),
            ];
            let mut answers = Vec::new();
            for (port, path) in checks {
                answers.push(health(port, path).await);
            }
            if answers.iter().all(Result::is_ok) {
                return Ok(());
            }
            last = answers
                .into_iter()
                .filter_map(Result::err)
                .collect::<Vec<_>>()
                .join("; ");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(format!(
            "it did not answer its health checks in {} s (last: {last})",
            bound.as_secs()
        ))
    }

    /// The child's exit status, if it has exited.
    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.as_mut()?.try_wait().ok().flatten()
    }

    /// The last lines of the server's log.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.log()).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    fn fail(&self, why: &str) -> ! {
        let space = Command::new("df")
            .arg("-h")
            .arg(self.dir.path())
            .output()
            .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
            .unwrap_or_default();
        panic!(
            "the restate-server at {} is not up: {why}\nfree space:\n{space}\nthe end of its \
             log:\n{}",
            self.dir.path().display(),
            self.log_tail()
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Whether `GET path` on 127.0.0.1:`port` answers 200 within a second; if not, what
/// happened instead.
async fn health(port: u16, path: &str) -> Result<(), String> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .map_err(|e| format!("connecting: {e}"))?;
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("sending: {e}"))?;
        let mut head = [0u8; 12];
        stream
            .read_exact(&mut head)
            .await
            .map_err(|e| format!("reading: {e}"))?;
        if head.ends_with(b" 200") {
            Ok(())
        } else {
            Err(format!("answered {:?}", String::from_utf8_lossy(&head)))
        }
    };
    match tokio::time::timeout(Duration::from_secs(1), exchange).await {
        Ok(answer) => answer.map_err(|e| format!("{path} on {port}: {e}")),
        Err(_) => Err(format!("{path} on {port}: no answer in 1 s")),
    }
}

//! A real `restate-server` for the tests (the npm package `@restatedev/restate-server`,
//! pinned and installed by .ci/test; `TOOLNEXUS_RESTATE_SERVER` is its binary) on
//! 127.0.0.1 with free ports and its data in a temporary directory.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use toolnexus::restate::Ingress;

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) fn server_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOLNEXUS_RESTATE_SERVER") {
        return path.into();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "target/node-restate/node_modules/@restatedev/restate-server-linux-x64/bin/restate-server",
    )
}

/// A restate-server on its ports and data directory; SIGKILLed when dropped.
pub(crate) struct Server {
    child: Option<Child>,
    dir: PathBuf,
    ports: [u16; 4],
}

impl Server {
    pub(crate) fn start() -> Server {
        let ports = [free_port(), free_port(), free_port(), free_port()];
        let mut server = Server {
            child: None,
            dir: fresh_dir(&format!("server-{}", ports[0])),
            ports,
        };
        server.spawn();
        server
    }

    pub(crate) fn spawn(&mut self) {
        let [ingress, admin, node, pg] = self.ports;
        let binary = server_binary();
        assert!(binary.exists(), "no restate-server at {}", binary.display());
        let child = Command::new(binary)
            .arg("--base-dir")
            .arg(&self.dir)
            .args(["--no-logo", "--node-name", "test-node"])
            .env("RESTATE_LISTEN_MODE", "tcp")
            .env("RESTATE_DISABLE_TELEMETRY", "true")
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
            .stdout(Stdio::null())
            .stderr(Stdio::null())
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
        Ingress::new(format!("http://127.0.0.1:{}", self.ports[0]))
    }

    pub(crate) fn admin(&self) -> String {
        format!("http://127.0.0.1:{}", self.ports[1])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A new empty directory of this test process.
pub(crate) fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolnexus-restate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Server {
    /// The ingress's URL.
    pub(crate) fn ingress_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.ports[0])
    }

    /// Waits (bounded) until the admin API and the ingress answer their health checks.
    pub(crate) async fn ready(&self) {
        let checks = [
            (self.ports[1], "/health"),
            (self.ports[0], "/restate/health"),
        ];
        for _ in 0..600 {
            let mut up = true;
            for (port, path) in checks {
                up &= healthy(port, path).await;
            }
            if up {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("the restate-server did not answer its health checks in 60 s");
    }
}

/// Whether `GET path` on 127.0.0.1:`port` answers 200 within a second.
async fn healthy(port: u16, path: &str) -> bool {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .ok()?;
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).await.ok()?;
        Some(head.ends_with(b" 200"))
    };
    tokio::time::timeout(std::time::Duration::from_secs(1), exchange)
        .await
        .ok()
        .flatten()
        .unwrap_or(false)
}

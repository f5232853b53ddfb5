//! What the A2A tests share: the example agent, the SDKs' child processes, and a plain
#![allow(dead_code)] // each test file uses part of it
//! HTTP/1.1 client for raw JSON-RPC.

use std::io::{BufRead as _, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `a2a` example, built (or found up to date) by cargo with the workspace's features,
/// as the test command builds it; or the binary `TOOLNEXUS_A2A_EXAMPLE` names, built
/// beforehand (as a checkout sharing its target directory with others may need).
pub(crate) fn example() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        if let Some(prebuilt) = std::env::var_os("TOOLNEXUS_A2A_EXAMPLE") {
            return PathBuf::from(prebuilt);
        }
        let output = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "--workspace",
                "--all-features",
                "--example",
                "a2a",
            ])
            .args(["--message-format", "json-render-diagnostics"])
            .current_dir(root())
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(output.status.success(), "building the a2a example failed");
        let uplifted = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|msg| msg["target"]["name"] == "a2a")
            .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the example's executable");
        this_builds(&uplifted)
    })
}

/// The binary cargo just built for this checkout: `examples/a2a` is a link to it, which
/// a build of the same example from another checkout sharing the target directory
/// replaces; `examples/a2a-HASH`, which it links to, stays this checkout's.
fn this_builds(uplifted: &Path) -> PathBuf {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(inode) = std::fs::metadata(uplifted).map(|m| m.ino()) else {
        return uplifted.to_owned();
    };
    let dir = uplifted.parent().expect("a directory");
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.strip_prefix("a2a-")
                .is_some_and(|hash| hash.chars().all(|c| c.is_ascii_hexdigit()))
                && std::fs::metadata(path).is_ok_and(|m| m.ino() == inode)
        })
        .unwrap_or_else(|| uplifted.to_owned())
}

/// The Python of the venv holding the official A2A SDK (`a2a-sdk`, installed by
/// `.ci/test`); these tests do not skip without it.
pub(crate) fn sdk_python() -> String {
    std::env::var("TOOLNEXUS_A2A_PYTHON").unwrap_or_else(|_| {
        panic!(
            "TOOLNEXUS_A2A_PYTHON is not set: this test drives the official A2A Python SDK \
             (pip a2a-sdk) and does not skip. Run it through .ci/test, which installs it"
        )
    })
}

/// `node SCRIPT` with the official A2A JavaScript SDK (`@a2a-js/sdk`, installed by
/// `.ci/test` into `$TOOLNEXUS_A2A_NODE_MODULES`).
pub(crate) fn sdk_node(script: &Path) -> Command {
    let modules = std::env::var("TOOLNEXUS_A2A_NODE_MODULES").unwrap_or_else(|_| {
        panic!(
            "TOOLNEXUS_A2A_NODE_MODULES is not set: this test drives the official A2A \
             JavaScript SDK and does not skip. Run it through .ci/test, which installs it"
        )
    });
    let mut command = Command::new(std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into()));
    command.env("NODE_PATH", modules).arg(script);
    command
}

/// A server started as a child process that prints `listening on URL` first; killed
/// when dropped. Its stdin is piped, so it also stops if the test goes away.
pub(crate) struct Served {
    pub(crate) child: Child,
    pub(crate) url: String,
}

impl Served {
    pub(crate) fn start(mut command: Command) -> Served {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the server's first line");
        let Some(url) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            panic!("the server printed {line:?}, not `listening on URL`");
        };
        Served {
            url: url.trim_end_matches('/').to_owned(),
            child,
        }
    }

    /// The example agent, `a2a serve 127.0.0.1:0` (and `extra` arguments).
    pub(crate) fn example(extra: &[&str]) -> Served {
        let mut command = Command::new(example());
        command.args(["serve", "127.0.0.1:0"]).args(extra);
        Served::start(command)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `command` (bounded to 60 s) and parses the last line of its stdout as JSON.
pub(crate) fn json_of(mut command: Command) -> Value {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the script starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("the script's status").is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the script did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("the script's output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the script failed: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// One HTTP/1.1 request to `url` (`http://HOST:PORT/PATH`), answered whole (the
/// connection closes): the status and the body.
pub(crate) fn http(method: &str, url: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (host, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
    let mut stream = TcpStream::connect(host).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("sends");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("reads");
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    (
        status,
        if chunked {
            unchunk(body)
        } else {
            body.to_owned()
        },
    )
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// A JSON-RPC request to the endpoint at `url`, with `headers`: the response's JSON.
pub(crate) fn rpc(url: &str, headers: &[(&str, &str)], method: &str, params: Value) -> Value {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    let (status, text) = http("POST", url, &all, &body.to_string());
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The `data:` payloads of an event-stream body, as JSON.
pub(crate) fn events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).expect("an event is JSON"))
        .collect()
}

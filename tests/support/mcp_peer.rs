//! The MCP peers the tests start and talk to (the `mcp_server` example, the Python SDK's
//! server, `server-everything`), where to find them, and scripted runs that call them.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolnexus::mcp::McpClient;
use toolnexus::{Answer, Client, Reply, Request, RunResult, ScriptedModel, Toolkit};

/// Hang protection only: no assertion depends on how long anything takes.
pub const PATIENCE: Duration = Duration::from_secs(60);

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `mcp_server` example (a toolnexus `McpServer` over stdio).
pub fn example_server() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| build_example("mcp_server"))
}

/// An MCP example, built by cargo itself so a test never drives a stale build. With the
/// workspace and its features, as the test command builds them: the example `cargo test`
/// built is found up to date, where the examples package's own feature set would compile
/// toolnexus and the MCP stack a second time (about 0.5 GB of disk in a test run).
pub fn build_example(name: &str) -> PathBuf {
    let output = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--workspace", "--all-features"])
        .args([
            "--example",
            name,
            "--message-format",
            "json-render-diagnostics",
        ])
        .current_dir(root())
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building the {name} example failed"
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|msg| msg["target"]["name"] == name)
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the example's executable")
}

/// A Python with the official MCP SDK (`$TOOLNEXUS_PYTHON`; `.ci/test` makes one).
pub fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let probe = Command::new(&python)
            .args(["-c", "import mcp.server.mcpserver"])
            .output();
        match probe {
            Ok(out) if out.status.success() => python,
            outcome => panic!(
                "the official MCP Python SDK is missing: `{python} -c 'import mcp.server.mcpserver'` \
                 failed ({outcome:?}).\nThese tests need it and do not skip: run `bash .ci/test`, or\n  \
                 python3 -m venv target/py-venv && target/py-venv/bin/pip install mcp==2.3.0\n  \
                 export TOOLNEXUS_PYTHON=$PWD/target/py-venv/bin/python"
            ),
        }
    })
}

pub fn python_server() -> PathBuf {
    root().join("tests/mcp_client/python_server.py")
}

/// `@modelcontextprotocol/server-everything`'s entry point (`$TOOLNEXUS_NODE_MODULES`;
/// `.ci/test` installs it).
pub fn everything() -> PathBuf {
    let modules = std::env::var("TOOLNEXUS_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root().join("target/node/node_modules"));
    let entry = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.exists(),
        "@modelcontextprotocol/server-everything is not installed at {}.\nThese tests need it \
         and do not skip: run `bash .ci/test`, or set TOOLNEXUS_NODE_MODULES",
        entry.display()
    );
    entry
}

/// A free port on the loopback interface.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A server process the test owns: killed when dropped.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command` and connects to `url` once it listens (bounded by [`PATIENCE`]).
pub async fn start_http(
    mut command: Command,
    url: &str,
    prefix: Option<&str>,
) -> (Server, McpClient) {
    let server = Server(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts"),
    );
    let started = Instant::now();
    loop {
        let mut builder = McpClient::http(url).connect_timeout(Duration::from_secs(10));
        if let Some(prefix) = prefix {
            builder = builder.prefix(prefix);
        }
        match builder.connect().await {
            Ok(client) => return (server, client),
            Err(error) if started.elapsed() < PATIENCE => {
                let _ = error;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(error) => panic!("no MCP server at {url}: {error}"),
        }
    }
}

/// One model turn calling `name` with `args`, then a final answer: the loop around a
/// single remote call.
pub fn one_call(name: &str, args: Value) -> ScriptedModel {
    ScriptedModel::new([
        Reply::call("call_1", name, args.to_string()),
        Reply::text("done"),
    ])
}

/// Runs the loop over one call of `name`, answering every request with `answer`.
pub async fn run_answering(
    toolkit: &Toolkit,
    name: &str,
    args: Value,
    answer: impl Fn(&Request) -> Answer + Send + Sync + 'static,
) -> RunResult {
    let client = Client::new(one_call(name, args)).wait_for(move |request| {
        let answer = answer(&request);
        async move { answer }
    });
    tokio::time::timeout(PATIENCE, client.run("go", toolkit))
        .await
        .expect("the run ends")
}

pub fn no_args() -> Value {
    json!({})
}

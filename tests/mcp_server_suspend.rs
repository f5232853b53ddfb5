//! Suspensions every MCP client understands, judged by the official SDKs' clients.
//!
//! The server (`tests/suspend/server.rs`, this crate's `McpServer`) has an input tool, an
//! approval tool (`#[tool(approval)]`), an authorization tool and a tool that asks with a
//! schema of its own; each tool body that runs writes a line to a side-effect log.
//! The official Python MCP SDK 2.3 client (`tests/suspend/client.py`) drives it over stdio
//! and streamable HTTP (stateful and stateless), in modes `2026-07-28` (its retry driver
//! fulfils `input_required`) and `legacy` (its session answers `elicitation/create`), and
//! by hand with forged states; the official TypeScript SDK 2.x client
//! (`@modelcontextprotocol/client` 2.4, `tests/suspend/ts_client.cjs`) does the same
//! through its multi-round-trip driver, its `elicitation/create` handler and by hand
//! (`allowInputRequired`). Every server binds 127.0.0.1 and is killed by its test.

#[path = "support/example.rs"]
mod example;
#[path = "support/node.rs"]
mod node;

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use example::example;
use node::node_modules;
use serde_json::{Value, json};

/// Hang protection only: no assertion depends on how long anything takes.
const PATIENCE: Duration = Duration::from_secs(60);

const KEY_A: &str = "replicas-share-this-secret-of-40-bytes!!";
const KEY_B: &str = "another-server-has-another-secret-of-40b";

fn python() -> String {
    std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suspend/client.py")
}

/// A fresh, empty side-effect log for one server.
fn log_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "toolnexus-suspend-{}-{name}.log",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

/// The lines the tools wrote.
fn effects(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// An HTTP server the test owns: killed when dropped.
struct Served {
    child: Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_http(log: &Path, stateless: bool, env: &[(&str, &str)]) -> Served {
    let mut command = Command::new(example("suspend_server"));
    command.args(["--http", "127.0.0.1:0"]);
    if stateless {
        command.arg("--stateless");
    }
    let mut child = command
        .env("SUSPEND_LOG", log)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the suspend server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the server reports its URL");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("not a URL line: {line:?}"))
        .to_owned();
    Served { child, url }
}

/// Runs the Python client with `args`, bounded in time, and reads its JSON report.
async fn drive(args: &[&str], env: &[(&str, &str)]) -> Value {
    let mut command = tokio::process::Command::new(python());
    command.arg(script()).args(args).envs(env.iter().copied());
    report_of(
        command,
        "the Python client (TOOLNEXUS_PYTHON with mcp==2.3.0; `bash .ci/test` installs it)",
    )
    .await
}

/// Runs the TypeScript SDK 2.x client (`tests/suspend/ts_client.cjs`) with `args`,
/// bounded in time, and reads its JSON report.
async fn drive_ts(args: &[&str], env: &[(&str, &str)]) -> Value {
    let mut command = tokio::process::Command::new("node");
    command
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suspend/ts_client.cjs"))
        .args(args)
        .env("NODE_PATH", node_modules("client"))
        .envs(env.iter().copied());
    report_of(
        command,
        "the TypeScript client (node with @modelcontextprotocol/client 2.4.0)",
    )
    .await
}

/// Runs a client, bounded in time, and reads the JSON report it prints.
async fn report_of(mut command: tokio::process::Command, what: &str) -> Value {
    command.stdin(Stdio::null()).kill_on_drop(true);
    let output = tokio::time::timeout(PATIENCE, command.output())
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish"))
        .unwrap_or_else(|e| panic!("{what} could not start: {e}"));
    assert!(
        output.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON report ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// An official SDK's client, driving the suspend server.
#[derive(Clone, Copy)]
enum Judge {
    /// The Python SDK 2.3 (`tests/suspend/client.py`).
    Python,
    /// The TypeScript SDK 2.x (`tests/suspend/ts_client.cjs`).
    TypeScript,
}

impl Judge {
    async fn drive(self, args: &[&str], env: &[(&str, &str)]) -> Value {
        match self {
            Judge::Python => drive(args, env).await,
            Judge::TypeScript => drive_ts(args, env).await,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Judge::Python => "python",
            Judge::TypeScript => "ts",
        }
    }
}

/// What a client's `complete` must see when every suspension reached the user.
fn assert_completed(report: &Value, protocol: &str, log: &Path) {
    assert_eq!(report["protocol"], protocol, "{report:#}");
    let calls = &report["calls"];
    assert_eq!(calls["input"]["text"], "deployed api to prod", "{report:#}");
    assert_eq!(calls["approval"]["text"], "deleted scratch", "{report:#}");
    assert_eq!(calls["authorization"]["text"], "connected", "{report:#}");
    assert_eq!(
        calls["schema"]["text"], r#"{"size":"l","toppings":["olive"]}"#,
        "{report:#}"
    );
    assert_eq!(calls["declined"]["isError"], true, "{report:#}");
    assert!(
        calls["declined"]["text"]
            .as_str()
            .unwrap()
            .contains("not approved"),
        "{report:#}"
    );

    // A schema outside the elicitation subset is never sent: the call fails and says
    // which tool, which property and how to fix it.
    let unsendable = calls["unsendable"]["text"].as_str().unwrap_or_default();
    assert_eq!(calls["unsendable"]["isError"], true, "{report:#}");
    for part in ["ship", "property `address`", "nested object", "top level"] {
        assert!(unsendable.contains(part), "{part}: {unsendable}");
    }

    let asked = report["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 5, "{report:#}");
    // The input form: one string field, so `ctx.answer().text()` reads it.
    assert_eq!(asked[0]["message"], "Which environment for api?");
    assert_eq!(
        asked[0]["requestedSchema"]["properties"]["answer"]["type"],
        "string"
    );
    // The approval: a form with no fields, whose prompt names the tool and its arguments.
    assert_eq!(
        asked[1]["message"],
        r#"Allow `delete_repo` to run with {"name":"scratch"}?"#
    );
    assert_eq!(asked[1]["requestedSchema"]["properties"], json!({}));
    // The login: URL mode, since the SDK declares it.
    assert_eq!(asked[2]["mode"], "url");
    assert_eq!(asked[2]["url"], "https://example.com/login");
    // The tool's own schema (its request's `data`, as the tool wrote it) reaches the
    // client unchanged: defaults, a titled and an untitled enum, a multi-select.
    let written = &asked[3]["_meta"]["toolnexus/pending"]["data"];
    assert_eq!(written["properties"]["size"]["oneOf"][1]["title"], "Large");
    assert_eq!(asked[3]["requestedSchema"], *written, "{report:#}");
    assert_eq!(asked[3]["_meta"]["toolnexus/pending"]["kind"], "input");

    // Each tool ran once, after its answer; the declined one never ran.
    assert_eq!(
        effects(log),
        [
            "deploy api prod",
            "delete scratch",
            "connect",
            r#"pick {"size":"l","toppings":["olive"]}"#
        ]
    );
}

#[tokio::test]
async fn the_python_sdk_completes_every_suspension_over_stdio_in_both_eras() {
    completes_over_stdio(Judge::Python).await;
}

#[tokio::test]
async fn the_typescript_sdk_completes_every_suspension_over_stdio_in_both_eras() {
    completes_over_stdio(Judge::TypeScript).await;
}

async fn completes_over_stdio(judge: Judge) {
    let server = example("suspend_server");
    let server = server.to_str().unwrap();
    for (mode, protocol) in [("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")] {
        let log = log_path(&format!("{}-stdio-{mode}", judge.name()));
        let log_env = log.to_str().unwrap();
        let report = judge
            .drive(
                &["complete", mode, "stdio", server],
                &[("SUSPEND_LOG", log_env)],
            )
            .await;
        assert_completed(&report, protocol, &log);
    }
}

#[tokio::test]
async fn the_python_sdk_completes_every_suspension_over_streamable_http() {
    completes_over_http(Judge::Python).await;
}

#[tokio::test]
async fn the_typescript_sdk_completes_every_suspension_over_streamable_http() {
    completes_over_http(Judge::TypeScript).await;
}

async fn completes_over_http(judge: Judge) {
    for (mode, protocol) in [("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")] {
        let log = log_path(&format!("{}-http-{mode}", judge.name()));
        let served = serve_http(&log, false, &[]);
        let report = judge
            .drive(&["complete", mode, "http", &served.url], &[])
            .await;
        assert_completed(&report, protocol, &log);
    }
}

#[tokio::test]
async fn stateless_http_completes_for_2026_clients_and_falls_back_for_older_ones() {
    stateless(Judge::Python).await;
}

#[tokio::test]
async fn stateless_http_completes_for_typescript_2026_clients_and_falls_back_for_older_ones() {
    stateless(Judge::TypeScript).await;
}

async fn stateless(judge: Judge) {
    let log = log_path(&format!("{}-stateless-2026", judge.name()));
    let served = serve_http(&log, true, &[]);
    let report = judge
        .drive(&["complete", "2026-07-28", "http", &served.url], &[])
        .await;
    assert_completed(&report, "2026-07-28", &log);

    // Without sessions nothing can reach a handshake-era client during a call: it gets the
    // pending result as before (the prompt as text), and no tool ran.
    let log = log_path(&format!("{}-stateless-legacy", judge.name()));
    let served = serve_http(&log, true, &[]);
    let report = judge
        .drive(&["complete", "legacy", "http", &served.url], &[])
        .await;
    let calls = &report["calls"];
    assert_eq!(calls["input"]["text"], "Which environment for api?");
    assert_eq!(calls["input"]["isError"], true);
    assert_eq!(
        calls["authorization"]["text"],
        "Log in to connect your account\nhttps://example.com/login"
    );
    assert_eq!(report["elicitations"], json!([]));
    assert!(effects(&log).is_empty());
}

#[tokio::test]
async fn forged_replayed_expired_and_foreign_states_are_refused_and_the_tool_does_not_run() {
    tamper(Judge::Python).await;
}

#[tokio::test]
async fn the_typescript_sdk_s_forged_replayed_expired_and_foreign_states_are_refused() {
    tamper(Judge::TypeScript).await;
}

async fn tamper(judge: Judge) {
    let name = judge.name();
    let (log_a, log_b, log_c) = (
        log_path(&format!("{name}-a")),
        log_path(&format!("{name}-b")),
        log_path(&format!("{name}-c")),
    );
    // A and C share the store where spent states are recorded.
    let store = log_path(&format!("{name}-spent.db"));
    let store = store.to_str().unwrap();
    let a = serve_http(
        &log_a,
        false,
        &[("SUSPEND_KEY", KEY_A), ("SUSPEND_STORE", store)],
    );
    let b = serve_http(&log_b, true, &[("SUSPEND_KEY", KEY_B)]);
    // A replica of A (same key and store) whose own states expire at once.
    let c = serve_http(
        &log_c,
        true,
        &[
            ("SUSPEND_KEY", KEY_A),
            ("SUSPEND_TTL_MS", "1"),
            ("SUSPEND_STORE", store),
        ],
    );
    let report = judge.drive(&["tamper", &a.url, &b.url, &c.url], &[]).await;

    let asked = &report["request"];
    let state = asked["state"].as_str().unwrap();
    assert!(state.starts_with("tn1."), "{state}");
    // Opaque: neither the tool's name nor its arguments can be read from the state.
    assert!(!state.contains("delete") && !state.contains("prod"));
    assert_eq!(asked["request"]["method"], "elicitation/create");
    assert_eq!(
        asked["request"]["params"]["message"],
        r#"Allow `delete_repo` to run with {"name":"prod-db"}?"#
    );

    // Every refused state gets one fixed error, whatever the reason (the server logs it):
    // altered, re-targeted, foreign-key, expired, and spent on this replica or another.
    let refusal = &report["flipped"]["error"];
    for case in [
        "flipped",
        "other_arguments",
        "other_tool",
        "other_key",
        "expired",
        "replayed",
        "replayed_there",
    ] {
        let error = &report[case]["error"];
        assert_eq!(error["code"], -32602, "{case}: {report:#}");
        assert_eq!(error["data"]["reason"], "invalid_request_state", "{case}");
        assert_eq!(error["data"].get("detail"), None, "{case}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("the tool did not run"),
            "{case}: {error}"
        );
        assert_eq!(error["message"], refusal["message"], "{case}");
    }
    assert_eq!(
        report["no_state"]["error"]["data"]["reason"],
        "missing_request_state"
    );
    assert_eq!(report["declined"]["isError"], true);
    assert!(
        report["declined"]["text"]
            .as_str()
            .unwrap()
            .contains("not approved")
    );
    // Nothing above ran a tool but the replica (same key), once: the approved state was
    // refused when it came back, there and on A.
    assert_eq!(report["replica"]["text"], "deleted prod-db", "{report:#}");
    assert_eq!(report["input"]["text"], "deployed web to eu");
    assert_eq!(effects(&log_a), ["deploy web eu"]);
    assert!(effects(&log_b).is_empty());
    assert_eq!(effects(&log_c), ["delete prod-db"]);
}

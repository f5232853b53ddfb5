//! The `toolnexus` command (the contract's §9 CLI, package `toolnexus-cli`), run as a
//! child process and compared with the contract's Python port (toolnexus 0.21.0):
//!
//! - `toolnexus tools` lists the tools the Python port's toolkit lists for the same MCP
//!   config file and skills folder;
//! - `toolnexus run --once` against a scripted OpenAI-compatible server on 127.0.0.1
//!   prints the answer the Python port's `Client.run` gives against the same script, and
//!   sends the same system prompt (the client's, then the skills catalog);
//! - `toolnexus run` driven in a terminal (tmux) answers two lines and an approval, and
//!   on Ctrl-D exits with its MCP server stopped.
//!
//! The MCP server is the `mcp_server` example over stdio.

#[path = "support/mcp_peer.rs"]
mod mcp_peer;
#[path = "providers/server.rs"]
#[allow(dead_code)]
mod server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use server::{Canned, Server};

/// The interactive prompt (`> `) as a captured screen shows it (trailing blanks trimmed).
const PROMPT: &str = ">";

/// Hang protection only: no assertion depends on how long anything takes.
const PATIENCE: Duration = Duration::from_secs(60);

/// The `toolnexus` binary, built by cargo itself so a test never drives a stale build.
fn toolnexus() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let output = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "-p",
                "toolnexus-cli",
                "--bin",
                "toolnexus",
            ])
            .args(["--message-format", "json-render-diagnostics"])
            .current_dir(mcp_peer::root())
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "building the toolnexus command failed"
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|msg| msg["target"]["name"] == "toolnexus")
            .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the toolnexus executable")
    })
}

/// The contract's Python port.
fn port() -> String {
    let python = std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS").unwrap_or_else(|_| {
        mcp_peer::root()
            .join("target/py-venv-toolnexus/bin/python")
            .display()
            .to_string()
    });
    assert!(
        Path::new(&python).exists(),
        "the toolnexus Python port is not installed at {python}: run `bash .ci/test`, or set \
         TOOLNEXUS_PYTHON_TOOLNEXUS (a venv with toolnexus==0.21.0)"
    );
    python
}

/// Runs `tests/wire_toolkit/toolkit.py VERB ARGS…` (in a thread of its own: the scripted
/// server answers on this runtime meanwhile) and reads its JSON.
async fn python(args: Vec<String>) -> Value {
    let output = tokio::task::spawn_blocking(move || {
        Command::new(port())
            .arg(mcp_peer::root().join("tests/wire_toolkit/toolkit.py"))
            .args(&args)
            .output()
            .expect("the Python port runs")
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "toolkit.py failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("toolkit.py prints JSON")
}

/// Runs `toolnexus ARGS…` to its end (in a thread of its own).
async fn cli(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        Command::new(toolnexus())
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("toolnexus runs")
    })
    .await
    .unwrap()
}

fn skills() -> String {
    mcp_peer::root()
        .join("tests/contract/examples/skills")
        .display()
        .to_string()
}

/// A scratch folder with the config file, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("toolnexus-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// Writes the MCP config: the example server as `calc` (allow list: `add`) and as
    /// `ops` (all but `screenshot`), started through a shell that records its process id
    /// in `calc.pid` / `ops.pid`.
    fn config(&self) -> String {
        let server = mcp_peer::example_server().display().to_string();
        let started = |name: &str| {
            let pid = self.0.join(format!("{name}.pid"));
            json!([
                "/bin/sh",
                "-c",
                format!("echo $$ > {}; exec {server}", pid.display())
            ])
        };
        let config = json!({"mcpServers": {
            "calc": {"command": started("calc"), "tools": {"add": true}},
            "ops": {"command": started("ops"), "tools": {"screenshot": false}},
        }});
        let path = self.0.join("mcp.json");
        std::fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
        path.display().to_string()
    }

    /// The process id a server recorded.
    fn pid(&self, name: &str) -> u32 {
        let path = self.0.join(format!("{name}.pid"));
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .trim()
            .parse()
            .unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether process `pid` is still running (a zombie is not).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// An OpenAI Chat Completions response asking for one tool call.
fn call(id: &str, name: &str, args: Value) -> Canned {
    Canned::json(json!({
        "id": format!("chatcmpl-{id}"), "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": id, "type": "function",
                            "function": {"name": name, "arguments": args.to_string()}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))
}

/// An OpenAI Chat Completions response with a final answer.
fn text(content: &str) -> Canned {
    Canned::json(json!({
        "id": "chatcmpl-text", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_lists_what_the_python_ports_toolkit_lists() {
    let scratch = Scratch::new("tools");
    let config = scratch.config();
    let theirs = python(vec!["tools".into(), config.clone(), skills()]).await;
    let out = cli(vec![
        "tools".into(),
        "--config".into(),
        config,
        "--skills".into(),
        skills(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Vec<(String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let mut fields = line.split('\t');
            let name = fields.next().unwrap().to_owned();
            (name, fields.next().expect("a source").to_owned())
        })
        .collect();
    let theirs: Vec<(String, String)> = theirs["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["source"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(ours, theirs);
    let names: Vec<&str> = ours.iter().map(|(name, _)| name.as_str()).collect();
    assert!(
        names.starts_with(&[
            "calc_add",
            "ops_add",
            "ops_divide",
            "ops_deploy_service",
            "skill",
            "bash"
        ]),
        "{names:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn run_once_prints_the_answer_the_python_ports_client_gives() {
    let scratch = Scratch::new("once");
    let config = scratch.config();
    let script = || {
        [
            call("call_1", "calc_add", json!({"a": 2, "b": 3})),
            text("2 + 3 = 5"),
        ]
    };
    let system = "You add numbers.";
    let prompt = "What is 2 + 3?";

    let theirs_server = Server::start(script()).await;
    let theirs = python(vec![
        "run".into(),
        config.clone(),
        skills(),
        format!("{}/v1", theirs_server.url),
        "scripted".into(),
        system.into(),
        prompt.into(),
    ])
    .await;

    let ours_server = Server::start(script()).await;
    let out = cli(vec![
        "run".into(),
        "--config".into(),
        config,
        "--skills".into(),
        skills(),
        "--base-url".into(),
        format!("{}/v1", ours_server.url),
        "--model".into(),
        "scripted".into(),
        "--api-key".into(),
        "test-key".into(),
        "--system".into(),
        system.into(),
        "--once".into(),
        prompt.into(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(printed.trim_end(), theirs["text"].as_str().unwrap());
    assert_eq!(printed.trim_end(), "2 + 3 = 5");

    // Both asked the model with the same system prompt (the client's, a blank line, the
    // skills catalog) and fed back the same tool result.
    let (ours, theirs) = (ours_server.bodies(), theirs_server.bodies());
    assert_eq!(ours.len(), 2);
    assert_eq!(theirs.len(), 2);
    assert_eq!(ours[0]["messages"][0], theirs[0]["messages"][0]);
    let system_sent = ours[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system_sent.starts_with("You add numbers.\n\nSkills provide"),
        "{system_sent}"
    );
    let tool_result = |bodies: &[Value]| -> Value {
        bodies[1]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool")
            .map(|m| m["content"].clone())
            .unwrap()
    };
    assert_eq!(tool_result(&ours), tool_result(&theirs));
    assert_eq!(tool_result(&ours), "5");
}

/// A tmux server of the test's own, killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(command: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("toolnexus-cli-{}", std::process::id()),
        };
        tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "cli",
            "-x",
            "200",
            "-y",
            "50",
            command,
        ]);
        tmux.run(&["set-option", "-t", "cli", "remain-on-exit", "on"]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs (apt-get install tmux)");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-S", "-200", "-t", "cli"])
    }

    fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "cli"];
        args.extend(keys);
        self.run(&args);
    }

    /// Waits until the screen shows `text` `count` times.
    fn wait_for(&self, text: &str, count: usize) {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= count {
                return;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "the screen never showed {text:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn pane(&self, format: &str) -> String {
        self.run(&["display-message", "-p", "-t", "cli", format])
            .trim()
            .to_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn run_in_a_terminal_answers_lines_and_an_approval_and_stops_its_servers_on_ctrl_d() {
    let scratch = Scratch::new("repl");
    let config = scratch.config();
    let marker = scratch.0.join("approved.txt");
    let server = Server::start([
        text("Hello from the model."),
        call("call_1", "calc_add", json!({"a": 2, "b": 3})),
        text("The sum is 5."),
        call(
            "call_2",
            "bash",
            json!({"command": format!("touch {}", marker.display())}),
        ),
        text("Done, it ran."),
    ])
    .await;
    // The shell says how toolnexus exited, on the screen.
    let command = format!(
        "{} run --config {config} --skills {} --base-url {}/v1 --model scripted --api-key test-key; echo exited=$?",
        toolnexus().display(),
        skills(),
        server.url
    );
    let tmux = tokio::task::spawn_blocking(move || {
        let tmux = Tmux::start(&command);
        tmux.wait_for(PROMPT, 1);
        tmux.send(&["hello", "Enter"]);
        tmux.wait_for("Hello from the model.", 1);
        tmux.send(&["add 2 and 3", "Enter"]);
        tmux.wait_for("The sum is 5.", 1);
        tmux.send(&["run the command", "Enter"]);
        tmux.wait_for("Allow? [y/N]", 1);
        tmux
    })
    .await
    .unwrap();
    // Asked, not yet run.
    assert!(!marker.exists());
    let (servers, tmux) = tokio::task::spawn_blocking({
        let scratch_pids = (scratch.pid("calc"), scratch.pid("ops"));
        move || {
            assert!(running(scratch_pids.0) && running(scratch_pids.1));
            tmux.send(&["y", "Enter"]);
            tmux.wait_for("Done, it ran.", 1);
            tmux.wait_for(PROMPT, 4);
            tmux.send(&["C-d"]);
            let start = Instant::now();
            while tmux.pane("#{pane_dead}") != "1" {
                assert!(
                    start.elapsed() < PATIENCE,
                    "toolnexus did not exit:\n{}",
                    tmux.screen()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            (scratch_pids, tmux)
        }
    })
    .await
    .unwrap();
    let screen = tmux.screen();
    assert!(screen.contains("exited=0"), "{screen}");
    assert!(marker.exists(), "the approved command did not run");
    // Its MCP servers are gone with it.
    let start = Instant::now();
    while running(servers.0) || running(servers.1) {
        assert!(
            start.elapsed() < PATIENCE,
            "an MCP server outlived toolnexus"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(server.bodies().len(), 5);
}

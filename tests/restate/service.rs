//! The `Agent` object of tests/restate.rs: a scripted model and tools that log what they
//! really do (not what the journal replays) to the file `$RESTATE_TEST_LOG`, one line
//! each, and a tool that kills its own process (SIGKILL) once per conversation, before or
//! after its side effect. Prints `listening on URL`, then serves on ADDR (its first
//! argument).

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::restate::RestateAgent;
use toolnexus::{Client, Message, Reply, Request, Tool, ToolCall, ToolResult, Toolkit};

fn log(line: &str) {
    let path = std::env::var("RESTATE_TEST_LOG").expect("RESTATE_TEST_LOG");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the log");
    writeln!(file, "{line}").expect("a log line");
}

/// The prompt of the run, and how many tool results followed it.
fn standing(transcript: &[Message]) -> (String, usize) {
    let at = transcript
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
        .unwrap_or(0);
    let prompt = transcript
        .get(at)
        .and_then(Message::text)
        .unwrap_or("")
        .to_owned();
    let tools = transcript[at..]
        .iter()
        .filter(|m| matches!(m, Message::Tool { pending: None, .. }))
        .count();
    (prompt, tools)
}

/// `effects[ MODE]`: two turns calling `effect` (c0, c1; c1 crashes the process per MODE,
/// `before` or `after` its side effect), then done. `approve`: `deploy`, which asks for
/// approval. `slow NAME`: `slow`, logging its entry and exit.
fn model() -> FnModel {
    FnModel::new_sync(|transcript, _| {
        let (prompt, tools) = standing(transcript);
        log(&format!("model {prompt} {tools}"));
        let mut words = prompt.split_whitespace();
        let reply = match (words.next(), tools) {
            (Some("effects"), n @ (0 | 1)) => {
                let crash = if n == 1 {
                    words.next().unwrap_or("")
                } else {
                    ""
                };
                Reply::calls([ToolCall::new(
                    format!("c{n}"),
                    "effect",
                    json!({"call": format!("c{n}"), "crash": crash}).to_string(),
                )])
            }
            (Some("approve"), 0) => Reply::call("d0", "deploy", "{}"),
            (Some("slow"), 0) => Reply::call(
                "s0",
                "slow",
                json!({"name": words.next().unwrap_or("")}).to_string(),
            ),
            _ => Reply::text("done"),
        };
        Ok(reply)
    })
}

/// Kills this process at once (no unwinding, no goodbye to Restate).
fn sigkill() -> ! {
    let _ = std::process::Command::new("kill")
        .args(["-9", &std::process::id().to_string()])
        .status();
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Whether the crash marked `name` is still to happen (it happens once).
fn crash_once(name: &str) -> bool {
    let marks = PathBuf::from(std::env::var("RESTATE_TEST_MARKS").expect("RESTATE_TEST_MARKS"));
    std::fs::create_dir(marks.join(name)).is_ok()
}

fn toolkit() -> Toolkit {
    let obj = json!({"type": "object"});
    let effect = Tool::new_sync("effect", "Has an effect.", obj.clone(), |args, ctx| {
        let call = args["call"].as_str().unwrap_or("?").to_owned();
        let crash = args["crash"].as_str().unwrap_or("");
        let key = ctx.call_id().unwrap_or("").to_owned();
        if crash == "before" && crash_once(&format!("before-{key}")) {
            sigkill();
        }
        log(&format!("effect {call}"));
        if crash == "after" && crash_once(&format!("after-{key}")) {
            sigkill();
        }
        ToolResult::ok(format!("{call} done"))
    });
    let deploy = Tool::new_sync("deploy", "Deploys.", obj.clone(), |_, ctx| {
        match ctx.answer() {
            Some(answer) if answer.ok => {
                log("deployed");
                ToolResult::ok("deployed")
            }
            Some(_) => ToolResult::ok("declined"),
            None => ToolResult::pending(Request::approval("Deploy?").with_id("deploy-approval")),
        }
    });
    let slow = Tool::new("slow", "Takes a while.", obj, |args, _| async move {
        let name = args["name"].as_str().unwrap_or("?").to_owned();
        log(&format!("enter {name}"));
        // Wide enough for a second run to overlap, were it let in.
        tokio::time::sleep(Duration::from_millis(500)).await;
        log(&format!("leave {name}"));
        ToolResult::ok("slept")
    });
    Toolkit::new().with(effect).with(deploy).with(slow)
}

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());
    let listener = tokio::net::TcpListener::bind(&addr).await.expect("bind");
    println!("listening on http://{}", listener.local_addr().unwrap());
    RestateAgent::new(Client::new(model()), toolkit())
        .serve_on(listener)
        .await;
}

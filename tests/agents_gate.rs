//! The completion gate (the contract's `loop.py`), two ports: the Python port's
//! `run_gated` with `all_todos_done` (toolnexus 0.21.0, run as a child process by
//! `tests/agents_gate/port.py`) and `toolnexus::agents::run_gated`, answered by one
//! scripted OpenAI-compatible server on 127.0.0.1 with the built-in `todowrite` the only
//! tool. A plan left open is sent back with the same words, the fixed plan passes, and a
//! plan never finished stops the run incomplete with the limit `completion`: the same
//! status, limit, text, tool calls and requests on both sides. A runtime agent with a
//! gate (`Agent::completion`) settles `done` once the plan passes, `incomplete` at the
//! limit `completion` otherwise.

#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;
#[path = "support/wire_script.rs"]
mod wire_script;

use std::num::NonZeroU32;

use serde_json::{Value, json};
use toolnexus::agents::{Agent, Completion, Limit, Runtime, TaskStatus, run_gated};
use toolnexus::builtins::Builtins;
use toolnexus::{Reply, ScriptedModel, Toolkit};

use server::{Canned, Server};
use wire_script::{client, completion, python_port};

const PROMPT: &str = "Plan the release and do it.";
const OTHERS: [&str; 9] = [
    "read",
    "write",
    "edit",
    "bash",
    "grep",
    "glob",
    "webfetch",
    "question",
    "apply_patch",
];

/// The model writes its plan: `write` done, `test` done when `finished`.
fn plan(finished: bool) -> Canned {
    let todos = json!({"todos": [{"text": "write", "completed": true},
                                  {"text": "test", "completed": finished}]});
    completion(
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
            "type": "function", "function": {"name": "todowrite",
            "arguments": todos.to_string()}}]}),
        "tool_calls",
        (10, 4),
    )
}

fn says(text: &str) -> Canned {
    completion(
        json!({"role": "assistant", "content": text}),
        "stop",
        (12, 2),
    )
}

/// Two attempts: the plan left open, then finished.
fn fixed() -> Vec<Canned> {
    vec![plan(false), says("Done."), plan(true), says("Done now.")]
}

/// Two attempts, the plan never finished.
fn never() -> Vec<Canned> {
    vec![plan(false), says("Done."), plan(false), says("Done again.")]
}

fn toolkit() -> Toolkit {
    let builtins = Builtins::all().without(OTHERS).tools();
    assert_eq!(builtins.len(), 1, "todowrite alone");
    builtins.into_iter().fold(Toolkit::new(), Toolkit::with)
}

async fn rust_port(base_url: &str, attempts: u32) -> Value {
    let gate = Completion::all_todos_done(NonZeroU32::new(attempts).unwrap());
    let run = run_gated(&client(base_url), PROMPT, &toolkit(), &gate).await;
    json!({
        "status": run.status.as_str(),
        "limit": run.limit(),
        "text": run.text,
        "calls": run.tool_calls.len(),
    })
}

/// The last user message of each request the server got.
fn prompts(server: &Server) -> Vec<String> {
    server
        .bodies()
        .iter()
        .map(|body| {
            let messages = body["messages"].as_array().unwrap();
            let user = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
            user["content"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}

/// Runs the gate on both ports against one server; `None` without the Python port.
async fn both(script: fn() -> Vec<Canned>, attempts: u32) -> Option<(Value, Value, Vec<String>)> {
    let server = Server::start(script()).await;
    let base_url = format!("{}/v1", server.url);
    let ours = rust_port(&base_url, attempts).await;
    assert_eq!(server.remaining(), 0, "this crate asked it all");
    let asked = prompts(&server);
    server.push(script());
    let attempts = attempts.to_string();
    let theirs = python_port("agents_gate/port.py", &[&base_url, &attempts], "").await?;
    assert_eq!(server.remaining(), 0, "the port asked it all");
    let all = prompts(&server);
    assert_eq!(all[..asked.len()], all[asked.len()..], "the same requests");
    Some((ours, theirs, asked))
}

#[tokio::test]
async fn an_open_plan_is_sent_back_and_the_fixed_one_passes() {
    let Some((ours, theirs, asked)) = both(fixed, 3).await else {
        return;
    };
    assert_eq!(ours, theirs);
    assert_eq!(ours["status"], "done");
    assert_eq!(ours["text"], "Done now.");
    assert_eq!(ours["calls"], 2, "the calls of both attempts");
    let retry = "Your work did not verify: 1 item(s) still open: test. Fix it and finish.";
    assert_eq!(asked, [PROMPT, PROMPT, retry, retry]);
}

#[tokio::test]
async fn a_plan_never_finished_stops_the_run_at_the_completion_limit() {
    let Some((ours, theirs, _)) = both(never, 2).await else {
        return;
    };
    assert_eq!(ours, theirs);
    assert_eq!(ours["status"], "incomplete");
    assert_eq!(ours["limit"], "completion");
    assert_eq!(
        ours["text"],
        "completion.verify failed 2x: 1 item(s) still open: test"
    );
}

/// An agent of the runtime with `attempts` to finish its plan, its model writing the plan
/// open, then (when `fixes`) finished.
fn gated_worker(attempts: u32, fixes: bool) -> Agent {
    let plan = |finished: bool| {
        let todos = json!({"todos": [{"text": "test", "completed": finished}]});
        Reply::call("p", "todowrite", todos.to_string())
    };
    Agent::new("worker")
        .does("Plans and works.")
        .uses(toolkit())
        .completion(Completion::all_todos_done(
            NonZeroU32::new(attempts).unwrap(),
        ))
        .model(ScriptedModel::new([
            plan(false),
            Reply::text("Done."),
            plan(fixes),
            Reply::text("Done now."),
        ]))
}

#[tokio::test]
async fn a_runtime_turn_goes_through_its_agents_gate() {
    let rt = Runtime::new(ScriptedModel::new([]), &gated_worker(2, true));
    let r = rt.run("worker", PROMPT).await;
    assert_eq!(r.status, TaskStatus::Done, "{r:?}");
    assert_eq!(r.text, "Done now.");

    let rt = Runtime::new(ScriptedModel::new([]), &gated_worker(2, false));
    let r = rt.run("worker", PROMPT).await;
    assert_eq!(r.status, TaskStatus::Incomplete, "{r:?}");
    assert_eq!(r.limit, Some(Limit::Completion));
    assert_eq!(
        r.text,
        "completion.verify failed 2x: 1 item(s) still open: test"
    );
}

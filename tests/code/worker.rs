//! The code-mode crash test's worker (tests/code_crash.rs): one durable run whose model
//! writes one script of four calls, the third of which needs approval.
//!
//! `code_worker <sqlite-file> run <run-id> <effects>` starts the run, which parks on the
//! approval; the worker prints `parked <request-id>` and waits (to be killed).
//! `code_worker <sqlite-file> answer <run-id> <effects>` approves the request the run
//! waits on, from this process, and prints the script's result; exit 0 when the run
//! ended done. Each tool appends one line to `<effects>` each time it runs.

use std::io::Write as _;
use std::time::Duration;

use serde_json::json;
use toolnexus::code::CodeMode;
use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Answer, Client, Message, Reply, Tool, ToolResult, Toolkit};

/// The script: counts 1 and 2, sends (approval), counts their sum.
const SCRIPT: &str = "const a = await tools.count({n: 1});\n\
const b = await tools.count({n: 2});\n\
const sent = await tools.send({to: 'ana'});\n\
const c = await tools.count({n: a + b});\n\
return {a, b, sent, c};";

fn append(path: &str, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the effects file opens");
    file.write_all(format!("{line}\n").as_bytes())
        .expect("the effects file takes the line");
}

fn toolkit(effects: &str) -> Toolkit {
    let (a, b) = (effects.to_owned(), effects.to_owned());
    let count = Tool::new_sync(
        "count",
        "Counts.",
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        move |args, _| {
            let n = args["n"].as_i64().unwrap_or(-1);
            append(&a, &format!("count {n}"));
            ToolResult::ok(n.to_string())
        },
    );
    let send = Tool::new_sync(
        "send",
        "Sends.",
        json!({"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}),
        move |args, _| {
            let to = args["to"].as_str().unwrap_or_default();
            append(&b, &format!("send {to}"));
            ToolResult::ok(format!("sent to {to}"))
        },
    )
    .with_approval();
    Toolkit::new().with(count).with(send)
}

/// Writes the script once, then answers with what it gave; reads only the transcript,
/// so another process can continue the run.
fn model() -> FnModel {
    FnModel::new_sync(|transcript, _| {
        let result = transcript.iter().find_map(|m| match m {
            Message::Tool { content, .. } => Some(content.clone()),
            _ => None,
        });
        Ok(match result {
            None => Reply::call("call_1", "run_code", json!({"code": SCRIPT}).to_string()),
            Some(content) => Reply::text(format!("done: {content}")),
        })
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, store, mode, run_id, effects] = args.as_slice() else {
        eprintln!("usage: code_worker <sqlite-file> run|answer <run-id> <effects>");
        std::process::exit(64);
    };
    let store = RunStore::sqlite(store).await.expect("SQLite store");
    let code = CodeMode::new(toolkit(effects));
    let client = Client::new(model()).store(store.clone());
    match mode.as_str() {
        "run" => {
            let run = client
                .run_id(run_id)
                .run("count, send, count", &code.toolkit())
                .await;
            let Some(request) = run.pending else {
                eprintln!("the run did not park: {:?}", run.status);
                std::process::exit(2);
            };
            println!("parked {}", request.id);
            std::io::stdout().flush().expect("stdout");
            // Waiting for a human, until killed.
            loop {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
        }
        "answer" => {
            let waiting = store.pending().await.expect("the pending requests list");
            let Some(parked) = waiting.iter().find(|w| w.run_id == *run_id) else {
                eprintln!("run {run_id} waits on nothing: {waiting:?}");
                std::process::exit(3);
            };
            let answer = Answer::accept(&parked.request.id);
            let run = client
                .answer(answer, &code.toolkit())
                .run(run_id)
                .await
                .expect("the answer resumes the run");
            println!("{}", run.text);
            std::process::exit(if run.is_done() { 0 } else { 4 });
        }
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(64);
        }
    }
}

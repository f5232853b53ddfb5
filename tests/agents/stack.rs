//! A stack of three agents run as tools, shared by tests/agents.rs and its resume binary:
//! `lead` calls `note` and the agent `platform`, which calls `lookup` and the agent `ops`,
//! whose `deploy` asks for an approval. Each model is scripted by the transcript it is
//! shown (its calls first, then its tool results as text), so a stack built in another
//! process picks a run up where it stopped. Every tool records its effect once per real run.

#![allow(dead_code)]

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::{Client, Message, Reply, Request, Tool, ToolCall, ToolResult, Toolkit, Usage};

/// The id of the approval `deploy` asks for.
pub const APPROVAL: &str = "approve-deploy";
/// Its prompt.
pub const PROMPT: &str = "Deploy v2 to prod?";

/// The effects of the tools: in memory, and appended to a file when one is given.
#[derive(Clone, Default)]
pub struct Effects {
    file: Option<PathBuf>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Effects {
    pub fn to_file(file: PathBuf) -> Effects {
        Effects {
            file: Some(file),
            seen: Arc::default(),
        }
    }

    pub fn record(&self, effect: &str) {
        self.seen.lock().unwrap().push(effect.to_owned());
        if let Some(file) = &self.file {
            let mut f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(file)
                .unwrap();
            writeln!(f, "{effect}").unwrap();
        }
    }

    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// A model that makes `calls` on the first turn after the user's prompt, then answers
/// `<name>[<the results of its last turn, joined by "; ">]`; every turn costs 10 + 1 tokens.
pub fn staged(name: &'static str, calls: Vec<ToolCall>) -> FnModel {
    FnModel::new_sync(move |transcript: &[Message], _| {
        let usage = Usage::new(10, 1);
        if matches!(transcript.last(), Some(Message::User { .. })) {
            return Ok(Reply::calls(calls.clone()).with_usage(usage));
        }
        let results: Vec<&str> = transcript
            .iter()
            .rev()
            .take_while(|m| matches!(m, Message::Tool { .. }))
            .filter_map(Message::text)
            .collect();
        let results: Vec<&str> = results.into_iter().rev().collect();
        Ok(Reply::text(format!("{name}[{}]", results.join("; "))).with_usage(usage))
    })
}

fn effect(name: &'static str, output: &'static str, effects: &Effects) -> Tool {
    let effects = effects.clone();
    Tool::new_sync(
        name,
        "Records an effect.",
        json!({"type": "object"}),
        move |_, _| {
            effects.record(name);
            ToolResult::ok(output)
        },
    )
}

/// `deploy`: asks for [`APPROVAL`] on its first run, deploys once approved.
pub fn deploy(effects: &Effects) -> Tool {
    let effects = effects.clone();
    Tool::new_sync(
        "deploy",
        "Deploys.",
        json!({"type": "object"}),
        move |_, ctx| match ctx.answer() {
            None => ToolResult::pending(Request::approval(PROMPT).with_id(APPROVAL)),
            Some(_) => {
                effects.record("deploy");
                ToolResult::ok("deployed v2")
            }
        },
    )
}

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(id, name, args.to_string())
}

/// The agent `ops` (depth 3): calls `deploy`.
pub fn ops(effects: &Effects) -> Tool {
    let model = staged("ops", vec![call("d1", "deploy", json!({}))]);
    Client::new(model)
        .system("You operate deployments.")
        .as_tool(
            "ops",
            "Deploys things.",
            Toolkit::new().with(deploy(effects)),
        )
}

/// The agent `platform` (depth 2): calls `lookup` and `ops` in one turn.
pub fn platform(effects: &Effects) -> Tool {
    let model = staged(
        "platform",
        vec![
            call("l1", "lookup", json!({})),
            call("o1", "ops", json!({"prompt": "deploy v2"})),
        ],
    );
    let toolkit = Toolkit::new()
        .with(effect("lookup", "v2", effects))
        .with(ops(effects));
    Client::new(model).as_tool("platform", "Runs the platform.", toolkit)
}

/// The top agent `lead` and its toolkit: calls `note` and `platform` in one turn.
pub fn lead(effects: &Effects) -> (Client, Toolkit) {
    let model = staged(
        "lead",
        vec![
            call("n1", "note", json!({})),
            call("p1", "platform", json!({"prompt": "ship v2"})),
        ],
    );
    let toolkit = Toolkit::new()
        .with(effect("note", "noted", effects))
        .with(platform(effects));
    (Client::new(model), toolkit)
}

/// What `lead` answers once everything ran and `deploy` was approved.
pub const APPROVED: &str = "lead[noted; platform[v2; ops[deployed v2]]]";

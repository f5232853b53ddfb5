//! The durable runtime's crash test worker (tests/agents_durable.rs): a tree of three
//! agents, `lead` → `child` → `grandchild`, on a runtime kept in a run store. The
//! grandchild notes a line, then asks to deploy, which waits for an approval.
//!
//! `agents_durable_worker <store> start <effects>` opens the runtime, wakes `lead`, and
//! once the tree is parked on the approval prints the parked result as one JSON line, then
//! `parked`, and waits to be killed. `… answer <effects>` opens the same runtime in another
//! process, prints what it found (one JSON line: the handles, the lead's tokens, the
//! pending requests), approves the request and prints the tree's result (one JSON line).
//! `… start-running <effects>` runs a tree whose grandchild's second call (`hang`) never
//! returns in that process: once it hangs, it prints `running` and waits to be killed.
//! `… recover <effects>` opens the runtime again, prints what it found, waits for the
//! lead (its turns taken over once their leases run out) and prints its result.
//! Every model turn and every tool effect appends a line to `<effects>`.
//! `<store>` is a `postgres://` URL or a SQLite file.

#[path = "../support/agent_tree.rs"]
mod agent_tree;

use std::io::Write as _;

use serde_json::{Value, json};
use toolnexus::agents::{Agent, Budget, Runtime, TASK_TOOL};
use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Reply, Tool, ToolResult};

/// The runtime's name in the store.
const NAME: &str = "crash-tree";

/// The lease of the turns' runs: short, so that recovery takes them over soon.
const LEASE: std::time::Duration = std::time::Duration::from_millis(300);

/// Set in the process whose `hang` never returns; told when it hangs.
static HANG: std::sync::OnceLock<tokio::sync::Notify> = std::sync::OnceLock::new();

fn append(log: &str, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("the effects file opens");
    file.write_all(format!("{line}\n").as_bytes())
        .expect("the effects file takes the line");
}

/// [`agent_tree::scripted`], its turns appended to the effects file.
fn model(agent: &'static str, calls: Vec<(&'static str, Value)>, log: String) -> FnModel {
    agent_tree::scripted(agent, calls, move |line| append(&log, &line))
}

/// A tool `name` that appends `<name> <idempotency key>` to the effects file.
fn effect(name: &'static str, log: String) -> Tool {
    Tool::new_sync(
        name,
        format!("Does {name}."),
        json!({"type": "object"}),
        move |_, ctx| {
            append(
                &log,
                &format!("{name} {}", ctx.idempotency_key().unwrap_or("-")),
            );
            ToolResult::ok(format!("{name} ok"))
        },
    )
}

/// A tool `hang` that appends `hang <idempotency key>`, then, in the process that set
/// [`HANG`], never returns.
fn hang(log: String) -> Tool {
    Tool::new(
        "hang",
        "Hangs.",
        json!({"type": "object"}),
        move |_, ctx| {
            append(
                &log,
                &format!("hang {}", ctx.idempotency_key().unwrap_or("-")),
            );
            async move {
                if let Some(hanging) = HANG.get() {
                    hanging.notify_one();
                    std::future::pending::<()>().await;
                }
                ToolResult::ok("hang ok")
            }
        },
    )
}

/// The tree; the grandchild's second call is `deploy` (which waits for an approval) or,
/// with `hanging`, `hang`.
fn lead(log: &str, hanging: bool) -> Agent {
    let task = |agent: &str| json!({"agent": agent, "prompt": format!("over to {agent}")});
    let second = if hanging { "hang" } else { "deploy" };
    let grandchild = Agent::new("grandchild")
        .does("Notes, then deploys.")
        .tool(effect("note", log.to_owned()))
        .tool(effect("deploy", log.to_owned()).with_approval())
        .tool(hang(log.to_owned()))
        .model(model(
            "grandchild",
            vec![("note", json!({})), (second, json!({}))],
            log.to_owned(),
        ));
    let child = Agent::new("child")
        .does("Delegates to the grandchild.")
        .team([grandchild])
        .model(model(
            "child",
            vec![(TASK_TOOL, task("grandchild"))],
            log.to_owned(),
        ));
    Agent::new("lead")
        .does("Delegates to the child.")
        .team([child])
        .budget(Budget::new().max_tokens(1000))
        .model(model(
            "lead",
            vec![(TASK_TOOL, task("child"))],
            log.to_owned(),
        ))
}

async fn open(store: &str, log: &str, hanging: bool) -> Runtime {
    let builder = Runtime::builder(FnModel::new_sync(|_, _| Ok(Reply::text("unused"))))
        .agent(&lead(log, hanging))
        .lease(LEASE);
    let opened = if store.starts_with("postgres://") {
        let store = RunStore::postgres(store)
            .await
            .expect("PostgreSQL connects");
        builder.open(store, NAME).await
    } else {
        let store = RunStore::sqlite(store).await.expect("SQLite opens");
        builder.open(store, NAME).await
    };
    opened.expect("the runtime opens on the store")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [store, mode, log] = args.as_slice() else {
        eprintln!(
            "usage: agents_durable_worker <store> start|answer|start-running|recover <effects>"
        );
        std::process::exit(2);
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(async {
        let hanging = matches!(mode.as_str(), "start-running" | "recover");
        if mode == "start-running" {
            let _ = HANG.set(tokio::sync::Notify::new());
        }
        let runtime = open(store, log, hanging).await;
        let lead = match mode.as_str() {
            "start" | "start-running" => runtime
                .spawn(&runtime.root(), "lead", None)
                .expect("lead spawns"),
            _ => runtime.handle("root/lead.1").expect("lead is back"),
        };
        if mode == "start-running" {
            runtime
                .wake(&lead, Some("ship it".into()))
                .expect("lead wakes");
            if let Some(hanging) = HANG.get() {
                hanging.notified().await;
            }
            runtime.flush().await.expect("the handles are stored");
            println!("running");
            std::io::stdout().flush().expect("stdout");
            std::future::pending::<()>().await;
        }
        if mode == "recover" {
            let found = json!({
                "handles": runtime.list(),
                "leadTokens": runtime.inspect(&lead).map(|v| v.tokens).ok(),
            });
            println!("{found}");
            let done = runtime.wait(&lead, None).await;
            let after = json!({
                "result": done,
                "handles": runtime.list(),
                "leadTokens": runtime.inspect(&lead).map(|v| v.tokens).ok(),
            });
            println!("{after}");
            return;
        }
        if mode == "start" {
            runtime
                .wake(&lead, Some("ship it".into()))
                .expect("lead wakes");
            let parked = runtime.wait(&lead, None).await;
            runtime.flush().await.expect("the handles are stored");
            println!("{}", serde_json::to_string(&parked).expect("serializes"));
            println!("parked");
            std::io::stdout().flush().expect("stdout");
            // Wait to be killed.
            std::future::pending::<()>().await;
        }
        let found = json!({
            "handles": runtime.list(),
            "leadTokens": runtime.inspect(&lead).map(|v| v.tokens).ok(),
            "pending": runtime.pending(),
        });
        println!("{found}");
        let [request] = runtime.pending().try_into().expect("one pending request");
        let done = runtime
            .resume(request.answer(true))
            .await
            .expect("the answer is taken");
        let after = json!({
            "result": done,
            "handles": runtime.list(),
            "leadTokens": runtime.inspect(&lead).map(|v| v.tokens).ok(),
        });
        println!("{after}");
    });
}

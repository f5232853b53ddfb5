//! A team of agents on the runtime (`toolnexus::agents`), keyless: every model is scripted.
//!
//! A lead delegates with the `task` tool to a researcher and a writer; the writer's
//! `publish` tool asks for approval, and since no agent interprets it, the whole tree
//! parks `pending` and the host answers. Then a budget runs out in a sibling, and an
//! inbox collects posts that a wake drains as one block.
//!
//! `cargo run --example team`

use serde_json::json;
use toolnexus::agents::{Agent, Budget, InboxItem, Runtime, TaskStatus};
use toolnexus::{Reply, ScriptedModel, Suspend, Tool, ToolResult, Usage};

fn publish() -> Tool {
    Tool::new(
        "publish",
        "Publish the draft (asks a person first).",
        json!({"type": "object"}),
        |_, ctx| async move {
            match ctx.answer() {
                Some(answer) if answer.ok => ToolResult::ok("published"),
                Some(_) => ToolResult::error("not approved"),
                None => Suspend::approval("Publish the draft?").0.into(),
            }
        },
    )
}

fn team() -> Agent {
    let researcher = Agent::new("researcher")
        .does("Finds facts.")
        .soul("You research.")
        .model(ScriptedModel::new([Reply::text(
            "Rust 1.0 shipped in May 2015.",
        )
        .with_usage(Usage::new(40, 10))]));
    let writer = Agent::new("writer")
        .does("Writes and publishes.")
        .soul("You write.")
        .tool(publish())
        .model(ScriptedModel::new([
            Reply::call("p1", "publish", "{}").with_usage(Usage::new(30, 5)),
            Reply::text("Draft published.").with_usage(Usage::new(35, 5)),
        ]));
    Agent::new("lead")
        .does("Leads the team.")
        .soul("You lead a team.")
        .team([researcher, writer])
        .budget(Budget::new().max_tokens(10_000))
        .model(ScriptedModel::new([
            Reply::call(
                "t1",
                "task",
                r#"{"agent":"researcher","prompt":"When did Rust 1.0 ship?"}"#,
            ),
            Reply::call(
                "t2",
                "task",
                r#"{"agent":"writer","prompt":"Write it up and publish."}"#,
            ),
            Reply::text("Researched, written and published."),
        ]))
}

#[tokio::main]
async fn main() {
    // 1. A team run that parks on a grandchild's approval, answered by the host.
    let rt = Runtime::new(ScriptedModel::new([]), &team());
    let parked = rt.run("lead", "Write a note on Rust 1.0.").await;
    let request = parked
        .pending
        .clone()
        .expect("the writer asks for approval");
    println!("status: {} ({})", parked.status, parked.text);
    println!(
        "path: {}",
        request
            .data
            .as_ref()
            .map_or(json!(null), |d| d["path"].clone())
    );
    let done = rt
        .resume(request.answer(true))
        .await
        .expect("the answer finds its handle");
    println!("status: {} ({})", done.status, done.text);
    for view in rt.list() {
        println!("agent {}: {} tokens, {}", view.id, view.tokens, view.state);
    }
    for line in rt.trace() {
        println!("  {line}");
    }

    // 2. A budget that runs out in a sibling: the second worker is never spawned.
    let worker = Agent::new("worker")
        .does("Works.")
        .model(ScriptedModel::new([
            Reply::text("one done").with_usage(Usage::new(100, 0))
        ]));
    let lead = Agent::new("lead")
        .team([worker])
        .budget(Budget::new().max_tokens(100))
        .model(ScriptedModel::new([
            Reply::call("t1", "task", r#"{"agent":"worker","prompt":"one"}"#),
            Reply::call("t2", "task", r#"{"agent":"worker","prompt":"two"}"#),
        ]));
    let rt = Runtime::new(ScriptedModel::new([]), &lead);
    let r = rt.run("lead", "Do two things.").await;
    let limit = r.limit.map(|l| l.to_string()).unwrap_or_default();
    println!(
        "budget: {} (limit {limit}, {} tokens)",
        r.status, r.total_tokens
    );

    // 3. The inbox: posts wait, and one wake drains them as one block.
    let notes = Agent::new("notes").model(ScriptedModel::new([Reply::text("2 notes read")]));
    let rt = Runtime::new(ScriptedModel::new([]), &notes);
    let h = rt.spawn(&rt.root(), "notes", None).expect("spawned");
    rt.post(&h, InboxItem::external("the build is green"))
        .expect("room");
    rt.post(&h, InboxItem::new("root", "peer", "summarize"))
        .expect("room");
    rt.wake(&h, Some("Read your inbox.".into())).expect("woken");
    let r = rt.wait(&h, None).await;
    assert_eq!(r.status, TaskStatus::Done);
    println!("inbox: {}", r.text);
}

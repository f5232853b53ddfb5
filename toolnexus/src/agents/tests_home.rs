use std::fs;

use serde_json::json;

use super::*;
use crate::tool::context::Context;

fn folder(files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolnexus-home-{}", uuid::Uuid::new_v4()));
    fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        fs::write(dir.join(name), text).unwrap();
    }
    dir
}

#[test]
fn the_soul_takes_the_files_in_the_contracts_order() {
    let dir = folder(&[
        ("MEMORY.md", "- likes tea\n"),
        ("AGENTS.md", "  Be brief.  "),
        ("SOUL.md", "Calm."),
    ]);
    let (soul, found) = compose_soul(&dir).unwrap();
    assert_eq!(found, ["AGENTS.md", "SOUL.md", "MEMORY.md"]);
    assert_eq!(
        soul,
        "## AGENTS.md\n\nBe brief.\n\n## SOUL.md\n\nCalm.\n\n## MEMORY.md\n\n- likes tea"
    );
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_file_over_the_cap_is_cut_at_a_whole_character_with_a_notice() {
    // "é" is two bytes: the cap falls inside the last one.
    let mut big = "a".repeat(MAX_BOOTSTRAP_FILE_BYTES - 1);
    big.push('é');
    big.push_str("tail");
    let dir = folder(&[("SOUL.md", &big)]);
    let (soul, _) = compose_soul(&dir).unwrap();
    assert!(soul.ends_with(&format!(
        "{}\n[truncated: exceeds 2 MB bootstrap cap]",
        "a".repeat(10)
    )));
    assert_eq!(
        fs::read_to_string(dir.join("SOUL.md")).unwrap(),
        big,
        "the file is left alone"
    );
    fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn the_memory_tool_writes_to_disk_and_is_loud_on_a_miss() {
    let dir = folder(&[]);
    let toolkit = crate::tool::kit::Toolkit::new().with(memory_tool(&dir));
    let run = |args: serde_json::Value| toolkit.execute(MEMORY_TOOL, args, Context::default());
    let r = run(json!({"action": "add", "text": "likes tea"})).await;
    assert_eq!(
        (r.output.as_str(), r.is_error),
        ("ok (add → MEMORY.md); loads next session", false)
    );
    run(json!({"action": "add", "text": "uses vim"})).await;
    run(json!({"action": "replace", "text": "tea", "with": "coffee"})).await;
    assert_eq!(
        fs::read_to_string(dir.join("MEMORY.md")).unwrap(),
        "- likes coffee\n- uses vim\n"
    );
    let r = run(json!({"action": "remove", "text": "emacs"})).await;
    assert_eq!((r.output.as_str(), r.is_error), ("not found: emacs", true));
    run(json!({"action": "add", "target": "user", "text": "Ada"})).await;
    assert_eq!(fs::read_to_string(dir.join("USER.md")).unwrap(), "- Ada\n");
    let agent = Agent::from_dir(&dir, true).unwrap();
    assert!(agent.def.soul.contains("## USER.md\n\n- Ada"));
    assert!(agent.def.toolkit.get(MEMORY_TOOL).is_some());
    assert!(
        Agent::from_dir(&dir, false)
            .unwrap()
            .def
            .toolkit
            .get(MEMORY_TOOL)
            .is_none()
    );
    fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn an_agent_is_a_tool_whose_suspension_resumes_its_own_runtime() {
    use crate::agent::client::Client;
    use crate::model::{Reply, ScriptedModel};
    use crate::tool::def::Tool;
    use crate::tool::request::Request;
    use crate::tool::result::ToolResult;
    let ask = Tool::new(
        "ask",
        "Asks.",
        json!({"type": "object"}),
        |_, ctx: Context| {
            let answered = ctx.answer().and_then(|a| a.text()).map(str::to_owned);
            async move {
                match answered {
                    Some(text) => ToolResult::ok(format!("told {text}")),
                    None => ToolResult::pending(Request::input("Which city?")),
                }
            }
        },
    );
    let helper = Agent::new("helper")
        .does("Looks things up.")
        .tool(ask)
        .model(ScriptedModel::new([
            Reply::call("h1", "ask", "{}"),
            Reply::text("Lisbon it is."),
        ]));
    let tool = helper.into_tool(ScriptedModel::new([]));
    assert_eq!(
        (tool.name(), tool.description()),
        ("helper", "Looks things up.")
    );
    let outer = Client::new(ScriptedModel::new([
        Reply::call("o1", "helper", r#"{"prompt":"find the city"}"#),
        Reply::text("Done."),
    ]));
    let toolkit = crate::tool::kit::Toolkit::new().with(tool);
    let halted = outer.run("go", &toolkit).await;
    let request = halted
        .pending
        .clone()
        .expect("the inner agent's question surfaces");
    assert_eq!(request.prompt, "Which city?");
    let run = outer
        .resume(halted, request.answer("Lisbon"), &toolkit)
        .await
        .unwrap();
    assert_eq!(run.tool_calls[0].result.output, "Lisbon it is.");
    assert_eq!(
        run.tool_calls[0].result.metadata.as_ref().unwrap()["agent"],
        "helper"
    );
    assert_eq!(run.text, "Done.");
}

#[tokio::test]
async fn close_goes_leaf_first_and_keeps_the_last_results() {
    use std::sync::Arc;
    use std::time::Duration;

    use crate::model::{FnModel, Reply, ScriptedModel};
    use tokio::sync::Semaphore;
    let gate = Arc::new(Semaphore::new(0));
    let held = Arc::clone(&gate);
    let slow = Agent::new("slow").model(FnModel::new(move |_, _| {
        let held = Arc::clone(&held);
        async move {
            held.acquire().await.unwrap().forget();
            Ok(Reply::text("late"))
        }
    }));
    let lead = Agent::new("lead")
        .team([slow])
        .model(ScriptedModel::new([Reply::text("led")]));
    let clock = ManualClock::new();
    let rt = Runtime::builder(ScriptedModel::new([]))
        .agent(&lead)
        .clock(clock.clone())
        .build();
    let l = rt.spawn(&rt.root(), "lead", None).unwrap();
    rt.wake(&l, None).unwrap();
    assert_eq!(rt.wait(&l, None).await.text, "led");
    let child = rt.spawn(&l, "slow", None).unwrap();
    rt.wake(&child, None).unwrap();
    let closing = tokio::spawn({
        let rt = rt.clone();
        async move { rt.close(&rt.root(), false).await }
    });
    // The running child gets the shutdown grace on the runtime's clock, then is aborted.
    for _ in 0..5000 {
        if clock.sleepers() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    clock.advance(DEFAULT_SHUTDOWN);
    closing.await.unwrap();
    let states: Vec<HandleState> = rt.list().into_iter().map(|v| v.state).collect();
    assert_eq!(states, [HandleState::Closed, HandleState::Closed]);
    assert_eq!(rt.wait(&child, None).await.status, TaskStatus::Closed);
    assert_eq!(
        rt.wait(&l, None).await.text,
        "led",
        "close keeps the last result"
    );
    assert!(rt.spawn(&l, "slow", None).is_err());
    let trace = rt.trace();
    let first = |needle: &str| trace.iter().position(|t| t.contains(needle)).unwrap();
    assert!(first("slow.1: running→idle (closed") < first("lead.1: idle→closed"));
}

#[tokio::test]
async fn on_spawn_and_on_close_see_each_handle_once_leaf_first_with_the_reason() {
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let (on_spawn, on_close) = (Arc::clone(&seen), Arc::clone(&seen));
    let worker = Agent::new("worker")
        .on_spawn(move |h| {
            on_spawn.lock().unwrap().push(format!("spawn {h}"));
            async {}
        })
        .on_close(move |h, reason| {
            on_close.lock().unwrap().push(format!("close {h} {reason}"));
            async {}
        });
    let rt = Runtime::new(crate::model::ScriptedModel::new([]), &worker);
    let a = rt.spawn(&rt.root(), "worker", None).unwrap();
    let b = rt.spawn(&a, "worker", None).unwrap();
    rt.close(&a, false).await;
    rt.close(&b, false).await;
    let c = rt.spawn(&rt.root(), "worker", None).unwrap();
    rt.close(&c, true).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "spawn root/worker.1",
            "spawn root/worker.1/worker.1",
            "close root/worker.1/worker.1 closed",
            "close root/worker.1 closed",
            "spawn root/worker.2",
            "close root/worker.2 interrupted",
        ]
    );
    assert_eq!(rt.inspect(&b).unwrap().state, HandleState::Closed);
}

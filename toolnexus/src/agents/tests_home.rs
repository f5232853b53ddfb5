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
    let toolkit = crate::tool::toolkit::Toolkit::new().with(memory_tool(&dir));
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
    use crate::agent::model::{Reply, ScriptedModel};
    use crate::tool::request::Request;
    use crate::tool::result::ToolResult;
    use crate::tool::tool::Tool;
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
    let toolkit = crate::tool::toolkit::Toolkit::new().with(tool);
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
    assert_eq!(run.calls[0].result.output, "Lisbon it is.");
    assert_eq!(
        run.calls[0].result.metadata.as_ref().unwrap()["agent"],
        "helper"
    );
    assert_eq!(run.text, "Done.");
}

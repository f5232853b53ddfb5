//! The examples are run by the test suite, so what the README tells a newcomer to run
//! keeps working. `cargo test` builds every example before it runs the tests.

use std::process::Command;

#[path = "support/example.rs"]
mod example;
use example::example;

fn run(name: &str) -> String {
    let output = Command::new(example(name)).output().expect("example runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{name} failed: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn quickstart_prints_schemas_and_the_results() {
    let out = run("quickstart");
    for heading in [
        "== OpenAI tools ==",
        "== Anthropic tools ==",
        "== Gemini tools ==",
    ] {
        assert!(out.contains(heading), "missing {heading}:\n{out}");
    }
    assert!(out.contains(r#""functionDeclarations""#), "{out}");
    assert!(
        out.contains(r#"success:        {"output":"5","isError":false}"#),
        "{out}"
    );
    assert!(
        out.contains(r#"failure:        {"output":"cannot divide by zero","isError":true}"#),
        "{out}"
    );
    assert!(
        out.contains(r#"bad arguments:  {"output":"invalid arguments for add: a: invalid type: string \"two\", expected i64","isError":true}"#),
        "{out}"
    );
    assert!(out.contains(r#"suspended:      {"output":"Which environment?","isError":true,"metadata":{"pending":{"#), "{out}");
    assert!(
        out.contains(r#"resumed:        {"output":"deployed to staging","isError":false}"#),
        "{out}"
    );
    assert!(
        out.contains("image:          image (image/png, 82 bytes) + 1 part(s)"),
        "{out}"
    );
}

#[test]
fn sub_agents_answers_the_nested_approval_at_the_top_and_posts_once() {
    let out = run("sub_agents");
    for line in [
        "[research] runs search",
        "[publish] runs post",
        "approval asked: Publish the post? (publish)",
        "research -> Rust async is mature: 3 good articles.",
        "publish -> Published.",
        "answer: Researched and published.",
        "posts: 1",
    ] {
        assert!(out.contains(line), "missing {line}:\n{out}");
    }
}

#[test]
fn team_parks_on_the_writers_approval_stops_on_the_budget_and_drains_the_inbox() {
    let out = run("team");
    for line in [
        "status: pending (Publish the draft?)",
        r#"path: ["root","lead.1"]"#,
        "status: done (Researched, written and published.)",
        "agent root/lead.1/researcher.1: 50 tokens, closed",
        "agent root/lead.1/writer.2: 75 tokens, closed",
        "root/lead.1: task replay → REATTACH to root/lead.1/writer.2",
        "budget: incomplete (limit maxTokens, 100 tokens)",
        "inbox: 2 notes read",
    ] {
        assert!(out.contains(line), "missing {line}:\n{out}");
    }
}

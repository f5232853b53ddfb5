//! A2A both ways, judged by the official SDKs (pinned in `.ci/test`):
//!
//! - the A2A Python SDK's client (`a2a-sdk` 1.3) and the JavaScript SDK's client
//!   (`@a2a-js/sdk` 1.3), both speaking A2A 1.0, call `A2aServer` (the `a2a` example: a
//!   deploy tool that asks for approval): the task goes `input-required`, the second
//!   message on the same task answers it, and it completes; bad calls get A2A's errors;
//! - each SDK's own server (an echo agent, and one whose executor asks for input; the
//!   JavaScript one on its Express adapter, `express` 5.2) is called through `A2aAgent`
//!   inside a `Client` run that parks on the question, is serialized, and is resumed with
//!   the answer.

#[path = "support/a2a.rs"]
mod a2a;

use std::process::Command;

use a2a::{Served, json_of, sdk_node, sdk_python};
use serde_json::{Value, json};
use toolnexus::a2a::A2aAgent;
use toolnexus::{Client, Reply, RunResult, ScriptedModel, Toolkit};

fn py_client(url: &str, answer: &str, polling: bool) -> Value {
    let mut command = Command::new(sdk_python());
    command
        .arg(a2a::root().join("tests/a2a/py_client.py"))
        .args([url, "the web app", answer]);
    if polling {
        command.arg("--polling");
    }
    json_of(command)
}

fn js_client(url: &str, answer: &str, polling: bool) -> Value {
    let mut command = sdk_node(&a2a::root().join("tests/a2a/js_client.cjs"));
    command.args([url, "the web app", answer]);
    if polling {
        command.arg("--polling");
    }
    json_of(command)
}

/// What both SDKs must see of an approved deploy.
fn assert_approved(out: &Value, sdk: &str) {
    assert_eq!(
        out["asked_state"], "TASK_STATE_INPUT_REQUIRED",
        "{sdk}: {out}"
    );
    assert_eq!(out["asked"], "Deploy this service?", "{sdk}: {out}");
    assert_eq!(out["same_task"], true, "{sdk}: {out}");
    assert_eq!(out["final_state"], "TASK_STATE_COMPLETED", "{sdk}: {out}");
    assert_eq!(out["fetched_state"], "TASK_STATE_COMPLETED", "{sdk}: {out}");
    assert_eq!(out["answer"], "Done: deployed the web app.", "{sdk}: {out}");
}

#[test]
fn python_sdk_client_answers_the_approval_on_the_same_task() {
    let served = Served::example(&[]);
    let streamed = py_client(&served.url, "yes", false);
    assert_approved(&streamed, "python, streaming");
    // A stream of the task, then its status updates; the answer as an artifact.
    assert_eq!(
        streamed["first_events"],
        json!(["task", "status_update", "status_update"])
    );
    assert_eq!(
        streamed["second_events"],
        json!(["task", "status_update", "artifact_update", "status_update"])
    );
    assert_eq!(
        streamed["history_roles"],
        json!(["ROLE_USER", "ROLE_AGENT", "ROLE_USER"])
    );
    assert_eq!(
        streamed["listed"].as_array().map(Vec::len),
        Some(1),
        "{streamed}"
    );
    // Bad calls: A2A's errors, which the SDK raises typed.
    assert_eq!(streamed["unknown_task"], "TaskNotFoundError");
    assert_eq!(streamed["cancel_completed"], "TaskNotCancelableError");
    assert_eq!(
        streamed["message_to_completed"],
        "UnsupportedOperationError"
    );

    let declined = py_client(&served.url, "no", true);
    assert_eq!(declined["first_events"], json!(["task"]), "{declined}");
    assert_eq!(declined["asked_state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(declined["final_state"], "TASK_STATE_COMPLETED");
    assert!(
        declined["answer"]
            .as_str()
            .unwrap()
            .starts_with("Not deployed:"),
        "a `no` declines the approval: {declined}"
    );
}

#[test]
fn javascript_sdk_client_answers_the_approval_on_the_same_task() {
    let served = Served::example(&[]);
    let streamed = js_client(&served.url, "yes", false);
    assert_approved(&streamed, "javascript, streaming");
    assert_eq!(
        streamed["second_events"],
        json!(["task", "statusUpdate", "artifactUpdate", "statusUpdate"])
    );
    assert_eq!(streamed["unknown_task"], "JsonRpcTaskNotFoundError");
    assert_eq!(
        streamed["cancel_completed"],
        "JsonRpcTaskNotCancelableError"
    );
    assert_eq!(
        streamed["message_to_completed"],
        "JsonRpcUnsupportedOperationError"
    );
    let polled = js_client(&served.url, "yes", true);
    assert_approved(&polled, "javascript, polling");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2a_agent_calls_the_python_sdk_server_in_a_run_that_parks_and_resumes() {
    let mut command = Command::new(sdk_python());
    command.arg(a2a::root().join("tests/a2a/py_server.py"));
    parks_and_resumes(Served::start(command)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2a_agent_calls_the_javascript_sdk_server_in_a_run_that_parks_and_resumes() {
    let command = sdk_node(&a2a::root().join("tests/a2a/js_server.cjs"));
    parks_and_resumes(Served::start(command)).await;
}

/// An SDK's server with its two agents (`Echo Agent`, no streaming, and `Asker`, which
/// asks `Which environment?`), called through `A2aAgent` inside a `Client` run: the run
/// parks on the question, is serialized, and is resumed with the answer, which goes on
/// the same remote task.
async fn parks_and_resumes(server: Served) {
    let echo = A2aAgent::builder(format!("{}/echo/.well-known/agent-card.json", server.url))
        .poll_every(std::time::Duration::from_millis(20))
        .connect()
        .await
        .expect("the echo agent's card");
    let asker = A2aAgent::connect(format!("{}/asker/.well-known/agent-card.json", server.url))
        .await
        .expect("the asker's card");
    assert_eq!(echo.protocol_version(), "1.0");
    assert!(!echo.is_streaming() && asker.is_streaming());
    let mut toolkit = Toolkit::new();
    toolkit.extend(echo.tools());
    toolkit.extend(asker.tools());
    let names: Vec<&str> = toolkit.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["Echo_Agent_echo", "Asker_deploy"]);
    assert!(toolkit.tools().iter().all(|t| t.source() == "a2a"));

    let model = ScriptedModel::new([
        Reply::call("c1", "Echo_Agent_echo", r#"{"task": "hello"}"#).with_call(
            toolnexus::ToolCall::new("c2", "Asker_deploy", r#"{"task": "deploy the app"}"#),
        ),
        Reply::text("all done"),
    ]);
    let client = Client::new(model);
    let halted = client.run("Echo, then deploy.", &toolkit).await;
    assert!(halted.is_pending(), "{halted:?}");
    let request = halted.pending.clone().expect("the run waits on a request");
    assert_eq!(
        (request.kind.as_str(), request.prompt.as_str()),
        ("input", "Which environment?")
    );
    let echo_result = &halted.tool_calls[0].result;
    assert_eq!(echo_result.output, "echo: hello");
    let meta = echo_result.metadata.as_ref().unwrap();
    assert_eq!(
        (meta["agent"].as_str(), meta["state"].as_str()),
        (Some("Echo Agent"), Some("completed"))
    );
    // Without streaming, the task is followed by polling, counted (how many polls it
    // takes depends on how fast the server is, so no bound is asserted).
    assert!(meta["polls"].as_u64().is_some(), "{meta:?}");

    // The halted run survives serialization, as it would across processes.
    let saved = serde_json::to_string(&halted).unwrap();
    let halted: RunResult = serde_json::from_str(&saved).unwrap();
    let answer = request.answer("staging");
    let done = client
        .resume(halted, answer, &toolkit)
        .await
        .expect("resumes");
    assert!(done.is_done(), "{done:?}");
    assert_eq!(done.text, "all done");
    let deploy = done
        .tool_calls
        .iter()
        .find(|c| c.call.name == "Asker_deploy")
        .unwrap();
    assert_eq!(deploy.result.output, "deploying to staging");
    let meta = deploy.result.metadata.as_ref().unwrap();
    assert_eq!(meta["state"], "completed");
    let cont = request.data.as_ref().unwrap()["a2a"].clone();
    assert_eq!(
        meta["taskId"], cont["taskId"],
        "the answer went on the same task"
    );
}

#[test]
fn the_example_serves_its_agent_and_calls_it() {
    let output = Command::new(a2a::example())
        .output()
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("calling deployer_deploy"), "{stdout}");
    assert!(
        stdout.contains("the agent asks: Deploy this service?"),
        "{stdout}"
    );
    assert!(
        stdout.trim_end().ends_with("Done: deployed the web app."),
        "{stdout}"
    );
}

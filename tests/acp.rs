//! ACP as a model: an agent built on the official ACP Python SDK (`agent-client-protocol`,
//! tests/acp/agent.py, with `TOOLNEXUS_PYTHON_ACP`) drives two runs of a conversation,
//! each turn with a tool call whose permission request the client must answer, a thought
//! it must drop, and a reply in two message chunks; the same turns through the contract's
//! Python port (toolnexus 0.21.0's `acp.py`, with `TOOLNEXUS_PYTHON_TOOLNEXUS`) give the
//! same texts.

use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use toolnexus::providers::Acp;
use toolnexus::{Client, Message, Toolkit};

const AGENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/acp/agent.py");
const PORT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/acp/port.py");

/// The interpreter in `var`, or `None` (with a notice) outside CI.
fn python(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(python) => Some(python),
        Err(_) => {
            let message = format!("{var} is not set: run .ci/test, which installs the ACP judges");
            assert!(std::env::var_os("CI").is_none(), "{message}");
            eprintln!("NOTICE: {message}; skipped");
            None
        }
    }
}

#[tokio::test]
async fn an_sdk_agent_drives_a_conversation_and_the_python_port_reads_it_the_same() {
    let (Some(agent_python), Some(port_python)) = (
        python("TOOLNEXUS_PYTHON_ACP"),
        python("TOOLNEXUS_PYTHON_TOOLNEXUS"),
    ) else {
        return;
    };
    let agent = Acp::spawn(&agent_python, [AGENT])
        .await
        .expect("the agent starts and opens a session")
        .timeout(Duration::from_secs(30));
    assert!(!agent.session_id().is_empty());
    let client = Client::new(agent).system("Be brief.");
    let toolkit = Toolkit::new();

    let first = client.run("Read my notes.", &toolkit).await;
    assert!(first.is_done(), "{:?}", first.status);
    // Only message chunks form the reply (the thought and the tool call are dropped);
    // the permission was granted with the allow option; the prompt is the transcript
    // with the supersedes marker.
    assert_eq!(
        first.text,
        "[allow] system: Be brief.\nuser: Read my notes.\nSUPERSEDES-ALL-PRIOR: Read my notes."
    );
    // The run names the model as its requests carried it: the agent's command.
    assert_eq!(first.model.as_deref(), Some(agent_python.as_str()));

    let second = client
        .run("And the summary?", &toolkit)
        .history(first.messages.clone())
        .await;
    assert!(second.is_done(), "{:?}", second.status);
    assert!(
        second
            .text
            .ends_with("user: And the summary?\nSUPERSEDES-ALL-PRIOR: And the summary?"),
        "{}",
        second.text
    );

    // The same two turns through the Python port, on one session of its own.
    let shown = |transcript: &[Message]| -> Value {
        let upto = transcript
            .iter()
            .rposition(|m| matches!(m, Message::User { .. }))
            .unwrap();
        serde_json::json!({"messages": transcript[..=upto]})
    };
    let requests = Value::Array(vec![shown(&first.messages), shown(&second.messages)]);
    let output = Command::new("timeout")
        .args(["60", &port_python, PORT, &agent_python, AGENT])
        .arg(requests.to_string())
        .output()
        .expect("the port runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let texts: Vec<String> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(texts, [first.text, second.text]);
}

#[tokio::test]
async fn an_agent_that_cannot_start_is_an_error_that_names_it() {
    let error = Acp::spawn("/nonexistent/acp-agent", ["--stdio"])
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("could not start `/nonexistent/acp-agent`"),
        "{error}"
    );
}

//! The toolnexus contract's wire shapes (SPEC §7A, §7B), compared with its Python port
//! (`toolnexus` 0.21.0, pinned in `.ci/test`) on the same inputs: the card a served agent
//! gives, the tools a card becomes (names, descriptions, schemas, source), and the result
//! a task's end becomes (completed, failed, timed out), each side calling each server.

#[path = "support/a2a.rs"]
mod a2a;

use std::process::Command;
use std::time::Duration;

use a2a::{Served, http, json_of};
use serde_json::{Value, json};
use toolnexus::a2a::{A2aAgent, A2aServer};
use toolnexus::model::FnModel;
use toolnexus::{Client, Context, Message, ModelError, Reply, Tool, ToolResult, Toolkit};

fn port_python() -> String {
    std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS").unwrap_or_else(|_| {
        panic!(
            "TOOLNEXUS_PYTHON_TOOLNEXUS is not set: this test compares with the toolnexus Python \
             port (pip toolnexus==0.21.0) and does not skip. Run it through .ci/test"
        )
    })
}

fn port() -> Command {
    let mut command = Command::new(port_python());
    command.arg(a2a::root().join("tests/a2a/port.py"));
    command
}

const NAME: &str = "Deploy Bot!";
const SKILLS: [&str; 2] = ["deploy", "report-2"];

/// The port's echo agent, with the card below.
fn port_server() -> Served {
    let mut command = port();
    command
        .args(["serve", NAME, "Deploys.", "1.2.3"])
        .args(SKILLS);
    Served::start(command)
}

/// The same agent on `A2aServer`: echoes; `fail` makes the model fail, `slow` runs a tool
/// for 3 s.
fn crate_server() -> String {
    let model = FnModel::new_sync(|transcript, _| match transcript.last() {
        Some(Message::User { content }) if content == "fail" => {
            Err(ModelError::new("the model is down"))
        }
        Some(Message::User { content }) if content == "slow" => Ok(Reply::call("c1", "slow", "{}")),
        Some(Message::User { content }) => Ok(Reply::text(format!("echo: {content}"))),
        _ => Ok(Reply::text("done")),
    });
    let slow = Tool::new(
        "slow",
        "Sleeps.",
        json!({"type": "object"}),
        |_, _: Context| async {
            tokio::time::sleep(Duration::from_secs(3)).await;
            ToolResult::ok("slept")
        },
    );
    let mut server = A2aServer::new(Client::new(model), Toolkit::new().with(slow))
        .name(NAME)
        .description("Deploys.")
        .version("1.2.3");
    for skill in SKILLS {
        server = server.skill(skill, skill, format!("The {skill} skill."));
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(async move {
                let served = server.serve("127.0.0.1:0").await.unwrap();
                tx.send(served.url()).unwrap();
                std::future::pending::<()>().await;
            });
    });
    rx.recv_timeout(Duration::from_secs(10)).unwrap()
}

fn card(base: &str) -> Value {
    let (status, text) = http(
        "GET",
        &format!("{}/.well-known/agent-card.json", base.trim_end_matches('/')),
        &[],
        "",
    );
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_served_card_agrees_with_the_ports() {
    let theirs = card(&port_server().url);
    let url = crate_server();
    let ours = card(&url);
    for key in ["name", "description", "version"] {
        assert_eq!(ours[key], theirs[key], "`{key}`");
    }
    // The endpoint: the port's 0.3 `url`, this server's 0.3 interface (A2A 1.0's card
    // schema allows no top-level `url`); both the card's origin with a `/`.
    assert!(theirs["url"].as_str().unwrap().ends_with('/'));
    assert_eq!(theirs["protocolVersion"], "0.3.0");
    assert_eq!(
        ours["supportedInterfaces"][1],
        json!({"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"})
    );
    assert_eq!(
        ours["capabilities"]["pushNotifications"],
        theirs["capabilities"]["pushNotifications"]
    );
    let skill =
        |s: &Value| json!({"id": s["id"], "name": s["name"], "description": s["description"]});
    let ours_skills: Vec<Value> = ours["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(skill)
        .collect();
    let theirs_skills: Vec<Value> = theirs["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(skill)
        .collect();
    assert_eq!(ours_skills, theirs_skills);
    // The differences, on purpose: this server streams, lists its modes as media types
    // (A2A asks for those), tags its skills (A2A 1.0 requires tags) and declares its
    // A2A 1.0 interface beside the 0.3 fields.
    assert_eq!(
        (
            ours["capabilities"]["streaming"].as_bool(),
            theirs["capabilities"]["streaming"].as_bool()
        ),
        (Some(true), Some(false))
    );
    assert_eq!(theirs["defaultInputModes"], json!(["text"]));
    assert_eq!(ours["defaultOutputModes"], json!(["text/plain"]));
    assert_eq!(ours["skills"][0]["tags"], json!(["deploy"]));
    assert!(theirs.get("supportedInterfaces").is_none() && ours["supportedInterfaces"].is_array());
}

/// The port's `agent()` on the card at `base`: its tools and a call of the first.
fn port_agent(base: &str, task: &str, timeout_ms: Option<u64>) -> Value {
    let mut command = port();
    command.args([
        "agent",
        &format!("{}/.well-known/agent-card.json", base.trim_end_matches('/')),
        task,
    ]);
    if let Some(ms) = timeout_ms {
        command.arg(ms.to_string());
    }
    json_of(command)
}

/// `A2aAgent` on the same card: its tools, and a call of the first, in the port's shape.
async fn crate_agent(base: &str, task: &str, timeout_ms: Option<u64>) -> Value {
    let mut builder = A2aAgent::builder(format!(
        "{}/.well-known/agent-card.json",
        base.trim_end_matches('/')
    ))
    .poll_every(Duration::from_millis(20));
    if let Some(ms) = timeout_ms {
        builder = builder.timeout(Duration::from_millis(ms));
    }
    let agent = builder.connect().await.expect("the card");
    let tools = agent.tools();
    let listed: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.name(), "description": t.description(), "inputSchema": t.input_schema(), "source": t.source()}))
        .collect();
    let result = tools[0]
        .execute(json!({ "task": task }), Context::new())
        .await;
    json!({"tools": listed, "result": {"output": result.output, "isError": result.is_error, "metadata": result.metadata}})
}

/// `output` with the task id (different on every run) put back as `<id>`.
fn normalized(result: &Value) -> String {
    let id = result["metadata"]["taskId"].as_str().unwrap();
    assert!(!id.is_empty(), "a task id in the metadata: {result}");
    result["output"].as_str().unwrap().replace(id, "<id>")
}

fn assert_same_result(ours: &Value, theirs: &Value, case: &str) {
    assert_eq!(
        normalized(&ours["result"]),
        normalized(&theirs["result"]),
        "{case}: output"
    );
    assert_eq!(
        ours["result"]["isError"], theirs["result"]["isError"],
        "{case}: isError"
    );
    for key in ["agent", "state"] {
        assert_eq!(
            ours["result"]["metadata"][key], theirs["result"]["metadata"][key],
            "{case}: metadata.{key}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_and_results_agree_with_the_ports_agent() {
    let port = port_server();
    let port_url = port.url.clone();
    let crate_url = crate_server();
    let on_port = (
        crate_agent(&port_url, "hi there", None).await,
        port_agent(&port_url, "hi there", None),
    );
    // The same tools from the same card: sanitized names, descriptions, schema, source.
    assert_eq!(on_port.0["tools"], on_port.1["tools"]);
    assert_eq!(on_port.0["tools"][0]["name"], "Deploy_Bot__deploy");
    assert_same_result(&on_port.0, &on_port.1, "completed, on the port's server");
    assert_eq!(on_port.0["result"]["output"], "echo: hi there");

    let on_crate = (
        crate_agent(&crate_url, "hi there", None).await,
        port_agent(&crate_url, "hi there", None),
    );
    assert_eq!(on_crate.0["tools"], on_crate.1["tools"]);
    assert_same_result(&on_crate.0, &on_crate.1, "completed, on this server");

    let failed = (
        crate_agent(&crate_url, "fail", None).await,
        port_agent(&crate_url, "fail", None),
    );
    assert_same_result(&failed.0, &failed.1, "failed");
    assert!(
        normalized(&failed.0["result"]).starts_with("A2A task <id> failed: "),
        "{}",
        failed.0
    );

    let slow = (
        crate_agent(&crate_url, "slow", Some(300)).await,
        port_agent(&crate_url, "slow", Some(300)),
    );
    assert_same_result(&slow.0, &slow.1, "timed out");
    assert_eq!(
        normalized(&slow.0["result"]),
        "A2A task <id> timed out after 300ms (state=working)"
    );
}

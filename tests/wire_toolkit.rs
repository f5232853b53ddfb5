//! The toolkit side by side with the toolnexus contract's Python port (toolnexus 0.21.0,
//! `$TOOLNEXUS_PYTHON_TOOLNEXUS`): one MCP config file and one skills folder give both
//! ports the same tools (the per-server `tools` allow lists applied), the same server
//! statuses, the same skills prompt and the same list-only inventory; one elicitation
//! gives the same `Request`, and the same answer reaches the server as the same action.
//!
//! The MCP servers are this workspace's `mcp_server` example and the suite's
//! `suspend_server`, child processes over stdio, started and stopped by each port.

#[path = "support/example.rs"]
mod example;
#[path = "support/mcp_peer.rs"]
mod mcp_peer;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::builtins::Builtins;
use toolnexus::source::McpConfig;
use toolnexus::{Answer, Context, Request, Toolkit};

/// The contract's Python port.
fn port() -> String {
    let python = std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS").unwrap_or_else(|_| {
        mcp_peer::root()
            .join("target/py-venv-toolnexus/bin/python")
            .display()
            .to_string()
    });
    assert!(
        Path::new(&python).exists(),
        "the toolnexus Python port is not installed at {python}: run `bash .ci/test`, or set \
         TOOLNEXUS_PYTHON_TOOLNEXUS (a venv with toolnexus==0.21.0)"
    );
    python
}

/// Runs `tests/wire_toolkit/toolkit.py VERB ARGS…` and reads its JSON.
fn python(args: &[&str]) -> Value {
    let output = Command::new(port())
        .arg(mcp_peer::root().join("tests/wire_toolkit/toolkit.py"))
        .args(args)
        .output()
        .expect("the Python port runs");
    assert!(
        output.status.success(),
        "toolkit.py {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "toolkit.py printed no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn skills() -> PathBuf {
    mcp_peer::root().join("tests/contract/examples/skills")
}

/// A config file for one test, removed when dropped.
struct ConfigFile(PathBuf);

impl ConfigFile {
    fn new(name: &str, config: &Value) -> ConfigFile {
        let path = std::env::temp_dir().join(format!(
            "toolnexus-wire-toolkit-{name}-{}.json",
            std::process::id()
        ));
        std::fs::write(&path, serde_json::to_vec_pretty(config).unwrap()).unwrap();
        ConfigFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for ConfigFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Three servers of one binary with an allow list, a drop list and none, a disabled one
/// and one that cannot start.
fn servers_config() -> Value {
    let server = mcp_peer::example_server().to_str().unwrap();
    json!({"mcpServers": {
        "calc": {"command": [server], "tools": {"add": true, "divide": true, "nope": true}},
        "ops": {"command": [server], "tools": {"screenshot": false}},
        "all": {"command": [server]},
        "old": {"command": [server], "enabled": false},
        "broken": {"command": ["/nonexistent/toolnexus-server"]}
    }})
}

/// A tool as both ports describe it.
fn entry(tool: &toolnexus::Tool) -> Value {
    json!({
        "name": tool.name(),
        "source": tool.source(),
        "description": tool.description(),
        "inputSchema": tool.input_schema(),
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn one_config_and_skills_folder_give_both_ports_the_same_toolkit() {
    let config = ConfigFile::new("tools", &servers_config());
    let theirs = python(&["tools", config.path(), skills().to_str().unwrap()]);

    let toolkit = Toolkit::builder()
        .mcp_config(McpConfig::from_file(&config.0).unwrap())
        .skills_dir(skills())
        .build()
        .await;
    let ours: Vec<Value> = toolkit.tools().iter().map(entry).collect();
    let names = |tools: &[Value]| -> Vec<String> {
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let their_tools = theirs["tools"].as_array().unwrap();
    assert_eq!(names(&ours), names(their_tools));
    // The allow lists: `calc` keeps what is mapped to true, `ops` loses what is mapped to
    // false, `all` keeps everything.
    let ours_names = names(&ours);
    assert!(
        ours_names.contains(&"calc_add".to_owned())
            && !ours_names.contains(&"calc_deploy_service".to_owned())
    );
    assert!(
        ours_names.contains(&"ops_deploy_service".to_owned())
            && !ours_names.contains(&"ops_screenshot".to_owned())
    );
    assert!(ours_names.contains(&"all_screenshot".to_owned()));
    // Name, source, description and input schema, tool by tool (the example server's
    // schemas are already closed objects, which the Python port would otherwise close).
    for (mine, theirs) in ours.iter().zip(their_tools) {
        assert_eq!(mine, theirs);
    }

    let status: serde_json::Map<String, Value> = toolkit
        .mcp_status()
        .map(|(name, status)| (name.to_owned(), json!(status.as_str())))
        .collect();
    assert_eq!(Value::Object(status), theirs["status"]);
    assert_eq!(toolkit.skills_prompt(), theirs["skillsPrompt"]);
    toolkit.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_inventory_lists_every_tool_of_every_server_as_the_python_port_does() {
    let config = ConfigFile::new("inventory", &servers_config());
    let theirs = python(&["inventory", config.path()]);
    let inventory = McpConfig::from_file(&config.0).unwrap().list_tools().await;
    let tools: serde_json::Map<String, Value> = inventory
        .tools
        .iter()
        .map(|(server, tools)| {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            (server.clone(), json!(names))
        })
        .collect();
    assert_eq!(Value::Object(tools), theirs["tools"]);
    // Unfiltered: the allow list of `calc` does not apply.
    assert!(
        inventory
            .tools_of("calc")
            .unwrap()
            .iter()
            .any(|t| t.name == "deploy_service")
    );
    let status: serde_json::Map<String, Value> = inventory
        .status
        .iter()
        .map(|(name, status)| (name.clone(), json!(status.as_str())))
        .collect();
    assert_eq!(Value::Object(status), theirs["status"]);
}

/// What the Rust toolkit does with one elicitation answered `answer` (no id): the
/// requests it asked, and the call's result.
async fn elicited(config: &ConfigFile, tool: &str, args: Value, answer: Value) -> Value {
    let asked: Arc<Mutex<Vec<Request>>> = Arc::default();
    let log = Arc::clone(&asked);
    let toolkit = Toolkit::builder()
        .mcp_config(McpConfig::from_file(&config.0).unwrap())
        .builtins(Builtins::none())
        .wait_for(move |request: Request| {
            log.lock().unwrap().push(request.clone());
            let mut answer = answer.clone();
            answer["id"] = json!(request.id);
            async move { serde_json::from_value::<Answer>(answer).unwrap() }
        })
        .build()
        .await;
    let result = toolkit.execute(tool, args, Context::default()).await;
    toolkit.close().await;
    let requests = asked.lock().unwrap().clone();
    json!({
        "requests": requests,
        "output": result.output,
        "isError": result.is_error,
    })
}

/// `value` without the requests' ids (each port makes its own).
fn without_ids(mut value: Value) -> Value {
    for request in value["requests"].as_array_mut().unwrap() {
        let id = request.as_object_mut().unwrap().remove("id");
        assert!(id.is_some_and(|id| id.as_str().is_some_and(|s| !s.is_empty())));
    }
    value
}

#[tokio::test(flavor = "multi_thread")]
async fn one_elicitation_gives_both_ports_the_same_request_and_the_server_the_same_reply() {
    let server = example::example("suspend_server");
    let config = ConfigFile::new(
        "elicit",
        &json!({"mcpServers": {"hitl": {"command": [server.to_str().unwrap()]}}}),
    );
    let cases = [
        // A one-field form, answered.
        (
            "hitl_deploy",
            json!({"service": "web"}),
            json!({"ok": true, "data": {"answer": "staging"}}),
        ),
        // Refused on purpose: `decline`.
        (
            "hitl_deploy",
            json!({"service": "web"}),
            json!({"ok": false, "reason": "declined"}),
        ),
        // Dismissed: `cancel`.
        (
            "hitl_deploy",
            json!({"service": "web"}),
            json!({"ok": false, "reason": "cancelled"}),
        ),
        // A schema of the tool's own (defaults, enums, a multi-select) in `data.schema`.
        // Every field is answered: for an omitted one this crate sends the schema's
        // default (SEP-1034) where the Python port sends nothing (see the guide).
        (
            "hitl_pick",
            json!({}),
            json!({"ok": true, "data": {"size": "l", "color": "red", "count": 2}}),
        ),
    ];
    for (tool, args, answer) in cases {
        let theirs = python(&[
            "elicit",
            config.path(),
            tool,
            &args.to_string(),
            &answer.to_string(),
        ]);
        let ours = elicited(&config, tool, args.clone(), answer.clone()).await;
        let (ours, theirs) = (without_ids(ours), without_ids(theirs));
        assert_eq!(ours, theirs, "{tool} answered {answer}");
        let request = &ours["requests"][0];
        assert_eq!(request["kind"], "input", "{ours:#}");
        assert!(
            request["data"]["schema"]["properties"].is_object(),
            "{ours:#}"
        );
    }
}

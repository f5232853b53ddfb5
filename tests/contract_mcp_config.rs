//! MCP servers from a config file (`toolnexus::source::McpConfig`, the contract's §2 and
//! §0.2-0.4): the contract's own `mcp.json` (vendored in `tests/contract/examples`), and
//! a config that starts `@modelcontextprotocol/server-everything` over stdio, reaches a
//! toolnexus server over streamable HTTP, and holds broken servers that must fail alone.
//! Every server is a child process on 127.0.0.1, killed by the test.

#[path = "support/mcp_peer.rs"]
mod mcp_peer;

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_peer::{Server, build_example, everything, root};
use serde_json::{Value, json};
use toolnexus::source::{ConfigError, McpConfig, Transport};
use toolnexus::tool::ServerStatus;
use toolnexus::{Context, Toolkit};

fn example_config() -> PathBuf {
    root().join("tests/contract/examples/mcp.json")
}

fn node_dir() -> PathBuf {
    everything()
        .ancestors()
        .nth(5)
        .expect("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .to_owned()
}

/// A config file written for one test, removed when dropped.
struct ConfigFile(PathBuf);

impl ConfigFile {
    fn new(name: &str, value: &Value) -> ConfigFile {
        let path =
            std::env::temp_dir().join(format!("toolnexus-{name}-{}.json", std::process::id()));
        std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
        ConfigFile(path)
    }
}

impl Drop for ConfigFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn the_contract_example_config_reads_as_the_contract_says() {
    let config = McpConfig::from_file(example_config()).unwrap();
    assert_eq!(config.path(), Some(example_config().as_path()));
    assert_eq!(config.servers.len(), 2);
    let everything = config.server("everything").unwrap();
    assert!(everything.enabled);
    assert_eq!(everything.timeout, Duration::from_millis(30_000));
    assert_eq!(
        everything.transport,
        Transport::Local {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-everything".into()
            ],
            env: BTreeMap::new(),
            cwd: None,
        }
    );
    let remote = config.server("example-remote").unwrap();
    assert!(!remote.enabled);
    let Transport::Remote { url, headers } = &remote.transport else {
        panic!("{remote:?}")
    };
    assert_eq!(url, "https://example.com/mcp");
    assert_eq!(headers["Authorization"], "Bearer YOUR_TOKEN_HERE");
    // Header values never show in Debug.
    let debug = format!("{config:?}");
    assert!(
        debug.contains("Authorization") && !debug.contains("YOUR_TOKEN_HERE"),
        "{debug}"
    );
}

#[tokio::test]
async fn the_contract_example_config_connects_its_server_and_skips_the_disabled_one() {
    let mut config = McpConfig::from_file(example_config()).unwrap();
    // npx finds the package where the tests installed it, without the network.
    let server = config.server_mut("everything").unwrap();
    if let Transport::Local { env, cwd, .. } = &mut server.transport {
        *cwd = Some(node_dir());
        env.insert("npm_config_offline".into(), "true".into());
    }
    let servers = config.connect().await;
    let status: Vec<(&str, &str)> = servers.status().map(|(n, s)| (n, s.as_str())).collect();
    assert_eq!(
        status,
        [("everything", "connected"), ("example-remote", "disabled")],
        "{:?}",
        servers.status().collect::<Vec<_>>()
    );
    let toolkit: Toolkit = servers.tools().iter().cloned().collect();
    assert!(toolkit.tools().iter().all(|t| t.source() == "mcp"));
    assert!(
        toolkit
            .tools()
            .iter()
            .all(|t| t.name().starts_with("everything_"))
    );
    assert_eq!(
        servers.status_of("everything"),
        Some(&ServerStatus::Connected {
            tools: toolkit.len()
        })
    );
    let echo = toolkit
        .execute(
            "everything_echo",
            json!({"message": "hi"}),
            Context::default(),
        )
        .await;
    assert_eq!((echo.output.as_str(), echo.is_error), ("Echo: hi", false));
    // §0.4: structuredContent is the output, as its JSON.
    let structured = toolkit
        .execute(
            "everything_get-structured-content",
            json!({"location": "Chicago"}),
            Context::default(),
        )
        .await;
    assert!(!structured.is_error, "{}", structured.output);
    let meta = structured.metadata.clone().unwrap();
    assert_eq!(structured.output, meta["structuredContent"].to_string());
    assert!(
        meta["structuredContent"]["temperature"].is_number(),
        "{meta:?}"
    );
    servers.close().await;
}

/// The `mcp_server` example over streamable HTTP on a free loopback port: the process
/// (killed when dropped) and its URL.
fn toolnexus_http_server() -> (Server, String) {
    let mut child = Command::new(build_example("mcp_server"))
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();
    (server, url)
}

#[tokio::test]
async fn one_config_starts_a_stdio_server_reaches_an_http_one_and_isolates_the_broken() {
    let (_http_server, url) = toolnexus_http_server();
    let config = ConfigFile::new(
        "mixed",
        &json!({
            "servers": {
                "every thing": {"command": ["node", everything(), "stdio"], "timeout": 20000},
                "toolnexus": {"type": "remote", "url": url, "headers": {"X-Client": "tests"}},
                "missing": {"command": "/nonexistent/mcp-server", "args": ["--stdio"]},
                "exits": {"command": ["sh", "-c", "exit 3"]},
                "silent": {"command": ["sleep", "30"], "timeout": 300},
                "no-token": {"url": "http://127.0.0.1:9/mcp",
                             "headers": {"Authorization": "Bearer ${TOOLNEXUS_SURELY_UNSET_VARIABLE}"}},
                "off": {"command": ["node", "-e", "process.exit(1)"], "disabled": true},
                "builtins": {"command": ["a", "server", "named", "builtins"]}
            },
            "builtins": false
        }),
    );
    let servers = tokio::time::timeout(
        Duration::from_secs(60),
        McpConfig::from_file(&config.0).unwrap().connect(),
    )
    .await
    .expect("connecting is bounded");
    let status: BTreeMap<&str, &ServerStatus> = servers.status().collect();
    let reason = |name: &str| match status[name] {
        ServerStatus::Failed { reason } => reason.clone(),
        other => panic!("{name}: {other}"),
    };
    assert_eq!(status["every thing"].as_str(), "connected", "{status:?}");
    assert_eq!(status["toolnexus"].as_str(), "connected", "{status:?}");
    assert_eq!(status["off"], &ServerStatus::Disabled);
    assert!(
        reason("missing").contains("/nonexistent/mcp-server"),
        "{status:?}"
    );
    assert!(!reason("exits").is_empty());
    assert!(reason("silent").contains("within 300ms"), "{status:?}");
    assert_eq!(
        reason("no-token"),
        "the header `Authorization` uses ${TOOLNEXUS_SURELY_UNSET_VARIABLE}, and the \
         environment variable TOOLNEXUS_SURELY_UNSET_VARIABLE is not set"
    );
    // Inside a wrapper, `builtins` is a server name like any other.
    assert_eq!(status["builtins"].as_str(), "failed");

    let toolkit: Toolkit = servers.tools().iter().cloned().collect();
    // sanitize(server) + "_" + sanitize(tool).
    let sum = toolkit
        .execute(
            "every_thing_get-sum",
            json!({"a": 2, "b": 3}),
            Context::default(),
        )
        .await;
    assert!(sum.output.contains('5'), "{sum:?}");
    let add = toolkit
        .execute("toolnexus_add", json!({"a": 2, "b": 3}), Context::default())
        .await;
    assert_eq!((add.output.as_str(), add.is_error), ("5", false));
    assert!(toolkit.get("toolnexus_deploy_service").is_some());
    assert!(servers.client("toolnexus").is_some() && servers.client("missing").is_none());

    // Each server's resources and prompts, by the server's name.
    let readme = &servers.resources("toolnexus").await.unwrap()[0];
    assert_eq!(readme.uri, "docs://readme");
    let read = servers
        .read_resource("toolnexus", &readme.uri)
        .await
        .unwrap();
    assert_eq!(read[0].mime_type(), Some("text/markdown"));
    let templates = servers.resource_templates("every thing").await.unwrap();
    assert!(!templates.is_empty());
    let prompts = servers.prompts("every thing").await.unwrap();
    assert!(
        prompts.iter().any(|p| p.name == "simple-prompt"),
        "{prompts:?}"
    );
    let plan = servers
        .prompt("toolnexus", "plan_deploy", [("env", "staging")])
        .await
        .unwrap();
    assert!(plan.messages[1].text().unwrap().contains("staging"));
    let failed = servers.resources("missing").await.unwrap_err().to_string();
    assert!(failed.contains("`missing` is not connected"), "{failed}");
    let unknown = servers.prompts("nope").await.unwrap_err().to_string();
    assert!(unknown.contains("no MCP server named `nope`"), "{unknown}");
    servers.close().await;
}

/// An HTTP endpoint that records the `Authorization` header it gets and refuses it.
async fn recording_server() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::any(move |headers: axum::http::HeaderMap| {
            let record = Arc::clone(&record);
            async move {
                if let Some(value) = headers.get("authorization").and_then(|v| v.to_str().ok()) {
                    record.lock().unwrap().push(value.to_owned());
                }
                (axum::http::StatusCode::UNAUTHORIZED, "no")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/mcp"), seen)
}

#[tokio::test]
async fn remote_headers_expand_environment_variables_that_never_show_in_the_status() {
    let (url, seen) = recording_server().await;
    // Cargo sets CARGO_PKG_NAME for the tests it runs: a variable that is surely set.
    let secret = std::env::var("CARGO_PKG_NAME").expect("cargo sets CARGO_PKG_NAME");
    let config = McpConfig::from_value(&json!({
        "mcpServers": {"refusing": {"url": url, "headers": {"Authorization": "Bearer ${CARGO_PKG_NAME}"}, "timeout": 5000}}
    }))
    .unwrap();
    let servers = config.connect().await;
    let ServerStatus::Failed { reason } = servers.status_of("refusing").unwrap() else {
        panic!("{:?}", servers.status().collect::<Vec<_>>())
    };
    assert!(!reason.contains(&secret), "{reason}");
    assert_eq!(
        seen.lock().unwrap().first().map(String::as_str),
        Some(format!("Bearer {secret}").as_str())
    );
}

#[test]
fn the_config_formats_and_reserved_keys() {
    let servers = |value: Value| -> Vec<String> {
        McpConfig::from_value(&value)
            .unwrap()
            .servers
            .into_iter()
            .map(|s| s.name)
            .collect()
    };
    let one = json!({"a": {"command": "x"}});
    assert_eq!(servers(json!({"mcpServers": one})), ["a"]);
    assert_eq!(servers(json!({"servers": one})), ["a"]);
    assert_eq!(
        servers(json!({"mcp": one, "$schema": "https://opencode.ai/config.json"})),
        ["a"]
    );
    // A bare map of servers, beside the contract's sibling sections.
    assert_eq!(
        servers(json!({
            "a": {"command": "x"},
            "builtins": {"disabled": true},
            "agents": {},
            "a2a": {},
            "mcpServer": {"name": "me"}
        })),
        ["a"]
    );
    // Claude desktop's form: a program and `args`; opencode's `environment`; the types.
    let config = McpConfig::from_value(&json!({"mcpServers": {
        "claude": {"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1", "N": 2}},
        "opencode": {"type": "local", "command": ["bin", "--flag"], "environment": {"B": "2"},
                     "cwd": "/tmp", "enabled": false},
        "vscode": {"type": "http", "url": "http://127.0.0.1:1/mcp"}
    }}))
    .unwrap();
    let by_name = |n: &str| config.server(n).unwrap();
    assert_eq!(
        by_name("claude").transport,
        Transport::Local {
            command: "npx".into(),
            args: vec!["-y".into(), "pkg".into()],
            env: [
                ("A".to_owned(), "1".to_owned()),
                ("N".to_owned(), "2".to_owned())
            ]
            .into(),
            cwd: None,
        }
    );
    assert!(!by_name("opencode").enabled);
    let Transport::Local { env, cwd, .. } = &by_name("opencode").transport else {
        panic!()
    };
    assert_eq!(
        (env["B"].as_str(), cwd.as_deref()),
        ("2", Some(Path::new("/tmp")))
    );
    assert!(matches!(
        by_name("vscode").transport,
        Transport::Remote { .. }
    ));
}

#[test]
fn a_malformed_config_names_the_file_the_server_and_the_key() {
    let refused = |value: Value| -> ConfigError {
        let file = ConfigFile::new("bad", &value);
        let error = McpConfig::from_file(&file.0).unwrap_err();
        assert_eq!(error.file.as_deref(), Some(file.0.as_path()));
        error
    };
    let error = refused(json!({"mcpServers": {"s": {"command": "x", "timeout": "soon"}}}));
    assert_eq!(
        (error.server.as_deref(), error.key.as_deref()),
        (Some("s"), Some("timeout"))
    );
    assert_eq!(
        error.to_string(),
        format!(
            "MCP config {}, server `s`, key `timeout`: must be a positive whole number of \
             milliseconds, not \"soon\"",
            error.file.as_ref().unwrap().display()
        )
    );
    for (value, server, key, says) in [
        (
            json!({"mcpServers": {"s": {"command": 42}}}),
            Some("s"),
            Some("command"),
            "not a number",
        ),
        (
            json!({"mcpServers": {"s": {"command": ["x", 1]}}}),
            Some("s"),
            Some("command[1]"),
            "must be a string",
        ),
        (
            json!({"mcpServers": {"s": {"command": "x", "env": {"K": {}}}}}),
            Some("s"),
            Some("env.K"),
            "must be a string",
        ),
        (
            json!({"mcpServers": {"s": {"url": "http://h/", "headers": []}}}),
            Some("s"),
            Some("headers"),
            "an array",
        ),
        (
            json!({"mcpServers": {"s": {"command": "x", "enabled": "no"}}}),
            Some("s"),
            Some("enabled"),
            "true or false",
        ),
        (
            json!({"mcpServers": {"s": {"url": "ftp://h/"}}}),
            Some("s"),
            Some("url"),
            "not an http://",
        ),
        (
            json!({"mcpServers": {"s": {"type": "carrier-pigeon", "command": "x"}}}),
            Some("s"),
            Some("type"),
            "not a server type",
        ),
        (
            json!({"mcpServers": {"s": {"env": {}}}}),
            Some("s"),
            None,
            "needs `command`",
        ),
        (
            json!({"mcpServers": {"s": "npx"}}),
            Some("s"),
            None,
            "must be an object",
        ),
        (
            json!({"mcpServers": []}),
            None,
            Some("mcpServers"),
            "must be an object of servers",
        ),
        (json!([1]), None, None, "the top level must be an object"),
    ] {
        let error = refused(value);
        assert_eq!(
            (error.server.as_deref(), error.key.as_deref()),
            (server, key),
            "{error}"
        );
        assert!(error.message.contains(says), "{error}");
    }
    let not_json = ConfigFile::new("syntax", &json!({}));
    std::fs::write(&not_json.0, "{\n  \"mcpServers\": {,\n}").unwrap();
    let error = McpConfig::from_file(&not_json.0).unwrap_err();
    assert!(error.to_string().contains("not valid JSON"), "{error}");
    assert!(error.to_string().contains("line 2"), "{error}");
    let missing = McpConfig::from_file("/nonexistent/mcp.json").unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("MCP config /nonexistent/mcp.json: cannot read it"),
        "{missing}"
    );
}

#[test]
fn the_from_config_example_lists_a_toolkit_from_a_config_and_a_skills_folder() {
    let config = ConfigFile::new(
        "example",
        &json!({"mcpServers": {
            "everything": {"command": ["node", everything(), "stdio"]},
            "broken": {"command": "/nonexistent/mcp-server"}
        }}),
    );
    let skills = root().join("tests/contract/examples/skills");
    let output = Command::new(build_example("from_config"))
        .arg(&config.0)
        .arg(&skills)
        .stderr(Stdio::null())
        .output()
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    for line in [
        "broken: failed: could not start the MCP server `/nonexistent/mcp-server`",
        "everything_echo (mcp)",
        "skill (skill)",
        "- **hello-world**: A tiny example skill.",
        "== skill hello-world ==\n<skill_content name=\"hello-world\">",
    ] {
        assert!(stdout.contains(line), "missing {line:?}:\n{stdout}");
    }
    assert!(stdout.contains("everything: connected ("), "{stdout}");
}

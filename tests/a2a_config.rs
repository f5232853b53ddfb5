//! The `agents` block of a config file: one bad agent never stops the others, disabled
//! agents are skipped, `${VAR}` headers are expanded and their values never shown.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::time::Duration;

use serde_json::json;
use toolnexus::a2a::{A2aConfig, A2aServer, AgentStatus};
use toolnexus::source::McpConfig;
use toolnexus::{Client, Context, Reply, ScriptedModel, Toolkit};

/// A server that answers every request `401` with the request's own head in its body (as
/// a careless proxy might): what a secret header would leak through.
fn echoing_401() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).into_owned();
            let reply = format!(
                "HTTP/1.1 401 Unauthorized\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{head}",
                head.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    format!("http://{addr}/.well-known/agent-card.json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_bad_agent_never_stops_the_others() {
    let served = A2aServer::new(
        Client::new(ScriptedModel::new([Reply::text("hi")])),
        Toolkit::new(),
    )
    .name("helper")
    .serve("127.0.0.1:0")
    .await
    .unwrap();
    // The secret: a variable set wherever tests run, expanded into a header.
    let secret = std::env::var("PATH").unwrap();
    let config = json!({
        "mcpServers": {},
        "agents": {
            "good": {"card": served.card_url(), "timeout": 5000, "pollEvery": 50},
            "down": {"card": "http://127.0.0.1:1/.well-known/agent-card.json", "timeout": 2000},
            "off": {"card": "http://127.0.0.1:1/x", "enabled": false},
            "unset": {"card": served.card_url(), "headers": {"Authorization": "Bearer ${A2A_CONFIG_SURELY_UNSET}"}},
            "leaky": {"card": echoing_401(), "headers": {"Authorization": "Bearer ${PATH}"}},
        }
    });
    // The block is read with the MCP config it sits in, and on its own.
    let mcp = McpConfig::from_value(&config).unwrap();
    assert_eq!(mcp.agents(), &A2aConfig::from_value(&config).unwrap());
    let agents = mcp.agents().connect().await;
    let status: Vec<(&str, &AgentStatus)> = agents.status().collect();
    assert_eq!(status[0], ("good", &AgentStatus::Connected { tools: 1 }));
    assert_eq!(status[2], ("off", &AgentStatus::Disabled));
    for (name, status) in &status {
        let shown = format!("{status:?}");
        assert!(!shown.contains(&secret), "{name} shows the secret: {shown}");
    }
    let reason = |name: &str| match status.iter().find(|(n, _)| *n == name).unwrap().1 {
        AgentStatus::Failed { reason } => reason.clone(),
        other => panic!("{name} should have failed: {other:?}"),
    };
    assert!(
        reason("down").contains("could not connect"),
        "{}",
        reason("down")
    );
    assert!(
        reason("unset").contains("A2A_CONFIG_SURELY_UNSET"),
        "{}",
        reason("unset")
    );
    let leaky = reason("leaky");
    assert!(
        leaky.contains("HTTP 401") && leaky.contains("[redacted]"),
        "{leaky}"
    );
    let tools = agents.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name(), "helper_run");
    let result = tools[0]
        .execute(json!({"task": "hello"}), Context::new())
        .await;
    assert_eq!(result.output, "hi", "{result:?}");

    let bad = json!({"agents": {"x": {"card": "ftp://nope"}}});
    let error = McpConfig::from_value(&bad).unwrap_err().to_string();
    assert!(
        error.contains("agents.x") && error.contains("http://"),
        "{error}"
    );
    served.shutdown().await.unwrap();
}

//! The per-server `tools` allow list, and the list-only inventory of a config's servers
//! ([`McpConfig::list_tools`](super::McpConfig::list_tools)).

use futures_util::future::join_all;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ServerConfig;
use super::load::reach;
use crate::tool::ServerStatus;

/// One tool a server lists, under the server's own name (not prefixed, not sanitized):
/// what a `tools` allow list is written with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolInfo {
    /// The server's name for the tool.
    pub name: String,
    /// Its description (empty when the server gives none).
    pub description: String,
    /// Its input schema, as the server lists it.
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
}

/// What [`McpConfig::list_tools`](super::McpConfig::list_tools) found: every enabled
/// server's tools, unfiltered, and each server's status, in the config's order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpInventory {
    /// Each connected server's tools, every one of them (the `tools` allow lists are not
    /// applied), in the server's order.
    pub tools: Vec<(String, Vec<ToolInfo>)>,
    /// Each server's status.
    pub status: Vec<(String, ServerStatus)>,
}

impl McpInventory {
    /// The tools of the server named `server`, if it connected.
    pub fn tools_of(&self, server: &str) -> Option<&[ToolInfo]> {
        self.tools
            .iter()
            .find(|(name, _)| name == server)
            .map(|(_, tools)| tools.as_slice())
    }
}

/// Connects to every enabled server at once, lists its tools, and disconnects.
pub(super) async fn list(servers: &[ServerConfig]) -> McpInventory {
    let outcomes = join_all(servers.iter().map(|server| async move {
        if !server.enabled {
            return (ServerStatus::Disabled, None);
        }
        match reach(server).await {
            Ok((client, listed)) => {
                client.close().await;
                let tools: Vec<ToolInfo> = listed
                    .iter()
                    .map(|tool| ToolInfo {
                        name: tool.name.to_string(),
                        description: tool.description.as_deref().unwrap_or_default().to_owned(),
                        input_schema: Value::Object((*tool.input_schema).clone()),
                    })
                    .collect();
                (ServerStatus::Connected { tools: tools.len() }, Some(tools))
            }
            Err(reason) => {
                tracing::warn!(server = %server.name, "MCP server `{}` failed: {reason}", server.name);
                (ServerStatus::Failed { reason }, None)
            }
        }
    }))
    .await;
    let mut inventory = McpInventory {
        tools: Vec::new(),
        status: Vec::new(),
    };
    for (server, (status, tools)) in servers.iter().zip(outcomes) {
        if let Some(tools) = tools {
            inventory.tools.push((server.name.clone(), tools));
        }
        inventory.status.push((server.name.clone(), status));
    }
    inventory
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::McpConfig;
    use crate::source::config::load::allowed;

    fn listed(names: &[&str]) -> Vec<rmcp::model::Tool> {
        names
            .iter()
            .map(|name| {
                serde_json::from_value(serde_json::json!({
                    "name": name, "inputSchema": {"type": "object"}
                }))
                .unwrap()
            })
            .collect()
    }

    fn kept(tools: Value) -> Vec<String> {
        let config = McpConfig::from_value(&serde_json::json!({
            "mcpServers": {"s": {"command": "x", "tools": tools}}
        }))
        .unwrap();
        allowed(&config.servers[0], listed(&["add", "divide", "deploy"]))
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()
    }

    #[test]
    fn the_allow_list_has_the_contract_semantics() {
        assert_eq!(kept(Value::Null), ["add", "divide", "deploy"]);
        assert_eq!(kept(serde_json::json!({})), ["add", "divide", "deploy"]);
        assert_eq!(
            kept(serde_json::json!({"add": true, "nope": true})),
            ["add"]
        );
        assert_eq!(
            kept(serde_json::json!({"add": true, "divide": false})),
            ["add"]
        );
        assert_eq!(
            kept(serde_json::json!({"deploy": false})),
            ["add", "divide"]
        );
        assert_eq!(
            kept(serde_json::json!({"nope": false})),
            ["add", "divide", "deploy"]
        );
    }

    #[test]
    fn a_wrong_allow_list_is_refused_with_its_place() {
        let error = McpConfig::from_value(&serde_json::json!({
            "mcpServers": {"s": {"command": "x", "tools": {"add": "yes"}}}
        }))
        .unwrap_err();
        assert_eq!(error.server.as_deref(), Some("s"));
        assert_eq!(error.key.as_deref(), Some("tools.add"));
    }
}

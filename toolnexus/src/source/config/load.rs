//! Connecting to a config's servers, each on its own: [`McpServers`].

use futures_util::future::join_all;
use serde_json::Value;

use super::{ServerConfig, Transport};
use crate::env;
use crate::mcp::{McpClient, McpClientError, PromptInfo, ResourceInfo, ResourceTemplateInfo};
use crate::primitive::contents::ResourceContents;
use crate::primitive::message::PromptReply;
use crate::tool::Tool;
use crate::tool::def::sanitize_name;

pub(crate) use crate::tool::ServerStatus;

/// The servers of a config, connected: their tools, each server's status, and the clients.
///
/// The tools are named `SERVER_TOOL` (both sanitized: every character outside
/// `[a-zA-Z0-9_-]` becomes `_`), have [`source`](Tool::source) `"mcp"`, and call the
/// server through its [`McpClient`]. A successful result that carries
/// `structuredContent` has its JSON as the output (the contract's rule); otherwise a
/// result is as [`McpClient`] gives it.
///
/// Each server's resources and prompts are a call away: [`McpServers::resources`],
/// [`McpServers::read_resource`], [`McpServers::prompts`], [`McpServers::prompt`] (or
/// [`McpServers::client`] for the rest).
///
/// The connections stay open while this value, a client or a tool is alive; see
/// [`McpServers::close`].
#[derive(Debug, Clone)]
pub struct McpServers {
    servers: Vec<Entry>,
    tools: Vec<Tool>,
}

#[derive(Debug, Clone)]
struct Entry {
    name: String,
    status: ServerStatus,
    client: Option<McpClient>,
}

impl McpServers {
    /// Every connected server's tools, server by server in the config's order, each in
    /// its server's order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Each server's name and status, in the config's order.
    pub fn status(&self) -> impl Iterator<Item = (&str, &ServerStatus)> {
        self.servers.iter().map(|e| (e.name.as_str(), &e.status))
    }

    /// The status of the server named `name`.
    pub fn status_of(&self, name: &str) -> Option<&ServerStatus> {
        self.servers
            .iter()
            .find(|e| e.name == name)
            .map(|e| &e.status)
    }

    /// The client of the connected server named `name` (for
    /// [`refresh`](McpClient::refresh), [`changed`](McpClient::changed), …).
    pub fn client(&self, name: &str) -> Option<&McpClient> {
        self.servers
            .iter()
            .find(|e| e.name == name)
            .and_then(|e| e.client.as_ref())
    }

    fn connected(&self, server: &str) -> Result<&McpClient, McpClientError> {
        self.client(server).ok_or_else(|| McpClientError::Config {
            message: match self.status_of(server) {
                Some(status) => format!("the MCP server `{server}` is not connected ({status})"),
                None => format!("the config has no MCP server named `{server}`"),
            },
        })
    }

    /// The resources of the connected server named `server` (see
    /// [`McpClient::resources`]).
    pub async fn resources(&self, server: &str) -> Result<Vec<ResourceInfo>, McpClientError> {
        self.connected(server)?.resources().await
    }

    /// The resource templates of the connected server named `server`.
    pub async fn resource_templates(
        &self,
        server: &str,
    ) -> Result<Vec<ResourceTemplateInfo>, McpClientError> {
        self.connected(server)?.resource_templates().await
    }

    /// Reads `uri` from the connected server named `server`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Vec<ResourceContents>, McpClientError> {
        self.connected(server)?.read_resource(uri).await
    }

    /// The prompts of the connected server named `server`.
    pub async fn prompts(&self, server: &str) -> Result<Vec<PromptInfo>, McpClientError> {
        self.connected(server)?.prompts().await
    }

    /// Gets the prompt `name` of the connected server named `server`, filled in with
    /// `arguments`.
    pub async fn prompt<I, K, V>(
        &self,
        server: &str,
        name: &str,
        arguments: I,
    ) -> Result<PromptReply, McpClientError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.connected(server)?.prompt(name, arguments).await
    }

    /// Closes every connection (child processes are asked to exit, then killed).
    pub async fn close(&self) {
        join_all(
            self.servers
                .iter()
                .filter_map(|e| e.client.as_ref())
                .map(McpClient::close),
        )
        .await;
    }
}

pub(super) async fn connect(servers: &[ServerConfig]) -> McpServers {
    let outcomes = join_all(servers.iter().map(|server| async move {
        if !server.enabled {
            return (ServerStatus::Disabled, None, Vec::new());
        }
        match connect_one(server).await {
            Ok((client, tools)) => (
                ServerStatus::Connected { tools: tools.len() },
                Some(client),
                tools,
            ),
            Err(reason) => {
                tracing::warn!(server = %server.name, "MCP server `{}` failed: {reason}", server.name);
                (ServerStatus::Failed { reason }, None, Vec::new())
            }
        }
    }))
    .await;
    let mut entries = Vec::with_capacity(servers.len());
    let mut all_tools = Vec::new();
    for (server, (status, client, tools)) in servers.iter().zip(outcomes) {
        all_tools.extend(tools);
        entries.push(Entry {
            name: server.name.clone(),
            status,
            client,
        });
    }
    McpServers {
        servers: entries,
        tools: all_tools,
    }
}

/// Starts or reaches one server and lists the tools its `tools` allow list lets through.
async fn connect_one(server: &ServerConfig) -> Result<(McpClient, Vec<Tool>), String> {
    let (client, listed) = reach(server).await?;
    let listed = allowed(server, listed);
    let tools = client.model_tools_of(&listed);
    Ok((client, tools.into_iter().map(structured_output).collect()))
}

/// Starts or reaches one server and lists its tool definitions (all of them, under the
/// server's own names); the error is the reason, scrubbed of the expanded header values.
pub(super) async fn reach(
    server: &ServerConfig,
) -> Result<(McpClient, Vec<rmcp::model::Tool>), String> {
    let mut secrets = Vec::new();
    let builder = match &server.transport {
        Transport::Local {
            command,
            args,
            env,
            cwd,
        } => {
            let mut builder = McpClient::stdio(command, args);
            for (key, value) in env {
                builder = builder.env(key, value);
            }
            if let Some(dir) = cwd {
                builder = builder.current_dir(dir);
            }
            builder
        }
        Transport::Remote { url, headers } => {
            let mut builder = McpClient::http(url.as_str());
            for (name, template) in headers {
                let value = env::expand(template).map_err(|var| {
                    format!(
                        "the header `{name}` uses ${{{var}}}, and the environment variable {var} is not set"
                    )
                })?;
                builder = builder.header(name, &value);
                secrets.push(value);
            }
            builder
        }
    };
    let client = builder
        .prefix(sanitize_name(&server.name))
        .connect_timeout(server.timeout)
        .timeout(server.timeout)
        .connect()
        .await
        .map_err(|e| env::scrub(&e.to_string(), &secrets))?;
    let listed = client
        .listed()
        .await
        .map_err(|e| env::scrub(&e.to_string(), &secrets))?;
    Ok((client, listed))
}

/// The tool, with a successful result's `structuredContent` as its output.
fn structured_output(tool: Tool) -> Tool {
    crate::source::wrapped(tool, |inner, args, ctx| async move {
        let mut result = inner.execute(args, ctx).await;
        if !result.is_error
            && let Some(structured) = result
                .metadata
                .as_ref()
                .and_then(|m| m.get("structuredContent"))
                .filter(|v| !v.is_null())
        {
            result.output = Value::to_string(structured);
        }
        result
    })
}

/// The definitions of `listed` that the server's `tools` allow list lets through: all
/// when it is empty; with a `true`, only those mapped to `true`; else all but those
/// mapped to `false`. A name the server does not list is warned about.
pub(super) fn allowed(
    server: &ServerConfig,
    listed: Vec<rmcp::model::Tool>,
) -> Vec<rmcp::model::Tool> {
    let filter = &server.tools;
    if filter.is_empty() {
        return listed;
    }
    for (name, _) in filter {
        if !listed.iter().any(|tool| tool.name == name.as_str()) {
            tracing::warn!(
                server = %server.name,
                "MCP server `{}`: the `tools` entry `{name}` matches no tool it lists",
                server.name
            );
        }
    }
    let allow_list = filter.iter().any(|(_, on)| *on);
    let mark = |name: &str| {
        filter
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, on)| *on)
    };
    listed
        .into_iter()
        .filter(|tool| match mark(&tool.name) {
            Some(on) => on,
            None => !allow_list,
        })
        .collect()
}

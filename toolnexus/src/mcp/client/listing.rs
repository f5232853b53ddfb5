//! Listing a server's tools: the definitions `tools/list` gives, and the [`Tool`]s that
//! call them.

use std::sync::Arc;

use serde_json::Value;

use super::{McpClient, McpClientError, apps};
use crate::tool::context::Context;
use crate::tool::{Dispatch, Tool};

impl McpClient {
    /// The server's tool definitions as `tools/list` gives them (every page), under the
    /// server's own names.
    pub(crate) async fn listed(&self) -> Result<Vec<rmcp::model::Tool>, McpClientError> {
        let shared = &self.shared;
        let peer = shared.peer().await?;
        let limit = shared.options.connect_timeout;
        let listed = match tokio::time::timeout(limit, peer.list_all_tools()).await {
            Ok(Ok(listed)) => listed,
            Ok(Err(error)) => {
                return Err(McpClientError::Request {
                    server: shared.server(),
                    method: "tools/list".to_owned(),
                    message: error.to_string(),
                });
            }
            Err(_) => {
                return Err(McpClientError::Timeout {
                    server: shared.server(),
                    what: "tools/list".to_owned(),
                    after: limit,
                });
            }
        };
        Ok(listed)
    }

    /// The tools of `listed` definitions of this server (those for MCP Apps views only
    /// included), calling the server.
    pub(crate) fn tools_of(&self, listed: &[rmcp::model::Tool]) -> Vec<Tool> {
        let tools: Vec<Tool> = listed.iter().map(|tool| self.remote_tool(tool)).collect();
        let mut names = self.shared.names.lock().unwrap_or_else(|p| p.into_inner());
        names.extend(tools.iter().map(|t| t.name().to_owned()));
        tools
    }

    /// The tools of `listed` the model may call (see [`McpClient::tools`]).
    pub(crate) fn model_tools_of(&self, listed: &[rmcp::model::Tool]) -> Vec<Tool> {
        let tools = self.tools_of(listed);
        tools.into_iter().filter(apps::model_may_call).collect()
    }

    fn remote_tool(&self, listed: &rmcp::model::Tool) -> Tool {
        let remote: Arc<str> = Arc::from(listed.name.as_ref());
        let name = match &self.shared.options.prefix {
            Some(prefix) => format!("{prefix}_{remote}"),
            None => remote.to_string(),
        };
        let description = listed
            .description
            .as_deref()
            .or(listed.title.as_deref())
            .unwrap_or_default()
            .to_owned();
        let schema = Value::Object((*listed.input_schema).clone());
        let shared = Arc::clone(&self.shared);
        let label = name.clone();
        let view: Option<Arc<str>> = apps::listed_view(listed).map(Arc::from);
        let tool = Tool::from_handler(
            name,
            description,
            schema,
            "mcp",
            Box::new(move |args, ctx: Context| match args.into_value(&label) {
                Ok(args) => Dispatch::Future(Box::pin(apps::call_with_view(
                    Arc::clone(&shared),
                    Arc::clone(&remote),
                    view.clone(),
                    args,
                    ctx,
                ))),
                Err(error) => Dispatch::Ready(error.into()),
            }),
        );
        apps::with_listed_ui(tool, listed)
    }
}

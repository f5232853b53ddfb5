//! Tools from outside the program, as the toolnexus contract declares them: MCP servers
//! from a config file ([`McpConfig`], feature `mcp`), Agent Skills from a folder
//! ([`Skills`], feature `skills`) and HTTP endpoints ([`HttpTool`], feature `http-tools`).
//!
//! Each gives ordinary [`Tool`](crate::Tool)s for a [`Toolkit`](crate::Toolkit), with the contract's
//! [`source`](crate::Tool::source): `"mcp"`, `"skill"` and `"http"`.
//!
//! ```no_run
//! # #[cfg(all(feature = "mcp", feature = "skills"))]
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use toolnexus::source::{McpConfig, Skills};
//! use toolnexus::Toolkit;
//!
//! let servers = McpConfig::from_file("mcp.json")?.connect().await; // never fails as a whole
//! for (name, status) in servers.status() {
//!     println!("{name}: {status}");                                  // connected, disabled, failed: why
//! }
//! let skills = Skills::load("skills");
//! let mut toolkit = Toolkit::new();
//! toolkit.extend(servers.tools().iter().cloned());                   // everything_echo, …
//! toolkit.extend([skills.tool()]);
//! let system = format!("You are helpful.\n\n{}", skills.skills_prompt());
//! # let _ = system; Ok(()) }
//! ```

#[cfg(feature = "mcp")]
mod config;
#[cfg(feature = "http-tools")]
mod http;
#[cfg(feature = "skills")]
mod skills;
mod toolkit;

#[cfg(feature = "mcp")]
pub use config::{
    ConfigError, DEFAULT_TIMEOUT, McpConfig, McpInventory, McpServers, ServerConfig, ToolInfo,
    Transport,
};
#[cfg(feature = "http-tools")]
pub use http::{BodyMode, HttpTool, HttpToolError, ResultMode};
#[cfg(feature = "skills")]
pub use skills::{
    DEFAULT_MAX_SKILL_SIZE, DEFAULT_SAMPLE_LIMIT, SKILL_TOOL_DESCRIPTION, SKILLS_PROMPT_PREAMBLE,
    Skill, Skills, SkillsLoader, SkipReason, SkippedSkill,
};
pub use toolkit::ToolkitBuilder;

/// `tool` with each call run by `around`, given the tool itself, the parsed arguments and
/// the context: the same name, description, schemas and source.
#[cfg(feature = "mcp")]
fn wrapped<F, Fut>(tool: crate::Tool, around: F) -> crate::Tool
where
    F: Fn(crate::Tool, serde_json::Value, crate::tool::context::Context) -> Fut
        + Send
        + Sync
        + 'static,
    Fut: std::future::Future<Output = crate::ToolResult> + Send + 'static,
{
    use crate::tool::Tool;
    use crate::tool::handler::Dispatch;
    let inner = tool.clone();
    let label = tool.name().to_owned();
    let wrapped = Tool::from_handler(
        tool.name(),
        tool.description(),
        tool.input_schema().clone(),
        tool.source().to_owned(),
        Box::new(move |args, ctx| match args.into_value(&label) {
            Ok(args) => Dispatch::Future(Box::pin(around(inner.clone(), args, ctx))),
            Err(error) => Dispatch::Ready(error.into()),
        }),
    );
    match tool.output_schema() {
        Some(schema) => wrapped.with_output_schema(schema.clone()),
        None => wrapped,
    }
}

/// A tool of `source` from a synchronous function of its parsed arguments.
#[cfg(feature = "skills")]
fn sync_tool(
    name: &str,
    description: &str,
    schema: serde_json::Value,
    source: &'static str,
    f: impl Fn(serde_json::Value) -> crate::ToolResult + Send + Sync + 'static,
) -> crate::Tool {
    use crate::tool::Tool;
    use crate::tool::handler::Dispatch;
    let label = name.to_owned();
    Tool::from_handler(
        name,
        description,
        schema,
        source,
        Box::new(move |args, _ctx| {
            Dispatch::Ready(match args.into_value(&label) {
                Ok(value) => f(value),
                Err(error) => error.into(),
            })
        }),
    )
}

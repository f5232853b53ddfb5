//! [`ToolkitBuilder`]: the toolnexus contract's toolkit (`createToolkit`) from its
//! options, in one place.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;

use crate::tool::Tool;
use crate::tool::kit::Toolkit;
use crate::tool::request::{Answer, Request};

/// Answers a request inline, as the contract's `waitFor`.
type WaitFor = Arc<dyn Fn(Request) -> BoxFuture<'static, Answer> + Send + Sync>;

/// Builds the toolnexus contract's toolkit (its `createToolkit`): the tools of an MCP
/// config, the `skill` tool of skills folders, the built-in tools (on unless turned off),
/// the tools of remote A2A agents and your own, in that order of precedence, less the
/// tools and skills you disable. From [`Toolkit::builder`].
///
/// ```no_run
/// # #[cfg(all(feature = "mcp", feature = "skills", feature = "builtins"))]
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use toolnexus::source::McpConfig;
/// use toolnexus::Toolkit;
///
/// let toolkit = Toolkit::builder()
///     .mcp_config(McpConfig::from_file("mcp.json")?) // its `builtins` and `agents` too
///     .skills_dir("skills")
///     .disable_tools(["bash"])
///     .build()
///     .await;
/// for (server, status) in toolkit.mcp_status() {
///     println!("{server}: {status}");
/// }
/// let system = toolkit.skills_prompt();          // what `Client::run` adds to the system prompt
/// # let _ = system;
/// toolkit.close().await;                          // the MCP servers stop
/// # Ok(()) }
/// ```
///
/// The tools come in the contract's order, the first of a name kept: the MCP servers'
/// (server by server, in the config's order), the `skill` tool (with at least one skills
/// folder), the built-in tools, the A2A agents', then [`ToolkitBuilder::tool`]s. A
/// built-in tool yields to any other tool of its name. Building never fails as a
/// whole: a server or agent that cannot be reached has no tools (its status says why).
#[must_use = "a builder does nothing until `build`"]
#[derive(Default)]
pub struct ToolkitBuilder {
    #[cfg(feature = "mcp")]
    mcp: Option<super::McpConfig>,
    skills_dirs: Vec<PathBuf>,
    #[cfg(feature = "builtins")]
    builtins: Option<crate::builtins::Builtins>,
    #[cfg(feature = "a2a")]
    agents: Vec<crate::a2a::AgentConfig>,
    extra: Vec<Tool>,
    wait_for: Option<WaitFor>,
    disable_tools: Vec<String>,
    disable_skills: Vec<String>,
}

impl Toolkit {
    /// A [`ToolkitBuilder`]: the toolnexus contract's toolkit from its options (an MCP
    /// config, skills folders, the built-in tools, A2A agents, `waitFor`, disabled tools
    /// and skills).
    pub fn builder() -> ToolkitBuilder {
        ToolkitBuilder::default()
    }
}

impl ToolkitBuilder {
    /// The MCP servers of `config` (see [`McpConfig`](super::McpConfig)); its `builtins`
    /// section chooses the built-in tools unless [`ToolkitBuilder::builtins`] does, and
    /// its `agents` section adds remote A2A agents (feature `a2a`).
    #[cfg(feature = "mcp")]
    pub fn mcp_config(mut self, config: super::McpConfig) -> Self {
        self.mcp = Some(config);
        self
    }

    /// Adds a skills folder (repeatable; a name found in an earlier folder wins). With
    /// at least one, the toolkit has the `skill` tool and a
    /// [`skills_prompt`](Toolkit::skills_prompt). Without the `skills` feature, folders
    /// are ignored.
    pub fn skills_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.skills_dirs.push(dir.into());
        self
    }

    /// The built-in tools to add (default: all ten, or what the MCP config's `builtins`
    /// section says); [`Builtins::none`](crate::builtins::Builtins::none) turns them off.
    #[cfg(feature = "builtins")]
    pub fn builtins(mut self, builtins: crate::builtins::Builtins) -> Self {
        self.builtins = Some(builtins);
        self
    }

    /// Adds remote A2A agents, whose skills become tools (beside the MCP config's
    /// `agents` section).
    #[cfg(feature = "a2a")]
    pub fn agents(mut self, agents: crate::a2a::A2aConfig) -> Self {
        self.agents.extend(agents.agents);
        self
    }

    /// Adds a tool of your own (it wins over a built-in tool of its name).
    pub fn tool(mut self, tool: Tool) -> Self {
        self.extra.push(tool);
        self
    }

    /// Adds tools of your own.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.extra.extend(tools);
        self
    }

    /// Answers the MCP servers' questions while the call that caused them waits (the
    /// contract's `waitFor` given to `createToolkit`): when an MCP tool suspends (a
    /// server's elicitation, a login), `f` is asked with its [`Request`] and the call
    /// goes on with the [`Answer`]. Without it, such a call returns the pending result,
    /// for the [`Client`](crate::Client)'s own `wait_for` or a later resume.
    pub fn wait_for<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Request) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer> + Send + 'static,
    {
        self.wait_for = Some(Arc::new(move |request| f(request).boxed()));
        self
    }

    /// Leaves out the tools of these names, whatever their source (MCP tools by their
    /// exposed names, `server_tool`).
    pub fn disable_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disable_tools.extend(names.into_iter().map(Into::into));
        self
    }

    /// Leaves out the skills of these names: neither the `skill` tool nor the prompt
    /// has them.
    pub fn disable_skills<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disable_skills
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Connects the MCP servers and the A2A agents (at once), reads the skills, and
    /// assembles the toolkit.
    pub async fn build(self) -> Toolkit {
        let mut tools: Vec<Tool> = Vec::new();
        let mut toolkit = Toolkit::new();
        #[cfg(feature = "mcp")]
        if let Some(config) = &self.mcp {
            let servers = config.connect().await;
            let status = servers
                .status()
                .map(|(name, status)| (name.to_owned(), status.clone()))
                .collect();
            tools.extend(servers.tools().iter().map(|tool| match &self.wait_for {
                Some(wait_for) => answered_inline(tool.clone(), Arc::clone(wait_for)),
                None => tool.clone(),
            }));
            toolkit.add_mcp(
                status,
                Arc::new(move || {
                    let servers = servers.clone();
                    Box::pin(async move { servers.close().await })
                }),
            );
        }
        #[cfg(feature = "skills")]
        if !self.skills_dirs.is_empty() {
            let skills = super::Skills::load_all(&self.skills_dirs).without(&self.disable_skills);
            tools.push(skills.tool());
            toolkit = toolkit.with_skills_prompt(skills.skills_prompt());
        }
        #[cfg(feature = "builtins")]
        {
            #[cfg(feature = "mcp")]
            let from_config = self.mcp.as_ref().map(|config| config.builtins().clone());
            #[cfg(not(feature = "mcp"))]
            let from_config = None;
            let builtins = self
                .builtins
                .clone()
                .or(from_config)
                .unwrap_or_else(crate::builtins::Builtins::all);
            tools.extend(builtins.tools());
        }
        #[cfg(feature = "a2a")]
        {
            #[cfg_attr(not(feature = "mcp"), allow(unused_mut))]
            let mut agents = self.agents.clone();
            #[cfg(feature = "mcp")]
            if let Some(config) = &self.mcp {
                agents.extend(config.agents().agents.iter().cloned());
            }
            if !agents.is_empty() {
                let connected = crate::a2a::A2aConfig { agents }.connect().await;
                tools.extend(connected.tools());
            }
        }
        tools.extend(self.extra);
        toolkit.extend(
            tools
                .into_iter()
                .filter(|tool| !self.disable_tools.iter().any(|name| name == tool.name())),
        );
        toolkit
    }
}

/// `tool`, whose suspensions `wait_for` answers: the call runs again with the answer.
#[cfg(feature = "mcp")]
fn answered_inline(tool: Tool, wait_for: WaitFor) -> Tool {
    super::wrapped(tool, move |inner, args, ctx| {
        let wait_for = Arc::clone(&wait_for);
        async move {
            let first = inner.execute(args.clone(), ctx.clone()).await;
            match first.pending_request() {
                Some(request) if ctx.answer().is_none() => {
                    let answer = wait_for(request).await;
                    inner.execute(args, ctx.with_answer(answer)).await
                }
                _ => first,
            }
        }
    })
}

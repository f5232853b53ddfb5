//! What a toolkit built from the contract's sources keeps beside its tools: the skills
//! catalog for the system prompt, each MCP server's status, and what closes the servers
//! ([`Toolkit::skills_prompt`], [`Toolkit::mcp_status`], [`Toolkit::close`]).

use std::fmt;
use std::sync::Arc;

use futures_util::future::{BoxFuture, join_all};

use super::Toolkit;

/// Where one MCP server of a config stands once connected: `connected`, `disabled` or
/// `failed` (see [`Toolkit::mcp_status`] and `McpServers::status` in `toolnexus::source`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStatus {
    /// Connected; its tools are listed.
    Connected {
        /// How many tools it listed.
        tools: usize,
    },
    /// Skipped: `enabled: false` or `disabled: true`.
    Disabled,
    /// Could not be started, reached or listed; it has no tools.
    Failed {
        /// Why (header values never appear in it).
        reason: String,
    },
}

impl ServerStatus {
    /// The contract's word for the status: `"connected"`, `"disabled"` or `"failed"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ServerStatus::Connected { .. } => "connected",
            ServerStatus::Disabled => "disabled",
            ServerStatus::Failed { .. } => "failed",
        }
    }
}

impl fmt::Display for ServerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerStatus::Connected { tools: 1 } => f.write_str("connected (1 tool)"),
            ServerStatus::Connected { tools } => write!(f, "connected ({tools} tools)"),
            ServerStatus::Disabled => f.write_str("disabled"),
            ServerStatus::Failed { reason } => write!(f, "failed: {reason}"),
        }
    }
}

/// Closes what a source keeps open (an MCP server's connection, its child process).
pub(crate) type Closer = Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync>;

/// The sources' part of a [`Toolkit`]; shared by its clones.
#[derive(Clone, Default)]
pub(crate) struct Sources {
    pub(crate) skills_prompt: Option<Arc<str>>,
    pub(crate) mcp_status: Arc<[(String, ServerStatus)]>,
    pub(crate) closers: Vec<Closer>,
}

impl fmt::Debug for Sources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sources")
            .field("skills_prompt", &self.skills_prompt.is_some())
            .field("mcp_status", &self.mcp_status)
            .finish()
    }
}

impl Toolkit {
    /// The skills catalog for the system prompt (the toolnexus contract's
    /// `skillsPrompt()`): set when the toolkit was given skills (see
    /// `Toolkit::with_skills` and `Toolkit::builder` in `toolnexus::source`), empty
    /// otherwise. [`Client::run`](crate::Client::run) puts it after the client's system
    /// prompt, separated by a blank line, when it is not empty.
    pub fn skills_prompt(&self) -> &str {
        self.sources.skills_prompt.as_deref().unwrap_or_default()
    }

    /// Sets the skills catalog [`Toolkit::skills_prompt`] gives (builder form).
    #[must_use]
    pub fn with_skills_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.sources.skills_prompt = Some(Arc::from(prompt.into()));
        self
    }

    /// Each MCP server the toolkit was built from and its status, in the config's order
    /// (none for a toolkit built otherwise).
    pub fn mcp_status(&self) -> impl Iterator<Item = (&str, &ServerStatus)> {
        self.sources
            .mcp_status
            .iter()
            .map(|(name, status)| (name.as_str(), status))
    }

    /// Closes what the toolkit's sources keep open: every MCP server's connection (a
    /// child process is asked to exit, then killed). Clones of the toolkit share them.
    /// A toolkit with no such source has nothing to close.
    pub async fn close(&self) {
        join_all(self.sources.closers.iter().map(|close| close())).await;
    }

    /// Records the MCP servers' statuses and what closes them.
    #[cfg(feature = "mcp")]
    pub(crate) fn add_mcp(&mut self, status: Vec<(String, ServerStatus)>, close: Closer) {
        let mut all = self.sources.mcp_status.to_vec();
        all.extend(status);
        self.sources.mcp_status = all.into();
        self.sources.closers.push(close);
    }
}

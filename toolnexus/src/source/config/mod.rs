//! [`McpConfig`]: MCP servers declared in a config file, in the Claude-desktop / opencode
//! format.

mod inventory;
mod load;
mod parse;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

pub use inventory::{McpInventory, ToolInfo};
pub use load::McpServers;

/// A server's `timeout` when the config gives none: 30 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(30_000);

/// The MCP servers of a config file: Claude desktop's `mcpServers`, opencode's `mcp`, or
/// `servers`.
///
/// ```no_run
/// # #[cfg(feature = "mcp")]
/// # async fn demo() -> Result<(), toolnexus::source::ConfigError> {
/// use toolnexus::source::McpConfig;
/// use toolnexus::Toolkit;
///
/// let config = McpConfig::from_file("mcp.json")?;  // a malformed file is refused here
/// let servers = config.connect().await;            // one bad server never stops the others
/// let toolkit: Toolkit = servers.tools().iter().cloned().collect();
/// # let _ = toolkit; Ok(()) }
/// ```
///
/// ```json
/// {
///   "mcpServers": {
///     "everything": { "command": ["npx", "-y", "@modelcontextprotocol/server-everything"] },
///     "github":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
///                     "env": { "GITHUB_TOKEN": "…" } },
///     "remote-api": { "url": "https://example.com/mcp",
///                     "headers": { "Authorization": "Bearer ${ACME_TOKEN}" },
///                     "timeout": 10000 },
///     "old":        { "command": "old-server", "enabled": false }
///   }
/// }
/// ```
///
/// - The servers are under `mcpServers`, `servers` or `mcp` (the first present). Without
///   any of them the top-level object is the map of servers, less the sibling sections
///   `builtins`, `agents`, `a2a`, `mcpServer` (and `$schema`).
/// - `command` is a local server, started as a child process and spoken to over stdio:
///   an array (program and arguments) or a program with `args`; `env` / `environment`
///   add to the inherited environment; `cwd` is its working directory.
/// - `url` is a remote server over streamable HTTP, with `headers`; `${ENV_VAR}` in a
///   header value is read from the environment when connecting, and is never logged.
/// - `type` may say `local` (or `stdio`) or `remote` (or `http`, `streamable-http`);
///   without it, `url` means remote and `command` local.
/// - `enabled: false` or `disabled: true` skips a server (status `disabled`).
/// - `timeout` (milliseconds, default [`DEFAULT_TIMEOUT`]) bounds connecting, the
///   handshake and `tools/list` each, and every tool call.
/// - `tools` (`{"echo": true}`, `{"delete": false}`) says which of the server's tools are
///   exposed, by the server's own names: see [`ServerConfig::tools`].
///   [`McpConfig::list_tools`] lists every tool of every server, to write it from.
/// - `builtins` (with the `builtins` feature) says which built-in tools to add: see
///   [`McpConfig::builtins`]. Without the feature the section is ignored.
/// - Other keys are ignored. A key of the wrong type is a [`ConfigError`] naming the
///   file, the server and the key.
#[derive(Debug, Clone, PartialEq)]
pub struct McpConfig {
    path: Option<PathBuf>,
    /// The servers, in the file's order. Public so that a program can adjust them (a
    /// working directory, a timeout) before [`McpConfig::connect`].
    pub servers: Vec<ServerConfig>,
    /// The top-level `builtins` section (feature `builtins`).
    #[cfg(feature = "builtins")]
    builtins: crate::builtins::Builtins,
    /// The top-level `agents` section (feature `a2a`).
    #[cfg(feature = "a2a")]
    agents: crate::a2a::A2aConfig,
}

/// One server of an [`McpConfig`].
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// Its key in the config: the prefix of its tools' names (sanitized).
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// `false` when the config says `enabled: false` or `disabled: true`.
    pub enabled: bool,
    /// Bounds connecting, `tools/list` and each call (default [`DEFAULT_TIMEOUT`]).
    pub timeout: Duration,
    /// The `tools` allow list: the server's tools by their own (unprefixed) names, each
    /// `true` or `false`. Empty: every tool. With at least one `true`: only the tools
    /// mapped to `true`. Only `false`s: every tool but those. A name the server does not
    /// list is ignored, with a warning.
    pub tools: Vec<(String, bool)>,
}

/// How a server is reached.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum Transport {
    /// A child process spoken to over stdio.
    Local {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment.
        env: BTreeMap<String, String>,
        /// Its working directory (this process's when `None`).
        cwd: Option<PathBuf>,
    },
    /// A streamable-HTTP endpoint.
    Remote {
        /// The endpoint's URL.
        url: String,
        /// Headers sent with every request, as written (`${ENV_VAR}` not yet expanded).
        headers: BTreeMap<String, String>,
    },
}

/// `Debug` shows the names of headers and environment variables, never their values.
impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Local {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Local")
                .field("command", command)
                .field("args", args)
                .field("env", &env.keys().collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish(),
            Transport::Remote { url, headers } => f
                .debug_struct("Remote")
                .field("url", url)
                .field("headers", &headers.keys().collect::<Vec<_>>())
                .finish(),
        }
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("enabled", &self.enabled)
            .field("timeout", &self.timeout)
            .field("tools", &self.tools)
            .finish()
    }
}

/// Why a config was refused: where (the file, the server, the key) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigError {
    /// The config file, when it was read from one.
    pub file: Option<PathBuf>,
    /// The server whose entry is wrong, if the fault is in one.
    pub server: Option<String>,
    /// The key that is wrong, if one is.
    pub key: Option<String>,
    /// What is wrong, and what was expected.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "MCP config {}", file.display())?,
            None => f.write_str("MCP config")?,
        }
        if let Some(server) = &self.server {
            write!(f, ", server `{server}`")?;
        }
        if let Some(key) = &self.key {
            write!(f, ", key `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

impl McpConfig {
    /// Reads and checks the config file at `path` (JSON).
    pub fn from_file(path: impl AsRef<Path>) -> Result<McpConfig, ConfigError> {
        let path = path.as_ref();
        let fail = |message: String| ConfigError {
            file: Some(path.to_owned()),
            server: None,
            key: None,
            message,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
        let mut config = McpConfig::from_value(&value).map_err(|mut error| {
            error.file = Some(path.to_owned());
            error
        })?;
        config.path = Some(path.to_owned());
        Ok(config)
    }

    /// Checks a config given as JSON text.
    pub fn from_json(text: &str) -> Result<McpConfig, ConfigError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ConfigError {
            file: None,
            server: None,
            key: None,
            message: format!("not valid JSON: {e}"),
        })?;
        McpConfig::from_value(&value)
    }

    /// Checks a config given as a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<McpConfig, ConfigError> {
        Ok(McpConfig {
            path: None,
            servers: parse::servers(value)?,
            #[cfg(feature = "builtins")]
            builtins: parse::builtins(value)?,
            #[cfg(feature = "a2a")]
            agents: crate::a2a::A2aConfig::from_value(value).map_err(|e| ConfigError {
                file: None,
                server: e.agent.map(|agent| format!("agents.{agent}")),
                key: None,
                message: e.message,
            })?,
        })
    }

    /// The built-in tools the config's top-level `builtins` section asks for (all ten
    /// when it has none): `false`, `{"disabled": true}` or `{"enabled": false}` turn the
    /// whole source off, `{"tools": {"bash": false}}` leaves tools out (see
    /// [`Builtins::from_config`](crate::builtins::Builtins::from_config)).
    ///
    /// ```
    /// use toolnexus::source::McpConfig;
    /// use toolnexus::Toolkit;
    ///
    /// let config = McpConfig::from_json(r#"{"mcpServers": {}, "builtins": {"tools": {"bash": false}}}"#)?;
    /// let toolkit = Toolkit::new().with_builtins(config.builtins().clone());
    /// assert!(toolkit.get("bash").is_none() && toolkit.get("read").is_some());
    /// # Ok::<(), toolnexus::source::ConfigError>(())
    /// ```
    #[cfg(feature = "builtins")]
    pub fn builtins(&self) -> &crate::builtins::Builtins {
        &self.builtins
    }

    /// The remote A2A agents the config's top-level `agents` section lists (feature
    /// `a2a`): connect them with [`A2aConfig::connect`](crate::a2a::A2aConfig::connect).
    #[cfg(feature = "a2a")]
    pub fn agents(&self) -> &crate::a2a::A2aConfig {
        &self.agents
    }

    /// The file the config was read from.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The server named `name`.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The server named `name`, to change before connecting.
    pub fn server_mut(&mut self, name: &str) -> Option<&mut ServerConfig> {
        self.servers.iter_mut().find(|s| s.name == name)
    }

    /// Connects to every enabled server at once and lists their tools. Never fails as a
    /// whole: a server that cannot be started, reached or listed within its timeout gets
    /// the status `failed` with the reason (also logged as a `tracing` warning), and the
    /// others carry on.
    pub async fn connect(&self) -> McpServers {
        load::connect(&self.servers).await
    }

    /// Lists every enabled server's tools without keeping anything: connects to each
    /// (at once), lists its tools, and disconnects. The tools are all the servers list,
    /// under their own names, the `tools` allow lists not applied: what to write those
    /// lists from. A server that fails is `failed` in the status, as with
    /// [`McpConfig::connect`].
    pub async fn list_tools(&self) -> McpInventory {
        inventory::list(&self.servers).await
    }
}

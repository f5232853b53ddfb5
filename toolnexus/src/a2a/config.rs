//! The `agents` block of a config file (the contract's §7A, beside `mcpServers`):
//! [`A2aConfig`], connected as [`A2aAgents`], one failing agent never stopping the others.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::future::join_all;
use serde_json::Value;

use super::client::{A2aAgent, DEFAULT_POLL_EVERY, DEFAULT_TIMEOUT};
use crate::tool::Tool;

/// One agent of an `agents` block.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct AgentConfig {
    /// Its key in the block (an identifier only: the tools are named after the card).
    pub name: String,
    /// The Agent Card's URL.
    pub card: String,
    /// Headers sent with every request, as written (`${ENV_VAR}` not yet expanded).
    pub headers: BTreeMap<String, String>,
    /// Bounds fetching the card and each call (`timeout`, ms; default [`DEFAULT_TIMEOUT`]).
    pub timeout: Duration,
    /// How often a task is polled (`pollEvery`, ms; default [`DEFAULT_POLL_EVERY`]).
    pub poll_every: Duration,
    /// `false` when the block says `enabled: false` or `disabled: true`.
    pub enabled: bool,
}

/// `Debug` names the headers, never their values.
impl fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentConfig")
            .field("name", &self.name)
            .field("card", &self.card)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("timeout", &self.timeout)
            .field("poll_every", &self.poll_every)
            .field("enabled", &self.enabled)
            .finish()
    }
}

/// Why an `agents` block was refused: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct A2aConfigError {
    /// The file, when read from one.
    pub file: Option<PathBuf>,
    /// The agent whose entry is wrong, if one is.
    pub agent: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for A2aConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "agents config {}", file.display())?,
            None => f.write_str("agents config")?,
        }
        if let Some(agent) = &self.agent {
            write!(f, ", agent `{agent}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for A2aConfigError {}

/// The `agents` block of a config file (the one that holds `mcpServers` too):
///
/// ```json
/// {
///   "agents": {
///     "planner": { "card": "https://planner.example.com/.well-known/agent-card.json",
///                  "headers": { "Authorization": "Bearer ${PLANNER_TOKEN}" },
///                  "timeout": 60000, "pollEvery": 500 },
///     "old":     { "card": "http://127.0.0.1:9999/.well-known/agent-card.json", "enabled": false }
///   }
/// }
/// ```
///
/// `card` is required; `headers` values expand `${VAR}` from the environment on every
/// request and are never logged; `timeout` and `pollEvery` are milliseconds;
/// `enabled: false` or `disabled: true` skips an agent. A file without `agents` has none.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct A2aConfig {
    /// The agents, in the block's order.
    pub agents: Vec<AgentConfig>,
}

impl A2aConfig {
    /// Reads the `agents` block of the JSON file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<A2aConfig, A2aConfigError> {
        let path = path.as_ref();
        let fail = |message: String| A2aConfigError {
            file: Some(path.to_owned()),
            agent: None,
            message,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
        A2aConfig::from_value(&value).map_err(|mut error| {
            error.file = Some(path.to_owned());
            error
        })
    }

    /// Reads the `agents` block of a config given as JSON text.
    pub fn from_json(text: &str) -> Result<A2aConfig, A2aConfigError> {
        let value: Value = serde_json::from_str(text).map_err(|e| A2aConfigError {
            file: None,
            agent: None,
            message: format!("not valid JSON: {e}"),
        })?;
        A2aConfig::from_value(&value)
    }

    /// Reads the `agents` block of a parsed config.
    pub fn from_value(root: &Value) -> Result<A2aConfig, A2aConfigError> {
        let fail = |agent: Option<&str>, message: String| A2aConfigError {
            file: None,
            agent: agent.map(str::to_owned),
            message,
        };
        let agents = match root.get("agents") {
            None | Some(Value::Null) => return Ok(A2aConfig::default()),
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(fail(
                    None,
                    format!("`agents` must be an object of agents by name, not {other}"),
                ));
            }
        };
        let agents = agents
            .iter()
            .map(|(name, entry)| agent(name, entry).map_err(|message| fail(Some(name), message)))
            .collect::<Result<_, _>>()?;
        Ok(A2aConfig { agents })
    }

    /// Connects to every enabled agent at once. Never fails as a whole: an agent whose
    /// card cannot be fetched or read gets the status `failed` with the reason (also
    /// logged as a `tracing` warning, header values never in it), and the others carry on.
    pub async fn connect(&self) -> A2aAgents {
        let outcomes = join_all(self.agents.iter().map(|config| async move {
            if !config.enabled {
                return (AgentStatus::Disabled, None);
            }
            let mut builder = A2aAgent::builder(&config.card)
                .timeout(config.timeout)
                .poll_every(config.poll_every);
            for (name, value) in &config.headers {
                builder = builder.header(name, value);
            }
            match builder.connect().await {
                Ok(agent) => (
                    AgentStatus::Connected {
                        tools: agent.tools().len(),
                    },
                    Some(agent),
                ),
                Err(error) => {
                    tracing::warn!(agent = %config.name, "A2A agent `{}` failed: {error}", config.name);
                    (AgentStatus::Failed { reason: error.reason }, None)
                }
            }
        }))
        .await;
        let entries = self
            .agents
            .iter()
            .zip(outcomes)
            .map(|(config, (status, agent))| (config.name.clone(), status, agent))
            .collect();
        A2aAgents { entries }
    }
}

fn millis(entry: &Value, key: &str, default: Duration) -> Result<Duration, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(value) => match value.as_u64() {
            Some(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
            _ => Err(format!(
                "`{key}` must be a positive whole number of milliseconds, not {value}"
            )),
        },
    }
}

fn agent(name: &str, entry: &Value) -> Result<AgentConfig, String> {
    if !entry.is_object() {
        return Err(format!("must be an object with a `card` URL, not {entry}"));
    }
    let card = match entry.get("card") {
        Some(Value::String(card))
            if card.starts_with("http://") || card.starts_with("https://") =>
        {
            card.clone()
        }
        Some(other) => {
            return Err(format!(
                "`card` must be an http:// or https:// URL, not {other}"
            ));
        }
        None => return Err("needs `card`, the URL of its Agent Card".to_owned()),
    };
    let headers = match entry.get("headers") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(key, value)| match value {
                Value::String(s) => Ok((key.clone(), s.clone())),
                other => Err(format!("header `{key}` must be a string, not {other}")),
            })
            .collect::<Result<_, String>>()?,
        Some(other) => {
            return Err(format!(
                "`headers` must be an object of strings, not {other}"
            ));
        }
    };
    let flag = |key: &str| match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(format!("`{key}` must be true or false, not {other}")),
    };
    // The contract's precedence: `disabled: true` wins, then `enabled: false`.
    let enabled = flag("disabled")? != Some(true) && flag("enabled")? != Some(false);
    Ok(AgentConfig {
        name: name.to_owned(),
        card,
        headers,
        timeout: millis(entry, "timeout", DEFAULT_TIMEOUT)?,
        poll_every: millis(entry, "pollEvery", DEFAULT_POLL_EVERY)?,
        enabled,
    })
}

/// Where one agent of a config stands after [`A2aConfig::connect`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentStatus {
    /// Its card was read; its skills are tools.
    Connected {
        /// How many tools (skills) it has.
        tools: usize,
    },
    /// Skipped: `enabled: false` or `disabled: true`.
    Disabled,
    /// Its card could not be fetched or read; it has no tools.
    Failed {
        /// Why (header values never appear in it).
        reason: String,
    },
}

impl AgentStatus {
    /// The contract's word: `"connected"`, `"disabled"` or `"failed"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            AgentStatus::Connected { .. } => "connected",
            AgentStatus::Disabled => "disabled",
            AgentStatus::Failed { .. } => "failed",
        }
    }
}

/// The agents of a config, connected: their tools and each one's status.
#[derive(Debug, Clone)]
pub struct A2aAgents {
    entries: Vec<(String, AgentStatus, Option<A2aAgent>)>,
}

impl A2aAgents {
    /// Every connected agent's tools, agent by agent in the config's order.
    pub fn tools(&self) -> Vec<Tool> {
        self.entries
            .iter()
            .filter_map(|(_, _, agent)| agent.as_ref())
            .flat_map(A2aAgent::tools)
            .collect()
    }

    /// Each agent's name (its key) and status, in the config's order.
    pub fn status(&self) -> impl Iterator<Item = (&str, &AgentStatus)> {
        self.entries
            .iter()
            .map(|(name, status, _)| (name.as_str(), status))
    }

    /// The connected agent with this key.
    pub fn agent(&self, name: &str) -> Option<&A2aAgent> {
        self.entries
            .iter()
            .find(|(key, _, _)| key == name)
            .and_then(|(_, _, agent)| agent.as_ref())
    }
}

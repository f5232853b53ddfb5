//! Reading the servers out of a config's JSON, key by key, with errors that say where.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use super::{ConfigError, DEFAULT_TIMEOUT, ServerConfig, Transport};
use crate::tool::args::kind_of as kind;

/// The keys that hold the servers, in the order they are looked for.
const WRAPPERS: [&str; 3] = ["mcpServers", "servers", "mcp"];

/// Sibling sections of a bare server map that are not servers.
const RESERVED: [&str; 5] = ["builtins", "agents", "a2a", "mcpServer", "$schema"];

fn error(server: Option<&str>, key: Option<&str>, message: impl Into<String>) -> ConfigError {
    ConfigError {
        file: None,
        server: server.map(str::to_owned),
        key: key.map(str::to_owned),
        message: message.into(),
    }
}

/// The top-level `builtins` section, beside the servers (whatever holds them).
#[cfg(feature = "builtins")]
pub(super) fn builtins(root: &Value) -> Result<crate::builtins::Builtins, ConfigError> {
    let section = root.get("builtins").unwrap_or(&Value::Null);
    crate::builtins::Builtins::from_config(section).map_err(|e| ConfigError {
        file: None,
        server: None,
        key: Some(e.key),
        message: e.message,
    })
}

pub(super) fn servers(root: &Value) -> Result<Vec<ServerConfig>, ConfigError> {
    let Value::Object(root) = root else {
        return Err(error(
            None,
            None,
            format!("the top level must be an object, not {}", kind(root)),
        ));
    };
    let wrapped = WRAPPERS
        .iter()
        .find_map(|key| root.get(*key).map(|value| (*key, value)));
    let entries: Vec<(&String, &Value)> = match wrapped {
        Some((_, Value::Object(map))) => map.iter().collect(),
        Some((key, other)) => {
            return Err(error(
                None,
                Some(key),
                format!("must be an object of servers by name, not {}", kind(other)),
            ));
        }
        None => root
            .iter()
            .filter(|(key, _)| !RESERVED.contains(&key.as_str()))
            .collect(),
    };
    entries
        .into_iter()
        .map(|(name, value)| server(name, value))
        .collect()
}

fn server(name: &str, value: &Value) -> Result<ServerConfig, ConfigError> {
    let Value::Object(entry) = value else {
        return Err(error(
            Some(name),
            None,
            format!(
                "must be an object with `command` (a local server) or `url` (a remote one), not {}",
                kind(value)
            ),
        ));
    };
    let fields = Fields { name, entry };
    let remote = match fields.string("type")? {
        Some("local" | "stdio") => false,
        Some("remote" | "http" | "streamable-http" | "streamableHttp" | "sse") => true,
        Some(other) => {
            return Err(error(
                Some(name),
                Some("type"),
                format!("`{other}` is not a server type; use `local` or `remote`"),
            ));
        }
        None if entry.contains_key("url") => true,
        None if entry.contains_key("command") => false,
        None => {
            return Err(error(
                Some(name),
                None,
                "needs `command` (a local server) or `url` (a remote one)",
            ));
        }
    };
    let transport = if remote {
        let url = fields
            .string("url")?
            .ok_or_else(|| error(Some(name), Some("url"), "a remote server needs a `url`"))?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(error(
                Some(name),
                Some("url"),
                format!("`{url}` is not an http:// or https:// URL"),
            ));
        }
        Transport::Remote {
            url: url.to_owned(),
            headers: fields.strings("headers")?,
        }
    } else {
        let (command, mut args) = fields.command()?;
        args.extend(fields.list("args")?);
        let mut env = fields.strings("env")?;
        env.extend(fields.strings("environment")?);
        Transport::Local {
            command,
            args,
            env,
            cwd: fields.string("cwd")?.map(PathBuf::from),
        }
    };
    let enabled =
        fields.boolean("enabled")? != Some(false) && fields.boolean("disabled")? != Some(true);
    let timeout = match entry.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(value) => match value.as_u64() {
            Some(ms) if ms > 0 => Duration::from_millis(ms),
            _ => {
                return Err(error(
                    Some(name),
                    Some("timeout"),
                    format!("must be a positive whole number of milliseconds, not {value}"),
                ));
            }
        },
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
        enabled,
        timeout,
        tools: fields.flags("tools")?,
    })
}

/// One server's entry, read key by key.
struct Fields<'a> {
    name: &'a str,
    entry: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn wrong(&self, key: &str, expected: &str, got: &Value) -> ConfigError {
        error(
            Some(self.name),
            Some(key),
            format!("must be {expected}, not {}", kind(got)),
        )
    }

    fn string(&self, key: &str) -> Result<Option<&'a str>, ConfigError> {
        match self.entry.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    fn boolean(&self, key: &str) -> Result<Option<bool>, ConfigError> {
        match self.entry.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong(key, "true or false", other)),
        }
    }

    /// An array of strings (absent: empty).
    fn list(&self, key: &str) -> Result<Vec<String>, ConfigError> {
        match self.entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(at, item)| match item {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(error(
                        Some(self.name),
                        Some(&format!("{key}[{at}]")),
                        format!("must be a string, not {}", kind(other)),
                    )),
                })
                .collect(),
            Some(other) => Err(self.wrong(key, "an array of strings", other)),
        }
    }

    /// An object of strings (numbers and booleans are taken as their text).
    fn strings(&self, key: &str) -> Result<BTreeMap<String, String>, ConfigError> {
        match self.entry.get(key) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    Value::Number(_) | Value::Bool(_) => Ok((k.clone(), v.to_string())),
                    other => Err(error(
                        Some(self.name),
                        Some(&format!("{key}.{k}")),
                        format!("must be a string, not {}", kind(other)),
                    )),
                })
                .collect(),
            Some(other) => Err(self.wrong(key, "an object of names to strings", other)),
        }
    }

    /// An object of names to `true` or `false` (absent: empty), in the file's order.
    fn flags(&self, key: &str) -> Result<Vec<(String, bool)>, ConfigError> {
        match self.entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::Bool(b) => Ok((k.clone(), *b)),
                    other => Err(error(
                        Some(self.name),
                        Some(&format!("{key}.{k}")),
                        format!("must be true or false, not {}", kind(other)),
                    )),
                })
                .collect(),
            Some(other) => Err(self.wrong(key, "an object of tool names to true or false", other)),
        }
    }

    /// `command`: a program (`"npx"`) or a program and its arguments (`["npx", "-y", …]`).
    fn command(&self) -> Result<(String, Vec<String>), ConfigError> {
        let missing = || {
            error(
                Some(self.name),
                Some("command"),
                "a local server needs a `command`",
            )
        };
        match self.entry.get("command") {
            None | Some(Value::Null) => Err(missing()),
            Some(Value::String(program)) if !program.trim().is_empty() => {
                Ok((program.clone(), Vec::new()))
            }
            Some(Value::String(_)) => Err(missing()),
            Some(Value::Array(_)) => {
                let mut parts = self.list("command")?;
                if parts.is_empty() || parts[0].trim().is_empty() {
                    return Err(missing());
                }
                let program = parts.remove(0);
                Ok((program, parts))
            }
            Some(other) => Err(self.wrong(
                "command",
                "a program or an array of the program and its arguments",
                other,
            )),
        }
    }
}

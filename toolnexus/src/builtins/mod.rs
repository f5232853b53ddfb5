//! The contract's ten built-in tools (`source() == "builtin"`): `bash`, `read`, `write`,
//! `edit`, `grep`, `glob`, `webfetch`, `question`, `apply_patch`, `todowrite`, with the
//! names, descriptions and input schemas every port lists byte for byte, so an agent can
//! act with no wiring of its own.
//!
//! ```
//! use toolnexus::builtins::Builtins;
//! use toolnexus::Toolkit;
//!
//! let toolkit = Toolkit::new().with_builtins(Builtins::all());
//! assert_eq!(toolkit.len(), 10);
//! assert_eq!(toolkit.get("grep").unwrap().source(), "builtin");
//!
//! // Without `bash`, every path confined to one folder, mutations asking first.
//! let locked = Toolkit::new().with_builtins(
//!     Builtins::all().without(["bash"]).root("/srv/repo").approval(true),
//! );
//! assert!(locked.get("bash").is_none());
//! assert!(locked.get("write").unwrap().requires_approval());
//! ```
//!
//! The toggles are the contract's: the whole source on or off ([`Builtins::none`], or
//! `"builtins": false` in a config), and a per-tool map on the all-on baseline
//! ([`Builtins::without`], [`Builtins::tool`], `"builtins": {"tools": {"bash": false}}`).
//! A builtin is the lowest-precedence tool: any other tool of the same name, registered
//! before or after, takes its place.
//!
//! Beyond the contract, off by default: [`Builtins::root`] confines every path (after
//! `..` and symlinks are resolved) to a folder, and [`Builtins::approval`] makes `bash`,
//! `write`, `edit` and `apply_patch` ask before they act. The guide's chapter
//! [`builtins`](crate::guide::builtins) tells the behaviour of each tool, the safety
//! options and where the tools differ from the contract's Python port.

mod bash;
mod config;
mod env;
mod files;
mod patch;
mod pyjson;
mod question;
mod schemas;
mod search;
mod webfetch;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::tool::Tool;
use crate::tool::context::Context;
use crate::tool::handler::{Dispatch, Handler};
use crate::tool::result::ToolResult;
use crate::tool::toolkit::Toolkit;

pub use config::BuiltinsConfigError;

/// The ten names, in the contract's order.
pub const NAMES: [&str; 10] = [
    "bash",
    "read",
    "write",
    "edit",
    "grep",
    "glob",
    "webfetch",
    "question",
    "apply_patch",
    "todowrite",
];

/// The [`Tool::source`] of every built-in tool.
pub const SOURCE: &str = "builtin";

/// The tools that run commands or change files: the ones [`Builtins::approval`] gates.
pub const MUTATING: [&str; 4] = ["bash", "write", "edit", "apply_patch"];

/// How many bytes of a command's output `bash` keeps by default (1 MiB).
pub const DEFAULT_OUTPUT_LIMIT: usize = 1 << 20;

/// How many bytes of a response body `webfetch` reads by default (5 MiB).
pub const DEFAULT_FETCH_LIMIT: usize = 5 << 20;

/// Which built-in tools a toolkit gets, and how they may touch the machine.
///
/// [`Builtins::all`] (also the [`Default`]) is the contract's default: all ten, paths
/// relative to the process's working directory, nothing confined, nothing asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Builtins {
    enabled: bool,
    off: BTreeSet<String>,
    base_dir: Option<PathBuf>,
    confine: bool,
    approval: bool,
    shell: Option<Vec<String>>,
    output_limit: usize,
    fetch_limit: usize,
}

impl Default for Builtins {
    fn default() -> Self {
        Builtins::all()
    }
}

impl Builtins {
    /// All ten tools.
    pub fn all() -> Self {
        Builtins {
            enabled: true,
            off: BTreeSet::new(),
            base_dir: None,
            confine: false,
            approval: false,
            shell: None,
            output_limit: DEFAULT_OUTPUT_LIMIT,
            fetch_limit: DEFAULT_FETCH_LIMIT,
        }
    }

    /// The whole source off (the contract's `builtins: false`): no built-in tool at all,
    /// whatever the per-tool map says.
    pub fn none() -> Self {
        Builtins {
            enabled: false,
            ..Builtins::all()
        }
    }

    /// These tools left out (the per-tool map's `false`). Names that are not builtins
    /// are ignored, as the contract says.
    #[must_use]
    pub fn without<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        for name in names {
            self.off.insert(name.as_ref().to_owned());
        }
        self
    }

    /// One entry of the per-tool map: `on == false` leaves the tool out, `true` puts it
    /// back (the baseline is all on).
    #[must_use]
    pub fn tool(mut self, name: &str, on: bool) -> Self {
        if on {
            self.off.remove(name);
        } else {
            self.off.insert(name.to_owned());
        }
        self
    }

    /// Confines every path the tools take to `dir`: relative paths are read from `dir`,
    /// and a path whose resolved form (every `..` and symlink followed, in order, as the
    /// kernel would) leaves `dir` is refused with an error, before anything is read or
    /// written. Covers `read`, `write`, `edit`, the `path` of `grep` and `glob`, `bash`'s
    /// `workdir` and every file an `apply_patch` names. `bash`'s command itself can still
    /// reach anything the process can: leave `bash` out, or gate it with
    /// [`Builtins::approval`], where that matters.
    #[must_use]
    pub fn root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.base_dir = Some(dir.into());
        self.confine = true;
        self
    }

    /// What a relative path means (the Python port's `base_dir`), without confining
    /// anything: the default folder of `grep`, `glob` and `bash` too. [`Builtins::root`]
    /// sets it and confines.
    #[must_use]
    pub fn base_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.base_dir = Some(dir.into());
        self
    }

    /// With `true`, `bash`, `write`, `edit` and `apply_patch` ask before they act, as
    /// [`Tool::with_approval`] tools do: a call first returns a pending request of kind
    /// `"approval"` naming the tool and its arguments, and runs only when executed again
    /// with an `ok: true` answer to that very request.
    #[must_use]
    pub fn approval(mut self, on: bool) -> Self {
        self.approval = on;
        self
    }

    /// The interpreter `bash` runs its command with, the command appended as the last
    /// argument (default `["/bin/sh", "-c"]`).
    #[must_use]
    pub fn shell<I>(mut self, argv: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.shell = Some(argv.into_iter().map(Into::into).collect());
        self
    }

    /// How many bytes of a command's output `bash` keeps (default
    /// [`DEFAULT_OUTPUT_LIMIT`]); the rest is read and counted, and the output ends with
    /// a line saying how many bytes were left out.
    #[must_use]
    pub fn output_limit(mut self, bytes: usize) -> Self {
        self.output_limit = bytes;
        self
    }

    /// How many bytes of a response body `webfetch` reads (default
    /// [`DEFAULT_FETCH_LIMIT`]); a longer body is cut there and the output says so.
    #[must_use]
    pub fn fetch_limit(mut self, bytes: usize) -> Self {
        self.fetch_limit = bytes;
        self
    }

    /// Whether the source is on at all.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The names of the tools these settings give, in the contract's order.
    pub fn names(&self) -> Vec<&'static str> {
        if !self.enabled {
            return Vec::new();
        }
        NAMES
            .into_iter()
            .filter(|name| !self.off.contains(*name))
            .collect()
    }

    /// The tools these settings give, in the contract's order.
    pub fn tools(&self) -> Vec<Tool> {
        let names = self.names();
        if names.is_empty() {
            return Vec::new();
        }
        let env = Arc::new(env::Env {
            base: self.base_dir.clone(),
            confine: self.confine,
            shell: self.shell.clone().unwrap_or_else(bash::default_shell),
            output_limit: self.output_limit,
            fetch_limit: self.fetch_limit,
        });
        let client = Arc::new(if names.contains(&"webfetch") {
            webfetch::client()
        } else {
            Err(String::new())
        });
        schemas::SPECS
            .iter()
            .filter(|spec| names.contains(&spec.name))
            .map(|spec| {
                let tool = Tool::from_handler(
                    spec.name,
                    spec.description,
                    (spec.schema)(),
                    SOURCE,
                    handler(spec.name, Arc::clone(&env), Arc::clone(&client)),
                );
                if self.approval && MUTATING.contains(&spec.name) {
                    tool.with_approval()
                } else {
                    tool
                }
            })
            .collect()
    }

    /// The settings of a config's `builtins` section: `false` (off), `true`, or an
    /// object with `disabled` / `enabled` (the MCP precedence: `disabled: true` wins,
    /// else `enabled: false` turns the source off), `tools` (the per-tool map of
    /// booleans), and the Python port's `baseDir` / `confineToBaseDir` / `shell` (also
    /// spelled `base_dir`, `confine_to_base_dir`), plus `approval`. Other keys are
    /// ignored; a key of the wrong type is an error naming it.
    pub fn from_config(section: &Value) -> Result<Builtins, BuiltinsConfigError> {
        config::parse(section)
    }
}

/// The handler of one tool: file and search tools run on tokio's blocking pool, `bash`
/// and `webfetch` are async, `question` and `todowrite` answer at once.
fn handler(
    name: &'static str,
    env: Arc<env::Env>,
    client: Arc<Result<reqwest::Client, String>>,
) -> Box<Handler> {
    Box::new(move |args, ctx: Context| {
        let value = match args.into_value(name) {
            Ok(value) => value,
            Err(error) => return Dispatch::Ready(error.into()),
        };
        let blocking = |f: fn(&env::Env, &Value) -> ToolResult, value: Value| {
            let env = Arc::clone(&env);
            Dispatch::Future(Box::pin(async move {
                tokio::task::spawn_blocking(move || f(&env, &value))
                    .await
                    .unwrap_or_else(|e| env::fail(name, format!("the tool failed: {e}")))
            }))
        };
        match name {
            "bash" => {
                let env = Arc::clone(&env);
                Dispatch::Future(Box::pin(async move { bash::bash(&env, value).await }))
            }
            "read" => blocking(files::read, value),
            "write" => blocking(files::write, value),
            "edit" => blocking(files::edit, value),
            "grep" => blocking(search::grep, value),
            "glob" => blocking(search::glob, value),
            "webfetch" => {
                let (env, client) = (Arc::clone(&env), Arc::clone(&client));
                Dispatch::Future(Box::pin(async move {
                    webfetch::webfetch(&env, &client, value).await
                }))
            }
            "question" => Dispatch::Ready(question::question(&value, &ctx)),
            "apply_patch" => blocking(patch::apply_patch, value),
            _ => Dispatch::Ready(question::todowrite(&value)),
        }
    })
}

impl Toolkit {
    /// Adds the built-in tools `builtins` gives (builder form). A builtin is the
    /// lowest-precedence tool, as the contract's assembly order says: one whose name a
    /// tool already registered has is left out, and a tool of another source registered
    /// later under a builtin's name takes the builtin's place (see
    /// [`Toolkit::register`]).
    ///
    /// ```
    /// use toolnexus::builtins::Builtins;
    /// use toolnexus::{Tool, ToolResult, Toolkit};
    ///
    /// let sandboxed = Tool::new_sync("bash", "Runs in the sandbox.", serde_json::json!({"type": "object"}), |_, _| {
    ///     ToolResult::ok("sandboxed")
    /// });
    /// let toolkit = Toolkit::new().with_builtins(Builtins::all()).with(sandboxed);
    /// assert_eq!(toolkit.get("bash").unwrap().source(), "custom");
    /// assert_eq!(toolkit.len(), 10);
    /// ```
    #[must_use]
    pub fn with_builtins(mut self, builtins: Builtins) -> Self {
        self.add_builtins(builtins);
        self
    }

    /// Adds the built-in tools `builtins` gives; see [`Toolkit::with_builtins`].
    pub fn add_builtins(&mut self, builtins: Builtins) {
        for tool in builtins.tools() {
            if self.get(tool.name()).is_none() {
                let _ = self.register(tool);
            }
        }
    }
}

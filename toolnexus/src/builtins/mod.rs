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
//! Beyond the contract, off by default: [`Builtins::root`] confines every path to a
//! folder (each opened beneath a directory handle of it, so the operating system refuses
//! what leaves it), and [`Builtins::approval`] makes `bash`, `write`, `edit`, `webfetch`
//! and `apply_patch` ask before they act. On by default: `webfetch` reaches public
//! addresses only ([`Builtins::allow_private_network`]), `bash` runs with a small
//! environment ([`BASH_ENV`]), and the file tools load at most
//! [`DEFAULT_READ_LIMIT`] bytes of a file. The guide's chapter
//! [`builtins`](crate::_guide::builtins) tells the behaviour of each tool, the safety
//! options and where the tools differ from the contract's Python port.

mod bash;
mod config;
mod env;
mod files;
mod fs;
mod network;
mod patch;
mod pyjson;
mod question;
mod schemas;
mod search;
mod webfetch;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::tool::Tool;
use crate::tool::context::Context;
use crate::tool::handler::{Dispatch, Handler};
use crate::tool::kit::Toolkit;
use crate::tool::result::ToolResult;

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

/// The tools that run commands or change files.
pub const MUTATING: [&str; 4] = ["bash", "write", "edit", "apply_patch"];

/// The tools [`Builtins::approval`] gates: the [`MUTATING`] ones, and `webfetch`, which
/// sends what the model chooses to a server the model chooses.
pub const GATED: [&str; 5] = ["bash", "write", "edit", "webfetch", "apply_patch"];

/// The variables of the process's own environment `bash` passes on to its command
/// (those that are set); every other one is left out, so provider keys and cloud
/// credentials (`OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`, …) never reach a command.
/// [`Builtins::env`] and [`Builtins::inherit_env`] add more. The values are read from
/// the process's environment when the tools are made ([`Builtins::tools`]).
pub const BASH_ENV: [&str; 20] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TZ",
    "TMPDIR",
    // Windows: what programs there need to start at all.
    "SYSTEMROOT",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERPROFILE",
];

/// How many bytes of one file `read`, `edit`, `grep` and `apply_patch` load by default
/// (16 MiB).
pub const DEFAULT_READ_LIMIT: usize = 16 << 20;

/// How many bytes of a command's output `bash` keeps by default (1 MiB).
pub const DEFAULT_OUTPUT_LIMIT: usize = 1 << 20;

/// How many bytes of a response body `webfetch` reads by default (5 MiB).
pub const DEFAULT_FETCH_LIMIT: usize = 5 << 20;

/// Which built-in tools a toolkit gets, and how they may touch the machine.
///
/// [`Builtins::all`] (also the [`Default`]) is the contract's default: all ten, paths
/// relative to the process's working directory, nothing confined, nothing asked; and
/// beyond the contract, `webfetch` reaching public addresses only, `bash` running with
/// the [`BASH_ENV`] variables only, files loaded up to [`DEFAULT_READ_LIMIT`] bytes.
///
/// ```
/// use std::net::{IpAddr, Ipv4Addr};
/// use toolnexus::builtins::Builtins;
///
/// // Paths beneath /srv/repo only; webfetch may also reach one intranet server;
/// // commands get one more variable; files up to 1 MiB.
/// let builtins = Builtins::all()
///     .root("/srv/repo")
///     .allow_address(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 7)))
///     .env("CARGO_TERM_COLOR", "never")
///     .read_limit(1 << 20);
/// // The values of `env` are never printed.
/// assert!(!format!("{builtins:?}").contains("never"));
/// ```
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
    read_limit: usize,
    network: network::Network,
    env: BashEnv,
}

/// The variables the app adds to `bash`'s environment: a value, or `None` to pass the
/// process's own. Its `Debug` shows the names only (the values may be secrets).
#[derive(Clone, Default, PartialEq, Eq)]
struct BashEnv(BTreeMap<String, Option<String>>);

impl fmt::Debug for BashEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl BashEnv {
    /// The environment a command runs with: [`BASH_ENV`]'s variables that are set, then
    /// the app's.
    fn resolve(&self) -> Vec<(String, String)> {
        let mut vars: BTreeMap<String, String> = BASH_ENV
            .iter()
            .filter_map(|name| Some(((*name).to_owned(), std::env::var(name).ok()?)))
            .collect();
        for (name, value) in &self.0 {
            match value {
                Some(value) => {
                    vars.insert(name.clone(), value.clone());
                }
                None => {
                    if let Ok(value) = std::env::var(name) {
                        vars.insert(name.clone(), value);
                    }
                }
            }
        }
        vars.into_iter().collect()
    }
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
            read_limit: DEFAULT_READ_LIMIT,
            network: network::Network::default(),
            env: BashEnv::default(),
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
    /// and every file and folder is opened relative to a directory handle of `dir` (with
    /// cap-std: Linux's `openat2` with `RESOLVE_BENEATH`, or cap-std's own walk of each
    /// component), so the operating system refuses any path that leaves it: `..` above
    /// the root, an absolute path elsewhere, a symlink to outside, a chain of links
    /// however long. A refused path is an error naming it, and nothing is read or
    /// written. Covers `read`, `write`, `edit`, `grep` and `glob` (their `path`, and
    /// every file they open), `bash`'s `workdir` and every file an `apply_patch` names.
    /// Links inside the root that stay inside work; an absolute link is refused even
    /// when it points back inside. `bash`'s command itself can still reach anything the
    /// process can: leave `bash` out, gate it with [`Builtins::approval`], or run the
    /// process in a sandbox, where that matters.
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

    /// With `true`, the [`GATED`] tools (`bash`, `write`, `edit`, `webfetch` and
    /// `apply_patch`) ask before they act, as [`Tool::with_approval`] tools do: a call
    /// first returns a pending request of kind `"approval"` naming the tool and its
    /// arguments, and runs only when executed again with an `ok: true` answer to that
    /// very request.
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

    /// How many bytes of one file `read`, `edit`, `grep` and `apply_patch` load (default
    /// [`DEFAULT_READ_LIMIT`]). `read` and `edit` refuse a longer file with an error
    /// saying so, `apply_patch` refuses a patch of one, and `grep` leaves it out and
    /// names it at the end of its output.
    #[must_use]
    pub fn read_limit(mut self, bytes: usize) -> Self {
        self.read_limit = bytes;
        self
    }

    /// With `true`, `webfetch` may connect to any address. By default it refuses, after
    /// resolving the name and before connecting, every address that is not on the
    /// public internet: loopback (127.0.0.0/8, `::1`), private (10/8, 172.16/12,
    /// 192.168/16), link-local (169.254/16, the cloud metadata address 169.254.169.254
    /// among them, `fe80::/10`), unique-local (`fc00::/7`), unspecified, shared
    /// (100.64/10), multicast and reserved, and these in IPv4-mapped and other embedded
    /// forms. The check applies to the addresses actually connected to (the resolver
    /// drops the refused ones, so a name rebound between two lookups gains nothing), to
    /// URLs with a literal address, and to every redirect hop. Proxies from the
    /// environment (`HTTP_PROXY`, …) are used only with `true`, as a proxy resolves
    /// names itself.
    #[must_use]
    pub fn allow_private_network(mut self, on: bool) -> Self {
        self.network.private = on;
        self
    }

    /// Allows `webfetch` to connect to `ip`, whatever its kind (an intranet server, a
    /// local test server), without allowing the rest of the ranges
    /// [`Builtins::allow_private_network`] opens. Repeat for more.
    #[must_use]
    pub fn allow_address(mut self, ip: IpAddr) -> Self {
        self.network.allowed.insert(ip);
        self
    }

    /// With `true`, `webfetch` follows redirects to another origin (scheme, host and
    /// port) than the URL it was given, each hop checked against the address rules. By
    /// default it follows redirects within that origin only. A redirect from https to
    /// plain http is never followed.
    #[must_use]
    pub fn cross_origin_redirects(mut self, on: bool) -> Self {
        self.network.cross_origin = on;
        self
    }

    /// Sets a variable of `bash`'s environment. A command runs with the [`BASH_ENV`]
    /// variables of the process's environment, and these, nothing else.
    #[must_use]
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.0.insert(name.into(), Some(value.into()));
        self
    }

    /// Passes these variables of the process's own environment on to `bash`'s commands,
    /// beside [`BASH_ENV`] (those that are set when the tools are made).
    #[must_use]
    pub fn inherit_env<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        for name in names {
            self.env.0.insert(name.into(), None);
        }
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
            bash_env: self.env.resolve(),
            output_limit: self.output_limit,
            fetch_limit: self.fetch_limit,
            read_limit: self.read_limit,
        });
        let client = Arc::new(if names.contains(&"webfetch") {
            webfetch::client(&self.network)
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
                if self.approval && GATED.contains(&spec.name) {
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
    client: Arc<Result<webfetch::Fetcher, String>>,
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

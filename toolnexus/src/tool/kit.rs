//! [`Toolkit`]: the registry of tools, their dispatch by name, and their provider forms.

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::schema::listing::Listing;
use crate::schema::profile::Profile;
use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::def::sanitize_name;
use crate::tool::registry::Registration;
use crate::tool::rejected::{RejectedTool, Rejection};
use crate::tool::result::ToolResult;
use crate::tool::span::{End, ToolSpan};
use crate::tool::state::{MissingState, States};
use crate::tool::toolset::IntoToolset;
use crate::tool::{Call, Tool, Toolset};

mod listings;
pub(crate) mod sources;

pub use sources::ServerStatus;

/// The registry: holds tools under unique names, runs them by name, and lists them in
/// each provider's shape.
///
/// ```
/// use serde_json::json;
/// use toolnexus::{Context, Tool, ToolResult, Toolkit};
///
/// let echo = Tool::new_sync("echo", "Echoes `text`.", json!({"type": "object"}), |args, _| {
///     ToolResult::ok(args["text"].as_str().unwrap_or_default())
/// });
/// let toolkit = Toolkit::new().with(echo);
/// assert_eq!(toolkit.tools().len(), 1);
/// assert_eq!(toolkit.to_openai()[0]["function"]["name"], "echo");
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let result = rt.block_on(toolkit.execute_json("echo", r#"{"text":"hi"}"#, Context::default()));
/// assert_eq!(result.output, "hi");
/// let unknown = rt.block_on(toolkit.execute("nope", json!({}), Context::default()));
/// assert_eq!(unknown.output, "Unknown tool: nope");
/// ```
#[derive(Clone, Default)]
pub struct Toolkit {
    tools: Vec<Tool>,
    // Fx: tool names are short and chosen by the developer, so a keyed (DoS-resistant)
    // hash buys nothing here and costs more than the rest of a lookup.
    index: FxHashMap<String, usize>,
    rejected: Vec<RejectedTool>,
    /// The shared states handed to every call (see `Toolkit::with_state`).
    states: Option<Arc<States>>,
    /// The listings, one slot per [`Profile`], built on first use.
    listings: [OnceLock<Listing>; Profile::ALL.len()],
    /// Listings a provider derives from a profile's entries, built on first use: OpenAI's
    /// Responses API (plain, strict) and Bedrock's Converse API.
    derived: [OnceLock<Listing>; 3],
    /// The skills catalog, the MCP servers' statuses and what closes them.
    sources: sources::Sources,
}

impl Toolkit {
    /// An empty toolkit.
    pub fn new() -> Self {
        Toolkit::default()
    }

    /// Every `#[tool]` function linked into the program, collected automatically, in
    /// order of name. `#[toolset]` methods are not among them: they need a value (see
    /// [`Toolkit::with_toolset`]).
    ///
    /// Two functions registering the same name are a clash like any other (see
    /// [`Toolkit::register`]): the first wins, in the order of their Rust paths
    /// (`app::a::search` before `app::b::search`), which is the order `tools![a::search,
    /// b::search]` would give them, so both agree. [`Toolkit::try_registered`] makes the
    /// clash an error instead.
    pub fn registered() -> Self {
        let mut toolkit = Toolkit::new();
        toolkit.extend(registrations());
        toolkit
    }

    /// [`Toolkit::registered`], or every registration refused because its name was taken.
    ///
    /// ```
    /// match toolnexus::Toolkit::try_registered() {
    ///     Ok(toolkit) => println!("{} tools", toolkit.len()),
    ///     Err(clashes) => clashes.iter().for_each(|clash| eprintln!("{clash}")),
    /// }
    /// ```
    pub fn try_registered() -> Result<Self, Vec<RejectedTool>> {
        Toolkit::try_from_tools(registrations())
    }

    /// The toolkit of `tools` (e.g. from [`tools!`](crate::tools)), or every tool refused
    /// (a name taken by an earlier one, or no provider would accept it): the
    /// `Result`-returning twin of `tools.into_iter().collect::<Toolkit>()`.
    pub fn try_from_tools(
        tools: impl IntoIterator<Item = Tool>,
    ) -> Result<Self, Vec<RejectedTool>> {
        let toolkit: Toolkit = tools.into_iter().collect();
        if toolkit.rejected.is_empty() {
            Ok(toolkit)
        } else {
            Err(toolkit.rejected)
        }
    }

    /// Adds a shared state (builder form): every `State<T>` parameter with `T` the type of
    /// `value`, and every [`Context::state::<T>()`](Context::state), receives it. One state
    /// per type; several types coexist; a second value of one type replaces the first.
    ///
    /// ```
    /// use toolnexus::{tool, Context, State, Toolkit};
    ///
    /// struct Greeting(&'static str);
    /// struct Punctuation(char);
    ///
    /// /// Greet someone.
    /// #[tool]
    /// fn greet(g: State<Greeting>, p: State<Punctuation>, name: String) -> Result<String, std::convert::Infallible> {
    ///     Ok(format!("{} {name}{}", g.0, p.0))
    /// }
    ///
    /// let toolkit = Toolkit::new()
    ///     .with_state(Greeting("hello"))
    ///     .with_state(Punctuation('!'))
    ///     .with(greet::tool());
    /// assert!(toolkit.check_states().is_ok());
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let result = rt.block_on(toolkit.execute("greet", serde_json::json!({"name": "Ada"}), Context::default()));
    /// assert_eq!(result.output, "hello Ada!");
    /// ```
    #[must_use]
    pub fn with_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert_state(value);
        self
    }

    /// The shared states every call receives (see [`Toolkit::with_state`]); an MCP server
    /// hands them to resource reads and prompt gets too.
    #[cfg(feature = "mcp")]
    pub(crate) fn states(&self) -> Option<&Arc<States>> {
        self.states.as_ref()
    }

    /// Adds a shared state; see [`Toolkit::with_state`].
    pub fn insert_state<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(self.states.get_or_insert_with(Default::default)).insert(Arc::new(value));
    }

    /// Registers every `#[tool]` method of a `#[toolset]` value, bound to it (builder
    /// form). Takes the value or an `Arc` of it (keep a clone of the `Arc` to reach the
    /// value later). Clashes are handled as in [`Toolkit::with`].
    #[must_use]
    pub fn with_toolset(mut self, toolset: impl IntoToolset) -> Self {
        self.extend(toolset_tools(toolset));
        self
    }

    /// Registers every `#[tool]` method of a `#[toolset]` value, bound to it; the `Err`
    /// lists the tools refused (see [`Toolkit::register`]).
    pub fn register_toolset(&mut self, toolset: impl IntoToolset) -> Result<(), Vec<RejectedTool>> {
        let refused: Vec<RejectedTool> = toolset_tools(toolset)
            .into_iter()
            .filter_map(|tool| self.register(tool).err())
            .collect();
        if refused.is_empty() {
            Ok(())
        } else {
            Err(refused)
        }
    }

    /// Every shared state a registered tool needs and no [`Toolkit::with_state`] gave: one
    /// [`MissingState`] per tool and type, naming both and the fix. Call it once the
    /// toolkit is built, so a missing state is found before any call (a call of such a
    /// tool gives the same text as its error result).
    pub fn check_states(&self) -> Result<(), Vec<MissingState>> {
        let missing: Vec<MissingState> = self
            .tools
            .iter()
            .flat_map(|tool| {
                tool.required_states()
                    .iter()
                    .filter(|ty| !self.states.as_ref().is_some_and(|s| s.has(**ty)))
                    .map(|ty| MissingState::new(tool.name(), *ty))
            })
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(missing)
        }
    }

    /// Adds a tool (builder form). On a name clash the first registration wins; the clash
    /// is logged as a warning and kept in [`Toolkit::rejected`]. Use [`Toolkit::register`]
    /// (or [`Toolkit::try_from_tools`]) to get it as an error.
    #[must_use]
    pub fn with(mut self, tool: Tool) -> Self {
        let _ = self.register(tool);
        self
    }

    /// Adds a tool. On a name clash the tool already registered is kept and the new one
    /// is refused: the `Err` says which name clashed, the clash is logged as a `tracing`
    /// warning, and it is kept in [`Toolkit::rejected`].
    ///
    /// A name that OpenAI and Anthropic would reject (their rule is `^[a-zA-Z0-9_-]{1,64}$`;
    /// names are already sanitized to those characters, so what is left is an empty name or
    /// one longer than 64) is refused the same way, here rather than by the provider.
    ///
    /// The one exception is a built-in tool (`source() == "builtin"`, feature
    /// `builtins`): the contract makes it the lowest-precedence tool, so a tool of any
    /// other source registered under its name replaces it (the new tool goes last).
    pub fn register(&mut self, tool: Tool) -> Result<(), RejectedTool> {
        if let Some(&at) = self.index.get(tool.name())
            && self.tools[at].source() == BUILTIN_SOURCE
            && tool.source() != BUILTIN_SOURCE
        {
            self.tools.remove(at);
            self.index = self
                .tools
                .iter()
                .enumerate()
                .map(|(i, t)| (t.name().to_owned(), i))
                .collect();
        }
        let reason = if !valid_name(tool.name()) {
            Some(Rejection::InvalidName)
        } else {
            self.index.get(tool.name()).map(|&at| Rejection::Duplicate {
                kept_source: self.tools[at].source().to_owned(),
            })
        };
        if let Some(reason) = reason {
            let rejected = RejectedTool { reason, tool };
            tracing::warn!(name = %rejected.name(), "{rejected}");
            self.rejected.push(rejected.clone());
            return Err(rejected);
        }
        self.index.insert(tool.name().to_owned(), self.tools.len());
        self.tools.push(tool);
        self.listings = Default::default();
        self.derived = Default::default();
        Ok(())
    }

    /// The tools, in registration order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool registered under `name`. A tool made under a name with characters the
    /// providers refuse (`run.deploy`, listed as `run_deploy`) is found by either.
    #[inline]
    pub fn get(&self, name: &str) -> Option<&Tool> {
        match self.index.get(name) {
            Some(&at) => Some(&self.tools[at]),
            None => self.get_sanitized(name),
        }
    }

    #[cold]
    fn get_sanitized(&self, name: &str) -> Option<&Tool> {
        let sanitized = sanitize_name(name);
        if sanitized == name {
            return None;
        }
        self.index.get(&sanitized).map(|&at| &self.tools[at])
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The registrations refused because their name was taken.
    pub fn rejected(&self) -> &[RejectedTool] {
        &self.rejected
    }

    /// Runs the tool `name` with parsed arguments. Never panics: an unknown name gives
    /// `Unknown tool: NAME`; see [`Tool::execute`] for the rest.
    #[inline]
    pub fn execute(&self, name: &str, args: Value, ctx: Context) -> Call<'_> {
        self.call(name, Args::Value(args), ctx)
    }

    /// Runs the tool `name` with the raw JSON text of its arguments, as a provider returns
    /// it (`"{\"a\":1}"`). Text that is not JSON gives an error result saying so.
    #[inline]
    pub fn execute_json(&self, name: &str, args: &str, ctx: Context) -> Call<'_> {
        self.call(name, Args::Text(args), ctx)
    }

    /// Runs the tool `name` with [`Args`] of either form.
    #[inline]
    pub fn call(&self, name: &str, args: Args<'_>, ctx: Context) -> Call<'_> {
        match self.get(name) {
            Some(tool) => tool.call(args, ctx.with_toolkit_states(self.states.as_ref())),
            None => {
                let result = ToolResult::error(format!("Unknown tool: {name}"));
                let span = ToolSpan::start(name, ctx.call_id(), &args);
                Call::ready(span.close(result, End::Returned))
            }
        }
    }
}

/// Every `#[tool]` function's tool, in the order of their Rust paths.
fn registrations() -> Vec<Tool> {
    let mut entries: Vec<&Registration> = inventory::iter::<Registration>.into_iter().collect();
    entries.sort_by_key(|r| r.path());
    let mut tools: Vec<Tool> = entries.into_iter().map(Registration::tool).collect();
    // Stable: two tools with one name keep the order of their paths.
    tools.sort_by(|a, b| a.name().cmp(b.name()));
    tools
}

fn toolset_tools(toolset: impl IntoToolset) -> Vec<Tool> {
    fn tools_of<S: Toolset>(set: Arc<S>) -> Vec<Tool> {
        S::tools(set)
    }
    tools_of(toolset.into_shared())
}

impl FromIterator<Tool> for Toolkit {
    fn from_iter<I: IntoIterator<Item = Tool>>(iter: I) -> Self {
        let mut toolkit = Toolkit::new();
        toolkit.extend(iter);
        toolkit
    }
}

impl Extend<Tool> for Toolkit {
    fn extend<I: IntoIterator<Item = Tool>>(&mut self, iter: I) {
        for tool in iter {
            let _ = self.register(tool);
        }
    }
}

impl fmt::Debug for Toolkit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolkit")
            .field(
                "tools",
                &self.tools.iter().map(Tool::name).collect::<Vec<_>>(),
            )
            .field("rejected", &self.rejected)
            .field("states", &self.states)
            .field("sources", &self.sources)
            .finish()
    }
}

/// The source of the contract's built-in tools, which yield to any other tool of
/// their name (see `Toolkit::register`).
const BUILTIN_SOURCE: &str = "builtin";

/// Whether OpenAI and Anthropic accept `name` as a tool name: `^[a-zA-Z0-9_-]{1,64}$`.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

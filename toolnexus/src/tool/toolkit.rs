//! [`Toolkit`]: the registry of tools, their dispatch by name, and their provider forms.

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::schema::listing::Listing;
use crate::schema::profile::{Profile, ProfileError};
use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::registry::Registration;
use crate::tool::rejected::{RejectedTool, Rejection};
use crate::tool::result::ToolResult;
use crate::tool::span::{End, ToolSpan};
use crate::tool::state::{MissingState, States};
use crate::tool::tool::sanitize_name;
use crate::tool::toolset::IntoToolset;
use crate::tool::{Call, Tool, Toolset};

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

    /// Checks every tool's schema against one provider profile, so a schema the provider
    /// would reject is found when the toolkit is built rather than at the first request.
    /// Each error is a refusal ([`ProfileError::is_refusal`]) naming the tool, the place
    /// in its schema and the reason: the profile cannot list the tool. The listings never
    /// fail: a strict listing shows such a tool in its plain form (without
    /// `"strict": true`) when that fits, and every other listing leaves it out (see
    /// [`Toolkit::listing`]).
    ///
    /// A tool whose shared state is missing (see [`Toolkit::with_state`]) is reported too,
    /// as a refusal whose path is `/` and whose message names the type and the fix;
    /// [`Toolkit::check_states`] reports those alone.
    ///
    /// A constraint the listed schema does not enforce is not an error: the tool is listed
    /// and works. [`Toolkit::warnings`] names those. A toolkit that passes `check` and has
    /// no warnings for a profile lists every tool, and every argument object its listing
    /// allows (with integers in the range every JSON reader takes exactly, ±(2^53−1)),
    /// the tools accept.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{Tool, ToolResult, Toolkit, profile::Profile};
    ///
    /// let labels = json!({"type": "object", "properties": {
    ///     "labels": {"type": "object", "additionalProperties": {"type": "string"}}
    /// }});
    /// let toolkit = Toolkit::new().with(Tool::new_sync("tag", "Tags.", labels, |_, _| ToolResult::ok("")));
    /// let errors = toolkit.check(Profile::OpenAiStrict).unwrap_err();
    /// assert_eq!(errors[0].tool(), Some("tag"));
    /// assert_eq!(errors[0].path(), "/properties/labels/additionalProperties");
    /// assert!(toolkit.check(Profile::Anthropic).is_ok());
    /// ```
    pub fn check(&self, profile: Profile) -> Result<(), Vec<ProfileError>> {
        let mut errors: Vec<ProfileError> = self
            .tools
            .iter()
            .filter_map(|tool| tool.entry(profile).error.clone())
            .collect();
        if let Err(missing) = self.check_states() {
            errors.extend(missing.iter().map(|missing| {
                ProfileError::missing_state(profile, missing.tool(), missing.to_string())
            }));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The constraints `profile`'s listing states without enforcing, one per tool and
    /// place (never a refusal): a bound or a format moved into the description, a tuple's
    /// positions, a root union listed as one object. The tool is listed and works, but
    /// the provider may send arguments it then refuses, with an error naming the field.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{Tool, ToolResult, Toolkit, profile::Profile};
    ///
    /// // Anthropic's strict tool use takes no numeric bounds: a `u8` says its range in
    /// // words, which a model reads but the API does not enforce.
    /// let percent = json!({"type": "object", "properties": {
    ///     "percent": {"type": "integer", "minimum": 0, "maximum": 100}
    /// }, "required": ["percent"]});
    /// let toolkit = Toolkit::new().with(Tool::new_sync("dim", "Dims.", percent, |_, _| ToolResult::ok("")));
    /// assert!(toolkit.check(Profile::AnthropicStrict).is_ok());
    /// let warnings = toolkit.warnings(Profile::AnthropicStrict);
    /// assert_eq!(warnings[0].path(), "/properties/percent");
    /// assert!(!warnings[0].is_refusal());
    /// assert!(toolkit.warnings(Profile::Anthropic).is_empty());
    /// ```
    pub fn warnings(&self, profile: Profile) -> Vec<ProfileError> {
        self.tools
            .iter()
            .flat_map(|tool| tool.entry(profile).gaps.iter().cloned())
            .collect()
    }

    /// The tools in `profile`'s provider shape, built once and shared: what
    /// [`Toolkit::to_openai`] (for [`Profile::OpenAi`]) and its siblings return. Cloning
    /// the [`Listing`] is cheap, and its JSON text is serialized once. Registering a tool
    /// builds the listing anew.
    ///
    /// | profile | same value as |
    /// | --- | --- |
    /// | [`Profile::OpenAi`] | [`Toolkit::to_openai`] |
    /// | [`Profile::OpenAiStrict`] | [`Toolkit::to_openai_strict`] |
    /// | [`Profile::Anthropic`] | [`Toolkit::to_anthropic`] |
    /// | [`Profile::AnthropicStrict`] | [`Toolkit::to_anthropic_strict`] |
    /// | [`Profile::Gemini`] | [`Toolkit::to_gemini`] |
    /// | [`Profile::Mcp`] | [`Toolkit::to_mcp`] |
    ///
    /// A tool whose schema the profile cannot express is never listed in a form the
    /// provider would reject (one such tool would fail the whole request): a strict
    /// profile lists its plain form when that fits (see [`Toolkit::to_openai_strict`]),
    /// other profiles leave the tool out, with a `tracing` warning.
    /// [`Toolkit::try_listing`] and [`Toolkit::check`] report it instead.
    pub fn listing(&self, profile: Profile) -> Listing {
        self.listings[profile.slot()]
            .get_or_init(|| {
                let entries = self
                    .tools
                    .iter()
                    .filter_map(|tool| tool.entry(profile).value.clone())
                    .collect();
                Listing::new(match profile {
                    Profile::Gemini => {
                        serde_json::json!([{ "functionDeclarations": Value::Array(entries) }])
                    }
                    _ => Value::Array(entries),
                })
            })
            .clone()
    }

    /// The tools in OpenAI's Responses API shape, `[{"type": "function", "name",
    /// "description", "parameters", "strict"}]`: the entries of [`Profile::OpenAi`] (or of
    /// [`Profile::OpenAiStrict`] when `strict`), flattened, with `strict` always said
    /// (the Responses API makes a function strict when it is left out). Shared and built
    /// once, as [`Toolkit::listing`].
    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub(crate) fn responses_listing(&self, strict: bool) -> Listing {
        self.derived[usize::from(strict)]
            .get_or_init(|| {
                let profile = if strict {
                    Profile::OpenAiStrict
                } else {
                    Profile::OpenAi
                };
                let chat = self.listing(profile);
                let entries = chat.as_array().map(Vec::as_slice).unwrap_or_default();
                let flat = entries
                    .iter()
                    .filter_map(|entry| {
                        let function = entry.get("function")?;
                        let strict = function.get("strict").and_then(Value::as_bool);
                        Some(serde_json::json!({
                            "type": "function",
                            "name": function.get("name")?,
                            "description": function.get("description")?,
                            "parameters": function.get("parameters")?,
                            "strict": strict.unwrap_or(false),
                        }))
                    })
                    .collect();
                Listing::new(Value::Array(flat))
            })
            .clone()
    }

    /// A listing a provider derives from the toolkit (Bedrock's `toolSpec`s), built by
    /// `build` on first use and shared, as [`Toolkit::listing`].
    #[cfg_attr(not(feature = "bedrock"), allow(dead_code))]
    pub(crate) fn derived_listing(&self, build: impl FnOnce(&Toolkit) -> Value) -> Listing {
        self.derived[2]
            .get_or_init(|| Listing::new(build(self)))
            .clone()
    }

    /// [`Toolkit::listing`], or the first tool whose schema `profile` cannot express.
    pub fn try_listing(&self, profile: Profile) -> Result<Listing, ProfileError> {
        for tool in &self.tools {
            if let Some(error) = &tool.entry(profile).error {
                return Err(error.clone());
            }
        }
        Ok(self.listing(profile))
    }

    /// The tools in OpenAI's Chat Completions shape:
    /// `[{"type":"function","function":{"name","description","parameters"}}]`.
    ///
    /// The [`Listing`] is shared (see [`Toolkit::listing`]): it dereferences to the
    /// listing's `Value` and serializes to the same JSON.
    pub fn to_openai(&self) -> Listing {
        self.listing(Profile::OpenAi)
    }

    /// The tools in Anthropic's Messages shape: `[{"name","description","input_schema"}]`.
    /// Shared, as [`Toolkit::to_openai`].
    pub fn to_anthropic(&self) -> Listing {
        self.listing(Profile::Anthropic)
    }

    /// The tools in Gemini's shape:
    /// `[{"functionDeclarations":[{"name","description","parameters"}]}]`. Shared, as
    /// [`Toolkit::to_openai`].
    pub fn to_gemini(&self) -> Listing {
        self.listing(Profile::Gemini)
    }

    /// The tools in OpenAI's Chat Completions shape for strict mode: as
    /// [`Toolkit::to_openai`], with `"strict": true` and the parameters passed through
    /// [`profile::openai_strict`](crate::schema::profile::openai_strict).
    ///
    /// A tool whose schema strict mode cannot express (a map, an untyped value, a root
    /// union, a schema over OpenAI's documented limits) is listed in its plain form,
    /// without `"strict": true`, and a `tracing` warning says why; use
    /// [`Toolkit::try_to_openai_strict`] or [`Toolkit::check`] to get the error instead.
    pub fn to_openai_strict(&self) -> Listing {
        self.listing(Profile::OpenAiStrict)
    }

    /// [`Toolkit::to_openai_strict`], or the first tool whose schema strict mode cannot
    /// express.
    pub fn try_to_openai_strict(&self) -> Result<Listing, ProfileError> {
        self.try_listing(Profile::OpenAiStrict)
    }

    /// The tools in Anthropic's shape for strict tool use: as [`Toolkit::to_anthropic`],
    /// with `"strict": true` and the input schema passed through
    /// [`profile::anthropic_strict`](crate::schema::profile::anthropic_strict). A tool whose schema
    /// does not fit is listed in its plain form, as in [`Toolkit::to_openai_strict`].
    pub fn to_anthropic_strict(&self) -> Listing {
        self.listing(Profile::AnthropicStrict)
    }

    /// [`Toolkit::to_anthropic_strict`], or the first tool whose schema strict tool use
    /// cannot express.
    pub fn try_to_anthropic_strict(&self) -> Result<Listing, ProfileError> {
        self.try_listing(Profile::AnthropicStrict)
    }

    /// [`Toolkit::to_gemini`], or the first tool whose schema Gemini's `parameters` cannot
    /// express (a recursive type, a map, an untyped value). `to_gemini` leaves such a tool
    /// out.
    pub fn try_to_gemini(&self) -> Result<Listing, ProfileError> {
        self.try_listing(Profile::Gemini)
    }

    /// The tools as MCP `tools/list` entries: `[{"name","description","inputSchema"}]`.
    /// Shared, as [`Toolkit::to_openai`].
    pub fn to_mcp(&self) -> Listing {
        self.listing(Profile::Mcp)
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

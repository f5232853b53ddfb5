//! # toolnexus
//!
//! Turn ordinary Rust functions into tools an LLM can call. Put [`#[tool]`](macro@tool) on
//! a function: toolnexus derives the JSON schema of its arguments from the signature and
//! the doc comments, lists it in every provider's shape (OpenAI, Anthropic, Gemini, MCP),
//! runs the model's calls by name, and hands back one result type, [`ToolResult`], for
//! success, failure and human-in-the-loop suspension.
//!
//! ```
//! use toolnexus::{tool, Context, Toolkit};
//!
//! /// Add two numbers.
//! #[tool]
//! fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! ) -> Result<i64, std::convert::Infallible> {
//!     Ok(a + b)
//! }
//!
//! // A function becomes a tool...
//! let toolkit: Toolkit = toolnexus::tools![add].into_iter().collect();
//!
//! // ...is listed, in the `tools` array a provider request carries...
//! let listed = toolkit.to_openai();
//! assert_eq!(listed[0]["function"]["name"], "add");
//! assert_eq!(listed[0]["function"]["description"], "Add two numbers.");
//! assert_eq!(
//!     listed[0]["function"]["parameters"]["properties"]["a"]["description"],
//!     "The first addend."
//! );
//!
//! // ...and is called with the model's arguments, given as JSON text.
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let result = rt.block_on(toolkit.execute_json("add", r#"{"a": 2, "b": 3}"#, Context::default()));
//! assert_eq!(result.output, "5");
//! assert!(!result.is_error);
//!
//! // Bad arguments never reach the function: the model gets an error naming the field.
//! let bad = rt.block_on(toolkit.execute_json("add", r#"{"a": "two"}"#, Context::default()));
//! assert!(bad.is_error);
//! ```
//!
//! The [guide](_guide) tells the rest, chapter by chapter, with examples that run as tests.
//!
//! ## The map of the crate
//!
//! The root holds what a first program needs: [`#[tool]`](macro@tool),
//! [`#[toolset]`](macro@toolset) and [`tools!`] to make tools, [`Toolkit`] to list and run
//! them, [`ToolResult`], [`Request`] / [`Answer`] / [`Suspend`] for a human in the loop,
//! and [`Client`] to run a [`Model`] over them. Everything else lives in the module whose
//! path is its folder, in the order data flows through the crate:
//!
//! - [`tool`](mod@tool): the tool layer. [`Tool`] (a name, a description, an argument
//!   schema and a handler), [`Context`], [`State`], what a tool returns ([`ToolResult`],
//!   [`Json`], [`ContentPart`], [`Suspend`], and the `Into…` traits behind them),
//!   talking back to the caller while a tool runs, and the [`Toolkit`] that runs calls by
//!   name ([`Toolkit::execute`], [`Toolkit::execute_json`]).
//! - [`dispatch`]: the plumbing below [`Tool::new`], for wrapping or writing tools by
//!   hand, and [`dispatch::resume`], which finishes a halted turn's calls without a model.
//! - [`schema`]: the JSON schema of each tool and how it is listed per provider
//!   ([`schema::profile`], [`schema::Listing`]).
//! - [`agent`]: the tool-calling loop. [`Client`] runs the model's calls, answers
//!   suspensions through a `wait_for` slot or halts so the run can be
//!   [resumed](Client::resume) later, and returns a [`RunResult`];
//!   [`agent::Hooks`] and [`Event`]s watch and steer it; [`Client::as_tool`] runs an
//!   agent as a tool of another; [`ModelSettings`] set temperature, tool choice,
//!   reasoning and the rest, per model or per client.
//! - `providers` (features `openai`, `anthropic`, `gemini`, `bedrock`): real models over
//!   HTTP, `OpenAi` and `OpenAiResponses` (and every OpenAI-compatible server, Azure
//!   OpenAI too), `Anthropic`, `Gemini` and Amazon `Bedrock`, each a [`Model`] with
//!   retries, timeouts and streaming, and `ModelConfig`, the contract's unified client
//!   config.
//! - `store` (features `sqlite`, `postgres`): durable runs that outlive a crash.
//! - [`#[resource]`](macro@resource) and [`#[prompt]`](macro@prompt): MCP's other two
//!   primitives, [`primitive::Resource`]s (data read by URI) and [`primitive::Prompt`]s
//!   (message templates), defined like tools.
//! - `mcp` (feature `mcp`, OAuth logins with `mcp-auth`): an MCP server for any
//!   [`Toolkit`], its resources and prompts, and `McpClient` for other servers' tools,
//!   resources and prompts.
//! - `source` (features `mcp`, `skills`, `http-tools`): tools from an MCP config file,
//!   Agent Skills folders and HTTP endpoints.
//! - `search` (feature `search`): BM25 tool search, in the loop too.
//! - `builtins` (feature `builtins`): the contract's ten built-in tools (`bash`, `read`,
//!   `write`, `edit`, `grep`, `glob`, `webfetch`, `question`, `apply_patch`, `todowrite`),
//!   with `Toolkit::with_builtins`.
//! - `translate` (with any provider feature): the contract's single-turn translation,
//!   OpenAI's `messages`, `tools` and `tool_choice` in, one model call, OpenAI's shapes
//!   out; no loop, no tool runs.
//! - `web` (features `mcp`, `a2a`, `ui`): the `Host`, `Origin` and body checks every
//!   HTTP surface makes, configured with `WebGuard`, and the accept loop the MCP and A2A
//!   servers share (one `ShutdownHandle`).
//! - `code` (feature `code-mode`): code mode, one `run_code` tool whose JavaScript
//!   script, run in-process by QuickJS under limits, calls the toolkit's tools.
//! - [`trace`]: the spans' names and attributes; `otel` (feature `otel`) exports them.
//!
//! Optional modules carry the feature they need on docs.rs.

// docs.rs builds with `--cfg docsrs` (see `[package.metadata.docs.rs]`): every item behind a
// cargo feature then says which one. `doc_cfg` shows the features on its own since
// `doc_auto_cfg` was folded into it; it is unstable, so CI's build of these docs on the
// stable toolchain sets RUSTC_BOOTSTRAP=1.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

#[cfg(feature = "a2a")]
pub mod a2a;
pub mod agent;
pub mod agents;
#[cfg(feature = "builtins")]
pub mod builtins;
#[cfg(feature = "code-mode")]
#[cfg_attr(docsrs, doc(cfg(feature = "code-mode")))]
pub mod code;
pub mod dispatch;
// `${NAME}` expansion of header values (MCP configs, HTTP tools, model configs, A2A).
pub mod _guide;
#[cfg(any(
    feature = "mcp",
    feature = "http-tools",
    feature = "__http",
    feature = "a2a"
))]
mod env;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
#[cfg(feature = "otel")]
pub mod otel;
pub mod primitive;
#[cfg(feature = "__http")]
#[cfg_attr(
    docsrs,
    doc(cfg(any(
        feature = "openai",
        feature = "anthropic",
        feature = "gemini",
        feature = "bedrock"
    )))
)]
pub mod providers;
#[cfg(feature = "restate")]
#[cfg_attr(docsrs, doc(cfg(feature = "restate")))]
pub mod restate;
pub mod schema;
#[cfg(feature = "search")]
pub mod search;
#[cfg(any(
    feature = "mcp",
    feature = "skills",
    feature = "http-tools",
    feature = "a2a"
))]
pub mod source;
#[cfg(feature = "__store")]
#[cfg_attr(docsrs, doc(cfg(any(feature = "sqlite", feature = "postgres"))))]
pub mod store;
#[cfg(any(feature = "__store", feature = "mcp", feature = "a2a"))]
mod time;
pub mod tool;
pub mod trace;
#[cfg(feature = "__http")]
pub mod translate;
#[cfg(feature = "ui")]
#[cfg_attr(docsrs, doc(cfg(feature = "ui")))]
pub mod ui;
#[cfg(feature = "__web")]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "mcp", feature = "a2a", feature = "ui")))
)]
pub mod web;

// What a first program needs; everything else is in the module whose path matches its
// folder (`tool`, `model`, `agent`, `schema`, `dispatch`, …).
pub use agent::{Client, Compaction, Event, RunResult, RunStatus};
pub use model::{
    Message, Model, ModelError, ModelSettings, Reasoning, Reply, ScriptedModel, ToolCall,
    ToolChoice, Usage, UserContent,
};
pub use tool::{
    Answer, ContentPart, Context, Json, Request, State, Suspend, Tool, ToolResult, Toolkit, Toolset,
};

/// Turns a function into a tool.
///
/// ```
/// use toolnexus::{tool, Context, Suspend, Toolkit};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(
///     /// The first addend.
///     a: i64,
///     /// The second addend.
///     b: i64,
/// ) -> Result<i64, std::convert::Infallible> {
///     Ok(a + b)
/// }
///
/// /// Deploy the service; asks which environment when none is given.
/// #[tool(name = "deploy_service")]
/// async fn deploy(env: Option<String>, ctx: &Context) -> Result<String, Suspend> {
///     let answered = ctx.answer().and_then(|a| a.text()).map(str::to_owned);
///     match env.or(answered) {
///         Some(env) => Ok(format!("deployed to {env}")),
///         None => Err(Suspend::input("Which environment?")),
///     }
/// }
///
/// // The function is still an ordinary function.
/// assert_eq!(add(2, 3).unwrap(), 5);
///
/// let tool = add::tool();
/// assert_eq!(tool.name(), "add");
/// assert_eq!(tool.description(), "Add two numbers.");
/// assert_eq!(tool.input_schema()["properties"]["a"]["description"], "The first addend.");
///
/// let toolkit = Toolkit::new().with(add::tool()).with(deploy::tool());
/// assert_eq!(toolkit.get("deploy_service").unwrap().source(), "native");
/// ```
///
/// - Name: the function's name, or `#[tool(name = "…")]` (letters, digits, `_`, `-`; at
///   most 64 characters). Description: the doc comment (all paragraphs, markdown kept), or
///   `#[tool(description = "…")]`. Each parameter's doc comment describes its property.
/// - Parameters: any type that is `Deserialize + JsonSchema`; `Option<T>` is not required
///   (absent or `null` read as `None`); `#[serde(…)]` and `#[schemars(…)]` on a parameter
///   apply to its property (e.g. `#[serde(default)]`). Unknown properties are rejected.
/// - `#[args] q: Query`: the one parameter that stands for the whole argument object; the
///   schema is `Query`'s own.
/// - A `&Context` or `Context` parameter is injected, never part of the schema
///   (`#[context]` marks one whose type is an alias); so is a [`State<T>`] parameter,
///   from [`Toolkit::with_state`].
/// - Return types: see [`IntoToolResult`](tool::IntoToolResult); `()` and `Result<(), E>` are accepted too (an
///   empty success).
/// - `#[tool(crate = "path::to::toolnexus")]` when toolnexus is re-exported.
///
/// `NAME::tool()` returns the [`Tool`], built once; [`tools!`] gathers several, and
/// [`Toolkit::registered`] collects every `#[tool]` function linked into the program.
pub use toolnexus_macros::tool;

/// Turns the `#[tool]` methods (and associated functions) of an `impl` block into tools
/// bound to a value: the block gains an implementation of [`Toolset`], and
/// [`Toolkit::with_toolset`] registers them.
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::{Arc, Mutex};
/// use toolnexus::{tool, toolset, Context, Toolkit};
///
/// #[derive(Default)]
/// struct Store {
///     entries: Mutex<HashMap<String, String>>,
/// }
///
/// #[toolset]
/// impl Store {
///     /// Remember a value under a key.
///     #[tool]
///     fn put(&self, /** The key. */ key: String, value: String) -> Result<(), std::convert::Infallible> {
///         self.entries.lock().unwrap_or_else(|e| e.into_inner()).insert(key, value);
///         Ok(())
///     }
///
///     /// Recall the value under a key.
///     #[tool(name = "get_value")]
///     async fn get(&self, key: String) -> Result<String, String> {
///         let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
///         entries.get(&key).cloned().ok_or_else(|| format!("no value under `{key}`"))
///     }
/// }
///
/// let store = Arc::new(Store::default());
/// let toolkit = Toolkit::new().with_toolset(Arc::clone(&store));
/// assert_eq!(toolkit.to_openai()[1]["function"]["name"], "get_value");
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// rt.block_on(toolkit.execute("put", serde_json::json!({"key": "k", "value": "v"}), Context::default()));
/// assert_eq!(store.entries.lock().unwrap()["k"], "v");
/// ```
///
/// - `#[tool]` goes on `&self` methods (sync or `async`) and on associated functions
///   without `self`; the parameters, docs, `name` / `description` keys and return types
///   are those of a free `#[tool]` function, `Context` and `State<T>` included.
/// - `&mut self` and `self` by value are refused: the value is shared between concurrent
///   calls (use interior mutability, e.g. a `Mutex`).
/// - Generic blocks work (`impl<D: Db> Service<D>`): the `Toolset` implementation exists
///   when the type is `Send + Sync + 'static`.
/// - The methods stay ordinary methods, and are not collected by
///   [`Toolkit::registered`] (they need a value).
/// - `#[toolset(crate = "path::to::toolnexus")]` when toolnexus is re-exported.
pub use toolnexus_macros::toolset;

/// `tools![f, module::g]` is `vec![f::tool(), module::g::tool()]`: the [`Tool`]s of several
/// `#[tool]` functions.
///
/// ```
/// use toolnexus::{tool, tools, Toolkit};
///
/// /// Say hello.
/// #[tool]
/// fn hello(name: String) -> Result<String, std::convert::Infallible> {
///     Ok(format!("hello {name}"))
/// }
///
/// mod math {
///     /// Negate a number.
///     #[toolnexus::tool]
///     pub fn negate(x: i64) -> Result<i64, std::convert::Infallible> {
///         Ok(-x)
///     }
/// }
///
/// let toolkit: Toolkit = tools![hello, math::negate].into_iter().collect();
/// assert_eq!(toolkit.len(), 2);
/// ```
pub use toolnexus_macros::tools;

/// Turns a function into an MCP resource: data a client reads by URI, at a fixed URI or
/// at every URI of a template whose `{variables}` are the function's parameters.
///
/// ```
/// use toolnexus::{resource, Context, Json};
/// use toolnexus::primitive::{Resource, ResourceError};
///
/// /// The project's README.
/// #[resource(uri = "docs://readme", mime_type = "text/markdown")]
/// fn readme() -> &'static str {
///     "# toolnexus"
/// }
///
/// /// One user's profile.
/// #[resource(uri = "users://{id}/profile", name = "profile")]
/// async fn profile(/** The user's id. */ id: u64) -> Result<Json<serde_json::Value>, ResourceError> {
///     match id {
///         1 => Ok(Json(serde_json::json!({"id": 1, "name": "Ada"}))),
///         _ => Err(ResourceError::not_found(format!("users://{id}/profile"))),
///     }
/// }
///
/// let readme = readme::resource();
/// assert_eq!((readme.uri(), readme.name()), ("docs://readme", "readme"));
/// assert_eq!(readme.description(), "The project's README.");
/// assert!(profile::resource().is_template());
///
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let read = rt.block_on(profile::resource().read("users://1/profile", Context::default()));
/// let contents = read.unwrap();
/// assert_eq!(contents[0].mime_type(), Some("application/json"));
/// assert_eq!(contents[0].as_text(), Some(r#"{"id":1,"name":"Ada"}"#));
/// let bad = rt.block_on(profile::resource().read("users://ada/profile", Context::default()));
/// assert!(bad.unwrap_err().to_string().contains("id: invalid type"));
/// ```
///
/// - `uri = "…"` (required): a URI with a scheme, or an RFC 6570 level-1 template
///   (`{name}` variables, each a parameter of the function and each parameter a variable).
///   A variable's text is read as its parameter's type: `String`, a number, a boolean, an
///   enum deriving `Deserialize + JsonSchema`…
/// - `name = "…"` (the function's name otherwise), `title = "…"`, `description = "…"`
///   (the doc comment otherwise), `mime_type = "…"` (the contents' MIME type unless they
///   say otherwise), `crate = "…"`.
/// - `#[complete(values = ["…", …])]` or `#[complete(with = function)]` on a parameter
///   completes its variable (`completion/complete`); an enum parameter completes from its
///   values.
/// - A `&Context` / `Context` parameter and `State<T>` parameters are injected, as for
///   tools (`McpServer` hands the toolkit's states to every read).
/// - Return types: see [`IntoResourceContents`](primitive::IntoResourceContents): text, bytes, `Json<T>`,
///   [`ResourceContents`](primitive::ResourceContents), and `Result`s of them.
///
/// `NAME::resource()` returns the [`Resource`](primitive::Resource); [`resources!`] gathers several, and
/// [`Resource::registered`](primitive::Resource::registered) collects every `#[resource]` function linked into the program.
pub use toolnexus_macros::resource;

/// Turns a function into an MCP prompt: a message template a client fills in, whose
/// arguments are the function's parameters.
///
/// ```
/// use toolnexus::{prompt, Context};
/// use toolnexus::primitive::{PromptMessage, ResourceContents};
///
/// /// Review a piece of code.
/// #[prompt(name = "code_review")]
/// fn review(
///     /// The code to review.
///     code: String,
///     /// What to look at first.
///     #[complete(values = ["bugs", "style", "speed"])]
///     focus: Option<String>,
/// ) -> Vec<PromptMessage> {
///     vec![
///         PromptMessage::user(ResourceContents::text(code).with_uri("file:///snippet.rs")),
///         PromptMessage::user(format!("Review the code above, {}.", focus.as_deref().unwrap_or("bugs first"))),
///     ]
/// }
///
/// let prompt = review::prompt();
/// assert_eq!(prompt.name(), "code_review");
/// assert_eq!(prompt.arguments()[0].description.as_deref(), Some("The code to review."));
/// assert!(prompt.arguments()[0].required && !prompt.arguments()[1].required);
///
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let reply = rt.block_on(prompt.get([("code", "fn main() {}"), ("focus", "style")], Context::default()));
/// assert_eq!(reply.unwrap().messages[1].text(), Some("Review the code above, style."));
/// let offered = prompt.complete(&toolnexus::primitive::CompletionRequest::new("focus", "s"));
/// assert_eq!(offered.values, ["style", "speed"]);
/// ```
///
/// - Arguments: each parameter, described by its doc comment; required unless it is an
///   `Option`. MCP sends them as text; a parameter of another type reads the text as its
///   type (`"3"` for a `u32`). `#[args]` takes the whole argument object as one struct.
/// - `name = "…"` (the function's name otherwise), `title = "…"`, `description = "…"`
///   (the doc comment otherwise), `crate = "…"`.
/// - `#[complete(values = ["…", …])]` or `#[complete(with = function)]` on a parameter
///   completes its argument; an enum parameter completes from its values.
/// - A `&Context` / `Context` parameter and `State<T>` parameters are injected.
/// - Return types: see [`IntoPromptReply`](primitive::IntoPromptReply): text (one user message), [`PromptMessage`](primitive::PromptMessage)s
///   (text, images, embedded resources), [`PromptReply`](primitive::PromptReply), and `Result`s of them.
///
/// `NAME::prompt()` returns the [`Prompt`](primitive::Prompt); [`prompts!`] gathers several, and
/// [`Prompt::registered`](primitive::Prompt::registered) collects every `#[prompt]` function linked into the program.
pub use toolnexus_macros::prompt;

/// `resources![f, module::g]` is `vec![f::resource(), module::g::resource()]`: the
/// [`Resource`](primitive::Resource)s of several `#[resource]` functions.
pub use toolnexus_macros::resources;

/// `prompts![f, module::g]` is `vec![f::prompt(), module::g::prompt()]`: the [`Prompt`](primitive::Prompt)s
/// of several `#[prompt]` functions.
pub use toolnexus_macros::prompts;

/// The README's examples, compiled and run as doc tests so they stay true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// What `#[tool]` expansions use. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::primitive::expansion::{
        Complete, PromptParam, PromptReturns, PromptSpec, ResourceParam, ResourceReturns,
        ResourceSpec, assert_prompt_param, assert_resource_param, cached_prompt, cached_resource,
        completions, native_prompt, native_resource, params_prompt, params_resource, prompt_boxed,
        prompt_missing, prompt_ready, prompt_returns, resource_boxed, resource_missing,
        resource_ready, resource_returns,
    };
    pub use crate::primitive::prompt::{GetFuture, PromptRegistration};
    pub use crate::primitive::resource::{ReadFuture, ResourceRegistration};
    pub use crate::schema::canonical::schema_for;
    pub use crate::tool::expansion::{
        Params, Returned, Returns, StateParam, ToolParam, UnitOk, ViaTrait, ViaUnit, assert_param,
        assert_state, boxed, cached, method_params_tool, method_tool, missing, native_tool,
        params_tool, ready, require_states, returns, state,
    };
    pub use crate::tool::registry::Registration;
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use std::sync::Arc;
    pub use std::sync::OnceLock;
}

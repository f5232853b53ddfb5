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
//! The [guide] tells the rest, chapter by chapter, with examples that run as tests.
//!
//! ## The map of the crate
//!
//! In the order data flows through it:
//!
//! - Authoring: [`#[tool]`](macro@tool) on functions, [`#[toolset]`](macro@toolset) on
//!   the methods of an `impl` block, [`tools!`] to gather them; [`Tool`] (a name, a
//!   description, an argument schema and a handler) for tools written by hand, with
//!   [`dispatch`] for the plumbing below it.
//! - [`Toolkit`]: the registry; runs calls by name ([`Toolkit::execute`],
//!   [`Toolkit::execute_json`]) and lists the tools per provider ([`profile`], [`Listing`]).
//! - [`ToolResult`]: what every call returns; [`ContentPart`] carries images, PDFs and
//!   audio beside the text.
//! - [`Request`] / [`Answer`] / [`Suspend`]: a tool that cannot finish without a human
//!   returns [`Suspend`]; the host answers the [`Request`] and the tool runs again with the
//!   [`Answer`] in its [`Context`].
//! - [`Client`]: the tool-calling loop over any [`Model`]. It runs the model's calls,
//!   answers suspensions through a `wait_for` slot or halts so the run can be
//!   [resumed](Client::resume) later, and returns a [`RunResult`]; [`Hooks`] and [`Event`]s
//!   watch and steer it; [`Client::as_tool`] runs an agent as a tool of another.
//! - `providers` (features `openai`, `anthropic`, `gemini`, `bedrock`): real models over
//!   HTTP, `OpenAi` (and every OpenAI-compatible server, Azure OpenAI too), `Anthropic`,
//!   `Gemini` and Amazon `Bedrock`, each a [`Model`] with retries, timeouts and
//!   streaming, and `ModelConfig`, the contract's unified client config.
//! - `store` (features `sqlite`, `postgres`): durable runs that outlive a crash.
//! - `mcp` (feature `mcp`, OAuth logins with `mcp-auth`): an MCP server for any
//!   [`Toolkit`], and `McpClient` for other servers' tools.
//! - `source` (features `mcp`, `skills`, `http-tools`): tools from an MCP config file,
//!   Agent Skills folders and HTTP endpoints.
//! - `search` (feature `search`): BM25 tool search, in the loop too.
//! - `builtins` (feature `builtins`): the contract's ten built-in tools (`bash`, `read`,
//!   `write`, `edit`, `grep`, `glob`, `webfetch`, `question`, `apply_patch`, `todowrite`),
//!   with `Toolkit::with_builtins`.
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

mod agent;
#[cfg(feature = "builtins")]
pub mod builtins;
// `${NAME}` expansion of header values (MCP configs, HTTP tools, model configs).
#[cfg(any(feature = "mcp", feature = "http-tools", feature = "__http"))]
mod env;
pub mod guide;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "otel")]
pub mod otel;
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
mod schema;
#[cfg(feature = "search")]
pub mod search;
#[cfg(any(feature = "mcp", feature = "skills", feature = "http-tools"))]
pub mod source;
#[cfg(feature = "__store")]
#[cfg_attr(docsrs, doc(cfg(any(feature = "sqlite", feature = "postgres"))))]
pub mod store;
mod tool;
pub mod trace;

pub use schema::profile;

/// Dispatch plumbing, for wrapping or writing tools below [`Tool::new`]: the handler a
/// tool runs ([`Handler`](dispatch::Handler), given [`Args`](dispatch::Args) and
/// returning a [`Dispatch`](dispatch::Dispatch)), the one boxed future type, and the
/// names toolnexus gives to tools and suspensions.
pub mod dispatch {
    pub use crate::tool::args::{Args, ArgsError};
    pub use crate::tool::call::{BoxFuture, Dispatch, Handler, ready};
    pub use crate::tool::result::{PENDING_KEY, STRUCTURED_KEY};
    pub use crate::tool::tool::sanitize_name;
}

pub use agent::as_tool::{AGENT_KEY, AGENT_STATE_KEY, DEFAULT_MAX_DEPTH};
pub use agent::client::{Client, DEFAULT_MAX_TURNS, IntoWaitOutcome};
pub use agent::events::Event;
pub use agent::hooks::{HookFuture, Hooks, ToolDecision};
pub use agent::message::{Message, NativeTurn, ToolCall};
pub use agent::model::{
    Delta, DeltaSink, FinishReason, FnModel, Model, ModelError, ModelFuture, Reply, ScriptedModel,
    Usage,
};
pub use agent::resume::{ResumeError, Resumed, resume};
pub use agent::run::{CallRecord, CallStatus, RunResult, RunStatus, StopReason};
pub use agent::settings::{ModelSettings, Reasoning, ToolChoice};
pub use schema::listing::Listing;
pub use tool::caller::{
    Caller, DEFAULT_SAMPLING_MAX_TOKENS, LogLevel, Sampled, Sampling, SamplingError,
    SamplingMessage, SamplingRole,
};
pub use tool::content::{ContentError, ContentPart, PartKind};
pub use tool::context::{CancellationToken, Context};
pub use tool::rejected::{RejectedTool, Rejection};
pub use tool::request::{Answer, Request, Suspend};
pub use tool::result::ToolResult;
pub use tool::returns::{Error, IntoToolError, IntoToolOutput, IntoToolResult, Json};
pub use tool::state::{MissingState, State, StateType};
pub use tool::toolkit::Toolkit;
pub use tool::toolset::IntoToolset;
pub use tool::{Call, Tool, Toolset};

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
/// - Return types: see [`IntoToolResult`]; `()` and `Result<(), E>` are accepted too (an
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

/// The README's examples, compiled and run as doc tests so they stay true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// What `#[tool]` expansions use. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
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

//! # toolnexus
//!
//! Turn ordinary Rust functions into tools an LLM can call: a JSON schema for the
//! arguments, every provider's tool shape (OpenAI, Anthropic, Gemini, MCP), dispatch of the
//! model's calls by name, and one result type, [`ToolResult`], for success, failure and
//! human-in-the-loop suspension.
//!
//! The pieces, in the order data flows through them:
//!
//! - [`Tool`]: a name, a description, an argument schema and a handler.
//! - [`Toolkit`]: the registry; runs calls by name and lists the tools per provider.
//! - [`ToolResult`]: what every call returns; [`ContentPart`] carries images, PDFs and
//!   audio beside the text.
//! - [`Request`] / [`Answer`] / [`Suspend`]: a tool that cannot finish without a human
//!   returns [`Suspend`]; the host answers the [`Request`] and the tool runs again with the
//!   [`Answer`] in its [`Context`].
//!
//! ```
//! use serde_json::json;
//! use toolnexus::{Context, Tool, ToolResult, Toolkit};
//!
//! let add = Tool::new_sync(
//!     "add",
//!     "Add two numbers.",
//!     json!({
//!         "type": "object",
//!         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!         "required": ["a", "b"],
//!     }),
//!     |args, _ctx| match (args["a"].as_i64(), args["b"].as_i64()) {
//!         (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
//!         _ => ToolResult::error("add: `a` and `b` must be integers"),
//!     },
//! );
//! let toolkit = Toolkit::new().with(add);
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let result = rt.block_on(toolkit.execute_json("add", r#"{"a": 2, "b": 3}"#, Context::default()));
//! assert_eq!(result, ToolResult::ok("5"));
//! ```

mod adapters;
mod args;
mod content;
mod context;
#[cfg(feature = "mcp")]
pub mod mcp;
mod registry;
mod request;
mod result;
mod tool;
mod toolkit;

pub use args::{Args, ArgsError};
pub use content::{ContentError, ContentPart, PartKind};
pub use context::{CancellationToken, Context};
pub use request::{Answer, Request, Suspend};
pub use result::{PENDING_KEY, ToolResult};
pub use tool::{BoxFuture, Dispatch, Handler, Tool, sanitize_name};
pub use toolkit::{DuplicateTool, Toolkit};

/// The README's examples, compiled and run as doc tests so they stay true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// What `#[tool]` expansions use. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::registry::Registration;
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

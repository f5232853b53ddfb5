//! Tool authoring and dispatch: the [`Tool`] value, its arguments and [`Context`], what it
//! returns ([`ToolResult`], [`Suspend`], [`ContentPart`]) and the [`Toolkit`] that runs
//! tools by name.
//!
//! This layer knows nothing of the agent loop or MCP; both are built on it.

pub(crate) mod approval;
pub(crate) mod args;
pub(crate) mod call;
pub(crate) mod caller;
pub(crate) mod content;
pub(crate) mod context;
pub(crate) mod expansion;
pub(crate) mod params;
pub(crate) mod registry;
pub(crate) mod rejected;
pub(crate) mod request;
pub(crate) mod result;
pub(crate) mod returns;
pub(crate) mod state;
#[allow(clippy::module_inception)]
pub(crate) mod tool;
pub(crate) mod toolkit;
pub(crate) mod toolset;

pub use call::Call;
pub(crate) use call::Dispatch;
pub use tool::Tool;
pub use toolset::Toolset;

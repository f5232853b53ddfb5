//! Many tools: find the few a task needs in a large toolkit, locally, with no model.
//!
//! A toolkit that gathers a few MCP servers reaches hundreds of tools, and every model
//! request carries every tool's schema. This module ranks tools for a query so that a run
//! can show the model only what it needs:
//!
//! - [`ToolIndex`]: built once from a [`Toolkit`](crate::Toolkit), searched many times.
//!   It ranks with [`Bm25`] over each tool's [`document`] (name, description, parameter
//!   names and descriptions), or with any [`Ranker`] (an embedding model, say).
//! - [`ToolSearch`]: the options of tool search in the loop
//!   ([`Client::tool_search`](crate::Client::tool_search)): each turn lists a small
//!   always-visible set plus a built-in `search_tools` tool, and the tools a search finds
//!   join the listing of the following turns of the run.
//!
//! ```
//! use serde_json::json;
//! use toolnexus::search::ToolIndex;
//! use toolnexus::{Tool, ToolResult, Toolkit};
//!
//! let tool = |name: &str, description: &str| {
//!     Tool::new_sync(name, description, json!({"type": "object"}), |_, _| ToolResult::ok(""))
//! };
//! let toolkit = Toolkit::new()
//!     .with(tool("get_weather", "Current weather for a city."))
//!     .with(tool("order_coffee", "Orders a drink from the coffee shop."))
//!     .with(tool("update_order", "Changes an order that was placed earlier."));
//! let index = ToolIndex::new(&toolkit);
//! let hits = index.search("change an order I placed", 2);
//! assert_eq!(hits[0].name(), "update_order");
//! assert_eq!(hits.len(), 2);
//! ```

mod bm25;
mod builtin;
mod index;
mod options;
mod rank;

pub use bm25::Bm25;
pub use builtin::SEARCH_TOOL;
pub use index::{Hit, ToolIndex, document};
pub use options::{DEFAULT_RESULTS, ToolSearch};
pub use rank::Ranker;

pub(crate) use builtin::named;

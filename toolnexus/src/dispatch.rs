//! Dispatch plumbing, for wrapping or writing tools below [`Tool::new`](crate::Tool::new):
//! the handler a tool runs ([`Handler`], given [`Args`] and returning a [`Dispatch`]), the
//! one boxed future type, and the names toolnexus gives to tools and suspensions; and
//! [`resume`], which finishes a halted turn's tool calls without a model.
//!
//! A facade: its items live in the tool layer (`tool/`), and [`resume`] in the loop's
//! (`agent/`), which runs a turn's calls; this module gathers what code one level below
//! `#[tool]` needs, so that neither layer's public module carries the other's.

pub use crate::agent::entry::resume;
pub use crate::agent::resume::Resumed;
pub use crate::tool::args::{Args, ArgsError};
pub use crate::tool::call::ready;
pub use crate::tool::def::sanitize_name;
pub use crate::tool::handler::{BoxFuture, Dispatch, Handler};
pub use crate::tool::result::{PENDING_KEY, STRUCTURED_KEY};

//! Tools: the [`Tool`] value, its [`Context`], what it returns ([`ToolResult`],
//! [`Suspend`], [`ContentPart`], [`Json`]) and the [`Toolkit`] that runs tools by name.
//!
//! The crate root re-exports what a first program needs ([`Tool`], [`Toolkit`],
//! [`Toolset`], [`ToolResult`], [`ContentPart`], [`Context`], [`State`], [`Json`],
//! [`Request`], [`Answer`], [`Suspend`]); the rest of the layer is here:
//!
//! - return types: [`IntoToolResult`] (every form a `#[tool]` function may return), with
//!   [`IntoToolOutput`] and [`IntoToolError`] for the two sides of a `Result`, and
//!   [`Error`], which `?` fills from any error and which can carry a [`Suspend`];
//! - talking back to the caller while a tool runs: [`Caller`], [`LogLevel`], sampling
//!   ([`Sampling`], [`SamplingMessage`], [`SamplingRole`], [`Sampled`],
//!   [`SamplingError`], [`DEFAULT_SAMPLING_MAX_TOKENS`]);
//! - a call's cancellation, [`CancellationToken`];
//! - shared state: [`StateType`] and [`MissingState`] beside [`State`];
//! - the toolkit's bookkeeping: [`Call`] (the future of one call), [`IntoToolset`],
//!   [`RejectedTool`] and [`Rejection`];
//! - [`ContentError`] and [`PartKind`] beside [`ContentPart`].
//!
//! The plumbing below [`Tool::new`] (handlers, raw arguments) is in
//! [`dispatch`](crate::dispatch). This layer knows nothing of the agent loop or MCP;
//! both are built on it.

pub(crate) mod approval;
pub(crate) mod args;
pub(crate) mod call;
pub(crate) mod caller;
pub(crate) mod content;
pub(crate) mod context;
pub(crate) mod def;
pub(crate) mod expansion;
pub(crate) mod handler;
pub(crate) mod kit;
pub(crate) mod params;
pub(crate) mod registry;
pub(crate) mod rejected;
pub(crate) mod request;
pub(crate) mod result;
pub(crate) mod returns;
pub(crate) mod span;
pub(crate) mod state;
pub(crate) mod toolset;

pub use call::Call;
pub use caller::{
    DEFAULT_SAMPLING_MAX_TOKENS, LogLevel, Sampled, Sampling, SamplingError, SamplingMessage,
    SamplingRole, ToolView,
};
pub use content::{ContentError, ContentPart, MEDIA_TYPES, PartBody, PartKind, media_type};
pub use context::{Caller, CancellationToken, Context};
pub use def::{Tool, ToolUi};
pub(crate) use handler::Dispatch;
pub use kit::{ServerStatus, Toolkit};
pub use rejected::{RejectedTool, Rejection};
pub use request::{Answer, Request, Suspend};
pub use result::ToolResult;
pub use returns::{Error, IntoToolError, IntoToolOutput, IntoToolResult, Json};
pub use state::{MissingState, State, StateType};
pub use toolset::{IntoToolset, Toolset};

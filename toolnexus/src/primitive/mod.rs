//! MCP's other two server primitives beside tools: [`Resource`]s (data a client reads by
//! URI) and [`Prompt`]s (message templates a client fills in with arguments), defined
//! with `#[resource]` and `#[prompt]` like tools with `#[tool]`, and served by
//! `McpServer` (feature `mcp`).
//!
//! This layer needs no feature: a library can define its resources and prompts, and the
//! program that serves them turns `mcp` on. It builds on the tool layer (arguments,
//! context, state, content parts) and knows nothing of MCP's wire types.

mod app;
pub(crate) mod complete;
pub(crate) mod contents;
mod described;
pub(crate) mod expansion;
mod guard;
pub(crate) mod message;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod strings;
pub(crate) mod template;

pub use app::{MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION, McpApp};
pub use complete::{Completion, CompletionRequest, MAX_COMPLETIONS};
pub use contents::ResourceContents;
pub use message::{PromptContent, PromptMessage, PromptReply, PromptRole, ResourceLink};
pub use prompt::IntoPromptReply;
pub use prompt::{GetResult, Prompt, PromptArgument, PromptError, PromptRequest};
pub use resource::IntoResourceContents;
pub use resource::{ReadResult, Resource, ResourceError, ResourceRequest};
pub use template::TemplateError;

//! What `#[tool]` expansions call. Reached through `toolnexus::__private`; not public API.
//!
//! Everything type-dependent lives here, behind traits, so the macro stays a thin layer
//! of syntax: it never decides what a type means.

use std::future::Future;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::args::Args;
use crate::context::Context;
use crate::into_result::IntoToolResult;
use crate::result::ToolResult;
use crate::tool::{Dispatch, Tool};

/// The tool a `#[tool]` function becomes, its source marked `"native"`.
pub fn native_tool(
    name: &'static str,
    description: &'static str,
    schema: Value,
    handler: fn(Args<'_>, Context) -> Dispatch,
) -> Tool {
    Tool::from_handler(name, description, schema, "native", Box::new(handler))
}

/// Converts the function's return value (the trait bound is where an unsupported return
/// type is reported).
pub fn into_result<R: IntoToolResult>(value: R) -> ToolResult {
    value.into_tool_result()
}

/// A synchronous function's finished call.
pub fn ready(result: ToolResult) -> Dispatch {
    Dispatch::Ready(result)
}

/// An async function's call, boxed.
pub fn boxed<F>(future: F) -> Dispatch
where
    F: Future<Output = ToolResult> + Send + 'static,
{
    Dispatch::Future(Box::pin(future))
}

/// What a `#[tool]` parameter's type must be: readable from JSON and describable as a
/// JSON schema. Checked with the parameter's own span, so the error points at its type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[tool] parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`",
    note = "`toolnexus::Context` parameters are injected and need neither"
)]
pub trait ToolParam {}

impl<T: DeserializeOwned + JsonSchema> ToolParam for T {}

/// Instantiated once per parameter type by the expansion to check [`ToolParam`].
pub fn assert_param<T: ToolParam>() {}

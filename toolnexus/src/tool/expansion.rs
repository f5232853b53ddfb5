//! What `#[tool]` expansions call. Reached through `toolnexus::__private`; not public API.
//!
//! Everything type-dependent lives here, behind traits, so the macro stays a thin layer
//! of syntax: it never decides what a type means.

use std::future::Future;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::result::ToolResult;
use crate::tool::returns::IntoToolResult;
use crate::tool::{Dispatch, Tool};

/// The tool a `#[tool]` function becomes, its source marked `"native"`: the schema is
/// `A`'s, and each call reads its arguments into an `A` and hands it to `call`.
pub fn native_tool<A: DeserializeOwned + JsonSchema + 'static>(
    name: &'static str,
    description: &'static str,
    call: fn(A, Context) -> Dispatch,
) -> Tool {
    let handler = move |args: Args<'_>, ctx: Context| match args.parse::<A>(name) {
        Ok(parsed) => call(parsed, ctx),
        Err(error) => Dispatch::Ready(error.into()),
    };
    Tool::from_handler(
        name,
        description,
        crate::schema::canonical::schema_for::<A>(),
        "native",
        Box::new(handler),
    )
}

/// The tool in `cell`, made by `make` on first use. One non-generic function for every
/// `#[tool]`, so the once-only initialization is compiled once, here.
pub fn cached(cell: &'static OnceLock<Tool>, make: fn() -> Tool) -> Tool {
    cell.get_or_init(make).clone()
}

/// Converts the function's return value (the trait bound is where an unsupported return
/// type is reported). `#[tool]` uses [`returns`], which also gives the output schema.
pub fn into_result<R: IntoToolResult>(value: R) -> ToolResult {
    value.into_tool_result()
}

/// What the return type `R` of a tool's function gives the tool: the conversion of its
/// values ([`IntoToolResult::into_tool_result`]) and its output schema
/// ([`IntoToolResult::output_schema`]).
///
/// An expansion names `R` once for each (`returns::<R>().convert(value)` in the call,
/// `returns::<R>().with_output(tool)` when the tool is built), both at the span of the
/// user's return type: the two identical trait errors of an unsupported return type are
/// then reported once. The methods themselves have no bounds, so they add no error.
pub struct Returns<R> {
    convert: fn(R) -> ToolResult,
    output_schema: fn() -> Option<Value>,
}

/// The [`Returns`] of `R` (the trait bound is where an unsupported return type is
/// reported).
#[inline]
pub fn returns<R: IntoToolResult>() -> Returns<R> {
    Returns {
        convert: R::into_tool_result,
        output_schema: R::output_schema,
    }
}

impl<R> Returns<R> {
    /// Converts the function's return value.
    #[inline]
    pub fn convert(self, value: R) -> ToolResult {
        (self.convert)(value)
    }

    /// `tool` with `R`'s output schema, if it has one: called once, when the tool is
    /// built. Whatever generates a tool from a function (or method) calls it.
    pub fn with_output(self, tool: Tool) -> Tool {
        match (self.output_schema)() {
            Some(schema) => tool.with_output_schema(schema),
            None => tool,
        }
    }
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
/// JSON schema.
///
/// The expansion reaches the argument struct only through a function generic over the
/// parameter types, bounded by `ToolParam` and called with the types as the user wrote
/// them. A type that is neither `Deserialize` nor `JsonSchema` is then reported there, on
/// the user's type, with the message below, and nowhere else (the derived code is generic,
/// so it has nothing to complain about).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[tool] parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`",
    note = "if this is the injected `toolnexus::Context` under another name, mark the parameter `#[context]`"
)]
pub trait ToolParam: DeserializeOwned + JsonSchema + 'static {}

impl<T: DeserializeOwned + JsonSchema + 'static> ToolParam for T {}

/// Checks [`ToolParam`] for one type, where the expansion cannot use the generic route
/// (a parameter whose `#[serde]` attributes need its concrete type).
pub fn assert_param<T: ToolParam>() {}

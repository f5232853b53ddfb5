//! What `#[tool]` expansions call. Reached through `toolnexus::__private`; not public API.
//!
//! Everything type-dependent lives here, behind traits, so the macro stays a thin layer
//! of syntax: it never decides what a type means.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::schema::canonical::schema_for;
use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::handler::Handler;
pub use crate::tool::params::Params;
use crate::tool::result::ToolResult;
use crate::tool::returns::{IntoToolError, IntoToolResult};
use crate::tool::state::{MissingState, State, StateType};
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
    native(name, description, schema_for::<A>(), Box::new(handler))
}

/// The tool a `#[tool]` function becomes when its parameters are read as a tuple `P`
/// named `names` (see [`Params`]): as [`native_tool`], the schema `S`'s. The reader is
/// then compiled once per list of parameter types, not once per tool.
pub fn params_tool<S: JsonSchema, P: Params + 'static>(
    name: &'static str,
    description: &'static str,
    names: &'static [&'static str],
    call: fn(P, Context) -> Dispatch,
) -> Tool {
    let handler = move |args: Args<'_>, ctx: Context| match args.parse_params::<P>(name, names) {
        Ok(parsed) => call(parsed, ctx),
        Err(error) => Dispatch::Ready(error.into()),
    };
    native(name, description, schema_for::<S>(), Box::new(handler))
}

/// The tool a `#[toolset]` method becomes when its parameters are read as a tuple: as
/// [`method_tool`], read as [`params_tool`] reads them.
pub fn method_params_tool<S, P, T>(
    name: &'static str,
    description: &'static str,
    names: &'static [&'static str],
    this: Arc<T>,
    call: fn(&Arc<T>, P, Context) -> Dispatch,
) -> Tool
where
    S: JsonSchema,
    P: Params + 'static,
    T: Send + Sync + ?Sized + 'static,
{
    let handler = move |args: Args<'_>, ctx: Context| match args.parse_params::<P>(name, names) {
        Ok(parsed) => call(&this, parsed, ctx),
        Err(error) => Dispatch::Ready(error.into()),
    };
    native(name, description, schema_for::<S>(), Box::new(handler))
}

/// A tool whose source is `"native"`: what every constructor above ends in. Not generic,
/// so it is compiled once, not once per tool.
fn native(
    name: &'static str,
    description: &'static str,
    schema: Value,
    handler: Box<Handler>,
) -> Tool {
    Tool::from_handler(name, description, schema, "native", handler)
}

/// The tool in `cell`, made by `make` on first use. One non-generic function for every
/// `#[tool]`, so the once-only initialization is compiled once, here.
pub fn cached(cell: &'static OnceLock<Tool>, make: fn() -> Tool) -> Tool {
    cell.get_or_init(make).clone()
}

/// What the return type `R` of a tool's function gives the tool: the conversion of its
/// values ([`Returned::into_returned`]) and its output schema
/// ([`Returned::output_schema`]).
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
pub fn returns<R: Returned<M>, M>() -> Returns<R> {
    Returns {
        convert: R::into_returned,
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

/// The tool a `#[toolset]` method becomes: as [`native_tool`], with each call handed the
/// shared value the tool is bound to.
pub fn method_tool<A, S>(
    name: &'static str,
    description: &'static str,
    this: Arc<S>,
    call: fn(&Arc<S>, A, Context) -> Dispatch,
) -> Tool
where
    A: DeserializeOwned + JsonSchema + 'static,
    S: Send + Sync + ?Sized + 'static,
{
    let handler = move |args: Args<'_>, ctx: Context| match args.parse::<A>(name) {
        Ok(parsed) => call(&this, parsed, ctx),
        Err(error) => Dispatch::Ready(error.into()),
    };
    native(name, description, schema_for::<A>(), Box::new(handler))
}

/// Declares the `State<T>` parameters of a tool, for `Toolkit::check_states`.
pub fn require_states(tool: Tool, states: &[StateType]) -> Tool {
    tool.with_required_states(states.iter().copied())
}

/// The state a `State<T>` parameter receives, or the error result naming the tool, the
/// type and the fix.
#[inline]
pub fn state<T: Send + Sync + 'static>(
    ctx: &Context,
    tool: &str,
) -> Result<State<T>, MissingState> {
    match ctx.state::<T>() {
        Some(state) => Ok(state),
        None => Err(MissingState::new(tool, StateType::of::<T>())),
    }
}

/// The error result of a missing state.
#[cold]
pub fn missing(missing: MissingState) -> Dispatch {
    Dispatch::Ready(missing.into())
}

/// What a `State<T>` parameter's `T` must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shared as a tool's state",
    label = "a `State<T>` must be `Send + Sync + 'static`",
    note = "wrap what is not `Sync` in a `Mutex`; own what borrows (`String` for `&str`), or share it in an `Arc`"
)]
pub trait StateParam: Send + Sync + 'static {}

impl<T: Send + Sync + 'static> StateParam for T {}

/// Checks [`StateParam`] for one type, with the error on the user's `T`.
pub fn assert_state<T: StateParam>() -> StateType {
    StateType::of::<T>()
}

/// The return value of a `#[tool]` function, as the expansion converts it: everything
/// [`IntoToolResult`] accepts, and also `()` and `Result<(), E>` (an empty success).
///
/// `M` tells the forms apart (`()` cannot be a [`crate::tool::IntoToolOutput`] next to every
/// `Display` type); it is inferred, there is always one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a return type a #[tool] function can have",
    label = "unsupported #[tool] return type",
    note = "a #[tool] function returns `Result<T, E>`, `()`, `ToolResult`, `Suspend` or `Json<T>`; in `Result<T, E>`, `T` is `Display`, `()`, `ToolResult` or `Json<T>`, and `E` is `Display`, `Suspend` or `toolnexus::tool::Error`",
    note = "to return structured data (a `Vec`, a map, a struct), wrap it in `toolnexus::Json(..)`: `-> Result<Json<T>, E>`, then `Ok(Json(value))`",
    note = "`Json<T>` needs `T: serde::Serialize + schemars::JsonSchema`: add `#[derive(serde::Serialize, schemars::JsonSchema)]` to the wrapped type"
)]
pub trait Returned<M> {
    /// Converts the value.
    fn into_returned(self) -> ToolResult;

    /// The output schema the form gives the tool (see [`IntoToolResult::output_schema`]).
    fn output_schema() -> Option<Value> {
        None
    }
}

/// [`Returned`] through [`IntoToolResult`].
pub enum ViaTrait {}
/// [`Returned`] for `()` and `Result<(), E>`.
pub enum ViaUnit {}

#[diagnostic::do_not_recommend]
impl<R: IntoToolResult> Returned<ViaTrait> for R {
    fn into_returned(self) -> ToolResult {
        self.into_tool_result()
    }

    fn output_schema() -> Option<Value> {
        R::output_schema()
    }
}

#[diagnostic::do_not_recommend]
impl Returned<ViaUnit> for () {
    fn into_returned(self) -> ToolResult {
        ToolResult::default()
    }
}

#[diagnostic::do_not_recommend]
impl<T: UnitOk, E: IntoToolError> Returned<ViaUnit> for Result<T, E> {
    fn into_returned(self) -> ToolResult {
        match self {
            Ok(_) => ToolResult::default(),
            Err(error) => error.into_tool_error(),
        }
    }
}

/// `()` as the `Ok` value. A trait (not `Result<(), E>` itself) so that a `Result` with an
/// unsupported `Ok` value matches two forms and is reported as a whole, with the notes of
/// [`Returned`], rather than as a missing `Display`.
pub trait UnitOk {}
impl UnitOk for () {}

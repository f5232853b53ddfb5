//! What `#[resource]` and `#[prompt]` expansions call. Reached through
//! `toolnexus::__private`; not public API.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::primitive::complete::{Completer, CompletionRequest};
use crate::primitive::prompt::IntoPromptReply;
use crate::primitive::prompt::{GetFuture, GetResult, Prompt, PromptError, PromptRequest};
use crate::primitive::resource::IntoResourceContents;
use crate::primitive::resource::{
    ReadFuture, ReadResult, Resource, ResourceError, ResourceRequest,
};
use crate::primitive::strings;
use crate::primitive::template::UriTemplate;
use crate::schema::canonical::schema_for;
use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::params::Params;
use crate::tool::state::MissingState;

/// What `#[resource(…)]` and the function say about a resource.
pub struct ResourceSpec {
    /// The URI or URI template (checked by the macro).
    pub uri: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Its title.
    pub title: Option<&'static str>,
    /// Its description.
    pub description: &'static str,
    /// Its MIME type.
    pub mime_type: Option<&'static str>,
}

/// What `#[prompt(…)]` and the function say about a prompt.
pub struct PromptSpec {
    /// Its name.
    pub name: &'static str,
    /// Its title.
    pub title: Option<&'static str>,
    /// Its description.
    pub description: &'static str,
}

/// How `#[complete(…)]` completes one parameter.
pub enum Complete {
    /// `values = [...]`.
    Values(&'static [&'static str]),
    /// `with = function`.
    With(fn(&CompletionRequest) -> Vec<String>),
}

impl Complete {
    fn completer(&self) -> Completer {
        match self {
            Complete::Values(values) => {
                Completer::Values(values.iter().map(|v| (*v).to_owned()).collect())
            }
            Complete::With(function) => Completer::With(Arc::new(*function)),
        }
    }
}

/// The values a `with = function` completer returned.
pub fn completions<I, S>(values: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    values.into_iter().map(Into::into).collect()
}

fn resource(
    spec: &ResourceSpec,
    handler: Arc<crate::primitive::resource::ReadHandler>,
    schema: Arc<serde_json::Value>,
    completions: &[(&'static str, Complete)],
) -> Resource {
    let template = UriTemplate::parse(spec.uri).unwrap_or_else(|error| panic!("{error}"));
    let mut made = Resource::from_parts(template, handler, Some(schema))
        .with_name(spec.name)
        .with_description(spec.description);
    if let Some(title) = spec.title {
        made = made.with_title(title);
    }
    if let Some(mime) = spec.mime_type {
        made = made.with_mime_type(mime);
    }
    for (variable, complete) in completions {
        made = made.with_completer(variable, complete.completer());
    }
    made
}

fn invalid_params(error: &crate::tool::args::ArgsError) -> ReadFuture {
    resource_ready(Err(ResourceError::InvalidParams {
        message: error.message().to_owned(),
    }))
}

/// The resource a `#[resource]` function becomes when its parameters are read as a tuple
/// `P` named `names`: the template's values, read as the schema `S` types them.
pub fn params_resource<S: JsonSchema, P: Params + 'static>(
    spec: ResourceSpec,
    names: &'static [&'static str],
    completions: &[(&'static str, Complete)],
    call: fn(P, Context) -> ReadFuture,
) -> Resource {
    let schema = Arc::new(schema_for::<S>());
    let read = Arc::clone(&schema);
    let name = spec.name;
    let handler = move |request: ResourceRequest, ctx: Context| {
        let args = strings::arguments(request.params, &read);
        match Args::Value(args).parse_params::<P>(name, names) {
            Ok(parsed) => call(parsed, ctx),
            Err(error) => invalid_params(&error),
        }
    };
    resource(&spec, Arc::new(handler), schema, completions)
}

/// The resource a `#[resource]` function becomes when its parameters are read into the
/// struct `A`.
pub fn native_resource<A: DeserializeOwned + JsonSchema + 'static>(
    spec: ResourceSpec,
    completions: &[(&'static str, Complete)],
    call: fn(A, Context) -> ReadFuture,
) -> Resource {
    let schema = Arc::new(schema_for::<A>());
    let read = Arc::clone(&schema);
    let name = spec.name;
    let handler = move |request: ResourceRequest, ctx: Context| {
        let args = strings::arguments(request.params, &read);
        match Args::Value(args).parse::<A>(name) {
            Ok(parsed) => call(parsed, ctx),
            Err(error) => invalid_params(&error),
        }
    };
    resource(&spec, Arc::new(handler), schema, completions)
}

/// The resource in `cell`, made by `make` on first use.
pub fn cached_resource(cell: &'static OnceLock<Resource>, make: fn() -> Resource) -> Resource {
    cell.get_or_init(make).clone()
}

/// The conversion of a resource function's return type `R` (where an unsupported one is
/// reported).
pub struct ResourceReturns<R>(fn(R) -> ReadResult);

/// The [`ResourceReturns`] of `R`.
#[inline]
pub fn resource_returns<R: IntoResourceContents>() -> ResourceReturns<R> {
    ResourceReturns(R::into_resource_contents)
}

impl<R> ResourceReturns<R> {
    /// Converts the function's return value.
    #[inline]
    pub fn convert(self, value: R) -> ReadResult {
        (self.0)(value)
    }
}

/// A synchronous resource function's finished read.
pub fn resource_ready(read: ReadResult) -> ReadFuture {
    Box::pin(std::future::ready(read))
}

/// An async resource function's read, boxed.
pub fn resource_boxed<F>(future: F) -> ReadFuture
where
    F: Future<Output = ReadResult> + Send + 'static,
{
    Box::pin(future)
}

/// The failed read of a resource whose state is missing.
#[cold]
pub fn resource_missing(missing: MissingState) -> ReadFuture {
    resource_ready(Err(ResourceError::failed(missing.to_string())))
}

fn prompt(
    spec: &PromptSpec,
    handler: Arc<crate::primitive::prompt::GetHandler>,
    schema: Arc<serde_json::Value>,
    completions: &[(&'static str, Complete)],
) -> Prompt {
    let mut made = Prompt::from_parts(spec.name.to_owned(), handler, Some(schema))
        .with_description(spec.description);
    if let Some(title) = spec.title {
        made = made.with_title(title);
    }
    for (argument, complete) in completions {
        made = made.with_completer(argument, complete.completer());
    }
    made
}

fn invalid_arguments(error: &crate::tool::args::ArgsError) -> GetFuture {
    prompt_ready(Err(PromptError::invalid_arguments(error.message())))
}

/// The prompt a `#[prompt]` function becomes when its parameters are read as a tuple `P`
/// named `names`: the arguments, read as the schema `S` types them.
pub fn params_prompt<S: JsonSchema, P: Params + 'static>(
    spec: PromptSpec,
    names: &'static [&'static str],
    completions: &[(&'static str, Complete)],
    call: fn(P, Context) -> GetFuture,
) -> Prompt {
    let schema = Arc::new(schema_for::<S>());
    let read = Arc::clone(&schema);
    let name = spec.name;
    let handler = move |request: PromptRequest, ctx: Context| {
        let args = strings::arguments(request.arguments, &read);
        match Args::Value(args).parse_params::<P>(name, names) {
            Ok(parsed) => call(parsed, ctx),
            Err(error) => invalid_arguments(&error),
        }
    };
    prompt(&spec, Arc::new(handler), schema, completions)
}

/// The prompt a `#[prompt]` function becomes when its parameters are read into the struct
/// `A` (`#[args]`, or parameters with `#[serde]` attributes).
pub fn native_prompt<A: DeserializeOwned + JsonSchema + 'static>(
    spec: PromptSpec,
    completions: &[(&'static str, Complete)],
    call: fn(A, Context) -> GetFuture,
) -> Prompt {
    let schema = Arc::new(schema_for::<A>());
    let read = Arc::clone(&schema);
    let name = spec.name;
    let handler = move |request: PromptRequest, ctx: Context| {
        let args = strings::arguments(request.arguments, &read);
        match Args::Value(args).parse::<A>(name) {
            Ok(parsed) => call(parsed, ctx),
            Err(error) => invalid_arguments(&error),
        }
    };
    prompt(&spec, Arc::new(handler), schema, completions)
}

/// The prompt in `cell`, made by `make` on first use.
pub fn cached_prompt(cell: &'static OnceLock<Prompt>, make: fn() -> Prompt) -> Prompt {
    cell.get_or_init(make).clone()
}

/// The conversion of a prompt function's return type `R`.
pub struct PromptReturns<R>(fn(R) -> GetResult);

/// The [`PromptReturns`] of `R`.
#[inline]
pub fn prompt_returns<R: IntoPromptReply>() -> PromptReturns<R> {
    PromptReturns(R::into_prompt_reply)
}

impl<R> PromptReturns<R> {
    /// Converts the function's return value.
    #[inline]
    pub fn convert(self, value: R) -> GetResult {
        (self.0)(value)
    }
}

/// A synchronous prompt function's finished get.
pub fn prompt_ready(get: GetResult) -> GetFuture {
    Box::pin(std::future::ready(get))
}

/// An async prompt function's get, boxed.
pub fn prompt_boxed<F>(future: F) -> GetFuture
where
    F: Future<Output = GetResult> + Send + 'static,
{
    Box::pin(future)
}

/// The failed get of a prompt whose state is missing.
#[cold]
pub fn prompt_missing(missing: MissingState) -> GetFuture {
    prompt_ready(Err(PromptError::failed(missing.to_string())))
}

/// What a `#[resource]` parameter's type must be (see `ToolParam` for tools).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[resource] parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "a template variable's text is read as the parameter's type: `String` as it is; a number, a boolean or an enum deriving both traits as that type",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait ResourceParam: DeserializeOwned + JsonSchema + 'static {}

impl<T: DeserializeOwned + JsonSchema + 'static> ResourceParam for T {}

/// Checks [`ResourceParam`] for one type.
pub fn assert_resource_param<T: ResourceParam>() {}

/// What a `#[prompt]` parameter's type must be (see `ToolParam` for tools).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[prompt] parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "a prompt argument's text is read as the parameter's type: `String` as it is; a number, a boolean or an enum deriving both traits as that type; `Option<T>` for an argument that is not required",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait PromptParam: DeserializeOwned + JsonSchema + 'static {}

impl<T: DeserializeOwned + JsonSchema + 'static> PromptParam for T {}

/// Checks [`PromptParam`] for one type.
pub fn assert_prompt_param<T: PromptParam>() {}

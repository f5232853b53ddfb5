//! [`Prompt`]: a message template an MCP server offers, filled in with arguments.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::primitive::complete::{Completer, Completers, Completion, CompletionRequest};
use crate::primitive::message::PromptMessage;
use crate::primitive::message::PromptReply;
use crate::tool::context::Context;
use crate::tool::handler::BoxFuture;

/// What getting a prompt gives: its messages, or why not.
pub type GetResult = Result<PromptReply, PromptError>;

/// The future of one get (what the function behind a prompt starts).
pub type GetFuture = BoxFuture<'static, GetResult>;

pub(crate) type GetHandler = dyn Fn(PromptRequest, Context) -> GetFuture + Send + Sync + 'static;

/// One get of a prompt: the arguments the client gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptRequest {
    /// Each argument's value.
    pub arguments: HashMap<String, String>,
}

impl PromptRequest {
    /// The value of the argument `name`.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }
}

/// One argument a prompt takes, as `prompts/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is for (from the parameter's doc comment).
    pub description: Option<String>,
    /// Whether the prompt needs it.
    pub required: bool,
}

impl PromptArgument {
    /// An optional argument named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            description: None,
            required: false,
        }
    }

    /// The same argument, described.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The same argument, required.
    #[must_use]
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }
}

/// Why a prompt could not be got.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// No prompt has this name (invalid params).
    #[error("unknown prompt: {name}")]
    NotFound {
        /// The name asked for.
        name: String,
    },
    /// An argument is missing or does not fit its parameter (invalid params).
    #[error("{message}")]
    InvalidArguments {
        /// What is wrong, naming the argument.
        message: String,
    },
    /// The prompt's function failed, panicked or timed out (an internal error).
    #[error("{message}")]
    Failed {
        /// What went wrong.
        message: String,
    },
}

impl PromptError {
    /// The get failed with `message`.
    pub fn failed(message: impl Into<String>) -> Self {
        PromptError::Failed {
            message: message.into(),
        }
    }

    /// `message` says what is wrong with the arguments.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        PromptError::InvalidArguments {
            message: message.into(),
        }
    }

    pub(crate) fn from_display<E: fmt::Display + 'static>(error: E) -> Self {
        crate::primitive::guard::own_error(error, PromptError::failed)
    }
}

/// A prompt an MCP server offers: a name, a description, the arguments it takes, and the
/// function that fills it in.
///
/// `#[prompt]` functions make them (`NAME::prompt()`; see [`#[prompt]`](macro@crate::prompt));
/// [`Prompt::new`] makes one from a closure. Serve them with `McpServer::prompts`
/// (feature `mcp`). Cheap to clone.
///
/// ```
/// use toolnexus::Context;
/// use toolnexus::primitive::{Prompt, PromptArgument, PromptMessage};
///
/// let greet = Prompt::new_sync("greet", |request, _ctx| {
///     PromptMessage::user(format!("Say hello to {}.", request.argument("name").unwrap_or("everyone")))
/// })
/// .with_description("Greet someone.")
/// .with_argument(PromptArgument::new("name").with_description("Whom to greet.").required());
///
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let reply = rt.block_on(greet.get([("name", "Ada")], Context::default())).unwrap();
/// assert_eq!(reply.messages[0].text(), Some("Say hello to Ada."));
/// let missing = rt.block_on(greet.get(Vec::<(String, String)>::new(), Context::default()));
/// assert_eq!(missing.unwrap_err().to_string(), "the prompt `greet` needs the argument `name`");
/// ```
#[derive(Clone)]
pub struct Prompt(Arc<Def>);

#[derive(Clone)]
struct Def {
    name: String,
    title: Option<String>,
    description: String,
    arguments: Vec<PromptArgument>,
    /// The parameters' schema (for a `#[prompt]` function).
    schema: Option<Arc<Value>>,
    completers: Completers,
    handler: Arc<GetHandler>,
}

impl Prompt {
    /// A prompt named `name`, filled in by `get`, whose return value is anything
    /// [`IntoPromptReply`] accepts. It takes no arguments until
    /// [`Prompt::with_argument`] adds them.
    pub fn new<F, Fut, R>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(PromptRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptReply,
    {
        let handler = move |request: PromptRequest, ctx: Context| -> GetFuture {
            let future = get(request, ctx);
            Box::pin(async move { future.await.into_prompt_reply() })
        };
        Prompt::from_parts(name.into(), Arc::new(handler), None)
    }

    /// [`Prompt::new`] for a synchronous function.
    pub fn new_sync<F, R>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(PromptRequest, Context) -> R + Send + Sync + 'static,
        R: IntoPromptReply,
    {
        let handler = move |request: PromptRequest, ctx: Context| -> GetFuture {
            Box::pin(std::future::ready(get(request, ctx).into_prompt_reply()))
        };
        Prompt::from_parts(name.into(), Arc::new(handler), None)
    }

    pub(crate) fn from_parts(
        name: String,
        handler: Arc<GetHandler>,
        schema: Option<Arc<Value>>,
    ) -> Self {
        let arguments = schema
            .as_deref()
            .map(crate::primitive::strings::listed)
            .unwrap_or_default()
            .into_iter()
            .map(|(name, description, required)| PromptArgument {
                name,
                description,
                required,
            })
            .collect();
        Prompt(Arc::new(Def {
            name,
            title: None,
            description: String::new(),
            arguments,
            completers: Completers::new(schema.clone()),
            schema,
            handler,
        }))
    }

    /// The same prompt, taking `argument` too (one of the same name is replaced).
    #[must_use]
    pub fn with_argument(self, argument: PromptArgument) -> Self {
        self.update(|def| {
            def.arguments.retain(|a| a.name != argument.name);
            def.arguments.push(argument);
        })
    }

    /// The name a client gets it by.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The arguments it takes, in order.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.0.arguments
    }

    /// The schema of a `#[prompt]` function's parameters.
    pub fn params_schema(&self) -> Option<&Value> {
        self.0.schema.as_deref()
    }

    /// Fills the prompt in with `arguments`. A required argument that is missing is
    /// [`PromptError::InvalidArguments`], and so is a value its parameter cannot take. A
    /// function that panics, or outlives the context's timeout or cancellation, fails the
    /// get; it never takes the caller down.
    pub async fn get<I, K, V>(&self, arguments: I, ctx: Context) -> GetResult
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let arguments: HashMap<String, String> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        if let Some(missing) = self
            .0
            .arguments
            .iter()
            .find(|a| a.required && arguments.get(&a.name).is_none_or(String::is_empty))
        {
            return Err(PromptError::invalid_arguments(format!(
                "the prompt `{}` needs the argument `{}`",
                self.0.name, missing.name
            )));
        }
        let guard = crate::primitive::guard::Guard::new(&ctx, "prompt", &self.0.name);
        let request = PromptRequest { arguments };
        guard
            .call(|| (self.0.handler)(request, ctx), PromptError::failed)
            .await
    }
}

crate::primitive::described::described!(Prompt, "prompt", "prompt", "argument", argument);

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.0.name)
            .field("arguments", &self.0.arguments)
            .finish_non_exhaustive()
    }
}

/// Every `#[prompt]` function's registration, collected by [`Prompt::registered`].
#[doc(hidden)]
pub struct PromptRegistration {
    make: fn() -> Prompt,
    path: &'static str,
}

impl PromptRegistration {
    /// An entry that builds its prompt with `make`, for the function at `path`.
    pub const fn at(make: fn() -> Prompt, path: &'static str) -> Self {
        PromptRegistration { make, path }
    }
}

inventory::collect!(PromptRegistration);

impl Prompt {
    /// Every `#[prompt]` function linked into the program, in the order of their Rust
    /// paths.
    pub fn registered() -> Vec<Prompt> {
        let mut entries: Vec<&PromptRegistration> =
            inventory::iter::<PromptRegistration>.into_iter().collect();
        entries.sort_by_key(|entry| entry.path);
        entries.into_iter().map(|entry| (entry.make)()).collect()
    }
}

/// A value a prompt's function returns, as the prompt's messages.
///
/// - text (`String`, `&'static str`): one user message;
/// - a [`PromptMessage`], or a `Vec` of them;
/// - a [`PromptReply`] (messages and a description);
/// - `Result<T, E>` of any of these, `E: Display` (the error fails the get; a
///   [`PromptError`] is kept as it is).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a return type a #[prompt] function can have",
    label = "unsupported #[prompt] return type",
    note = "a #[prompt] function returns text (`String`, `&'static str`: one user message), `PromptMessage`, `Vec<PromptMessage>` or `PromptReply`, or a `Result<T, E>` of one of those with `E: Display`"
)]
pub trait IntoPromptReply {
    /// The messages, or why the get failed.
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError>;
}

impl IntoPromptReply for String {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(PromptReply::new([PromptMessage::user(self)]))
    }
}

impl IntoPromptReply for &'static str {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(PromptReply::new([PromptMessage::user(self)]))
    }
}

impl IntoPromptReply for PromptMessage {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(PromptReply::new([self]))
    }
}

impl IntoPromptReply for Vec<PromptMessage> {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(PromptReply::new(self))
    }
}

impl IntoPromptReply for PromptReply {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        Ok(self)
    }
}

impl<T: IntoPromptReply, E: Display + 'static> IntoPromptReply for Result<T, E> {
    fn into_prompt_reply(self) -> Result<PromptReply, PromptError> {
        match self {
            Ok(value) => value.into_prompt_reply(),
            Err(error) => Err(PromptError::from_display(error)),
        }
    }
}

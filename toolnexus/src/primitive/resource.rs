//! [`Resource`]: data an MCP server offers to read, at a fixed URI or at every URI of a
//! template.

use std::borrow::Cow;
use std::fmt;
use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::primitive::complete::{Completer, Completers, Completion, CompletionRequest};
use crate::primitive::contents::ResourceContents;
use crate::primitive::template::{TemplateError, UriTemplate};
use crate::tool::content::ContentPart;
use crate::tool::context::Context;
use crate::tool::handler::BoxFuture;
use crate::tool::returns::Json;

/// What reading a resource gives: its contents, or why not.
pub type ReadResult = Result<Vec<ResourceContents>, ResourceError>;

/// The future of one read (what the function behind a resource starts).
pub type ReadFuture = BoxFuture<'static, ReadResult>;

/// The function behind a resource: given the URI read and its template's values.
pub(crate) type ReadHandler =
    dyn Fn(ResourceRequest, Context) -> ReadFuture + Send + Sync + 'static;

/// One read of a resource: the URI asked for and, for a template, the value of each of
/// its variables (decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceRequest {
    /// The URI the client read.
    pub uri: String,
    /// Each variable of the template and its value, in the template's order.
    pub params: Vec<(String, String)>,
}

impl ResourceRequest {
    /// The value of the template variable `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Why a resource could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// No resource has this URI (MCP's `-32002`).
    #[error("resource not found: {uri}")]
    NotFound {
        /// The URI asked for.
        uri: String,
    },
    /// A template variable's value does not fit its parameter (invalid params).
    #[error("{message}")]
    InvalidParams {
        /// What is wrong, naming the variable.
        message: String,
    },
    /// The resource's function failed, panicked or timed out (an internal error).
    #[error("{message}")]
    Failed {
        /// What went wrong.
        message: String,
    },
}

impl ResourceError {
    /// No resource at `uri`: return it from a template's function for a value that names
    /// nothing (an unknown id), so the client hears "not found".
    pub fn not_found(uri: impl Into<String>) -> Self {
        ResourceError::NotFound { uri: uri.into() }
    }

    /// The read failed with `message`.
    pub fn failed(message: impl Into<String>) -> Self {
        ResourceError::Failed {
            message: message.into(),
        }
    }

    /// `error` as a read's failure: itself when it is a `ResourceError`, else `Failed`
    /// with its text.
    pub(crate) fn from_display<E: fmt::Display + 'static>(error: E) -> Self {
        crate::primitive::guard::own_error(error, ResourceError::failed)
    }
}

/// A resource an MCP server offers: a fixed URI (`docs://readme`) or a URI template of
/// RFC 6570 level 1 (`users://{id}/profile`) standing for many, with a name, a
/// description, a MIME type and the function that reads it.
///
/// `#[resource]` functions make them (`NAME::resource()`; see
/// [`#[resource]`](macro@crate::resource)); [`Resource::new`] makes one from a closure.
/// Serve them with `McpServer::resources` (feature `mcp`). Cheap to clone.
///
/// ```
/// use toolnexus::Context;
/// use toolnexus::primitive::{Resource, ResourceContents};
///
/// let motd = Resource::new_sync("motd://today", |_request, _ctx| "Hello!")
///     .unwrap()
///     .with_description("The message of the day.");
/// let user = Resource::new("users://{id}", |request, _ctx| async move {
///     format!("user {}", request.param("id").unwrap_or_default())
/// })
/// .unwrap();
/// assert!(user.is_template());
///
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let read = rt.block_on(user.read("users://42", Context::default())).unwrap();
/// assert_eq!(read[0].as_text(), Some("user 42"));
/// assert_eq!(read[0].uri(), "users://42");
/// assert_eq!(read[0].mime_type(), Some("text/plain"));
/// assert!(rt.block_on(motd.read("motd://tomorrow", Context::default())).is_err());
/// ```
#[derive(Clone)]
pub struct Resource(Arc<Def>);

#[derive(Clone)]
struct Def {
    template: UriTemplate,
    name: String,
    title: Option<String>,
    description: String,
    mime_type: Option<String>,
    /// The parameters' schema (for a `#[resource]` function).
    schema: Option<Arc<Value>>,
    completers: Completers,
    handler: Arc<ReadHandler>,
}

impl Resource {
    /// A resource at `uri` (a fixed URI, or a template with `{name}` variables), read by
    /// `read`, whose return value is anything [`IntoResourceContents`] accepts. Named after
    /// its URI until [`Resource::with_name`] says otherwise. The error is a URI without a
    /// scheme, or a template beyond level 1.
    pub fn new<F, Fut, R>(uri: impl Into<String>, read: F) -> Result<Self, TemplateError>
    where
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoResourceContents,
    {
        let uri = uri.into();
        let handler = move |request: ResourceRequest, ctx: Context| -> ReadFuture {
            let future = read(request, ctx);
            Box::pin(async move { future.await.into_resource_contents() })
        };
        Ok(Resource::from_parts(
            UriTemplate::parse(&uri)?,
            Arc::new(handler),
            None,
        ))
    }

    /// [`Resource::new`] for a synchronous function.
    pub fn new_sync<F, R>(uri: impl Into<String>, read: F) -> Result<Self, TemplateError>
    where
        F: Fn(ResourceRequest, Context) -> R + Send + Sync + 'static,
        R: IntoResourceContents,
    {
        let uri = uri.into();
        let handler = move |request: ResourceRequest, ctx: Context| -> ReadFuture {
            let read = read(request, ctx).into_resource_contents();
            Box::pin(std::future::ready(read))
        };
        Ok(Resource::from_parts(
            UriTemplate::parse(&uri)?,
            Arc::new(handler),
            None,
        ))
    }

    pub(crate) fn from_parts(
        template: UriTemplate,
        handler: Arc<ReadHandler>,
        schema: Option<Arc<Value>>,
    ) -> Self {
        Resource(Arc::new(Def {
            name: template.as_str().to_owned(),
            template,
            title: None,
            description: String::new(),
            mime_type: None,
            completers: Completers::new(schema.clone()),
            schema,
            handler,
        }))
    }

    /// The same resource, named `name` (MCP's `name`: how a client lists it).
    #[must_use]
    pub fn with_name(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.update(|def| def.name = name)
    }

    /// The same resource, of MIME type `mime_type` (its contents get it unless they say
    /// otherwise).
    #[must_use]
    pub fn with_mime_type(self, mime_type: impl Into<String>) -> Self {
        let mime_type = mime_type.into();
        self.update(|def| def.mime_type = Some(mime_type))
    }

    /// The URI, or the URI template as written.
    pub fn uri(&self) -> &str {
        self.0.template.as_str()
    }

    /// Whether this stands for many URIs (a template with variables).
    pub fn is_template(&self) -> bool {
        self.0.template.is_template()
    }

    /// The template's variables, in order (none for a fixed URI).
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.0.template.variables()
    }

    /// The name a client lists it by.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The MIME type, if one was given.
    pub fn mime_type(&self) -> Option<&str> {
        self.0.mime_type.as_deref()
    }

    /// The schema of a `#[resource]` function's parameters (its template variables).
    pub fn params_schema(&self) -> Option<&Value> {
        self.0.schema.as_deref()
    }

    /// The value of each template variable when `uri` is this resource's (the URI itself,
    /// or an expansion of the template); `None` when it is not.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        self.0.template.matches(uri)
    }

    /// The URI of this template with each variable replaced by its value in `values`
    /// (percent-encoded); the error names a variable that has none.
    pub fn expand(&self, values: &[(&str, &str)]) -> Result<String, String> {
        self.0.template.expand(|name| {
            values
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| *value)
        })
    }

    /// Reads `uri`: [`ResourceError::NotFound`] when it is not this resource's; else the
    /// function's contents, each with the URI read and the resource's MIME type unless it
    /// gave its own. A function that panics, or outlives the context's timeout or
    /// cancellation, fails the read; it never takes the caller down.
    pub async fn read(&self, uri: &str, ctx: Context) -> ReadResult {
        let Some(params) = self.matches(uri) else {
            return Err(ResourceError::not_found(uri));
        };
        let request = ResourceRequest {
            uri: uri.to_owned(),
            params,
        };
        let guard = crate::primitive::guard::Guard::new(&ctx, "resource", self.name());
        let read = guard
            .call(|| (self.0.handler)(request, ctx), ResourceError::failed)
            .await?;
        let mime = self.0.mime_type.as_deref();
        Ok(read.into_iter().map(|c| c.complete(uri, mime)).collect())
    }
}

crate::primitive::described::described!(
    Resource,
    "resource",
    "resource",
    "template variable",
    variable
);

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri())
            .field("name", &self.0.name)
            .field("mime_type", &self.0.mime_type)
            .finish_non_exhaustive()
    }
}

/// Every `#[resource]` function's registration, collected by [`Resource::registered`].
#[doc(hidden)]
pub struct ResourceRegistration {
    make: fn() -> Resource,
    path: &'static str,
}

impl ResourceRegistration {
    /// An entry that builds its resource with `make`, for the function at `path`.
    pub const fn at(make: fn() -> Resource, path: &'static str) -> Self {
        ResourceRegistration { make, path }
    }
}

inventory::collect!(ResourceRegistration);

impl Resource {
    /// Every `#[resource]` function linked into the program, in the order of their Rust
    /// paths.
    pub fn registered() -> Vec<Resource> {
        let mut entries: Vec<&ResourceRegistration> = inventory::iter::<ResourceRegistration>
            .into_iter()
            .collect();
        entries.sort_by_key(|entry| entry.path);
        entries.into_iter().map(|entry| (entry.make)()).collect()
    }
}

/// A value a resource's function returns, as the contents of the read.
///
/// - text: `String`, `&'static str`, `Cow<'static, str>`;
/// - bytes: `Vec<u8>` (the resource's MIME type, else the one the bytes show), or a
///   [`ContentPart`] (an image, a PDF, an audio clip, with its own);
/// - [`Json<T>`](crate::Json) (`T: Serialize`): its JSON text, `application/json`;
/// - [`ResourceContents`], or a `Vec` of them (several contents in one read);
/// - `Result<T, E>` of any of these, `E: Display` (the error fails the read; a
///   [`ResourceError`] is kept as it is, so `ResourceError::not_found` reads as "not
///   found").
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a return type a #[resource] function can have",
    label = "unsupported #[resource] return type",
    note = "a #[resource] function returns text (`String`, `&'static str`), bytes (`Vec<u8>`, `ContentPart`), `Json<T>`, `ResourceContents` or `Vec<ResourceContents>`, or a `Result<T, E>` of one of those with `E: Display`"
)]
pub trait IntoResourceContents {
    /// The contents, or why the read failed.
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError>;
}

impl IntoResourceContents for String {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::text(self)])
    }
}

impl IntoResourceContents for &'static str {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::text(self)])
    }
}

impl IntoResourceContents for Cow<'static, str> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::text(self)])
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![ResourceContents::blob(self)])
    }
}

impl IntoResourceContents for ContentPart {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![self.into()])
    }
}

impl IntoResourceContents for ResourceContents {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContents> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(self)
    }
}

impl<T: Serialize> IntoResourceContents for Json<T> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        match serde_json::to_string(&self.0) {
            Ok(text) => Ok(vec![
                ResourceContents::text(text).with_mime_type("application/json"),
            ]),
            Err(error) => Err(ResourceError::failed(format!(
                "the resource's value could not be written as JSON: {error}"
            ))),
        }
    }
}

impl<T: IntoResourceContents, E: Display + 'static> IntoResourceContents for Result<T, E> {
    fn into_resource_contents(self) -> Result<Vec<ResourceContents>, ResourceError> {
        match self {
            Ok(value) => value.into_resource_contents(),
            Err(error) => Err(ResourceError::from_display(error)),
        }
    }
}

//! Return mapping: how whatever a `#[tool]` function returns becomes a [`ToolResult`].
//!
//! The macro never looks at how a return type is spelled; it hands the value to
//! [`IntoToolResult`], so type aliases and re-exports work, and an unsupported type is a
//! compile error that lists the accepted forms.
//!
//! The accepted forms are listed on [`IntoToolResult`].

use std::fmt::{self, Display};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::tool::request::{Request, Suspend};
use crate::tool::result::ToolResult;

/// A value a `#[tool]` function may return:
///
/// | the function returns | the result |
/// | --- | --- |
/// | `Result<T, E>`, `T: Display` | `Ok(t)` → [`ToolResult::ok`]`(t.to_string())` |
/// | `Result<Json<T>, E>`, `T: Serialize + JsonSchema` | `Ok` → the value as JSON text, and as a structured value; the tool has an output schema |
/// | `Result<ToolResult, E>` | `Ok(r)` → `r` as it is |
/// | `Result<T, E>`, `E: Display` | `Err(e)` → [`ToolResult::error`]`(e.to_string())` |
/// | `Result<T, Suspend>` | `Err(s)` → [`ToolResult::pending`] |
/// | `Result<T, toolnexus::tool::Error>` | `Err` → an error result, or pending if it carries a [`Suspend`] |
/// | [`Suspend`] | [`ToolResult::pending`] |
/// | [`ToolResult`] | as it is |
/// | [`Json<T>`] | the value as JSON text, and as a structured value; the tool has an output schema |
///
/// Implement it for your own types to return them from tools directly.
///
/// A return type whose success value is [`Json<T>`] gives the tool an output schema
/// (see [`IntoToolResult::output_schema`] and [`Tool::output_schema`](crate::Tool::output_schema)).
///
/// A `#[tool]` function may also return `()` or `Result<(), E>` (or have no return type):
/// `Ok` is then the empty success, [`ToolResult::default`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a return type a #[tool] function can have",
    label = "unsupported #[tool] return type",
    note = "a #[tool] function returns `Result<T, E>`, `ToolResult`, `Suspend` or `Json<T>` (with `T: Serialize + JsonSchema`)",
    note = "in `Result<T, E>`, `T` is `Display`, `Json<T>` or `ToolResult`, and `E` is `Display`, `Suspend` or `toolnexus::tool::Error`",
    note = "for a tool that cannot fail, return `Result<T, std::convert::Infallible>`"
)]
pub trait IntoToolResult {
    /// Converts the value into the result handed back to the model.
    fn into_tool_result(self) -> ToolResult;

    /// The JSON schema of the structured value this return type gives on success, as
    /// generated (before it is fitted to an object root; see
    /// [`Tool::output_schema`](crate::Tool::output_schema)): `T`'s for a [`Json<T>`]
    /// success, `None` (the default) for return types without one.
    ///
    /// `#[tool]` calls it once, when the tool is built.
    fn output_schema() -> Option<Value>
    where
        Self: Sized,
    {
        None
    }
}

/// What the `Ok` side of a returned `Result` may be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the `Ok` value of a #[tool] function",
    label = "`Ok` value must be `Display`, `Json<T>` or `ToolResult`",
    note = "wrap structured data in `toolnexus::Json(..)` to send it as JSON text, with an output schema",
    note = "in `Json<T>`, `T` derives both `serde::Serialize` and `schemars::JsonSchema`"
)]
pub trait IntoToolOutput {
    /// Converts the success value into a result.
    fn into_tool_output(self) -> ToolResult;

    /// The JSON schema of the structured value, if this success value has one (see
    /// [`IntoToolResult::output_schema`]).
    fn output_schema() -> Option<Value>
    where
        Self: Sized,
    {
        None
    }
}

/// What the `Err` side of a returned `Result` may be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the `Err` value of a #[tool] function",
    label = "`Err` value must be `Display`, `Suspend` or `toolnexus::tool::Error`"
)]
pub trait IntoToolError {
    /// Converts the failure into a result (an error, or a suspension).
    fn into_tool_error(self) -> ToolResult;
}

impl<T: IntoToolOutput, E: IntoToolError> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolResult {
        match self {
            Ok(value) => value.into_tool_output(),
            Err(error) => error.into_tool_error(),
        }
    }

    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}

impl IntoToolResult for Suspend {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::pending(self.0)
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolResult {
        self.into_tool_output()
    }

    fn output_schema() -> Option<Value> {
        <Self as IntoToolOutput>::output_schema()
    }
}

impl<T: Display> IntoToolOutput for T {
    fn into_tool_output(self) -> ToolResult {
        ToolResult::ok(self.to_string())
    }
}

impl IntoToolOutput for ToolResult {
    fn into_tool_output(self) -> ToolResult {
        self
    }
}

impl<T: Serialize + JsonSchema> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> ToolResult {
        // The text is serialized from `T` itself (an `f32` keeps its short form), and the
        // structured value is read back from that text, so the two say exactly the same.
        let structured = serde_json::to_string(&self.0)
            .and_then(|text| Ok((serde_json::from_str::<Value>(&text)?, text)));
        match structured {
            Ok((value, text)) => ToolResult::ok(text).with_structured(value),
            Err(e) => ToolResult::error(format!("the tool's output could not be serialized: {e}")),
        }
    }

    fn output_schema() -> Option<Value> {
        Some(crate::schema::output::output_schema_for::<T>())
    }
}

impl<E: Display> IntoToolError for E {
    fn into_tool_error(self) -> ToolResult {
        ToolResult::error(self.to_string())
    }
}

impl IntoToolError for Suspend {
    fn into_tool_error(self) -> ToolResult {
        ToolResult::pending(self.0)
    }
}

impl IntoToolError for Error {
    fn into_tool_error(self) -> ToolResult {
        match *self.0 {
            Repr::Message(message) => ToolResult::error(message),
            Repr::Suspend(request) => ToolResult::pending(request),
        }
    }
}

/// Structured output: the value is serialized to JSON text for the model, and kept as a
/// structured value beside it; a tool returning it has an output schema.
///
/// As a `#[tool]` return (alone or as the `Ok` of a `Result`), `T: Serialize + JsonSchema`:
///
/// - [`Tool::output_schema`](crate::Tool::output_schema) is `T`'s JSON schema, generated
///   at compile time, with a `T` that is not an object wrapped as `{"result": …}`;
/// - a call's [`ToolResult`] has the JSON text as `output` and the value, shaped by that
///   schema, in `metadata.structured` ([`ToolResult::structured`]), which the MCP server
///   sends as `structuredContent`.
///
/// ```
/// use serde_json::json;
/// use toolnexus::tool::IntoToolResult;
/// use toolnexus::Json;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Hit { id: u32 }
///
/// let result = Json(vec![Hit { id: 1 }]).into_tool_result();
/// assert_eq!(result.output, r#"[{"id":1}]"#);
/// // Converted on its own, the value is as `T` serialized; a tool wraps the `Vec` (see
/// // `Tool::output_schema`).
/// assert_eq!(result.structured(), Some(&json!([{"id": 1}])));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// The error type for tools: `?` converts any `Display` error into it, and it can also
/// carry a [`Suspend`], so one return type covers failing and suspending.
///
/// ```
/// use toolnexus::tool::{Error, IntoToolResult};
/// use toolnexus::Suspend;
///
/// fn parse(text: &str, approved: bool) -> Result<i64, Error> {
///     if !approved {
///         Err(Suspend::approval("Parse this number?"))?;
///     }
///     Ok(text.parse::<i64>()?)
/// }
///
/// assert_eq!(parse("42", true).into_tool_result().output, "42");
/// let bad = parse("x", true).into_tool_result();
/// assert_eq!((bad.is_error, bad.output.as_str()), (true, "invalid digit found in string"));
/// assert!(parse("42", false).into_tool_result().is_pending());
/// ```
///
/// One pointer wide, so `Result<T, Error>` stays small.
///
/// It deliberately does not implement `Display` or `std::error::Error` itself: that is
/// what lets `From<E: Display>` cover every error type (the same trade-off `anyhow`
/// makes). Read it with [`Error::message`].
pub struct Error(Box<Repr>);

enum Repr {
    Message(String),
    Suspend(Request),
}

impl Error {
    /// An error with the given message.
    pub fn new(message: impl Into<String>) -> Self {
        Error(Box::new(Repr::Message(message.into())))
    }

    /// The message (for a suspension, the request's prompt).
    pub fn message(&self) -> &str {
        match &*self.0 {
            Repr::Message(message) => message,
            Repr::Suspend(request) => &request.prompt,
        }
    }

    /// The suspension this error carries, if it is one.
    pub fn as_suspend(&self) -> Option<&Request> {
        match &*self.0 {
            Repr::Suspend(request) => Some(request),
            Repr::Message(_) => None,
        }
    }
}

impl<E: Display> From<E> for Error {
    fn from(error: E) -> Self {
        Error::new(error.to_string())
    }
}

impl From<Suspend> for Error {
    fn from(suspend: Suspend) -> Self {
        Error(Box::new(Repr::Suspend(suspend.0)))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Repr::Message(message) => f.debug_tuple("Error").field(message).finish(),
            Repr::Suspend(request) => f.debug_tuple("Error::Suspend").field(request).finish(),
        }
    }
}

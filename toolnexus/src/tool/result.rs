//! [`ToolResult`]: what every tool execution returns.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::tool::content::ContentPart;
use crate::tool::request::Request;

/// The metadata key reserved for suspensions: `metadata.pending` holds a [`Request`].
pub const PENDING_KEY: &str = "pending";

/// The metadata key of a successful result's structured value: `metadata.structured`
/// holds what a [`Json<T>`](crate::Json) return serialized to, in the shape of the tool's
/// [output schema](crate::Tool::output_schema) (an object; see
/// [`Tool::output_schema`](crate::Tool::output_schema) for how a non-object value is
/// wrapped). The MCP server sends it as `structuredContent`. Read it with
/// [`ToolResult::structured`].
pub const STRUCTURED_KEY: &str = "structured";

/// What every tool execution returns.
///
/// Four fields, and the whole tool-calling loop is built on them:
///
/// - `output` is the text handed back to the model. It stays required even when `parts`
///   is present: it is what the transcript, token estimation and any text-only provider
///   see, so a tool returning an image sets `output` to a description of it.
/// - `is_error` says whether the call failed. It is fed back to the model, not raised.
/// - `parts` carries non-text output (an image, a PDF, an audio clip).
/// - `metadata` is free-form bookkeeping for your code; the model never sees it. Two keys
///   are reserved: `metadata.pending` holding a [`Request`] turns the result into a
///   suspension (see [`ToolResult::pending`]), and `metadata.structured` carries a
///   successful result's structured value (see [`ToolResult::structured`]).
///
/// `ToolResult::default()` is valid and means "empty success".
///
/// # Wire form
///
/// `{"output": …, "isError": …, "parts"?: […], "metadata"?: {…}}`. Absent `parts` and
/// `metadata` are omitted, so a result without parts serializes byte-identically to one
/// from before parts existed.
///
/// ```
/// use toolnexus::ToolResult;
///
/// let found = ToolResult::ok("eu-west-1");
/// assert!(!found.is_error);
/// assert_eq!(
///     serde_json::to_string(&found).unwrap(),
///     r#"{"output":"eu-west-1","isError":false}"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The text handed to the model. Serialize structured data yourself.
    #[serde(default)]
    pub output: String,
    /// Whether the call failed. Fed back to the model, not raised.
    #[serde(default)]
    pub is_error: bool,
    /// Non-text output. `None` keeps the wire form identical to a result without parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<ContentPart>>,
    /// Free-form data for your code. Reserved keys: `pending` holds a [`Request`],
    /// `structured` a success's structured value ([`STRUCTURED_KEY`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl ToolResult {
    /// A successful result with the given text.
    pub fn ok(output: impl Into<String>) -> Self {
        ToolResult {
            output: output.into(),
            ..ToolResult::default()
        }
    }

    /// A failed result with the given text; the model reads it and can recover.
    pub fn error(output: impl Into<String>) -> Self {
        ToolResult {
            output: output.into(),
            is_error: true,
            ..ToolResult::default()
        }
    }

    /// A suspension: the tool cannot finish until something out-of-band happens.
    ///
    /// `output` is the request's prompt, `is_error` is `true` (a parked call is not a
    /// success) and `metadata` is `{"pending": <request>}`.
    ///
    /// This is the form for tools written by hand (a [`Tool::new`](crate::Tool::new)
    /// handler); a `#[tool]` function suspends by returning `Err(Suspend::…)` (or a
    /// [`Suspend`](crate::Suspend)), which becomes this.
    pub fn pending(request: Request) -> Self {
        let output = request.prompt.clone();
        let mut metadata = Map::with_capacity(1);
        metadata.insert(PENDING_KEY.to_owned(), request.to_value());
        ToolResult {
            output,
            is_error: true,
            parts: None,
            metadata: Some(metadata),
        }
    }

    /// Adds non-text parts beside the output.
    #[must_use]
    pub fn with_parts(mut self, parts: impl IntoIterator<Item = ContentPart>) -> Self {
        self.parts.get_or_insert_with(Vec::new).extend(parts);
        self
    }

    /// Sets one metadata entry, creating the map when needed.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.metadata
            .get_or_insert_with(Map::new)
            .insert(key.into(), value.into());
        self
    }

    /// Sets the structured value (`metadata.structured`, see [`STRUCTURED_KEY`]) beside
    /// the text, as a [`Json<T>`](crate::Json) return does. `output` should say the same
    /// thing as text (a `Json<T>` return sets it to the value's JSON text).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::ToolResult;
    ///
    /// let found = ToolResult::ok(r#"{"region":"eu-west-1"}"#)
    ///     .with_structured(json!({"region": "eu-west-1"}));
    /// assert_eq!(found.structured(), Some(&json!({"region": "eu-west-1"})));
    /// // Errors and suspensions carry none, whatever their metadata says.
    /// let failed = ToolResult::error("no").with_structured(json!({}));
    /// assert_eq!(failed.structured(), None);
    /// ```
    #[must_use]
    pub fn with_structured(self, value: Value) -> Self {
        self.with_metadata(STRUCTURED_KEY, value)
    }

    /// The structured value of a successful result (`metadata.structured`); `None` for an
    /// error or a suspension, and for a result without one.
    ///
    /// From a tool with an [output schema](crate::Tool::output_schema), it is an object
    /// that validates against that schema.
    pub fn structured(&self) -> Option<&Value> {
        if self.is_error {
            return None;
        }
        self.metadata.as_ref()?.get(STRUCTURED_KEY)
    }

    /// True iff `metadata.pending` is present and holds a valid [`Request`].
    pub fn is_pending(&self) -> bool {
        self.pending_request().is_some()
    }

    /// The [`Request`] held in `metadata.pending`, if there is a valid one.
    pub fn pending_request(&self) -> Option<Request> {
        let pending = self.metadata.as_ref()?.get(PENDING_KEY)?;
        Request::deserialize(pending).ok()
    }
}

impl From<Request> for ToolResult {
    fn from(request: Request) -> Self {
        ToolResult::pending(request)
    }
}

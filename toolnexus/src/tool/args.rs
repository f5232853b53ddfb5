//! [`Args`]: a tool call's arguments as they arrive, and how they become a typed value.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::tool::result::ToolResult;

/// The arguments of one tool call, either already parsed or as the raw JSON text a
/// provider returns (`"{\"a\":1}"`).
///
/// Raw text is deserialized straight into the tool's argument type, without building an
/// intermediate [`Value`]. `null`, and text that is empty or only whitespace, stand for
/// "no arguments" (`{}`), as some providers send them for parameterless tools.
#[derive(Debug, Clone, PartialEq)]
pub enum Args<'a> {
    /// Parsed arguments.
    Value(Value),
    /// The raw JSON text of the arguments.
    Text(&'a str),
}

impl From<Value> for Args<'_> {
    fn from(value: Value) -> Self {
        Args::Value(value)
    }
}

impl<'a> From<&'a str> for Args<'a> {
    fn from(text: &'a str) -> Self {
        Args::Text(text)
    }
}

impl Args<'_> {
    /// Reads the arguments into `T`. On failure the [`ArgsError`] is what to hand back to
    /// the model (it converts into an error [`ToolResult`]): it names the tool and, when the
    /// arguments are valid JSON, the path of the offending field (`invalid arguments for
    /// add: a: invalid type: string "x", expected i64`).
    ///
    /// The happy path is a plain `serde` deserialization, straight from the text or the
    /// value. The field path is only worked out once an error is known, by deserializing
    /// the arguments as a [`Value`] a second time with `serde_path_to_error`; raw text is
    /// parsed into a `Value` for that. One path-tracking reader per argument type, not one
    /// per form: each is compiled into every crate that declares tools.
    pub fn parse<T: DeserializeOwned>(self, tool: &str) -> Result<T, ArgsError> {
        match self {
            Args::Value(Value::Null) => from_value(tool, &Value::Object(Map::new())),
            Args::Value(value) => from_value(tool, &value),
            Args::Text(text) => match object_text(tool, text)? {
                Some(text) => match serde_json::from_str(text) {
                    Ok(parsed) => Ok(parsed),
                    Err(first) => Err(text_error(tool, text, &first, trace::<T>, trace_text::<T>)),
                },
                None => from_value(tool, &Value::Object(Map::new())),
            },
        }
    }

    /// The arguments as a [`Value`], parsing raw text. The error names the tool.
    pub fn into_value(self, tool: &str) -> Result<Value, ArgsError> {
        match self {
            Args::Value(Value::Null) => Ok(Value::Object(Map::new())),
            Args::Value(value) => Ok(value),
            Args::Text(text) if no_arguments(text) => Ok(Value::Object(Map::new())),
            Args::Text(text) => serde_json::from_str(text).map_err(|e| not_json(tool, &e)),
        }
    }
}

/// Empty text, or `null`: "no arguments", as `Args::Value(Value::Null)` already is.
fn no_arguments(text: &str) -> bool {
    matches!(text.trim(), "" | "null")
}

fn from_value<T: DeserializeOwned>(tool: &str, value: &Value) -> Result<T, ArgsError> {
    if !value.is_object() {
        return Err(not_object(tool, value));
    }
    // serde reads an `f32` from a `Value`'s `f64` with `as`, so a number past `f32::MAX`
    // would become infinity where the text path refuses it as out of range. Such numbers
    // are rare: only then are the arguments read as text, so both paths agree.
    if beyond_f32(value) {
        let text = value.to_string();
        return match serde_json::from_str(&text) {
            Ok(parsed) => Ok(parsed),
            Err(first) => Err(text_error(tool, &text, &first, trace::<T>, trace_text::<T>)),
        };
    }
    match T::deserialize(value) {
        Ok(parsed) => Ok(parsed),
        Err(first) => Err(value_error(tool, value, &first, trace::<T>)),
    }
}

/// Deserializes a `T` from a value again, tracking the path: the re-run that says where an
/// error is. The only path-tracking reader of a `T`; text is parsed into a value for it.
type Trace = fn(&Value) -> Result<(), serde_path_to_error::Error<serde_json::Error>>;

fn trace<T: DeserializeOwned>(
    value: &Value,
) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize::<_, T>(value).map(drop)
}

/// The re-run over the text itself, for the rare error only the text gives (a number out
/// of range for an `f32`, a repeated key), so that it too names the field.
type TraceText = fn(&str) -> Option<String>;

fn trace_text<T: DeserializeOwned>(text: &str) -> Option<String> {
    let mut reader = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, T>(&mut reader) {
        Err(error) => Some(error.path().to_string()),
        Ok(_) => None,
    }
}

/// Whether `value` holds a finite number larger than an `f32` holds.
fn beyond_f32(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.as_f64().is_some_and(|x| x.abs() > f64::from(f32::MAX)) && n.is_f64(),
        Value::Array(items) => items.iter().any(beyond_f32),
        Value::Object(map) => map.values().any(beyond_f32),
        _ => false,
    }
}

/// Text that is an object: `Some(text)`. No arguments (empty, `null`): `None`. Anything
/// else (a positional array, a bare value, not JSON) does not fit the schema, even where
/// serde would accept it: an error.
fn object_text<'t>(tool: &str, text: &'t str) -> Result<Option<&'t str>, ArgsError> {
    if no_arguments(text) {
        return Ok(None);
    }
    if text.trim_start().starts_with('{') {
        return Ok(Some(text));
    }
    Err(match serde_json::from_str::<Value>(text) {
        Ok(value) => not_object(tool, &value),
        Err(e) => not_json(tool, &e),
    })
}

/// Why a value did not fit: the first error, with the path of the field the re-run found.
fn value_error(tool: &str, value: &Value, first: &serde_json::Error, trace: Trace) -> ArgsError {
    match trace(value) {
        Err(error) => invalid(tool, &error.path().to_string(), &message(error.inner())),
        // The value reads where the text did not (the text repeats a key, the value keeps
        // the last): the first error stands.
        Ok(()) => invalid(tool, ".", &message(first)),
    }
}

/// Why object text did not fit. When it is JSON, the parsed value's re-run names the
/// field; this also covers an enum given a value of the wrong type (`true`), which
/// serde_json reports as a syntax error.
fn text_error(
    tool: &str,
    text: &str,
    first: &serde_json::Error,
    trace: Trace,
    trace_text: TraceText,
) -> ArgsError {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => match trace(&value) {
            Err(error) => invalid(tool, &error.path().to_string(), &message(error.inner())),
            Ok(()) => match trace_text(text) {
                Some(path) => invalid(tool, &path, &message(first)),
                None => invalid(tool, ".", &message(first)),
            },
        },
        // The text's own syntax error, even where reading a `T` failed earlier in it.
        Err(error) => not_json(tool, &error),
    }
}

fn invalid(tool: &str, path: &str, message: &str) -> ArgsError {
    if path == "." {
        ArgsError(format!("invalid arguments for {tool}: {message}"))
    } else {
        ArgsError(format!("invalid arguments for {tool}: {path}: {message}"))
    }
}

fn not_json(tool: &str, error: &serde_json::Error) -> ArgsError {
    ArgsError(format!(
        "invalid arguments for {tool}: the arguments are not valid JSON ({error})"
    ))
}

fn not_object(tool: &str, value: &Value) -> ArgsError {
    let got = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    ArgsError(format!(
        "invalid arguments for {tool}: expected a JSON object of named arguments, got {got}"
    ))
}

/// The error's message. serde_json appends ` at line L column C` to errors read from text;
/// the field path says more to a model than a column number, so it is dropped there.
fn message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) if error.line() != 0 => text[..at].to_owned(),
        _ => text,
    }
}

/// Arguments that do not fit a tool: not JSON, a missing or unknown field, a wrong type.
///
/// The message names the tool and, where there is one, the path of the offending field,
/// so a model reading it can correct its call. Converts into an error [`ToolResult`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgsError(String);

impl ArgsError {
    /// The message, e.g. `invalid arguments for add: a: invalid type: string "x", expected i64`.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgsError {}

impl From<ArgsError> for ToolResult {
    fn from(error: ArgsError) -> Self {
        ToolResult::error(error.0)
    }
}

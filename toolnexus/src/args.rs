//! [`Args`]: a tool call's arguments as they arrive, and how they become a typed value.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::result::ToolResult;

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
    /// the model (it converts into an error [`ToolResult`]): it names the tool and, when the arguments are valid JSON, the path of
    /// the offending field (`invalid arguments for add: a: invalid type: string "x",
    /// expected i64`).
    ///
    /// The happy path is a plain `serde` deserialization; the field path is only worked out
    /// (by deserializing a second time) once an error is known.
    pub fn parse<T: DeserializeOwned>(self, tool: &str) -> Result<T, ArgsError> {
        match self {
            Args::Value(Value::Null) => parse_value(tool, &Value::Object(Map::new())),
            Args::Value(value) => parse_value(tool, &value),
            Args::Text(text) if no_arguments(text) => parse_value(tool, &Value::Object(Map::new())),
            Args::Text(text) => parse_text(tool, text),
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

fn parse_value<T: DeserializeOwned>(tool: &str, value: &Value) -> Result<T, ArgsError> {
    if !value.is_object() {
        return Err(not_object(tool, value));
    }
    T::deserialize(value).map_err(|first| {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Err(e) => invalid(tool, &e.path().to_string(), e.inner()),
            // Cannot happen (the same input failed a moment ago); keep the first error.
            Ok(_) => invalid(tool, ".", &first),
        }
    })
}

fn parse_text<T: DeserializeOwned>(tool: &str, text: &str) -> Result<T, ArgsError> {
    // Arguments are named: an object. Anything else (a positional array, a bare value)
    // does not fit the schema, even where serde would accept it.
    if !text.trim_start().starts_with('{') {
        return Err(match serde_json::from_str::<Value>(text) {
            Ok(value) => not_object(tool, &value),
            Err(e) => not_json(tool, &e),
        });
    }
    serde_json::from_str(text).map_err(|first| {
        if first.is_syntax() || first.is_eof() {
            // serde_json also reports an enum given a value of the wrong type (`true`) as a
            // syntax error; when the text is JSON, the parsed path names the field instead.
            return match serde_json::from_str::<Value>(text) {
                Ok(value) => parse_value::<T>(tool, &value).err(),
                Err(_) => None,
            }
            .unwrap_or_else(|| not_json(tool, &first));
        }
        let mut de = serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, T>(&mut de) {
            Err(e) => invalid(tool, &e.path().to_string(), e.inner()),
            Ok(_) => invalid(tool, ".", &first),
        }
    })
}

fn invalid(tool: &str, path: &str, error: &serde_json::Error) -> ArgsError {
    let message = strip_position(error);
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

/// serde_json appends ` at line L column C` to data errors from text; the field path says
/// more to a model than a column number, so it is dropped there.
fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    if error.line() == 0 {
        return text;
    }
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
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

//! [`Args`]: a tool call's arguments as they arrive, and how they become a typed value.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::tool::params::{Named, Params, Reader, Whole};
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
        self.read(tool, Whole::<T>::new())
    }

    /// Reads the arguments as the tuple of a `#[tool]` function's parameters, named
    /// `names`: as [`Args::parse`] would read a struct with those fields.
    pub(crate) fn parse_params<P: Params>(
        self,
        tool: &str,
        names: &'static [&'static str],
    ) -> Result<P, ArgsError> {
        self.read(tool, Named::<P>::new(names))
    }

    fn read<R: Reader>(self, tool: &str, reader: R) -> Result<R::Output, ArgsError> {
        match self {
            Args::Value(Value::Null) => from_value(tool, &Value::Object(Map::new()), reader),
            Args::Value(value) => from_value(tool, &value, reader),
            Args::Text(text) => match object_text(tool, text)? {
                // An integer past the 64-bit range becomes an `f64` in a `Value`, so a
                // `u128` field refuses it there while the text would give it exactly: such
                // (rare) text is read as a value, so both paths agree.
                Some(text) if beyond_64_bits(text) => match serde_json::from_str::<Value>(text) {
                    Ok(value) => from_value(tool, &value, reader),
                    Err(error) => Err(not_json(tool, &error)),
                },
                Some(text) => match from_text(text, reader) {
                    Ok(parsed) => Ok(parsed),
                    Err(first) => Err(text_error(
                        tool,
                        text,
                        &first,
                        &|value| trace(value, reader),
                        &|text| trace_text(text, reader),
                    )),
                },
                None => from_value(tool, &Value::Object(Map::new()), reader),
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

/// `serde_json::from_str`, with a reader.
fn from_text<R: Reader>(text: &str, reader: R) -> Result<R::Output, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let parsed = reader.read(&mut deserializer)?;
    deserializer.end()?;
    Ok(parsed)
}

fn from_value<R: Reader>(tool: &str, value: &Value, reader: R) -> Result<R::Output, ArgsError> {
    if !value.is_object() {
        return Err(not_object(tool, value));
    }
    // serde reads an `f32` from a `Value`'s `f64` with `as`, so a number past `f32::MAX`
    // would become infinity where the text path refuses it as out of range. Such numbers
    // are rare: only then are the arguments read as text, so both paths agree.
    if beyond_f32(value) {
        let text = value.to_string();
        return match from_text(&text, reader) {
            Ok(parsed) => Ok(parsed),
            Err(first) => Err(text_error(
                tool,
                &text,
                &first,
                &|value| trace(value, reader),
                &|text| trace_text(text, reader),
            )),
        };
    }
    match reader.read_value(value) {
        Ok(parsed) => Ok(parsed),
        Err(first) => Err(value_error(tool, value, &first, &|value| {
            trace(value, reader)
        })),
    }
}

/// Deserializes a `T` from a value again, tracking the path: the re-run that says where an
/// error is. The only path-tracking reader of a `T`; text is parsed into a value for it.
type Trace<'r> = &'r dyn Fn(&Value) -> Result<(), serde_path_to_error::Error<serde_json::Error>>;

fn trace<R: Reader>(
    value: &Value,
    reader: R,
) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
    let mut track = serde_path_to_error::Track::new();
    match reader.read(serde_path_to_error::Deserializer::new(value, &mut track)) {
        Ok(_) => Ok(()),
        Err(error) => Err(serde_path_to_error::Error::new(track.path(), error)),
    }
}

/// The re-run over the text itself, for the rare error only the text gives (a number out
/// of range for an `f32`, a repeated key), so that it too names the field.
type TraceText<'r> = &'r dyn Fn(&str) -> Option<String>;

fn trace_text<R: Reader>(text: &str, reader: R) -> Option<String> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let mut track = serde_path_to_error::Track::new();
    match reader.read(serde_path_to_error::Deserializer::new(
        &mut deserializer,
        &mut track,
    )) {
        Err(_) => Some(track.path().to_string()),
        Ok(_) => None,
    }
}

/// Whether JSON `text` has an integer literal outside `i64::MIN..=u64::MAX`: one byte scan,
/// skipping strings, without allocating.
fn beyond_64_bits(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut in_string = false;
    while at < bytes.len() {
        let byte = bytes[at];
        if in_string {
            match byte {
                b'\\' => at += 1,
                b'"' => in_string = false,
                _ => {}
            }
            at += 1;
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'-' | b'0'..=b'9' => {
                let negative = byte == b'-';
                let start = if negative { at + 1 } else { at };
                let mut end = start;
                while end < bytes.len() && bytes[end].is_ascii_digit() {
                    end += 1;
                }
                let float = matches!(bytes.get(end), Some(b'.' | b'e' | b'E'));
                let digits = &text[start..end];
                let limit = if negative {
                    "9223372036854775808"
                } else {
                    "18446744073709551615"
                };
                if !float
                    && (digits.len() > limit.len()
                        || (digits.len() == limit.len() && digits > limit))
                {
                    return true;
                }
                at = end;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    false
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
fn value_error(
    tool: &str,
    value: &Value,
    first: &serde_json::Error,
    trace: Trace<'_>,
) -> ArgsError {
    match trace(value) {
        Err(error) => traced(tool, value, &error),
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
    trace: Trace<'_>,
    trace_text: TraceText<'_>,
) -> ArgsError {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => match trace(&value) {
            Err(error) => traced(tool, &value, &error),
            Ok(()) => match trace_text(text) {
                Some(path) => invalid(tool, &path, &message(first)),
                None => invalid(tool, ".", &message(first)),
            },
        },
        // The text's own syntax error, even where reading a `T` failed earlier in it.
        Err(error) => not_json(tool, &error),
    }
}

/// The error of a traced re-run, its path completed where serde's path stops short.
fn traced(
    tool: &str,
    value: &Value,
    error: &serde_path_to_error::Error<serde_json::Error>,
) -> ArgsError {
    let text = message(error.inner());
    let path = error.path().to_string();
    let path = match deeper(value, error.path(), &text) {
        Some(rest) if path == "." => rest.trim_start_matches('.').to_owned(),
        Some(rest) => format!("{path}{rest}"),
        None => path,
    };
    invalid(tool, &path, &text)
}

/// Where serde's path stops short: a flattened field, or one inside an internally tagged
/// or untagged enum, is read from a buffer that the path tracker cannot see into (the error
/// then names the enclosing field, or none). The message names the offending value
/// (`invalid value: integer `300``, `invalid type: string "x"`): when exactly one value
/// under the path is that one, its place is the rest of the path (`.per_page`).
fn deeper(value: &Value, path: &serde_path_to_error::Path, message: &str) -> Option<String> {
    use serde_path_to_error::Segment;
    let mut here = value;
    for segment in path.iter() {
        here = match segment {
            Segment::Map { key } | Segment::Enum { variant: key } => here.get(key)?,
            Segment::Seq { index } => here.get(index)?,
            Segment::Unknown => return None,
        };
    }
    let unexpected = message
        .strip_prefix("invalid value: ")
        .or_else(|| message.strip_prefix("invalid type: "))?;
    let unexpected = unexpected.split(", expected ").next()?;
    let mut found = Vec::new();
    find(here, String::new(), unexpected, &mut found);
    match found.as_slice() {
        [one] if !one.is_empty() => Some(one.clone()),
        _ => None,
    }
}

/// Collects the places under `value` of a scalar serde describes as `unexpected`.
fn find(value: &Value, at: String, unexpected: &str, found: &mut Vec<String>) {
    if found.len() > 1 {
        return;
    }
    let described = match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) if n.is_f64() => format!("floating point `{n}`"),
        Value::Number(n) => format!("integer `{n}`"),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                find(item, format!("{at}[{index}]"), unexpected, found);
            }
            return;
        }
        Value::Object(map) => {
            for (key, item) in map {
                find(item, format!("{at}.{key}"), unexpected, found);
            }
            return;
        }
    };
    if described == unexpected {
        found.push(at);
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

/// What a JSON value is, for error messages: `null`, `a boolean`, … `an object`.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn not_object(tool: &str, value: &Value) -> ArgsError {
    let got = kind_of(value);
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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArgsError(String);

impl ArgsError {
    /// The message, e.g. `invalid arguments for add: a: invalid type: string "x", expected i64`.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl From<ArgsError> for ToolResult {
    fn from(error: ArgsError) -> Self {
        ToolResult::error(error.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_past_64_bits_are_found_outside_strings_only() {
        assert!(!beyond_64_bits(
            r#"{"a": 18446744073709551615, "b": -9223372036854775808}"#
        ));
        assert!(beyond_64_bits(r#"{"a": 18446744073709551616}"#));
        assert!(beyond_64_bits(r#"{"a": [-9223372036854775809]}"#));
        assert!(beyond_64_bits(r#"{"a": 100000000000000000000}"#));
        assert!(!beyond_64_bits(r#"{"a": "100000000000000000000"}"#));
        assert!(!beyond_64_bits(r#"{"a\"": "x\"100000000000000000000"}"#));
        assert!(!beyond_64_bits(
            r#"{"a": 100000000000000000000.5, "b": 1e400}"#
        ));
    }

    #[test]
    fn a_u128_past_64_bits_is_refused_by_text_as_by_value() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Big {
            n: u128,
        }
        let text = r#"{"n": 18446744073709551616}"#;
        let by_text = Args::Text(text).parse::<Big>("big").unwrap_err();
        let value: Value = serde_json::from_str(text).unwrap();
        let by_value = Args::Value(value).parse::<Big>("big").unwrap_err();
        assert_eq!(by_text, by_value);
        assert!(by_text.message().contains("n: "), "{by_text}");
        let fits = Args::Text(r#"{"n": 18446744073709551615}"#).parse::<Big>("big");
        assert_eq!(fits.unwrap().n, u128::from(u64::MAX));
    }
}

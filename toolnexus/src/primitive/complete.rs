//! Completion of prompt arguments and resource-template variables (`completion/complete`).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// At most this many values go back in one completion (MCP's limit).
pub const MAX_COMPLETIONS: usize = 100;

/// What a client asks to complete: one argument (of a prompt) or variable (of a resource
/// template), the part of its value typed so far, and the values of the others already
/// chosen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The argument or variable being completed.
    pub argument: String,
    /// What has been typed so far (possibly empty).
    pub value: String,
    /// The other arguments' values, when the client sent them.
    pub context: HashMap<String, String>,
}

impl CompletionRequest {
    /// A request to complete `argument`, typed so far as `value`.
    pub fn new(argument: impl Into<String>, value: impl Into<String>) -> Self {
        CompletionRequest {
            argument: argument.into(),
            value: value.into(),
            context: HashMap::new(),
        }
    }

    /// The same request, with the other arguments' values.
    #[must_use]
    pub fn with_context(mut self, context: HashMap<String, String>) -> Self {
        self.context = context;
        self
    }
}

/// The values a completion offers, best first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Completion {
    /// At most [`MAX_COMPLETIONS`] values.
    pub values: Vec<String>,
    /// How many values there are in all, when known.
    pub total: Option<u32>,
    /// Whether there are more than `values` holds.
    pub has_more: bool,
}

impl Completion {
    /// The first [`MAX_COMPLETIONS`] of `all`, with the total.
    pub fn from_values(all: Vec<String>) -> Self {
        let total = u32::try_from(all.len()).unwrap_or(u32::MAX);
        let has_more = all.len() > MAX_COMPLETIONS;
        let mut values = all;
        values.truncate(MAX_COMPLETIONS);
        Completion {
            values,
            total: Some(total),
            has_more,
        }
    }
}

/// A function that completes one argument: given the request, the values to offer.
pub(crate) type CompleteFn = dyn Fn(&CompletionRequest) -> Vec<String> + Send + Sync;

/// How one argument is completed.
#[derive(Clone)]
pub(crate) enum Completer {
    /// From a fixed list, by prefix (case-insensitive).
    Values(Arc<[String]>),
    /// By a function.
    With(Arc<CompleteFn>),
}

impl Completer {
    /// Completes from `values`, by prefix.
    pub(crate) fn values<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Completer::Values(values.into_iter().map(Into::into).collect())
    }

    /// Completes by `complete`.
    pub(crate) fn function<F, I, S>(complete: F) -> Self
    where
        F: Fn(&CompletionRequest) -> I + Send + Sync + 'static,
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Completer::With(Arc::new(move |request: &CompletionRequest| {
            complete(request).into_iter().map(Into::into).collect()
        }))
    }

    pub(crate) fn complete(&self, request: &CompletionRequest) -> Vec<String> {
        match self {
            Completer::Values(values) => {
                by_prefix(values.iter().map(String::as_str), &request.value)
            }
            Completer::With(function) => function(request),
        }
    }
}

impl fmt::Debug for Completer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Completer::Values(values) => f.debug_tuple("Values").field(values).finish(),
            Completer::With(_) => f.write_str("With(..)"),
        }
    }
}

/// The values that start with `prefix`, ignoring case, in their order.
pub(crate) fn by_prefix<'a>(values: impl Iterator<Item = &'a str>, prefix: &str) -> Vec<String> {
    let prefix = prefix.to_lowercase();
    values
        .filter(|value| value.to_lowercase().starts_with(&prefix))
        .map(str::to_owned)
        .collect()
}

/// The completers of a list of arguments, and the argument schema's own `enum` values for
/// the arguments without one.
#[derive(Clone, Debug, Default)]
pub(crate) struct Completers {
    explicit: Vec<(String, Completer)>,
    /// The arguments' schema, for their `enum` values.
    schema: Option<Arc<Value>>,
}

impl Completers {
    pub(crate) fn new(schema: Option<Arc<Value>>) -> Self {
        Completers {
            explicit: Vec::new(),
            schema,
        }
    }

    pub(crate) fn set(&mut self, argument: String, completer: Completer) {
        self.explicit.retain(|(name, _)| *name != argument);
        self.explicit.push((argument, completer));
    }

    /// The values for `request`: its argument's completer's, or the values its schema
    /// enumerates (an enum parameter), by prefix; none for any other argument.
    pub(crate) fn complete(&self, request: &CompletionRequest) -> Completion {
        let values = match self
            .explicit
            .iter()
            .find(|(name, _)| *name == request.argument)
        {
            Some((_, completer)) => completer.complete(request),
            None => self
                .schema
                .as_deref()
                .and_then(|schema| schema.get("properties")?.get(&request.argument))
                .map(|property| {
                    let mut listed = Vec::new();
                    enumerated(property, &mut listed);
                    by_prefix(listed.iter().map(String::as_str), &request.value)
                })
                .unwrap_or_default(),
        };
        Completion::from_values(values)
    }
}

/// The strings a property schema enumerates: `enum`, and the `const`s and `enum`s of its
/// `oneOf` / `anyOf` branches (an `Option` of an enum, a documented enum).
fn enumerated(schema: &Value, into: &mut Vec<String>) {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        into.extend(values.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    if let Some(value) = schema.get("const").and_then(Value::as_str) {
        into.push(value.to_owned());
    }
    for key in ["oneOf", "anyOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            enumerated(branch, into);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lists_complete_by_prefix_and_enums_come_from_the_schema() {
        let schema = json!({"properties": {
            "language": {"type": "string"},
            "level": {"oneOf": [{"const": "Low"}, {"const": "High"}]},
            "mode": {"anyOf": [{"type": "string", "enum": ["fast", "safe"]}, {"type": "null"}]}
        }});
        let mut completers = Completers::new(Some(Arc::new(schema)));
        completers.set(
            "language".into(),
            Completer::Values(vec!["Rust".into(), "Ruby".into(), "Go".into()].into()),
        );
        let complete = |argument: &str, value: &str| {
            completers
                .complete(&CompletionRequest::new(argument, value))
                .values
        };
        assert_eq!(complete("language", "ru"), ["Rust", "Ruby"]);
        assert_eq!(complete("level", "h"), ["High"]);
        assert_eq!(complete("mode", ""), ["fast", "safe"]);
        assert!(complete("other", "x").is_empty());
    }

    #[test]
    fn at_most_a_hundred_values_go_back_with_the_total() {
        let all: Vec<String> = (0..150).map(|n| n.to_string()).collect();
        let completion = Completion::from_values(all);
        assert_eq!(completion.values.len(), MAX_COMPLETIONS);
        assert_eq!(completion.total, Some(150));
        assert!(completion.has_more);
    }
}

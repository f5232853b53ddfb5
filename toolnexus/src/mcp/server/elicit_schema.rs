//! The elicitation subset of JSON Schema, checked before a [`Request`]'s schema is sent.
//!
//! MCP (2025-06-18, 2025-11-25 and 2026-07-28 alike) restricts an elicitation form's
//! `requestedSchema` to a flat object whose properties are primitives:
//!
//! - `string`: `title`, `description`, `minLength`, `maxLength`, `format` (`email`,
//!   `uri`, `date`, `date-time`), `default`; as a single-select enum with `enum` (and
//!   the legacy `enumNames`) or `oneOf: [{const, title}]`;
//! - `number` / `integer`: `title`, `description`, `minimum`, `maximum`, `default`;
//! - `boolean`: `title`, `description`, `default`;
//! - `array` as a multi-select enum: `items` is `{type: "string", enum: […]}` or
//!   `{anyOf: [{const, title}]}`, with `minItems`, `maxItems`, `default`.
//!
//! The official SDKs parse a form with these types and drop what they do not know, so a
//! schema outside the subset would reach the user as a different form than the tool
//! wrote (a `pattern` gone, a nested object unrenderable). [`check_elicitation_schema`]
//! refuses such a schema with an error that names the property and says how to fix it.
//!
//! [`Request`]: crate::Request

use std::fmt;

use serde_json::{Map, Value};

use crate::tool::args::kind_of;

/// The string formats the elicitation subset allows.
pub const ELICITATION_STRING_FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

/// Why a schema cannot be sent as an elicitation form: where, what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ElicitationSchemaError {
    /// The offending property, or `None` when the schema as a whole is wrong.
    pub property: Option<String>,
    /// What is wrong.
    pub problem: String,
    /// How to make it fit the subset.
    pub fix: String,
}

impl fmt::Display for ElicitationSchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.property {
            Some(property) => write!(f, "property `{property}`: ")?,
            None => write!(f, "the schema: ")?,
        }
        write!(f, "{}; {}", self.problem, self.fix)
    }
}

impl std::error::Error for ElicitationSchemaError {}

/// Checks that `schema` is inside the elicitation subset (see the module docs), so that
/// an elicitation carrying it shows the user the form it describes.
///
/// The server runs this on every schema a suspension sends as an elicitation; a tool can
/// run it in its own tests.
///
/// ```
/// # #[cfg(feature = "mcp")] {
/// use serde_json::json;
/// use toolnexus::mcp::check_elicitation_schema;
///
/// let form = json!({"type": "object", "properties": {"size": {"type": "string", "enum": ["s", "l"]}}});
/// assert!(check_elicitation_schema(&form).is_ok());
/// let nested = json!({"type": "object", "properties": {"address": {"type": "object"}}});
/// let error = check_elicitation_schema(&nested).unwrap_err();
/// assert_eq!(error.property.as_deref(), Some("address"));
/// # }
/// ```
pub fn check_elicitation_schema(schema: &Value) -> Result<(), ElicitationSchemaError> {
    let root = schema.as_object().ok_or_else(|| {
        whole(
            format!("it is {}, not a JSON object", kind_of(schema)),
            "write `{\"type\": \"object\", \"properties\": {…}}`",
        )
    })?;
    if root.get("type") != Some(&Value::from("object")) {
        return Err(whole(
            "its `type` is not \"object\"".to_owned(),
            "a form is an object of fields: to ask for one value, wrap its schema as \
             `{\"type\": \"object\", \"properties\": {\"answer\": <schema>}}`",
        ));
    }
    for key in root.keys() {
        if !matches!(
            key.as_str(),
            "$schema" | "type" | "properties" | "required" | "title" | "description"
        ) {
            return Err(whole(
                format!("`{key}` is not part of the elicitation subset"),
                "a form's schema has only `type`, `properties` and `required` (and `$schema`, \
                 `title`, `description`): remove it",
            ));
        }
    }
    let properties = match root.get("properties") {
        Some(Value::Object(properties)) => properties,
        Some(other) => {
            return Err(whole(
                format!("`properties` is {}, not an object", kind_of(other)),
                "map each field's name to its schema",
            ));
        }
        None => {
            return Err(whole(
                "it has no `properties`".to_owned(),
                "map each field's name to its schema (`{}` for a form with no fields)",
            ));
        }
    };
    for (name, property) in properties {
        check_property(name, property)?;
    }
    if let Some(required) = root.get("required") {
        let names = required.as_array().ok_or_else(|| {
            whole(
                format!("`required` is {}, not an array", kind_of(required)),
                "list the names of the fields the user must fill in",
            )
        })?;
        for name in names {
            match name.as_str() {
                Some(name) if properties.contains_key(name) => {}
                Some(name) => {
                    return Err(ElicitationSchemaError {
                        property: Some(name.to_owned()),
                        problem: "it is `required` but not among the `properties`".to_owned(),
                        fix: "add it to `properties` or remove it from `required`".to_owned(),
                    });
                }
                None => {
                    return Err(whole(
                        format!("`required` holds {}, not a name", kind_of(name)),
                        "list the fields' names as strings",
                    ));
                }
            }
        }
    }
    Ok(())
}

fn whole(problem: String, fix: &str) -> ElicitationSchemaError {
    ElicitationSchemaError {
        property: None,
        problem,
        fix: fix.to_owned(),
    }
}

/// The checks of one property, which report against its name.
struct Property<'a> {
    name: &'a str,
    schema: &'a Map<String, Value>,
}

impl Property<'_> {
    fn error(&self, problem: impl Into<String>, fix: impl Into<String>) -> ElicitationSchemaError {
        ElicitationSchemaError {
            property: Some(self.name.to_owned()),
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    fn only(&self, allowed: &[&str], kind: &str) -> Result<(), ElicitationSchemaError> {
        match self
            .schema
            .keys()
            .find(|key| !allowed.contains(&key.as_str()))
        {
            None => Ok(()),
            Some(key) => Err(self.error(
                format!("`{key}` is not part of the elicitation subset for {kind}"),
                format!(
                    "remove it (clients would drop it silently); {kind} takes {}",
                    allowed
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    /// `key`, which is `is`, should be a `what`.
    fn not_a(&self, key: &str, is: &str, what: &str) -> ElicitationSchemaError {
        self.error(
            format!("`{key}` is {is}, not a {what}"),
            format!("make `{key}` a {what}"),
        )
    }

    fn text(&self, key: &str) -> Result<(), ElicitationSchemaError> {
        match self.schema.get(key) {
            None | Some(Value::String(_)) => Ok(()),
            Some(other) => Err(self.not_a(key, kind_of(other), "string")),
        }
    }

    fn number(&self, key: &str) -> Result<Option<f64>, ElicitationSchemaError> {
        match self.schema.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(other) => Err(self.not_a(key, kind_of(other), "number")),
        }
    }

    fn count(&self, key: &str) -> Result<Option<u64>, ElicitationSchemaError> {
        match self.schema.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.not_a(key, &value.to_string(), "whole number ≥ 0")),
        }
    }

    fn bounds(&self, low: &str, high: &str, min: Option<f64>, max: Option<f64>) -> Check {
        match (min, max) {
            (Some(min), Some(max)) if min > max => Err(self.error(
                format!("`{low}` ({min}) is above `{high}` ({max})"),
                "no value could be entered: swap or widen them",
            )),
            _ => Ok(()),
        }
    }

    /// The options of an enum list: strings, at least one, no duplicates.
    fn options(&self, key: &str, value: &Value) -> Result<Vec<String>, ElicitationSchemaError> {
        let list = value.as_array().ok_or_else(|| {
            self.error(
                format!("`{key}` is {}, not an array", kind_of(value)),
                format!("list the choices in `{key}`"),
            )
        })?;
        if list.is_empty() {
            return Err(self.error(
                format!("`{key}` has no choices"),
                "give the user at least one choice",
            ));
        }
        let mut seen = Vec::with_capacity(list.len());
        for option in list {
            let Some(option) = option.as_str() else {
                return Err(self.error(
                    format!("`{key}` holds {} ({option})", kind_of(option)),
                    "elicitation enums are strings: write each choice as a string",
                ));
            };
            if seen.iter().any(|s| s == option) {
                return Err(self.error(
                    format!("`{key}` lists \"{option}\" twice"),
                    "list each choice once",
                ));
            }
            seen.push(option.to_owned());
        }
        Ok(seen)
    }

    /// The values of `[{const, title}]` choices (`oneOf` / `anyOf`).
    fn titled(&self, key: &str, value: &Value) -> Result<Vec<String>, ElicitationSchemaError> {
        let list = value.as_array().filter(|l| !l.is_empty()).ok_or_else(|| {
            self.error(
                format!("`{key}` is not a non-empty array of choices"),
                format!("write `{key}: [{{\"const\": \"value\", \"title\": \"Label\"}}, …]`"),
            )
        })?;
        let mut consts = Vec::with_capacity(list.len());
        for choice in list {
            let fits = choice.as_object().is_some_and(|c| {
                c.len() == 2
                    && c.get("const").is_some_and(Value::is_string)
                    && c.get("title").is_some_and(Value::is_string)
            });
            if !fits {
                return Err(self.error(
                    format!("`{key}` holds {choice}, which is not `{{const, title}}`"),
                    "give each choice exactly a string `const` and a string `title`",
                ));
            }
            consts.push(choice["const"].as_str().unwrap_or_default().to_owned());
        }
        Ok(consts)
    }
}

type Check = Result<(), ElicitationSchemaError>;

const COMMON: [&str; 3] = ["type", "title", "description"];

fn check_property(name: &str, schema: &Value) -> Check {
    let Some(map) = schema.as_object() else {
        return Err(ElicitationSchemaError {
            property: Some(name.to_owned()),
            problem: format!("its schema is {}, not an object", kind_of(schema)),
            fix: "describe the field as `{\"type\": \"string\"}` or another primitive".to_owned(),
        });
    };
    let p = Property { name, schema: map };
    p.text("title")?;
    p.text("description")?;
    match map.get("type").and_then(Value::as_str) {
        Some("string") => string(&p),
        Some(kind @ ("number" | "integer")) => number(&p, kind == "integer"),
        Some("boolean") => {
            p.only(&[COMMON[0], COMMON[1], COMMON[2], "default"], "a boolean")?;
            match map.get("default") {
                None | Some(Value::Bool(_)) => Ok(()),
                Some(other) => Err(p.error(
                    format!("`default` is {other}, not a boolean"),
                    "make `default` true or false",
                )),
            }
        }
        Some("array") => multi_select(&p),
        Some("object") => Err(p.error(
            "it is a nested object, and a form is flat",
            "put its fields at the top level (e.g. `address_street`, `address_city`), or ask \
             in two steps",
        )),
        Some(other) => Err(p.error(
            format!("type `{other}` is not allowed"),
            "use string, number, integer, boolean, or an array of enum strings",
        )),
        None => Err(p.error(
            match map.get("type") {
                None => "it has no `type`".to_owned(),
                Some(other) => format!("its `type` is {other}, not one type name"),
            },
            "give it one `type`: string, number, integer, boolean, or array (a multi-select)",
        )),
    }
}

fn string(p: &Property<'_>) -> Check {
    let map = p.schema;
    let choices = match (map.get("enum"), map.get("oneOf")) {
        (Some(_), Some(_)) => {
            return Err(p.error(
                "it has both `enum` and `oneOf`",
                "keep one: `enum` for plain choices, `oneOf` for titled ones",
            ));
        }
        (Some(options), None) => {
            p.only(
                &[
                    "type",
                    "title",
                    "description",
                    "enum",
                    "enumNames",
                    "default",
                ],
                "a string enum",
            )?;
            let options = p.options("enum", options)?;
            if let Some(names) = map.get("enumNames") {
                let names = p.options("enumNames", names)?;
                if names.len() != options.len() {
                    return Err(p.error(
                        format!(
                            "`enumNames` has {} labels for {} choices",
                            names.len(),
                            options.len()
                        ),
                        "give one label per choice, or use `oneOf` with `{const, title}`",
                    ));
                }
            }
            Some(options)
        }
        (None, Some(titled)) => {
            p.only(
                &["type", "title", "description", "oneOf", "default"],
                "a titled string enum",
            )?;
            Some(p.titled("oneOf", titled)?)
        }
        (None, None) => {
            p.only(
                &[
                    "type",
                    "title",
                    "description",
                    "minLength",
                    "maxLength",
                    "format",
                    "default",
                ],
                "a string",
            )?;
            let min = p.count("minLength")?;
            let max = p.count("maxLength")?;
            p.bounds(
                "minLength",
                "maxLength",
                min.map(|n| n as f64),
                max.map(|n| n as f64),
            )?;
            if let Some(format) = map.get("format") {
                let known = format
                    .as_str()
                    .is_some_and(|f| ELICITATION_STRING_FORMATS.contains(&f));
                if !known {
                    return Err(p.error(
                        format!("format {format} is not one elicitation clients know"),
                        "use `email`, `uri`, `date` or `date-time`, or drop `format` and say \
                         what you expect in `description`",
                    ));
                }
            }
            None
        }
    };
    match (map.get("default"), choices) {
        (None, _) => Ok(()),
        (Some(Value::String(default)), Some(choices)) if !choices.contains(default) => Err(p
            .error(
                format!("`default` \"{default}\" is not one of the choices"),
                "make the default one of the choices",
            )),
        (Some(Value::String(_)), _) => Ok(()),
        (Some(other), _) => Err(p.error(
            format!("`default` is {other}, not a string"),
            "make `default` a string",
        )),
    }
}

fn number(p: &Property<'_>, integer: bool) -> Check {
    let kind = if integer { "an integer" } else { "a number" };
    p.only(
        &[
            "type",
            "title",
            "description",
            "minimum",
            "maximum",
            "default",
        ],
        kind,
    )?;
    let min = p.number("minimum")?;
    let max = p.number("maximum")?;
    p.bounds("minimum", "maximum", min, max)?;
    let Some(default) = p.schema.get("default") else {
        return Ok(());
    };
    let fits = match default {
        Value::Number(n) if integer => n.is_i64() || n.is_u64(),
        Value::Number(_) => true,
        _ => false,
    };
    if !fits {
        return Err(p.error(
            format!("`default` is {default}, not {kind}"),
            format!("make `default` {kind}"),
        ));
    }
    let value = default.as_f64().unwrap_or_default();
    if min.is_some_and(|min| value < min) || max.is_some_and(|max| value > max) {
        return Err(p.error(
            format!("`default` {default} is outside `minimum`..`maximum`"),
            "make the default a value the user could enter",
        ));
    }
    Ok(())
}

fn multi_select(p: &Property<'_>) -> Check {
    p.only(
        &[
            "type",
            "title",
            "description",
            "items",
            "minItems",
            "maxItems",
            "default",
        ],
        "a multi-select",
    )?;
    let fix_items = "an array is a multi-select: write `items: {\"type\": \"string\", \"enum\": [...]}` \
                     or `items: {\"anyOf\": [{\"const\": ..., \"title\": ...}]}`";
    let Some(items) = p.schema.get("items").and_then(Value::as_object) else {
        return Err(p.error("it is an array without enum `items`", fix_items));
    };
    let choices = if items.len() == 2 && items.get("type") == Some(&Value::from("string")) {
        match items.get("enum") {
            Some(options) => p.options("enum", options)?,
            None => return Err(p.error("its `items` are not an enum", fix_items)),
        }
    } else if items.len() == 1
        && let Some(titled) = items.get("anyOf")
    {
        p.titled("anyOf", titled)?
    } else {
        return Err(p.error(
            format!(
                "its `items` ({}) are not an enum of strings",
                Value::Object(items.clone())
            ),
            fix_items,
        ));
    };
    let min = p.count("minItems")?;
    let max = p.count("maxItems")?;
    p.bounds(
        "minItems",
        "maxItems",
        min.map(|n| n as f64),
        max.map(|n| n as f64),
    )?;
    if let Some(default) = p.schema.get("default") {
        let fits = default.as_array().is_some_and(|picked| {
            picked
                .iter()
                .all(|v| v.as_str().is_some_and(|v| choices.iter().any(|c| c == v)))
        });
        if !fits {
            return Err(p.error(
                format!("`default` {default} is not a list of the choices"),
                "make `default` an array of some of the choices",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "elicit_schema_tests.rs"]
mod tests;

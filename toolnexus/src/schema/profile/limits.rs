//! The providers' documented limits on a strict schema, checked on the rewritten schema so
//! a tool over them is refused with a clear error instead of failing the whole request.
//!
//! Sources (as of 2026-11):
//! - OpenAI, "Structured model outputs", section "Supported schemas" → "Objects have
//!   limitations on nesting depth and size" and "Limitations on total string size" /
//!   "Limitations on enum size": up to 5,000 object properties in total, up to 10 levels
//!   of nesting, at most 120,000 characters of property names, definition names, enum
//!   values and const values in total, at most 1,000 enum values in total, and at most
//!   15,000 characters across the values of one string enum of more than 250 values.
//! - Anthropic, "Structured outputs", section "JSON Schema limitations": recursive
//!   schemas are not supported.

use serde_json::{Map, Value};

use super::walk::{def_name, join};
use super::{Profile, ProfileError};

/// OpenAI strict mode's limits on one schema.
pub(super) const OPENAI_MAX_PROPERTIES: usize = 5_000;
/// Levels of nested objects, the root being the first.
pub(super) const OPENAI_MAX_DEPTH: usize = 10;
/// Characters of property names, definition names, enum and const values.
pub(super) const OPENAI_MAX_STRING_LENGTH: usize = 120_000;
/// Enum values across the schema.
pub(super) const OPENAI_MAX_ENUM_VALUES: usize = 1_000;
/// A string enum with more values than this one...
pub(super) const OPENAI_LARGE_ENUM: usize = 250;
/// ...has at most this many characters across its values.
pub(super) const OPENAI_LARGE_ENUM_LENGTH: usize = 15_000;

#[derive(Default)]
struct Sizes {
    properties: usize,
    string_length: usize,
    enum_values: usize,
    /// The deepest object nesting, and where it first goes past the limit.
    depth: (usize, String),
}

/// Checks OpenAI's documented limits for strict mode.
pub(super) fn openai_strict(schema: &Value) -> Result<(), ProfileError> {
    let error =
        |path: &str, message: String| Err(ProfileError::new(Profile::OpenAiStrict, path, message));
    let mut sizes = Sizes::default();
    measure(schema, "", 0, &mut sizes)?;
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        for (name, def) in defs {
            sizes.string_length += name.chars().count();
            measure(def, &join("/$defs", name), 0, &mut sizes)?;
        }
    }
    if sizes.depth.0 > OPENAI_MAX_DEPTH {
        return error(
            &sizes.depth.1,
            format!(
                "objects are nested {} levels deep (this one is level {}); OpenAI strict mode \
                 allows at most {OPENAI_MAX_DEPTH} (Structured Outputs, supported schemas). \
                 Flatten the arguments, or use the plain listing",
                sizes.depth.0,
                OPENAI_MAX_DEPTH + 1
            ),
        );
    }
    if sizes.properties > OPENAI_MAX_PROPERTIES {
        return error(
            "",
            format!(
                "the schema has {} object properties in total; OpenAI strict mode allows at \
                 most {OPENAI_MAX_PROPERTIES}",
                sizes.properties
            ),
        );
    }
    if sizes.enum_values > OPENAI_MAX_ENUM_VALUES {
        return error(
            "",
            format!(
                "the schema has {} enum values in total; OpenAI strict mode allows at most \
                 {OPENAI_MAX_ENUM_VALUES}. Take a string (and check it in the tool) instead",
                sizes.enum_values
            ),
        );
    }
    if sizes.string_length > OPENAI_MAX_STRING_LENGTH {
        return error(
            "",
            format!(
                "property names, definition names, enum and const values add up to {} \
                 characters; OpenAI strict mode allows at most {OPENAI_MAX_STRING_LENGTH}",
                sizes.string_length
            ),
        );
    }
    Ok(())
}

/// Adds up the sizes of `schema`, found at `path` inside `depth` objects.
fn measure(
    schema: &Value,
    path: &str,
    depth: usize,
    sizes: &mut Sizes,
) -> Result<(), ProfileError> {
    let Value::Object(node) = schema else {
        return Ok(());
    };
    let object = node.contains_key("properties");
    let depth = depth + usize::from(object);
    if depth > sizes.depth.0 {
        // The place named is where the nesting first goes past the limit.
        if sizes.depth.0 <= OPENAI_MAX_DEPTH {
            sizes.depth.1 = if path.is_empty() {
                "/".into()
            } else {
                path.into()
            };
        }
        sizes.depth.0 = depth;
    }
    if let Some(Value::Object(props)) = node.get("properties") {
        sizes.properties += props.len();
        for (name, prop) in props {
            sizes.string_length += name.chars().count();
            measure(prop, &join(&join(path, "properties"), name), depth, sizes)?;
        }
    }
    if let Some(Value::Array(values)) = node.get("enum") {
        let strings: usize = values.iter().map(literal_length).sum();
        let non_null = values.iter().filter(|v| !v.is_null()).count();
        sizes.enum_values += non_null;
        sizes.string_length += strings;
        if non_null > OPENAI_LARGE_ENUM
            && values.iter().all(|v| v.is_string() || v.is_null())
            && strings > OPENAI_LARGE_ENUM_LENGTH
        {
            return Err(ProfileError::new(
                Profile::OpenAiStrict,
                &join(path, "enum"),
                format!(
                    "a string enum of {non_null} values has {strings} characters in total; \
                     OpenAI strict mode allows at most {OPENAI_LARGE_ENUM_LENGTH} for an enum \
                     of more than {OPENAI_LARGE_ENUM} values. Take a string (and check it in \
                     the tool) instead"
                ),
            ));
        }
    }
    if let Some(constant) = node.get("const") {
        sizes.string_length += literal_length(constant);
    }
    if let Some(items) = node.get("items") {
        measure(items, &join(path, "items"), depth, sizes)?;
    }
    for key in ["anyOf", "allOf", "oneOf"] {
        if let Some(Value::Array(variants)) = node.get(key) {
            for (at, variant) in variants.iter().enumerate() {
                measure(
                    variant,
                    &join(&join(path, key), &at.to_string()),
                    depth,
                    sizes,
                )?;
            }
        }
    }
    Ok(())
}

fn literal_length(value: &Value) -> usize {
    match value {
        Value::String(text) => text.chars().count(),
        Value::Null => 0,
        other => other.to_string().len(),
    }
}

/// Checks Anthropic's documented limits for strict tool use: no recursion.
pub(super) fn anthropic_strict(schema: &Value) -> Result<(), ProfileError> {
    if let Some((path, name)) = recursion(schema) {
        return Err(ProfileError::new(
            Profile::AnthropicStrict,
            &path,
            format!(
                "`{name}` refers to itself; Anthropic strict tool use does not support \
                 recursive schemas (Structured outputs, JSON Schema limitations). Use the plain \
                 listing, or bound the depth with distinct types"
            ),
        ));
    }
    Ok(())
}

/// The first reference that is part of a cycle (a recursive type): where, and to what.
pub(crate) fn recursion(schema: &Value) -> Option<(String, String)> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let mut found = None;
    refs(schema, "", &mut |path, reference| {
        if found.is_some() {
            return;
        }
        let target = if reference == "#" {
            Some("#".to_owned())
        } else {
            def_name(reference).map(str::to_owned)
        };
        if let Some(target) = target
            && reaches(schema, defs, &target, &target, &mut Vec::new())
        {
            found = Some((path.to_owned(), target));
        }
    });
    found
}

/// Whether the definition `from` (`#` for the root) refers, directly or not, to `to`.
fn reaches(
    root: &Value,
    defs: Option<&Map<String, Value>>,
    from: &str,
    to: &str,
    seen: &mut Vec<String>,
) -> bool {
    if seen.iter().any(|s| s == from) {
        return false;
    }
    seen.push(from.to_owned());
    let body = if from == "#" {
        Some(root)
    } else {
        defs.and_then(|d| d.get(from))
    };
    let Some(body) = body else { return false };
    let mut targets = Vec::new();
    refs(body, "", &mut |_, reference| {
        targets.push(reference.to_owned())
    });
    targets.into_iter().any(|reference| {
        let next = if reference == "#" {
            "#".to_owned()
        } else {
            match def_name(&reference) {
                Some(name) => name.to_owned(),
                None => return false,
            }
        };
        next == to || reaches(root, defs, &next, to, seen)
    })
}

/// Calls `found` with every `$ref` under `schema` (not entering `$defs`).
fn refs(schema: &Value, path: &str, found: &mut dyn FnMut(&str, &str)) {
    match schema {
        Value::Object(node) => {
            if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
                found(path, reference);
            }
            for (key, value) in node {
                if key == "$defs" || key == "definitions" || key == "enum" || key == "const" {
                    continue;
                }
                refs(value, &join(path, key), found);
            }
        }
        Value::Array(items) => {
            for (at, item) in items.iter().enumerate() {
                refs(item, &join(path, &at.to_string()), found);
            }
        }
        _ => {}
    }
}

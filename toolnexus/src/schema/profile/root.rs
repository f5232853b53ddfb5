//! The root every provider but MCP requires: a plain object, with a union of objects at
//! the root merged into one.

use serde_json::{Map, Value};

use super::walk::*;
use super::{Profile, ProfileError, not_enforced};

/// Gives the root the plain-object shape OpenAI, Anthropic and Gemini require: `type:
/// object` with `properties`.
///
/// A union of objects at the root (an `#[args]` enum), which all three reject there, is
/// merged into one object: its properties are those of every variant (a property several
/// variants have with different schemas, such as the tag, takes any of them: every tag is
/// listed), and the required ones are those every variant requires. That object allows
/// mixes no variant accepts (a tag with another variant's fields), so the merge is
/// reported as not enforced; the strict profiles, whose point is that the model cannot
/// send what the tool refuses, refuse such a root instead.
pub(crate) fn object_root(schema: &Value, profile: Profile) -> Result<Value, ProfileError> {
    let mut root = match schema {
        Value::Object(map) => map.clone(),
        Value::Bool(true) => Map::new(),
        _ => {
            return Err(ProfileError::new(
                profile,
                "",
                "the root must be an object schema",
            ));
        }
    };
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(variants)) = root.remove(key) {
            if matches!(profile, Profile::OpenAiStrict | Profile::AnthropicStrict) {
                return Err(ProfileError::new(
                    profile,
                    &join("", key),
                    "a union at the root (an `#[args]` enum: one object per variant) cannot be \
                     listed in strict mode: the provider requires the root to be one object, and \
                     one object cannot say which fields each variant requires. Use a struct \
                     with the enum as a field, or the plain (non-strict) listing",
                ));
            }
            merge_variants(&mut root, &variants, key, schema, profile)?;
        }
    }
    if let Some(Value::Array(parts)) = root.get("allOf").cloned()
        && parts
            .iter()
            .all(|part| variant_object(part, schema).is_some())
    {
        root.remove("allOf");
        for part in &parts {
            let part = variant_object(part, schema).unwrap_or_default();
            merge_object(&mut root, &part, true);
        }
    }
    match types_of(&root).as_slice() {
        [] => {
            root.insert("type".into(), "object".into());
        }
        ["object"] => {}
        _ => {
            return Err(ProfileError::new(
                profile,
                "",
                "the root must describe an object (the tool's named arguments)",
            ));
        }
    }
    if !root.contains_key("properties") {
        root.insert("properties".into(), Value::Object(Map::new()));
    }
    Ok(Value::Object(type_first(root)))
}

/// The canonical schema as `profile` wants it without strict mode: one object at the
/// root (a root union of objects merged), integer formats fixed. The strict dialects
/// start from it too.
pub(crate) fn plain_object(schema: &Value, profile: Profile) -> Result<Value, ProfileError> {
    let mut out = object_root(schema, profile)?;
    fix_integer_formats(&mut out);
    Ok(out)
}

/// A union variant as an object schema (following one local `$ref`), or `None`.
fn variant_object(variant: &Value, root: &Value) -> Option<Map<String, Value>> {
    let mut node = variant.as_object()?.clone();
    if let Some(target) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(root, r))
        .and_then(Value::as_object)
    {
        node.remove("$ref");
        for (key, value) in target {
            node.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    let is_object =
        types_of(&node) == ["object"] || (!is_typed(&node) && node.contains_key("properties"));
    is_object.then_some(node)
}

fn merge_variants(
    root: &mut Map<String, Value>,
    variants: &[Value],
    key: &str,
    schema: &Value,
    profile: Profile,
) -> Result<(), ProfileError> {
    let mut objects = Vec::new();
    for (at, variant) in variants.iter().enumerate() {
        match variant_object(variant, schema) {
            Some(object) => objects.push(object),
            None => {
                return Err(ProfileError::new(
                    profile,
                    &join(&join("", key), &at.to_string()),
                    "a union at the root can only be merged when every variant is an object",
                ));
            }
        }
    }
    let mut shapes = Vec::new();
    let mut required: Option<Vec<Value>> = None;
    let mut properties = root
        .remove("properties")
        .and_then(|p| p.as_object().cloned())
        .unwrap_or_default();
    for object in &objects {
        let names: Vec<&str> = object
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let label = object
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("({})", names.join(", ")));
        shapes.push(label);
        if let Some(Value::Object(props)) = object.get("properties") {
            for (name, prop) in props {
                match properties.get_mut(name) {
                    None => {
                        properties.insert(name.clone(), prop.clone());
                    }
                    Some(existing) => unite(existing, prop),
                }
            }
        }
        let own: Vec<Value> = object
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        required = Some(match required {
            None => own,
            Some(before) => before
                .into_iter()
                .filter(|name| own.contains(name))
                .collect(),
        });
    }
    root.insert("type".into(), "object".into());
    root.insert("properties".into(), Value::Object(properties));
    let mut required = required.unwrap_or_default();
    if let Some(Value::Array(own)) = root.get("required") {
        for name in own {
            if !required.contains(name) {
                required.push(name.clone());
            }
        }
    }
    if required.is_empty() {
        root.remove("required");
    } else {
        root.insert("required".into(), Value::Array(required));
    }
    if objects
        .iter()
        .all(|o| o.get("additionalProperties") == Some(&Value::Bool(false)))
    {
        root.insert("additionalProperties".into(), false.into());
    }
    add_description(
        root,
        &format!("Give the fields of exactly one of: {}.", shapes.join("; ")),
    );
    if objects.len() > 1 {
        not_enforced(
            profile,
            "",
            format!(
                "the root is a union of {} objects (an `#[args]` enum), listed as one object: \
                 which fields each variant requires, and which go together, is said in the \
                 description only",
                objects.len()
            ),
        );
    }
    Ok(())
}

/// Widens `existing` to also accept what `other` accepts: two literals (a tag's `const`
/// or `enum`) become one `enum`; differing schemas become an `anyOf` of both.
fn unite(existing: &mut Value, other: &Value) {
    if existing == other {
        return;
    }
    let literals = |schema: &Value| -> Option<Vec<Value>> {
        let node = schema.as_object()?;
        match (node.get("const"), node.get("enum")) {
            (Some(one), None) => Some(vec![one.clone()]),
            (None, Some(Value::Array(many))) => Some(many.clone()),
            _ => None,
        }
    };
    if let (Some(mut mine), Some(theirs), Value::Object(node)) =
        (literals(existing), literals(other), &mut *existing)
        && node.get("type") == other.get("type")
    {
        for value in theirs {
            if !mine.contains(&value) {
                mine.push(value);
            }
        }
        node.remove("const");
        node.insert("enum".into(), Value::Array(mine));
        return;
    }
    let union_only = existing
        .as_object()
        .is_some_and(|node| node.keys().all(|k| k == "anyOf" || k == "description"));
    if union_only && let Some(Value::Array(variants)) = existing.get_mut("anyOf") {
        if !variants.contains(other) {
            variants.push(other.clone());
        }
        return;
    }
    let before = std::mem::take(existing);
    *existing = serde_json::json!({ "anyOf": [before, other.clone()] });
}

/// Copies `part`'s keywords into `node`; `properties` and `required` are united.
pub(crate) fn merge_object(
    node: &mut Map<String, Value>,
    part: &Map<String, Value>,
    node_wins: bool,
) {
    for (key, value) in part {
        match (key.as_str(), node.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, prop) in theirs {
                    mine.entry(name.clone()).or_insert_with(|| prop.clone());
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            (_, Some(_), _) if node_wins => {}
            _ => {
                node.insert(key.clone(), value.clone());
            }
        }
    }
}

//! The pieces every profile's walk over a schema shares: JSON pointers, references,
//! descriptions, types, tuples and integer formats.

use serde_json::{Map, Value};

use super::{Profile, ProfileError};

/// Appends `child` to a JSON pointer, escaping `~` and `/`.
pub(crate) fn join(path: &str, child: &str) -> String {
    format!("{path}/{}", child.replace('~', "~0").replace('/', "~1"))
}

/// The `$defs` name a local reference points to (`#/$defs/Node` → `Node`).
pub(crate) fn def_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
}

/// Rewrites every schema of a `properties` map found at `path` with `walk`, which is given
/// each one's pointer.
pub(crate) fn each_property(
    props: Map<String, Value>,
    path: &str,
    mut walk: impl FnMut(&Value, &str) -> Result<Value, ProfileError>,
) -> Result<Map<String, Value>, ProfileError> {
    let mut done = Map::new();
    for (name, prop) in props {
        done.insert(name.clone(), walk(&prop, &join(path, &name))?);
    }
    Ok(done)
}

/// Rewrites every schema of a list found at `path` (`anyOf`'s variants) with `walk`, which
/// is given each one's pointer.
pub(crate) fn each_variant(
    variants: &[Value],
    path: &str,
    mut walk: impl FnMut(&Value, &str) -> Result<Value, ProfileError>,
) -> Result<Vec<Value>, ProfileError> {
    variants
        .iter()
        .enumerate()
        .map(|(at, variant)| walk(variant, &join(path, &at.to_string())))
        .collect()
}

/// The same keywords with `type` first, as every provider's examples have it.
pub(crate) fn type_first(mut node: Map<String, Value>) -> Map<String, Value> {
    let mut ordered = Map::new();
    // `shift_remove`: the plain `remove` of an ordered map swaps the last key into the
    // place it empties, which would move that key to second place.
    if let Some(kind) = node.shift_remove("type") {
        ordered.insert("type".into(), kind);
    }
    ordered.extend(node);
    ordered
}

/// The subschema a local reference (`#/$defs/Name`, `#/definitions/Name`, `#`) points to.
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// Renders keywords moved out of a schema the way the Anthropic SDK does:
/// `{minLength: 1, format: email}`.
pub(crate) fn render_notes(notes: &[(String, Value)]) -> String {
    let body: Vec<String> = notes
        .iter()
        .map(|(key, value)| match value {
            Value::String(text) => format!("{key}: {text}"),
            other => format!("{key}: {other}"),
        })
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// Appends moved-out keywords to `node`'s description, after a blank line.
pub(crate) fn add_notes(node: &mut Map<String, Value>, notes: &[(String, Value)]) {
    if notes.is_empty() {
        return;
    }
    add_description(node, &render_notes(notes));
}

/// Appends a sentence to `node`'s description, after a blank line.
pub(crate) fn add_description(node: &mut Map<String, Value>, text: &str) {
    let description = match node.get("description").and_then(Value::as_str) {
        Some(existing) if !existing.is_empty() => format!("{existing}\n\n{text}"),
        _ => text.to_owned(),
    };
    node.insert("description".into(), description.into());
}

/// The `type` keyword as a list of names (`"string"` → `["string"]`).
pub(crate) fn types_of(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a schema has anything that says what its values are.
pub(crate) fn is_typed(node: &Map<String, Value>) -> bool {
    ["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"]
        .iter()
        .any(|key| node.contains_key(*key))
}

/// Whether `schema` accepts `null` (as far as can be told without resolving references).
pub(crate) fn accepts_null(schema: &Value) -> bool {
    let Value::Object(node) = schema else {
        return schema == &Value::Bool(true);
    };
    if !is_typed(node) {
        return true;
    }
    if types_of(node).contains(&"null") {
        return true;
    }
    if let Some(Value::Array(values)) = node.get("enum")
        && values.contains(&Value::Null)
    {
        return true;
    }
    if node.get("const") == Some(&Value::Null) {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        node.get(*key)
            .and_then(Value::as_array)
            .is_some_and(|variants| variants.iter().any(accepts_null))
    })
}

/// A tuple (`prefixItems`, which OpenAI, Anthropic and Gemini do not take) as a plain
/// array: `items` is the one element schema when all are alike, else their `anyOf`; the
/// length bounds stay, and the positions are said in the description (and reported as not
/// enforced: the provider may send the elements in any order).
pub(crate) fn tuple_to_items(node: &mut Map<String, Value>, profile: Profile, path: &str) {
    if node.contains_key("items") && node.get("items") != Some(&Value::Bool(false)) {
        return;
    }
    let Some(Value::Array(positions)) = node.remove("prefixItems") else {
        return;
    };
    node.remove("items");
    let Some(first) = positions.first() else {
        return;
    };
    if positions.iter().all(|p| p == first) {
        node.insert("items".into(), first.clone());
    } else {
        node.insert(
            "items".into(),
            serde_json::json!({ "anyOf": positions.clone() }),
        );
        let listed: Vec<String> = positions.iter().map(Value::to_string).collect();
        add_description(
            node,
            &format!("Positions, in order: {}.", listed.join(", ")),
        );
        super::not_enforced(
            profile,
            path,
            "a tuple's positions (`prefixItems`) cannot be expressed: each element may be \
             of any of the tuple's types, and the positions are said in the description only",
        );
    }
}

/// The range a non-standard number format (`int32`, `uint64`, `uint`, `float`, …) stands
/// for, as `(minimum, maximum)`; `None` for any other format.
///
/// 128-bit integers get the 64-bit range: a `serde_json::Value` (the form arguments take
/// on the value path) holds no larger integer, so a larger one would be refused there.
fn number_format_range(format: &str) -> Option<(Option<Value>, Option<Value>)> {
    use serde_json::json;
    let both = |min: Value, max: Value| (Some(min), Some(max));
    Some(match format {
        "int8" => both(json!(i8::MIN), json!(i8::MAX)),
        "int16" => both(json!(i16::MIN), json!(i16::MAX)),
        "int32" => both(json!(i32::MIN), json!(i32::MAX)),
        // Bounds at or past ±(2^53−1) tell a model nothing, and every JavaScript reader
        // (so most MCP hosts) rounds them to doubles, 9223372036854775807 becoming
        // 9223372036854776000: listed, they would promise values the tool refuses. The
        // type says "integer"; a value outside the Rust type is refused with an error
        // naming the field.
        "int64" | "int128" | "int" => (None, None),
        "uint8" => both(json!(0), json!(u8::MAX)),
        "uint16" => both(json!(0), json!(u16::MAX)),
        "uint32" => both(json!(0), json!(u32::MAX)),
        "uint64" | "uint128" | "uint" => (Some(json!(0)), None),
        // `f32::MAX`, as the `f64` serde reads it as (a larger number is out of range).
        "float" => both(json!(-f64::from(f32::MAX)), json!(f64::from(f32::MAX))),
        _ => return None,
    })
}

/// Turns non-standard number formats everywhere in `schema` into the range they stand for
/// where that range says something a reader takes exactly (`format: uint32` → `minimum:
/// 0, maximum: 4294967295`; `int64` → no bound; `uint64` → `minimum: 0`), keeping any
/// bound already there, and drops them; `double` is dropped too (any JSON number fits an
/// `f64`).
pub(crate) fn fix_integer_formats(schema: &mut Value) {
    match schema {
        Value::Object(node) => {
            if let Some(format) = node.get("format").and_then(Value::as_str) {
                if let Some((minimum, maximum)) = number_format_range(format) {
                    node.shift_remove("format");
                    if let Some(minimum) = minimum
                        && !node.contains_key("minimum")
                        && !node.contains_key("exclusiveMinimum")
                    {
                        node.insert("minimum".into(), minimum);
                    }
                    if let Some(maximum) = maximum
                        && !node.contains_key("maximum")
                        && !node.contains_key("exclusiveMaximum")
                    {
                        node.insert("maximum".into(), maximum);
                    }
                } else if format == "double" {
                    node.shift_remove("format");
                }
            }
            for (key, value) in node.iter_mut() {
                if key == "enum" || key == "const" || key == "default" || key == "examples" {
                    continue;
                }
                fix_integer_formats(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(fix_integer_formats),
        _ => {}
    }
}

/// Writes every subschema `true` (any value) as `{}`, which means the same: some readers
/// (the MCP TypeScript SDK, Gemini) take only objects as schemas.
pub(crate) fn true_as_empty(schema: &mut Value) {
    let Value::Object(node) = schema else { return };
    for (key, value) in node.iter_mut() {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "definitions" | "patternProperties", Value::Object(map)) => {
                for sub in map.values_mut() {
                    if sub == &Value::Bool(true) {
                        *sub = Value::Object(Map::new());
                    }
                    true_as_empty(sub);
                }
            }
            ("items" | "additionalProperties" | "not" | "contains", sub @ Value::Object(_)) => {
                true_as_empty(sub)
            }
            ("items", sub @ Value::Bool(true)) => *sub = Value::Object(Map::new()),
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(list)) => {
                for sub in list {
                    if sub == &Value::Bool(true) {
                        *sub = Value::Object(Map::new());
                    }
                    true_as_empty(sub);
                }
            }
            _ => {}
        }
    }
}

//! Gemini's `parameters` field: a subset of OpenAPI 3.0's Schema object.

use serde_json::{Map, Value, json};

use super::gaps::moved;
use super::{
    Profile, ProfileError, add_description, add_notes, def_name, each_property, each_variant, join,
    merge_object, not_enforced, plain_object, resolve, tuple_to_items, type_first, types_of,
};

/// The keywords Gemini's `Schema` object has (its REST reference), less `title` and
/// `example`, which this profile drops.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Dropped without a trace: they say nothing a model needs.
const DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "$comment",
    "title",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
];

/// Gemini function `parameters`.
///
/// - references are inlined (a recursive type is an error: `parameters` has no `$ref`);
/// - `$schema`, `title`, `examples`, `additionalProperties: false` are dropped (Gemini
///   fills only the declared properties of an OBJECT);
/// - `const` becomes a one-value `enum`; `["T","null"]` and `anyOf: [T, null]` become `T`
///   with `nullable: true`; a union with `null` among several variants gets a
///   `{"type": "null"}` variant; `oneOf` becomes `anyOf`; `null` alone (a unit struct) is
///   `{"type": "null"}`;
/// - an `enum` of non-strings (Gemini's are strings only) is said in the description;
/// - formats Gemini does not know (all but `date-time` and `enum` on strings) and keywords
///   outside its subset (`exclusiveMinimum`, `uniqueItems`, …) move into the description,
///   and are reported as not enforced.
///
/// Errors: a recursive type, a map (an OBJECT with free-form keys: Gemini requires the
/// properties of an OBJECT to be listed), an untyped value (`serde_json::Value`), a nested
/// object without properties. A root without properties (a tool without parameters) is
/// `{"type": "object", "properties": {}}` here; its listing entry leaves `parameters` out.
pub fn gemini(schema: &Value) -> Result<Value, ProfileError> {
    let root = plain_object(schema, Profile::Gemini)?;
    let mut walk = Walk {
        root: &root,
        stack: Vec::new(),
    };
    walk.node(&root, "")
}

/// Said of a map.
const MAP: &str = "a map (`HashMap`, `BTreeMap`: an object with free-form keys) cannot be declared to Gemini, whose OBJECT needs its properties listed; use a struct or a list of key/value pairs";

/// Said of an untyped value.
const UNTYPED: &str = "an untyped value (any JSON, e.g. `serde_json::Value`) cannot be declared to Gemini; give it a concrete type";

struct Walk<'a> {
    root: &'a Value,
    stack: Vec<String>,
}

impl Walk<'_> {
    fn error(&self, path: &str, message: impl Into<String>) -> ProfileError {
        ProfileError::new(Profile::Gemini, path, message)
    }

    fn node(&mut self, schema: &Value, path: &str) -> Result<Value, ProfileError> {
        let mut node = match schema {
            Value::Object(map) => map.clone(),
            Value::Bool(true) => return Err(self.error(path, UNTYPED)),
            _ => return Err(self.error(path, "a schema that accepts nothing (`false`)")),
        };

        if let Some(reference) = node.remove("$ref") {
            let reference = reference.as_str().unwrap_or_default().to_owned();
            let name = def_name(&reference).unwrap_or(&reference).to_owned();
            if self.stack.contains(&name) || reference == "#" {
                return Err(self.error(
                    path,
                    format!(
                        "`{name}` refers to itself; Gemini's `parameters` cannot express a recursive type (it has no `$ref`)"
                    ),
                ));
            }
            let Some(target) = resolve(self.root, &reference) else {
                return Err(self.error(path, format!("`$ref: {reference}` points nowhere")));
            };
            if let Value::Object(target) = target {
                merge_object(&mut node, target, true);
            }
            self.stack.push(name);
            let out = self.node(&Value::Object(node), path);
            self.stack.pop();
            return out;
        }
        tuple_to_items(&mut node, Profile::Gemini, path);
        if let Some(Value::Array(parts)) = node.get("allOf").cloned() {
            node.remove("allOf");
            for part in parts {
                let Value::Object(part) = self.node(&part, path)? else {
                    unreachable!("node() returns objects")
                };
                merge_object(&mut node, &part, true);
            }
            return self.node(&Value::Object(node), path);
        }
        if let Some(one_of) = node.remove("oneOf")
            && !node.contains_key("anyOf")
        {
            node.insert("anyOf".into(), one_of);
        }
        if let Some(constant) = node.remove("const") {
            node.insert("enum".into(), Value::Array(vec![constant]));
        }

        let mut nullable = node.get("nullable") == Some(&Value::Bool(true));
        // `["T", "null"]` → `T` + nullable; several non-null types → `anyOf`.
        let mut types: Vec<String> = types_of(&node).into_iter().map(str::to_owned).collect();
        if types == ["null"] && !node.contains_key("anyOf") && !node.contains_key("enum") {
            // `null` alone: a unit struct.
        } else if types.iter().any(|t| t == "null") {
            nullable = true;
            types.retain(|t| t != "null");
        }
        // `null` among the `enum` values → nullable.
        if let Some(Value::Array(values)) = node.get_mut("enum")
            && values.contains(&Value::Null)
        {
            nullable = true;
            values.retain(|v| !v.is_null());
        }
        // `anyOf: [T, null]` → `T` + nullable.
        if let Some(Value::Array(variants)) = node.get("anyOf").cloned() {
            let kept: Vec<Value> = variants
                .into_iter()
                .filter(|v| {
                    let only_null = v.as_object().is_some_and(|m| {
                        types_of(m) == ["null"]
                            && m.keys().all(|k| k == "type" || k == "description")
                    });
                    if only_null {
                        nullable = true;
                    }
                    !only_null
                })
                .collect();
            node.remove("anyOf");
            match kept.len() {
                0 => {}
                1 => {
                    let Value::Object(single) = self.node(&kept[0], &join(path, "anyOf"))? else {
                        unreachable!("node() returns objects")
                    };
                    merge_object(&mut node, &single, true);
                    if single.get("nullable") == Some(&Value::Bool(true)) {
                        nullable = true;
                    }
                    types = types_of(&node)
                        .into_iter()
                        .filter(|t| *t != "null")
                        .map(str::to_owned)
                        .collect();
                }
                _ => {
                    let done = each_variant(&kept, &join(path, "anyOf"), |variant, at| {
                        self.node(variant, at)
                    })?;
                    node.insert("anyOf".into(), Value::Array(done));
                }
            }
        }
        match types.as_slice() {
            [] => {
                node.remove("type");
            }
            [one] => {
                node.insert("type".into(), one.as_str().into());
            }
            many => {
                // Several types: one `anyOf` variant per type.
                node.remove("type");
                let variants = many.iter().map(|t| json!({ "type": t })).collect();
                node.insert("anyOf".into(), Value::Array(variants));
            }
        }
        let kind = node.get("type").and_then(Value::as_str).map(str::to_owned);

        let mut out = Map::new();
        let mut notes = Vec::new();
        for (key, value) in node {
            let here = join(path, &key);
            match key.as_str() {
                "properties" => {
                    if let Value::Object(props) = value {
                        let done = each_property(props, &here, |prop, at| self.node(prop, at))?;
                        out.insert(key, Value::Object(done));
                    }
                }
                "items" => {
                    out.insert(key, self.node(&value, &here)?);
                }
                "anyOf" | "nullable" => {
                    out.insert(key, value);
                }
                "additionalProperties" => {
                    if value != Value::Bool(false) {
                        return Err(self.error(&here, MAP));
                    }
                }
                "enum" => match &value {
                    Value::Array(values) if values.iter().all(Value::is_string) => {
                        out.insert(key, value);
                    }
                    Value::Array(values) => {
                        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
                        not_enforced(
                            Profile::Gemini,
                            path,
                            format!(
                                "an enum of non-strings ({}) cannot be expressed (Gemini's enums \
                                 are strings), so it is said in the description only",
                                listed.join(", ")
                            ),
                        );
                        if kind.is_none()
                            && let Some(inferred) = infer_type(values)
                        {
                            out.insert("type".into(), inferred.into());
                        }
                        add_description(&mut out, &format!("One of: {}.", listed.join(", ")));
                    }
                    _ => {}
                },
                "format" => match (kind.as_deref(), value.as_str()) {
                    (Some("string"), Some("date-time" | "enum")) => {
                        out.insert(key, value);
                    }
                    _ => notes.push((key, value)),
                },
                k if DROPPED.contains(&k) => {}
                k if GEMINI_KEYWORDS.contains(&k) => {
                    out.insert(key, value);
                }
                _ => notes.push((key, value)),
            }
        }
        if let Some(Value::Array(values)) = out.get("enum")
            && !out.contains_key("type")
            && values.iter().all(Value::is_string)
        {
            out.insert("type".into(), "string".into());
        }
        if nullable || out.contains_key("nullable") {
            let typed = out.contains_key("type");
            match out.get_mut("anyOf") {
                // `nullable` beside `anyOf` says nothing to a JSON Schema reader (ajv
                // refuses it without a `type`): `null` is one more variant instead.
                Some(Value::Array(variants)) if !typed => {
                    variants.push(json!({"type": "null"}));
                    out.remove("nullable");
                }
                _ => {
                    out.insert("nullable".into(), Value::Bool(true));
                }
            }
        }
        if !["type", "anyOf", "enum"]
            .iter()
            .any(|k| out.contains_key(*k))
        {
            return Err(self.error(path, UNTYPED));
        }
        if out.get("type") == Some(&Value::from("object"))
            && !path.is_empty()
            && out
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(Map::is_empty)
        {
            return Err(self.error(
                path,
                "an object without properties cannot be declared to Gemini (\"properties: \
                 should be non-empty for OBJECT type\"); give the struct a field, or use a \
                 unit enum",
            ));
        }
        moved(Profile::Gemini, path, &notes);
        add_notes(&mut out, &notes);
        Ok(Value::Object(type_first(out)))
    }
}

/// The one JSON type every value of a non-string `enum` has.
fn infer_type(values: &[Value]) -> Option<&'static str> {
    let of = |v: &Value| match v {
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
        Value::Number(_) => Some("number"),
        Value::String(_) => Some("string"),
        _ => None,
    };
    let first = of(values.first()?)?;
    values.iter().all(|v| of(v) == Some(first)).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_const_and_formats() {
        let schema = json!({
            "type": "object",
            "title": "Args",
            "properties": {
                "a": {"type": ["string", "null"], "format": "email"},
                "b": {"const": "x"},
                "c": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "description": "C."},
                "d": {"enum": [1, 2]}
            },
            "required": ["b"],
            "additionalProperties": false
        });
        let out = gemini(&schema).unwrap();
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "string", "nullable": true, "description": "{format: email}"},
                    "b": {"type": "string", "enum": ["x"]},
                    "c": {"type": "integer", "description": "C.", "minimum": 0, "nullable": true},
                    "d": {"type": "integer", "description": "One of: 1, 2."}
                },
                "required": ["b"]
            })
        );
    }

    #[test]
    fn refs_are_inlined_and_recursion_is_an_error() {
        let inlined = json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/P", "description": "Doc."}},
            "$defs": {"P": {"type": "object", "properties": {"x": {"type": "integer"}}}}
        });
        assert_eq!(
            gemini(&inlined).unwrap()["properties"]["p"],
            json!({"type": "object", "properties": {"x": {"type": "integer"}}, "description": "Doc."})
        );
        let recursive = json!({
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}
        });
        let err = gemini(&recursive).unwrap_err();
        assert_eq!(err.path(), "/properties/n/properties/next");
        assert!(err.message().contains("recursive"), "{err}");
    }

    /// Gemini rejects an OBJECT without properties, and ajv a `nullable` beside `anyOf`
    /// without a `type`; a unit struct is `null`, not "anything".
    #[test]
    fn no_empty_objects_no_untyped_nullable_and_unit_is_null() {
        let schema = json!({"type": "object", "properties": {
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "unit": {"type": "null"}
        }});
        let out = gemini(&schema).unwrap();
        assert_eq!(
            out["properties"]["either"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
        );
        assert_eq!(out["properties"]["unit"], json!({"type": "null"}));
        let empty = json!({"type": "object", "properties": {
            "inner": {"type": "object", "properties": {}}
        }});
        let error = gemini(&empty).unwrap_err();
        assert_eq!(error.path(), "/properties/inner");
        let map = json!({"type": "object", "properties": {
            "m": {"type": "object", "additionalProperties": {"type": "string"}}
        }});
        assert!(gemini(&map).unwrap_err().message().contains("map"));
        assert!(gemini(&json!({"type": "object"})).is_ok());
    }
}

//! OpenAI function calling: the plain profile and strict mode.

use serde_json::{Map, Value};

use super::strict::{Dialect, Keyword, STRICT_FORMATS, Shape, accepts_anything, strict};
use super::{Profile, ProfileError, accepts_null, plain_object, types_of};

/// OpenAI function `parameters`, without strict mode: the canonical schema with a plain
/// object at the root (a root union of objects is merged, since OpenAI rejects it).
pub fn openai(schema: &Value) -> Result<Value, ProfileError> {
    plain_object(schema, Profile::OpenAi)
}

/// Keywords strict mode accepts, beyond those handled one by one below.
const KEPT: &[&str] = &[
    "type",
    "description",
    "title",
    "enum",
    "const",
    "anyOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "$ref",
    "$defs",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// Annotations strict mode rejects and that carry nothing for the model: dropped.
const DROPPED: &[&str] = &[
    "default",
    "examples",
    "$comment",
    "$schema",
    "$id",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
];

/// Keywords that change which values are valid and that strict mode cannot express.
const UNSUPPORTED: &[&str] = &[
    "patternProperties",
    "propertyNames",
    "prefixItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// OpenAI function `parameters` for strict mode (`"strict": true`).
///
/// - every object gets `additionalProperties: false`, and every property is listed in
///   `required`; the optional ones of the root become nullable (`["T","null"]`, or a
///   `null` variant), so the model sends `null` where it has nothing to say (the tool
///   reads it as absent); below the root, an optional property that does not take `null`
///   (a nested `#[serde(default)]` field) is required as it is, since nothing there reads
///   `null` as the default;
/// - `oneOf` becomes `anyOf`; a one-part `allOf` is merged into its schema;
/// - a `$ref` with sibling keywords (a documented field of a struct type) is inlined, the
///   siblings winning; a recursive one keeps its `$ref` inside a one-variant `anyOf`;
/// - `default`, `examples` and similar annotations are removed;
/// - formats outside OpenAI's list, length bounds and other unsupported keywords are moved
///   into the description (`{minLength: 1, format: uri}`), so the model still reads them.
///
/// - a tuple (`prefixItems`) becomes a plain array of its element type, length bounds kept.
///
/// Errors: a map (`HashMap`, `additionalProperties` with a schema), an untyped value
/// (`serde_json::Value`, `items: {}`), a root that is not one object (a root union, as an
/// `#[args]` enum gives), or a schema over OpenAI's documented limits for strict mode
/// (more than 5,000 properties, 10 levels of nested objects, 1,000 enum values, 120,000
/// characters of names and values, or 15,000 characters in a string enum of more than
/// 250 values).
pub fn openai_strict(schema: &Value) -> Result<Value, ProfileError> {
    strict::<OpenAiStrict>(schema)
}

/// OpenAI strict mode's rules, for the shared strict walker.
struct OpenAiStrict;

impl Dialect for OpenAiStrict {
    const PROFILE: Profile = Profile::OpenAiStrict;
    const NOT_AN_OBJECT: &'static str = "an untyped value (any JSON, e.g. `serde_json::Value`) cannot be described in strict mode; give it a concrete type";
    const REMOVED_FIRST: &'static [&'static str] = &[];
    const REFUSES_UNMERGED_UNIONS: bool = true;

    /// Any `type` in a list counts; `properties` alone makes an object.
    fn shape(node: &Map<String, Value>) -> Shape {
        let types = types_of(node);
        Shape {
            object: types.contains(&"object") || node.contains_key("properties"),
            array: types.contains(&"array"),
            string: types.contains(&"string"),
        }
    }

    fn keyword(key: &str, value: &Value, _: &Shape) -> Keyword {
        match key {
            "properties" | "anyOf" => Keyword::Walk,
            "items" if accepts_anything(value) => Keyword::Refuse(
                "untyped array items (`items: {}`, e.g. `Vec<serde_json::Value>`) cannot be described in strict mode".into(),
            ),
            "items" => Keyword::Walk,
            "additionalProperties" => Keyword::additional_properties(value),
            "format" => {
                Keyword::keep_if(value.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f)))
            }
            k if UNSUPPORTED.contains(&k) => {
                Keyword::Refuse(format!("`{k}` cannot be expressed in strict mode"))
            }
            k if DROPPED.contains(&k) => Keyword::Drop,
            k => Keyword::keep_if(KEPT.contains(&k)),
        }
    }

    fn limits(schema: &Value) -> Result<(), ProfileError> {
        super::limits::openai_strict(schema)
    }

    /// An array says its elements, with `items` or as an `anyOf`.
    fn check(shape: &Shape, out: &Map<String, Value>) -> Result<(), &'static str> {
        if shape.array && !out.contains_key("items") && !out.contains_key("anyOf") {
            return Err(
                "an array without `items` (a list of untyped values) cannot be described in strict mode",
            );
        }
        Ok(())
    }

    /// Every property is required. The optional ones of the root become nullable: the
    /// tool reads a `null` given there as absent (see `Tool::call`), i.e. the default.
    /// Deeper down, nothing reads `null` as absent, so an optional property that does not
    /// take `null` (a `#[serde(default)]` field of a nested struct) is simply required.
    fn finish_object(object: &mut Map<String, Value>, path: &str) {
        let required: Vec<Value> = object
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut all = Vec::new();
        if let Some(Value::Object(props)) = object.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                let name = Value::from(name.as_str());
                if !required.contains(&name) {
                    if path.is_empty() {
                        make_nullable(prop);
                    } else if !accepts_null(prop) {
                        super::not_enforced(
                            Profile::OpenAiStrict,
                            &super::join(
                                &super::join(path, "properties"),
                                name.as_str().unwrap_or_default(),
                            ),
                            "an optional field below the root that does not take `null` (a \
                             `#[serde(default)]` field of a nested struct) is required in strict \
                             mode: the model always gives it, and cannot leave it to its default",
                        );
                    }
                }
                all.push(name);
            }
        }
        object.insert("required".into(), Value::Array(all));
    }
}

/// Lets `schema` also accept `null`: `"T"` → `["T","null"]` (an `enum` gains `null` too),
/// a union gains a `null` variant, anything else is wrapped in `anyOf: [schema, null]`.
pub(crate) fn make_nullable(schema: &mut Value) {
    if accepts_null(schema) {
        return;
    }
    let Value::Object(node) = schema else { return };
    let null = serde_json::json!({"type": "null"});
    if node.contains_key("$ref") || node.contains_key("const") {
        let description = node.remove("description");
        let inner = std::mem::take(node);
        node.insert(
            "anyOf".into(),
            Value::Array(vec![Value::Object(inner), null]),
        );
        if let Some(description) = description {
            node.insert("description".into(), description);
        }
        return;
    }
    if let Some(Value::Array(variants)) = node.get_mut("anyOf") {
        variants.push(null);
        return;
    }
    match node.get_mut("type") {
        Some(Value::String(one)) => {
            let one = std::mem::take(one);
            node.insert("type".into(), serde_json::json!([one, "null"]));
        }
        Some(Value::Array(many)) => many.push("null".into()),
        _ => {}
    }
    if let Some(Value::Array(values)) = node.get_mut("enum") {
        values.push(Value::Null);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "format": "uri"},
                "tag": {"enum": ["a", "b"], "type": "string"},
                "inner": {"type": "object", "properties": {"x": {"type": "integer", "default": 3}}},
                "when": {"type": "string", "format": "date-time"}
            },
            "required": ["name"]
        });
        let out = openai_strict(&schema).unwrap();
        assert_eq!(out["required"], json!(["name", "tag", "inner", "when"]));
        assert_eq!(out["additionalProperties"], false);
        assert_eq!(
            out["properties"]["name"],
            json!({"type": "string", "description": "{minLength: 1, format: uri}"})
        );
        assert_eq!(
            out["properties"]["tag"],
            json!({"enum": ["a", "b", null], "type": ["string", "null"]})
        );
        assert_eq!(
            out["properties"]["inner"],
            json!({"type": ["object", "null"], "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": false})
        );
        assert_eq!(out["properties"]["when"]["format"], "date-time");
    }

    #[test]
    fn maps_and_untyped_values_are_errors() {
        let map = json!({"type": "object", "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "string"}}
        }});
        let err = openai_strict(&map).unwrap_err();
        assert_eq!(err.path(), "/properties/labels/additionalProperties");
        assert!(err.message().contains("map"), "{err}");
        let untyped =
            json!({"type": "object", "properties": {"v": {"type": "array", "items": {}}}});
        let err = openai_strict(&untyped).unwrap_err();
        assert_eq!(err.path(), "/properties/v/items");
        let any = json!({"type": "object", "properties": {"v": true}});
        assert!(openai_strict(&any).is_err());
    }

    #[test]
    fn refs_with_siblings_are_inlined_and_recursive_ones_wrapped() {
        let schema = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node", "description": "The root."}},
            "required": ["root"],
            "$defs": {"Node": {
                "type": "object",
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "next": {"$ref": "#/$defs/Node", "description": "The next one."}
                },
                "required": ["children", "next"]
            }}
        });
        let out = openai_strict(&schema).unwrap();
        let root = &out["properties"]["root"];
        assert_eq!(root["description"], "The root.");
        assert_eq!(root["type"], "object");
        assert_eq!(
            root["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            root["properties"]["next"],
            json!({"description": "The next one.", "anyOf": [{"$ref": "#/$defs/Node"}]})
        );
        assert_eq!(out["$defs"]["Node"]["additionalProperties"], false);
    }

    #[test]
    fn one_of_becomes_any_of() {
        let schema = json!({"type": "object", "properties": {"v": {"oneOf": [
            {"type": "string", "const": "a"}, {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}
        ]}}, "required": ["v"]});
        let out = openai_strict(&schema).unwrap();
        assert!(out["properties"]["v"].get("oneOf").is_none());
        assert_eq!(
            out["properties"]["v"]["anyOf"][1]["additionalProperties"],
            false
        );
    }
}

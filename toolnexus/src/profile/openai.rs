//! OpenAI function calling: the plain profile and strict mode.

use serde_json::{Map, Value};

use super::{
    Profile, ProfileError, accepts_null, add_notes, def_name, fix_integer_formats, is_typed, join,
    merge_object, object_root, resolve, tuple_to_items, types_of,
};

/// OpenAI function `parameters`, without strict mode: the canonical schema with a plain
/// object at the root (a root union of objects is merged, since OpenAI rejects it).
pub fn openai(schema: &Value) -> Result<Value, ProfileError> {
    let mut out = object_root(schema, Profile::OpenAi)?;
    fix_integer_formats(&mut out);
    Ok(out)
}

/// The formats OpenAI strict mode accepts on strings.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

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
///   `required`; the ones that were optional become nullable (`["T","null"]`, or a `null`
///   variant), so the model sends `null` where it has nothing to say;
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
/// (`serde_json::Value`, `items: {}`), or a root that is not an object.
pub fn openai_strict(schema: &Value) -> Result<Value, ProfileError> {
    let mut root = object_root(schema, Profile::OpenAiStrict)?;
    fix_integer_formats(&mut root);
    let mut walk = Strict {
        root: &root,
        stack: Vec::new(),
    };
    let mut out = walk.node(&root, "")?;
    if let Some(Value::Object(defs)) = root.get("$defs") {
        let mut done = Map::new();
        for (name, def) in defs {
            walk.stack.push(name.clone());
            done.insert(name.clone(), walk.node(def, &join("/$defs", name))?);
            walk.stack.pop();
        }
        if let Value::Object(map) = &mut out {
            map.insert("$defs".into(), Value::Object(done));
        }
    }
    Ok(out)
}

struct Strict<'a> {
    root: &'a Value,
    /// The `$defs` being inlined, to tell recursion.
    stack: Vec<String>,
}

impl Strict<'_> {
    fn error(&self, path: &str, message: impl Into<String>) -> ProfileError {
        ProfileError::new(Profile::OpenAiStrict, path, message)
    }

    fn node(&mut self, schema: &Value, path: &str) -> Result<Value, ProfileError> {
        let Value::Object(source) = schema else {
            return Err(self.error(
                path,
                "an untyped value (any JSON, e.g. `serde_json::Value`) cannot be described in strict mode; give it a concrete type",
            ));
        };
        let mut node = source.clone();
        node.remove("$defs");

        // `$ref` with siblings: inline the target (siblings win), or wrap a recursive one.
        if let Some(reference) = node.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            if node.len() == 1 {
                return Ok(Value::Object(node));
            }
            node.remove("$ref");
            let name = def_name(&reference).map(str::to_owned);
            let recursive = name.as_ref().is_some_and(|n| self.stack.contains(n));
            if recursive {
                let mut wrapped = self.keywords(node, path)?;
                wrapped.insert(
                    "anyOf".into(),
                    Value::Array(vec![serde_json::json!({ "$ref": reference })]),
                );
                return Ok(Value::Object(wrapped));
            }
            let Some(Value::Object(target)) = resolve(self.root, &reference) else {
                return Err(self.error(path, format!("`$ref: {reference}` points nowhere")));
            };
            merge_object(&mut node, target, true);
            if let Some(name) = &name {
                self.stack.push(name.clone());
            }
            let out = self.node(&Value::Object(node), path);
            if name.is_some() {
                self.stack.pop();
            }
            return out;
        }

        tuple_to_items(&mut node);
        if let Some(Value::Array(parts)) = node.remove("allOf") {
            match parts.as_slice() {
                [Value::Object(part)] => merge_object(&mut node, part, true),
                _ => {
                    return Err(self.error(
                        &join(path, "allOf"),
                        "`allOf` with several parts is not supported in strict mode",
                    ));
                }
            }
            return self.node(&Value::Object(node), path);
        }
        if let Some(one_of) = node.remove("oneOf") {
            if node.contains_key("anyOf") {
                return Err(self.error(
                    path,
                    "`oneOf` beside `anyOf` is not supported in strict mode",
                ));
            }
            node.insert("anyOf".into(), one_of);
        }
        if !is_typed(&node) {
            return Err(self.error(
                path,
                "an untyped value (any JSON, e.g. `serde_json::Value` or `items: {}`) cannot be described in strict mode; give it a concrete type",
            ));
        }
        Ok(Value::Object(self.keywords(node, path)?))
    }

    /// Rewrites the keywords of one (already de-referenced) schema object.
    fn keywords(
        &mut self,
        node: Map<String, Value>,
        path: &str,
    ) -> Result<Map<String, Value>, ProfileError> {
        let types = types_of(&node)
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        let is_object = types.iter().any(|t| t == "object") || node.contains_key("properties");
        let is_array = types.iter().any(|t| t == "array");
        let mut out = Map::new();
        let mut notes = Vec::new();
        for (key, value) in node {
            let here = join(path, &key);
            match key.as_str() {
                "properties" => {
                    let Value::Object(props) = value else {
                        continue;
                    };
                    let mut done = Map::new();
                    for (name, prop) in props {
                        done.insert(name.clone(), self.node(&prop, &join(&here, &name))?);
                    }
                    out.insert(key, Value::Object(done));
                }
                "items" => {
                    if matches!(&value, Value::Object(m) if m.is_empty())
                        || value == Value::Bool(true)
                    {
                        return Err(self.error(
                            &here,
                            "untyped array items (`items: {}`, e.g. `Vec<serde_json::Value>`) cannot be described in strict mode",
                        ));
                    }
                    out.insert(key, self.node(&value, &here)?);
                }
                "anyOf" => {
                    let Value::Array(variants) = value else {
                        continue;
                    };
                    let mut done = Vec::new();
                    for (at, variant) in variants.iter().enumerate() {
                        done.push(self.node(variant, &join(&here, &at.to_string()))?);
                    }
                    out.insert(key, Value::Array(done));
                }
                "additionalProperties" => {
                    if value != Value::Bool(false) {
                        return Err(self.error(
                            &here,
                            "a map (`HashMap`, `BTreeMap`: an object with free-form keys) cannot be described in strict mode; use a struct or a list of key/value pairs",
                        ));
                    }
                }
                "format" => match value.as_str() {
                    Some(format) if STRICT_FORMATS.contains(&format) => {
                        out.insert(key, value);
                    }
                    _ => notes.push((key, value)),
                },
                k if UNSUPPORTED.contains(&k) => {
                    return Err(
                        self.error(&here, format!("`{k}` cannot be expressed in strict mode"))
                    );
                }
                k if DROPPED.contains(&k) => {}
                k if KEPT.contains(&k) => {
                    out.insert(key, value);
                }
                _ => notes.push((key, value)),
            }
        }
        if is_array && !out.contains_key("items") && !out.contains_key("anyOf") {
            return Err(self.error(
                path,
                "an array without `items` (a list of untyped values) cannot be described in strict mode",
            ));
        }
        if is_object {
            let required: Vec<Value> = out
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let props = out
                .entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            let mut all = Vec::new();
            if let Value::Object(props) = props {
                for (name, prop) in props.iter_mut() {
                    let name = Value::from(name.as_str());
                    if !required.contains(&name) {
                        make_nullable(prop);
                    }
                    all.push(name);
                }
            }
            out.insert("required".into(), Value::Array(all));
            out.insert("additionalProperties".into(), Value::Bool(false));
        }
        add_notes(&mut out, &notes);
        Ok(out)
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
            json!({"type": ["object", "null"], "properties": {"x": {"type": ["integer", "null"]}}, "required": ["x"], "additionalProperties": false})
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

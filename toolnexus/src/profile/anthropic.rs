//! Anthropic tool use: the plain profile and strict tool use.

use serde_json::{Map, Value, json};

use super::{
    Profile, ProfileError, add_notes, def_name, fix_integer_formats, is_typed, join, merge_object,
    object_root, resolve, tuple_to_items, types_of,
};

/// Anthropic `input_schema`: the canonical schema, never with a union at the root (Anthropic
/// rejects `oneOf`/`anyOf`/`allOf` there; a root union of objects is merged into one object).
pub fn anthropic(schema: &Value) -> Result<Value, ProfileError> {
    let mut out = object_root(schema, Profile::Anthropic)?;
    fix_integer_formats(&mut out);
    Ok(out)
}

/// The string formats Anthropic strict mode accepts.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Anthropic `input_schema` for strict tool use (`"strict": true`).
///
/// As [`anthropic`], and:
/// - a `$ref` keeps no sibling keywords: one with siblings (a documented field of a struct
///   type) is inlined, the siblings winning; a recursive one is wrapped in a one-variant
///   `anyOf` that carries the siblings;
/// - `oneOf` becomes `anyOf`; `["T","null"]` becomes `anyOf: [T, null]`; an `enum` or
///   `const` stands without `type`;
/// - every object gets `additionalProperties: false` (`required` is kept as is: strict
///   tool use allows optional properties);
/// - keywords strict mode does not take (numeric and length bounds, `pattern`, `default`,
///   `minItems` above 1, formats outside its list, …) move into the description
///   (`{minimum: 0, maxLength: 10}`), as Anthropic's own SDK does.
///
/// Errors: a map (`HashMap`), an untyped value (`serde_json::Value`, `items: {}`), or a
/// root that is not an object.
pub fn anthropic_strict(schema: &Value) -> Result<Value, ProfileError> {
    let mut root = object_root(schema, Profile::AnthropicStrict)?;
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
    stack: Vec<String>,
}

impl Strict<'_> {
    fn error(&self, path: &str, message: impl Into<String>) -> ProfileError {
        ProfileError::new(Profile::AnthropicStrict, path, message)
    }

    fn untyped(&self, path: &str) -> ProfileError {
        self.error(
            path,
            "an untyped value (any JSON, e.g. `serde_json::Value` or `items: {}`) cannot be described in strict mode; give it a concrete type",
        )
    }

    fn node(&mut self, schema: &Value, path: &str) -> Result<Value, ProfileError> {
        let Value::Object(source) = schema else {
            return Err(self.untyped(path));
        };
        let mut node = source.clone();
        node.remove("$defs");
        node.remove("$schema");

        if let Some(reference) = node.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            if node.len() == 1 {
                return Ok(Value::Object(node));
            }
            node.remove("$ref");
            let name = def_name(&reference).map(str::to_owned);
            if name.as_ref().is_some_and(|n| self.stack.contains(n)) {
                let mut wrapped = self.keywords(node, path)?;
                wrapped.insert("anyOf".into(), json!([{ "$ref": reference }]));
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
        if let Some(Value::Array(parts)) = node.get("allOf")
            && let [Value::Object(part)] = parts.as_slice()
        {
            let part = part.clone();
            node.remove("allOf");
            merge_object(&mut node, &part, true);
            return self.node(&Value::Object(node), path);
        }
        if let Some(one_of) = node.remove("oneOf")
            && !node.contains_key("anyOf")
        {
            node.insert("anyOf".into(), one_of);
        }
        if !is_typed(&node) {
            return Err(self.untyped(path));
        }
        // A literal stands without `type`, as the SDK has it.
        if node.contains_key("enum") || node.contains_key("const") {
            node.remove("type");
        }
        let types: Vec<String> = types_of(&node).into_iter().map(str::to_owned).collect();
        if types.len() > 1 {
            // `["T", "null"]` → `anyOf: [T, null]`, the description staying outside.
            let description = node.remove("description");
            let title = node.remove("title");
            node.remove("type");
            let mut variants = Vec::new();
            for kind in &types {
                let mut variant = if kind == "null" {
                    Map::new()
                } else {
                    node.clone()
                };
                variant.insert("type".into(), kind.as_str().into());
                variants.push(self.node(&Value::Object(variant), path)?);
            }
            let mut out = Map::new();
            out.insert("anyOf".into(), Value::Array(variants));
            if let Some(description) = description {
                out.insert("description".into(), description);
            }
            if let Some(title) = title {
                out.insert("title".into(), title);
            }
            return Ok(Value::Object(out));
        }
        Ok(Value::Object(self.keywords(node, path)?))
    }

    fn keywords(
        &mut self,
        node: Map<String, Value>,
        path: &str,
    ) -> Result<Map<String, Value>, ProfileError> {
        let kind = node.get("type").and_then(Value::as_str).map(str::to_owned);
        let is_object = kind.as_deref() == Some("object");
        let is_array = kind.as_deref() == Some("array");
        let mut out = Map::new();
        let mut notes = Vec::new();
        for (key, value) in node {
            let here = join(path, &key);
            match key.as_str() {
                "type" | "description" | "title" | "required" => {
                    out.insert(key, value);
                }
                "enum" | "const" => {
                    let primitive = |v: &Value| !v.is_array() && !v.is_object();
                    let ok = match &value {
                        Value::Array(values) => !values.is_empty() && values.iter().all(primitive),
                        other => key == "const" && primitive(other),
                    };
                    if ok {
                        out.insert(key, value);
                    } else {
                        notes.push((key, value));
                    }
                }
                "anyOf" | "allOf" => {
                    let Value::Array(variants) = value else {
                        continue;
                    };
                    let mut done = Vec::new();
                    for (at, variant) in variants.iter().enumerate() {
                        done.push(self.node(variant, &join(&here, &at.to_string()))?);
                    }
                    out.insert(key, Value::Array(done));
                }
                "properties" if is_object => {
                    let Value::Object(props) = value else {
                        continue;
                    };
                    let mut done = Map::new();
                    for (name, prop) in props {
                        done.insert(name.clone(), self.node(&prop, &join(&here, &name))?);
                    }
                    out.insert(key, Value::Object(done));
                }
                "additionalProperties" if is_object => {
                    if value != Value::Bool(false) {
                        return Err(self.error(
                            &here,
                            "a map (`HashMap`, `BTreeMap`: an object with free-form keys) cannot be described in strict mode; use a struct or a list of key/value pairs",
                        ));
                    }
                }
                "format" if kind.as_deref() == Some("string") => match value.as_str() {
                    Some(format) if STRICT_FORMATS.contains(&format) => {
                        out.insert(key, value);
                    }
                    _ => notes.push((key, value)),
                },
                "items" if is_array => {
                    if matches!(&value, Value::Object(m) if m.is_empty())
                        || value == Value::Bool(true)
                    {
                        return Err(self.untyped(&here));
                    }
                    out.insert(key, self.node(&value, &here)?);
                }
                "minItems" if is_array && (value == json!(0) || value == json!(1)) => {
                    out.insert(key, value);
                }
                _ => notes.push((key, value)),
            }
        }
        if is_array && !out.contains_key("items") {
            return Err(self.untyped(path));
        }
        if is_object {
            out.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            out.insert("additionalProperties".into(), Value::Bool(false));
        }
        add_notes(&mut out, &notes);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_moves_unsupported_keywords_into_the_description() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "description": "How many.", "minimum": 0, "default": 3},
                "name": {"type": ["string", "null"], "maxLength": 8},
                "kind": {"type": "string", "enum": ["a", "b"]}
            },
            "required": ["kind"],
            "additionalProperties": false
        });
        let out = anthropic_strict(&schema).unwrap();
        assert_eq!(
            out["properties"]["n"],
            json!({"type": "integer", "description": "How many.\n\n{minimum: 0, default: 3}"})
        );
        assert_eq!(
            out["properties"]["name"],
            json!({"anyOf": [
                {"type": "string", "description": "{maxLength: 8}"},
                {"type": "null"}
            ]})
        );
        assert_eq!(out["properties"]["kind"], json!({"enum": ["a", "b"]}));
        assert_eq!(out["required"], json!(["kind"]));
    }

    #[test]
    fn a_ref_keeps_no_siblings() {
        let schema = json!({
            "type": "object",
            "properties": {"next": {"$ref": "#/$defs/Node", "description": "Next."}},
            "$defs": {"Node": {"type": "object", "properties": {
                "next": {"$ref": "#/$defs/Node", "description": "Next."}
            }}}
        });
        let out = anthropic_strict(&schema).unwrap();
        let inner = &out["$defs"]["Node"]["properties"]["next"];
        assert_eq!(
            inner,
            &json!({"description": "Next.", "anyOf": [{"$ref": "#/$defs/Node"}]})
        );
        assert_eq!(out["properties"]["next"]["type"], "object");
        assert_eq!(out["properties"]["next"]["description"], "Next.");
    }

    #[test]
    fn plain_profile_never_has_a_root_union() {
        let schema = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}
        ]});
        let out = anthropic(&schema).unwrap();
        assert_eq!(out["type"], "object");
        assert!(out.get("anyOf").is_none());
        assert!(out.get("required").is_none());
    }
}

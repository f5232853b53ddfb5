//! Anthropic tool use: the plain profile and strict tool use.

use serde_json::{Map, Value, json};

use super::strict::{
    Dialect, Keyword, STRICT_FORMATS, Shape, UNTYPED, Walk, accepts_anything, strict,
};
use super::{Profile, ProfileError, plain_object, types_of};

/// Anthropic `input_schema`: the canonical schema, never with a union at the root (Anthropic
/// rejects `oneOf`/`anyOf`/`allOf` there; a root union of objects is merged into one object).
pub fn anthropic(schema: &Value) -> Result<Value, ProfileError> {
    plain_object(schema, Profile::Anthropic)
}

/// Whether Anthropic strict mode accepts string format `format`: those both strict modes
/// accept, and `uri`.
fn strict_format(format: &str) -> bool {
    format == "uri" || STRICT_FORMATS.contains(&format)
}

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
/// Errors: a map (`HashMap`), an untyped value (`serde_json::Value`, `items: {}`), a root
/// that is not one object (a root union, as an `#[args]` enum gives), or a recursive type
/// (Anthropic's structured outputs do not support recursive schemas).
pub fn anthropic_strict(schema: &Value) -> Result<Value, ProfileError> {
    strict::<AnthropicStrict>(schema)
}

/// Anthropic strict tool use's rules, for the shared strict walker.
struct AnthropicStrict;

impl Dialect for AnthropicStrict {
    const PROFILE: Profile = Profile::AnthropicStrict;
    const NOT_AN_OBJECT: &'static str = UNTYPED;
    const REMOVED_FIRST: &'static [&'static str] = &["$schema"];
    const REFUSES_UNMERGED_UNIONS: bool = false;

    /// Only a single `type` name counts (lists are split into `anyOf` first, by `typed`).
    fn shape(node: &Map<String, Value>) -> Shape {
        let kind = node.get("type").and_then(Value::as_str);
        Shape {
            object: kind == Some("object"),
            array: kind == Some("array"),
            string: kind == Some("string"),
        }
    }

    fn keyword(key: &str, value: &Value, shape: &Shape) -> Keyword {
        match key {
            "type" | "description" | "title" | "required" => Keyword::Keep,
            "enum" | "const" => {
                let primitive = |v: &Value| !v.is_array() && !v.is_object();
                Keyword::keep_if(match value {
                    Value::Array(values) => !values.is_empty() && values.iter().all(primitive),
                    other => key == "const" && primitive(other),
                })
            }
            "anyOf" | "allOf" => Keyword::Walk,
            "properties" if shape.object => Keyword::Walk,
            "additionalProperties" if shape.object => Keyword::additional_properties(value),
            "format" => Keyword::keep_if(shape.string && value.as_str().is_some_and(strict_format)),
            "items" if shape.array && accepts_anything(value) => Keyword::Refuse(UNTYPED.into()),
            "items" if shape.array => Keyword::Walk,
            "minItems" => {
                Keyword::keep_if(shape.array && (value == &json!(0) || value == &json!(1)))
            }
            _ => Keyword::Note,
        }
    }

    fn limits(schema: &Value) -> Result<(), ProfileError> {
        super::limits::anthropic_strict(schema)
    }

    /// An array says its elements with `items`.
    fn check(shape: &Shape, out: &Map<String, Value>) -> Result<(), &'static str> {
        if shape.array && !out.contains_key("items") {
            return Err(UNTYPED);
        }
        Ok(())
    }

    /// A literal stands without `type`, and a list of types becomes an `anyOf` of one
    /// variant per type (`["T", "null"]` → `anyOf: [T, null]`), as the SDK has them.
    fn typed(
        walk: &mut Walk<'_, Self>,
        mut node: Map<String, Value>,
        path: &str,
    ) -> Result<Value, ProfileError> {
        if node.contains_key("enum") || node.contains_key("const") {
            node.remove("type");
        }
        let types: Vec<String> = types_of(&node).into_iter().map(str::to_owned).collect();
        if types.len() <= 1 {
            return Ok(Value::Object(walk.keywords(node, path)?));
        }
        // The description and title stay outside the variants.
        // `shift_remove`, so the keywords keep their order (the notes follow it).
        let description = node.shift_remove("description");
        let title = node.shift_remove("title");
        node.shift_remove("type");
        let mut variants = Vec::new();
        for kind in &types {
            let mut variant = if kind == "null" {
                Map::new()
            } else {
                node.clone()
            };
            variant.insert("type".into(), kind.as_str().into());
            variants.push(walk.node(&Value::Object(variant), path)?);
        }
        let mut out = Map::new();
        out.insert("anyOf".into(), Value::Array(variants));
        if let Some(description) = description {
            out.insert("description".into(), description);
        }
        if let Some(title) = title {
            out.insert("title".into(), title);
        }
        Ok(Value::Object(out))
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
            "properties": {"next": {"$ref": "#/$defs/Leaf", "description": "Next."}},
            "$defs": {"Leaf": {"type": "object", "properties": {"v": {"type": "string"}}}}
        });
        let out = anthropic_strict(&schema).unwrap();
        assert_eq!(out["properties"]["next"]["type"], "object");
        assert_eq!(out["properties"]["next"]["description"], "Next.");
    }

    /// Anthropic's structured outputs exclude recursive schemas.
    #[test]
    fn recursion_is_refused() {
        let schema = json!({
            "type": "object",
            "properties": {"next": {"$ref": "#/$defs/Node", "description": "Next."}},
            "$defs": {"Node": {"type": "object", "properties": {
                "next": {"$ref": "#/$defs/Node", "description": "Next."}
            }}}
        });
        let error = anthropic_strict(&schema).unwrap_err();
        assert!(error.message().contains("recursive"), "{error}");
        assert!(error.is_refusal());
        assert!(anthropic(&schema).is_ok());
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

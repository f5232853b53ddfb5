//! Output schemas: the JSON schema of the structured value a tool returns, for MCP's
//! `outputSchema` (see [`Tool::output_schema`](crate::Tool::output_schema)).
//!
//! An output schema follows the canonical rules of argument schemas (JSON Schema 2020-12,
//! no `$schema`, no root `title`, subschemas inlined except where recursion needs `$defs`,
//! standard formats only), with two differences:
//!
//! - the value is described as it is *written* (serde's serialize side: a field skipped
//!   when empty is optional, a field with a default is always there);
//! - nothing is closed that the type does not close (no `additionalProperties: false` is
//!   added to `T`'s schema; only the wrapper below is closed).
//!
//! MCP requires structured content to be a JSON object. A schema whose root is
//! `"type": "object"` (a struct, a map), or a `oneOf`/`anyOf` whose every branch is one
//! (an enum whose variants are all objects), is used as it is. Any other (a `Vec`, a
//! number, a string, an `Option`, a unit-variant enum, any JSON) is **wrapped**: the
//! schema becomes `{"type":"object","properties":{"result": S},"required":["result"]}`
//! (with `S`'s `$defs` moved to the root, so its references still resolve), and the
//! value `v` becomes `{"result": v}`.

use schemars::JsonSchema;
use schemars::generate::Contract;
use serde_json::{Map, Value};

use crate::schema::canonical::generator;

/// The key a non-object value is wrapped under: `{"result": value}`.
pub(crate) const WRAP_KEY: &str = "result";

/// The schema of `T` as it serializes, not yet fitted to MCP's object root (see the
/// module docs).
pub(crate) fn output_schema_for<T: ?Sized + JsonSchema>() -> Value {
    let mut schema = generator(Contract::Serialize)
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(root) = &mut schema {
        root.remove("$schema");
        root.remove("title");
    }
    // Number formats become ranges, as in argument schemas: strict validators (ajv) know
    // no `int8` or `double`, and a range says what the format meant.
    crate::schema::profile::fix_integer_formats(&mut schema);
    schema
}

/// A tool's output schema, fitted to an object root, and whether values are wrapped to
/// fit it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutputSchema {
    /// The schema as listed: always an object schema.
    pub(crate) schema: Value,
    /// Whether each value is wrapped as `{"result": value}`.
    pub(crate) wrapped: bool,
}

impl OutputSchema {
    /// Fits `schema` to an object root, wrapping it if it does not describe objects only.
    pub(crate) fn new(schema: Value) -> Self {
        let schema = match schema {
            Value::Object(root) if is_object_type(&root) => {
                return OutputSchema {
                    schema: Value::Object(root),
                    wrapped: false,
                };
            }
            Value::Object(root) if all_branches_objects(&root) => {
                let mut typed = Map::with_capacity(root.len() + 1);
                typed.insert("type".to_owned(), Value::from("object"));
                typed.extend(root);
                return OutputSchema {
                    schema: Value::Object(typed),
                    wrapped: false,
                };
            }
            other => other,
        };
        let (inner, defs) = match schema {
            Value::Object(mut root) => {
                let defs = root.remove("$defs");
                (Value::Object(root), defs)
            }
            other => (other, None),
        };
        let mut properties = Map::with_capacity(1);
        properties.insert(WRAP_KEY.to_owned(), inner);
        let mut root = Map::with_capacity(5);
        root.insert("type".to_owned(), Value::from("object"));
        root.insert("properties".to_owned(), Value::Object(properties));
        root.insert("required".to_owned(), Value::from(vec![WRAP_KEY]));
        root.insert("additionalProperties".to_owned(), Value::Bool(false));
        if let Some(defs) = defs {
            root.insert("$defs".to_owned(), defs);
        }
        OutputSchema {
            schema: Value::Object(root),
            wrapped: true,
        }
    }

    /// `value` in the shape the schema describes.
    pub(crate) fn fit(&self, value: Value) -> Value {
        if self.wrapped {
            let mut root = Map::with_capacity(1);
            root.insert(WRAP_KEY.to_owned(), value);
            Value::Object(root)
        } else {
            value
        }
    }
}

fn is_object_type(schema: &Map<String, Value>) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// A root without a `type` of its own whose `oneOf` (or `anyOf`) branches are all object
/// schemas: every value it accepts is an object.
fn all_branches_objects(root: &Map<String, Value>) -> bool {
    if root.contains_key("type") {
        return false;
    }
    ["oneOf", "anyOf"].iter().any(|key| {
        root.get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                !branches.is_empty()
                    && branches
                        .iter()
                        .all(|b| b.as_object().is_some_and(is_object_type))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_schema_is_kept_and_anything_else_is_wrapped() {
        let object = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let kept = OutputSchema::new(object.clone());
        assert_eq!((kept.schema, kept.wrapped), (object, false));

        let array = OutputSchema::new(
            json!({"type": "array", "items": {"$ref": "#/$defs/N"}, "$defs": {"N": {}}}),
        );
        assert!(array.wrapped);
        assert_eq!(
            array.schema,
            json!({
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/N"}}},
                "required": ["result"],
                "additionalProperties": false,
                "$defs": {"N": {}}
            })
        );
        assert_eq!(array.fit(json!([1])), json!({"result": [1]}));
        assert!(OutputSchema::new(Value::Bool(true)).wrapped);
        assert!(OutputSchema::new(json!({"type": ["object", "null"]})).wrapped);
    }

    #[test]
    fn a_one_of_of_objects_gets_an_object_type_and_is_not_wrapped() {
        let branches =
            json!({"oneOf": [{"type": "object"}, {"type": "object", "required": ["k"]}]});
        let fitted = OutputSchema::new(branches);
        assert!(!fitted.wrapped);
        assert_eq!(fitted.schema["type"], "object");
        let mixed = json!({"anyOf": [{"type": "object"}, {"type": "string"}]});
        assert!(OutputSchema::new(mixed).wrapped);
    }
}

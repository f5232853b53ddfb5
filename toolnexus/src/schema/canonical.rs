//! The canonical argument schema of a tool, generated from a Rust type.
//!
//! One generator serves `#[tool]` expansions and hand-written tools alike, so every tool's
//! canonical schema (what [`Toolkit::to_mcp`](crate::Toolkit::to_mcp) shows, and what the
//! provider profiles start from) follows the same rules:
//!
//! - JSON Schema 2020-12, with no `$schema` keyword and no root `title`;
//! - subschemas inlined, `$defs` used only where a type refers to itself;
//! - the root is an object with `properties` and `additionalProperties: false`; a type
//!   with no fields (or `()`) gives `{"type":"object","properties":{},"additionalProperties":false}`;
//! - only the formats JSON Schema 2020-12 defines (`date-time`, `uuid`, `email`, …) are
//!   kept: schemars' own `uint32`, `int8`, `float`… become the range they stand for
//!   (`minimum`/`maximum`, in standard terms, so a validator and a model see the bounds the
//!   Rust type has), and `double` is dropped. An integer's bounds are stated only where
//!   they are narrower than ±(2^53−1), the range every JSON reader takes exactly (`u8`,
//!   `i32`, `u32`…), or are the minimum 0 of an unsigned type: `i64` lists none, `u64`
//!   only `minimum: 0`. A value outside the Rust type is refused with an error naming
//!   the field.

use std::borrow::Cow;

use schemars::generate::{Contract, SchemaGenerator, SchemaSettings};
use schemars::transform::RestrictFormats;
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

/// The formats JSON Schema 2020-12 defines (Validation, section 7.3).
pub(crate) const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// schemars' number formats, which the canonical schema states as ranges instead.
const NUMBER_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64",
    "uint128", "uint", "float", "double",
];

/// The canonical argument schema of `T` (see the module docs for the rules).
pub fn schema_for<T: ?Sized + JsonSchema>() -> Value {
    // Only the call that needs `T` is generic: the rest is compiled once, here, rather
    // than once per argument type.
    canonical_root(generator(Contract::Deserialize).into_root_schema_for::<T>())
}

/// The generator every canonical schema comes from: arguments are described as they are
/// read ([`Contract::Deserialize`]), outputs as they are written ([`Contract::Serialize`]).
pub(crate) fn generator(contract: Contract) -> SchemaGenerator {
    let mut formats = RestrictFormats::default();
    formats.infer_from_meta_schema = false;
    // The number formats pass here, to become ranges in `canonical_root`.
    formats.allowed_formats = STANDARD_FORMATS
        .iter()
        .chain(NUMBER_FORMATS)
        .copied()
        .map(Cow::Borrowed)
        .collect();
    SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
            settings.contract = contract;
        })
        .with_transform(formats)
        .into_generator()
}

/// Gives the root the shape every provider expects of a tool's arguments.
fn canonical_root(schema: Schema) -> Value {
    let mut root = match schema.to_value() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    root.remove("$schema");
    root.remove("title");
    let mut fixed = Value::Object(root);
    crate::schema::profile::fix_integer_formats(&mut fixed);
    let Value::Object(mut root) = fixed else {
        unreachable!("still an object")
    };
    // `()` (a tool with no parameters) describes itself as `{"type":"null"}`.
    if root.get("type") == Some(&Value::from("null")) {
        root.remove("type");
    }
    if !root.contains_key("type") && !has_composition(&root) {
        root.insert("type".into(), "object".into());
    }
    if root.get("type") == Some(&Value::from("object")) {
        root.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        root.entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    // Keep the usual key order (`type`, `properties`, … , `$defs` last) for readability.
    let mut ordered = Map::new();
    for key in ["type", "description", "properties", "required"] {
        if let Some(value) = root.remove(key) {
            ordered.insert(key.into(), value);
        }
    }
    let defs = root.remove("$defs");
    ordered.extend(root);
    if let Some(defs) = defs {
        ordered.insert("$defs".into(), defs);
    }
    Value::Object(ordered)
}

fn has_composition(root: &Map<String, Value>) -> bool {
    ["anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
        .iter()
        .any(|key| root.contains_key(*key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Counts {
        /// How many.
        count: u32,
        small: u8,
        ratio: f64,
        maybe: Option<u64>,
    }

    #[test]
    fn number_formats_become_ranges() {
        let schema = schema_for::<Counts>();
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "description": "How many.", "minimum": 0, "maximum": u32::MAX},
                    "small": {"type": "integer", "minimum": 0, "maximum": 255},
                    "ratio": {"type": "number"},
                    "maybe": {"type": ["integer", "null"], "minimum": 0}
                },
                "required": ["count", "small", "ratio"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn no_parameters_is_an_empty_closed_object() {
        let expected = json!({"type": "object", "properties": {}, "additionalProperties": false});
        assert_eq!(schema_for::<()>(), expected);
        #[derive(schemars::JsonSchema)]
        struct Empty {}
        assert_eq!(schema_for::<Empty>(), expected);
    }
}

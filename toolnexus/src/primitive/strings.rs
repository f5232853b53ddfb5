//! Prompt arguments and template variables arrive as strings; the functions behind them
//! take typed parameters. These read the strings as the parameters' schema says.

use serde_json::{Map, Value};

/// The arguments as a JSON object for the function's parameters: a value whose property
/// is not a string in `schema` (a number, a boolean, a list…) is read as JSON when it
/// parses as one (`"5"` is `5` for a `u32`); anything else stays a string, so a value of
/// the wrong kind is reported by the parameter's type. An empty value of an argument that
/// is not required is left out, as clients send one for an argument left blank.
pub(crate) fn arguments<I, K, V>(values: I, schema: &Value) -> Value
where
    I: IntoIterator<Item = (K, V)>,
    K: Into<String>,
    V: Into<String>,
{
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(|r| r == name))
    };
    let mut object = Map::new();
    for (name, value) in values {
        let (name, value) = (name.into(), value.into());
        if value.is_empty() && !required(&name) {
            continue;
        }
        let property = properties.and_then(|p| p.get(&name));
        let read = match property {
            Some(property) if !takes_string(property) => {
                match serde_json::from_str::<Value>(&value) {
                    Ok(parsed) if !parsed.is_string() => parsed,
                    _ => Value::String(value),
                }
            }
            _ => Value::String(value),
        };
        object.insert(name, read);
    }
    Value::Object(object)
}

/// Whether a property's schema takes a string: `"type": "string"`, a list of types with
/// `"string"`, or no `type` at all (any value).
fn takes_string(property: &Value) -> bool {
    match property.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "string"),
        _ => true,
    }
}

/// One argument as a schema lists it: its name, its description and whether it is
/// required, in the schema's order.
pub(crate) fn listed(schema: &Value) -> Vec<(String, Option<String>, bool)> {
    let required = schema.get("required").and_then(Value::as_array);
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, property)| {
            let description = property
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let is_required = required.is_some_and(|list| list.iter().any(|r| r == name));
            (name.clone(), description, is_required)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strings_are_read_as_the_schema_types_them() {
        let schema = json!({
            "properties": {
                "name": {"type": "string"},
                "count": {"type": "integer"},
                "flag": {"type": ["boolean", "null"]},
                "maybe": {"type": ["string", "null"]},
                "any": {}
            },
            "required": ["name", "count"]
        });
        let args = arguments(
            [
                ("name", "42"),
                ("count", "7"),
                ("flag", "true"),
                ("maybe", ""),
                ("any", "[1]"),
            ],
            &schema,
        );
        assert_eq!(
            args,
            json!({"name": "42", "count": 7, "flag": true, "any": "[1]"})
        );
        let wrong = arguments([("count", "seven")], &schema);
        assert_eq!(wrong, json!({"count": "seven"}));
        let quoted = arguments([("count", "\"7\"")], &schema);
        assert_eq!(quoted, json!({"count": "\"7\""}));
    }

    #[test]
    fn arguments_are_listed_in_the_schema_order() {
        let schema = json!({
            "properties": {"b": {"description": "B."}, "a": {}},
            "required": ["a"]
        });
        assert_eq!(
            listed(&schema),
            [
                ("b".to_owned(), Some("B.".to_owned()), false),
                ("a".to_owned(), None, true)
            ]
        );
    }
}

//! Independent checkers of each provider's documented schema rules. They walk a profiled
//! schema and list every rule broken, with the JSON pointer where.

use serde_json::{Map, Value};

/// Walks every subschema of `schema` (following `properties`, `items`, `anyOf`, `oneOf`,
/// `allOf`, `$defs`, `additionalProperties`, `prefixItems`), calling `visit` with its pointer.
pub(crate) fn walk(schema: &Value, path: &str, visit: &mut dyn FnMut(&str, &Value)) {
    visit(path, schema);
    let Value::Object(node) = schema else { return };
    for key in ["properties", "$defs", "patternProperties"] {
        if let Some(Value::Object(children)) = node.get(key) {
            for (name, child) in children {
                walk(child, &format!("{path}/{key}/{name}"), visit);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = node.get(key) {
            for (at, child) in children.iter().enumerate() {
                walk(child, &format!("{path}/{key}/{at}"), visit);
            }
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(child @ Value::Object(_)) = node.get(key) {
            walk(child, &format!("{path}/{key}"), visit);
        }
    }
}

fn types(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

/// Walks every subschema as [`walk`] does and lists what `check` finds broken in each schema
/// object; a boolean schema (`true`, `false`) is broken in itself.
fn check_objects(
    schema: &Value,
    check: impl Fn(&str, &Map<String, Value>, &mut Vec<String>),
) -> Vec<String> {
    let mut broken = Vec::new();
    walk(schema, "", &mut |path, node| match node.as_object() {
        Some(node) => check(path, node, &mut broken),
        None => broken.push(format!("{path}: a boolean schema")),
    });
    broken
}

/// A `$ref` stands alone.
fn ref_alone(path: &str, node: &Map<String, Value>, broken: &mut Vec<String>) {
    if node.contains_key("$ref") && node.len() > 1 {
        broken.push(format!("{path}: `$ref` has siblings"));
    }
}

/// An object is closed (`additionalProperties: false`).
fn closed(path: &str, node: &Map<String, Value>, broken: &mut Vec<String>) {
    if types(node).contains(&"object")
        && node.get("additionalProperties") != Some(&Value::Bool(false))
    {
        broken.push(format!(
            "{path}: object without `additionalProperties: false`"
        ));
    }
}

/// A `format`, if any, is one the provider documents.
fn format_within(
    path: &str,
    node: &Map<String, Value>,
    documented: impl Fn(&str) -> bool,
    broken: &mut Vec<String>,
) {
    if let Some(format) = node.get("format").and_then(Value::as_str)
        && !documented(format)
    {
        broken.push(format!("{path}: format `{format}` is not supported"));
    }
}

/// The string formats OpenAI's strict mode documents; Anthropic's strict tool use documents
/// these and `uri`.
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

/// No `format` such as `uint32`, `int64`, `uint`, `double`: only standard ones.
pub(crate) fn no_nonstandard_formats(schema: &Value) -> Vec<String> {
    let mut broken = Vec::new();
    walk(schema, "", &mut |path, node| {
        if let Some(format) = node.get("format").and_then(Value::as_str) {
            let numeric = format.starts_with("int")
                || format.starts_with("uint")
                || format == "double"
                || format == "float";
            if numeric {
                broken.push(format!("{path}: non-standard format `{format}`"));
            }
        }
    });
    broken
}

/// OpenAI strict mode ("Structured Outputs: supported schemas"): the root is an object and
/// not a union; every object has `additionalProperties: false` and lists every property in
/// `required`; every schema is typed; `$ref` stands alone; no `default`, `oneOf`, `allOf`,
/// `not`, tuples, maps; string formats within the documented list; string length bounds
/// absent; only the documented keywords.
pub(crate) fn openai_strict(schema: &Value) -> Vec<String> {
    const ALLOWED: &[&str] = &[
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
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
    ];
    let mut broken = Vec::new();
    let root = schema.as_object().cloned().unwrap_or_default();
    if root.get("type") != Some(&Value::from("object")) {
        broken.push("/: root is not `type: object`".to_owned());
    }
    if root.contains_key("anyOf") {
        broken.push("/: root is a union".to_owned());
    }
    broken.extend(check_objects(schema, |path, node, broken| {
        for key in node.keys() {
            if !ALLOWED.contains(&key.as_str()) {
                broken.push(format!("{path}: keyword `{key}` is not supported"));
            }
        }
        ref_alone(path, node, broken);
        let typed = ["type", "enum", "const", "anyOf", "$ref"]
            .iter()
            .any(|k| node.contains_key(*k));
        if !typed {
            broken.push(format!("{path}: untyped schema"));
        }
        closed(path, node, broken);
        let ts = types(node);
        if ts.contains(&"object") {
            let props: Vec<&String> = node
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().collect())
                .unwrap_or_default();
            let required: Vec<&str> = node
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if node.get("properties").is_none() {
                broken.push(format!("{path}: object without `properties`"));
            }
            for name in props {
                if !required.contains(&name.as_str()) {
                    broken.push(format!("{path}: property `{name}` not in `required`"));
                }
            }
        }
        if ts.contains(&"array") {
            match node.get("items") {
                Some(Value::Object(items)) if !items.is_empty() => {}
                _ => broken.push(format!("{path}: array without typed `items`")),
            }
        }
        format_within(path, node, |f| STRICT_FORMATS.contains(&f), broken);
    }));
    broken
}

/// Anthropic: the root is `type: object` and no union (`oneOf`/`anyOf`/`allOf`).
pub(crate) fn anthropic(schema: &Value) -> Vec<String> {
    let mut broken = Vec::new();
    if schema.get("type") != Some(&Value::from("object")) {
        broken.push("/: root is not `type: object`".to_owned());
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if schema.get(key).is_some() {
            broken.push(format!("/: `{key}` at the root"));
        }
    }
    broken
}

/// Anthropic strict tool use (its "JSON Schema limitations"): as [`anthropic`], and `$ref`
/// stands alone, every object is closed, no numeric or length bounds, `minItems` only 0 or
/// 1, string formats within the documented list, single `type` names.
pub(crate) fn anthropic_strict(schema: &Value) -> Vec<String> {
    const UNSUPPORTED: &[&str] = &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
        "uniqueItems",
        "oneOf",
        "prefixItems",
        "patternProperties",
    ];
    let mut broken = anthropic(schema);
    broken.extend(check_objects(schema, |path, node, broken| {
        ref_alone(path, node, broken);
        for key in UNSUPPORTED {
            if node.contains_key(*key) {
                broken.push(format!("{path}: keyword `{key}` is not supported"));
            }
        }
        if node.get("type").is_some_and(Value::is_array) {
            broken.push(format!("{path}: `type` is a list"));
        }
        closed(path, node, broken);
        if let Some(min) = node.get("minItems")
            && min != 0
            && min != 1
        {
            broken.push(format!("{path}: `minItems: {min}`"));
        }
        let documented = |f: &str| STRICT_FORMATS.contains(&f) || f == "uri";
        format_within(path, node, documented, broken);
    }));
    broken
}

/// Gemini's `parameters`: only the fields of its `Schema` object (the API reference lists
/// type, format, title, description, nullable, enum, maxItems, minItems, properties,
/// required, minProperties, maxProperties, minLength, maxLength, pattern, example, anyOf,
/// propertyOrdering, default, items, minimum, maximum; toolnexus drops `title` and
/// `example`), a single `type` name, `enum` of strings only, no `$ref`, and only the formats
/// the Gemini API takes on strings (`enum`, `date-time`). Types are those of Gemini's
/// `Type` enum (which has `NULL`); an OBJECT below the root lists its properties (Gemini
/// rejects "properties: should be non-empty for OBJECT type").
pub(crate) fn gemini(schema: &Value) -> Vec<String> {
    const ALLOWED: &[&str] = &[
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
    const TYPES: &[&str] = &[
        "string", "number", "integer", "boolean", "array", "object", "null",
    ];
    let mut broken = Vec::new();
    if schema.get("type") != Some(&Value::from("object")) {
        broken.push("/: root is not `type: object`".to_owned());
    }
    broken.extend(check_objects(schema, |path, node, broken| {
        if !path.is_empty()
            && node.get("type") == Some(&Value::from("object"))
            && node
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(|p| p.is_empty())
        {
            broken.push(format!("{path}: an OBJECT without properties"));
        }
        if node.contains_key("nullable") && node.contains_key("anyOf") && !node.contains_key("type")
        {
            broken.push(format!("{path}: `nullable` beside `anyOf` without `type`"));
        }
        for key in node.keys() {
            if !ALLOWED.contains(&key.as_str()) {
                broken.push(format!("{path}: keyword `{key}` is not in Gemini's Schema"));
            }
        }
        match node.get("type") {
            None => {}
            Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
            Some(other) => broken.push(format!("{path}: `type: {other}`")),
        }
        if let Some(Value::Array(values)) = node.get("enum")
            && !values.iter().all(Value::is_string)
        {
            broken.push(format!("{path}: non-string enum"));
        }
        if let Some(format) = node.get("format").and_then(Value::as_str)
            && !["enum", "date-time"].contains(&format)
        {
            broken.push(format!("{path}: format `{format}`"));
        }
    }));
    broken
}

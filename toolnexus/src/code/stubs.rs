//! The toolkit as TypeScript declarations: what the model reads in `run_code`'s
//! description to know the functions its script may call.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::tool::{Tool, Toolkit};

/// How deep `$ref`s and nested types are followed before a type is written `unknown`.
const DEPTH: usize = 6;

/// `declare const tools: { … }`: one method per tool, with its arguments' names, types
/// and docs, and the type of what it returns (its output schema, or `unknown`).
pub(crate) fn declarations(toolkit: &Toolkit) -> String {
    let mut out = String::from("declare const tools: {\n");
    for tool in toolkit.tools() {
        method(tool, &mut out);
    }
    out.push_str("};\n");
    out
}

fn method(tool: &Tool, out: &mut String) {
    doc(tool.description(), "  ", out);
    let schema = tool.input_schema();
    let args = type_of(schema, schema, DEPTH, "  ");
    let optional = required(schema).is_empty();
    let returns = match tool.output_schema() {
        Some(output) if tool.output_wrapped() => output
            .get("properties")
            .and_then(|p| p.get("result"))
            .map_or_else(
                || "unknown".to_owned(),
                |inner| type_of(inner, output, DEPTH, "  "),
            ),
        Some(output) => type_of(output, output, DEPTH, "  "),
        None => "unknown".to_owned(),
    };
    let q = if optional { "?" } else { "" };
    let _ = writeln!(
        out,
        "  {}(args{q}: {args}): Promise<{returns}>;",
        key(tool.name())
    );
}

/// A property name as TypeScript writes it: bare when it is an identifier.
fn key(name: &str) -> String {
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.to_owned()
    } else {
        Value::from(name).to_string()
    }
}

/// A `/** … */` comment, or nothing for an empty text.
fn doc(text: &str, indent: &str, out: &mut String) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    let text = text.replace("*/", "* /");
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{indent}/** {} */", lines[0]);
    } else {
        let _ = writeln!(out, "{indent}/**");
        for line in lines {
            let _ = writeln!(out, "{indent} * {}", line.trim_end());
        }
        let _ = writeln!(out, "{indent} */");
    }
}

fn required(schema: &Value) -> Vec<&str> {
    match schema {
        Value::Object(map) => required_of(map),
        _ => Vec::new(),
    }
}

fn required_of(map: &Map<String, Value>) -> Vec<&str> {
    map.get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The TypeScript type of `schema`; `root` holds the `$defs` its `$ref`s point into.
fn type_of(schema: &Value, root: &Value, depth: usize, indent: &str) -> String {
    let Value::Object(map) = schema else {
        // `true` (anything) or `false` (nothing).
        return if schema == &Value::Bool(false) {
            "never".into()
        } else {
            "unknown".into()
        };
    };
    if depth == 0 {
        return "unknown".into();
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        return resolve(reference, root).map_or_else(
            || "unknown".into(),
            |target| type_of(target, root, depth - 1, indent),
        );
    }
    if let Some(value) = map.get("const") {
        return value.to_string();
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return union(values.iter().map(Value::to_string).collect());
    }
    for combinator in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(combinator) {
            return union(
                branches
                    .iter()
                    .map(|b| type_of(b, root, depth - 1, indent))
                    .collect(),
            );
        }
    }
    if let Some(Value::Array(all)) = map.get("allOf")
        && all.len() == 1
    {
        return type_of(&all[0], root, depth - 1, indent);
    }
    match map.get("type") {
        Some(Value::Array(types)) => union(
            types
                .iter()
                .filter_map(Value::as_str)
                .map(|t| named(t, map, root, depth, indent))
                .collect(),
        ),
        Some(Value::String(t)) => named(t, map, root, depth, indent),
        _ if map.contains_key("properties") => object(map, root, depth, indent),
        _ => "unknown".into(),
    }
}

fn named(t: &str, map: &Map<String, Value>, root: &Value, depth: usize, indent: &str) -> String {
    match t {
        "string" => "string".into(),
        "integer" | "number" => "number".into(),
        "boolean" => "boolean".into(),
        "null" => "null".into(),
        "array" => {
            let items = map
                .get("items")
                .map_or_else(|| "unknown".into(), |i| type_of(i, root, depth - 1, indent));
            if items.contains(' ') {
                format!("({items})[]")
            } else {
                format!("{items}[]")
            }
        }
        "object" => object(map, root, depth, indent),
        _ => "unknown".into(),
    }
}

fn object(map: &Map<String, Value>, root: &Value, depth: usize, indent: &str) -> String {
    let Some(Value::Object(properties)) = map.get("properties") else {
        return "Record<string, unknown>".into();
    };
    if properties.is_empty() {
        return "{}".into();
    }
    let needed = required_of(map);
    let inner = format!("{indent}  ");
    let mut out = String::from("{\n");
    for (name, property) in properties {
        if let Some(text) = property.get("description").and_then(Value::as_str) {
            doc(text, &inner, &mut out);
        }
        let q = if needed.contains(&name.as_str()) {
            ""
        } else {
            "?"
        };
        let ty = type_of(property, root, depth - 1, &inner);
        let _ = writeln!(out, "{inner}{}{q}: {ty};", key(name));
    }
    out.push_str(indent);
    out.push('}');
    out
}

fn union(mut types: Vec<String>) -> String {
    types.dedup();
    match types.len() {
        0 => "never".into(),
        1 => types.remove(0),
        _ => types.join(" | "),
    }
}

/// The schema a local `$ref` (`#/$defs/Name`, `#/definitions/Name`) points to.
fn resolve<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let path = reference.strip_prefix('#')?;
    root.pointer(path)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_schema_becomes_a_typed_method() {
        let tool = Tool::new_sync(
            "lookup",
            "Look up a record.",
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "description": "The record's id."},
                    "fields": {"type": "array", "items": {"type": "string"}},
                    "mode": {"enum": ["fast", "full"]},
                    "owner": {"$ref": "#/$defs/Owner"}
                },
                "required": ["id"],
                "$defs": {"Owner": {"type": "object", "properties": {"name": {"type": ["string", "null"]}}}}
            }),
            |_, _| crate::ToolResult::ok(""),
        );
        let text = declarations(&Toolkit::new().with(tool));
        let expected = "declare const tools: {
  /** Look up a record. */
  lookup(args: {
    /** The record's id. */
    id: number;
    fields?: string[];
    mode?: \"fast\" | \"full\";
    owner?: {
      name?: string | null;
    };
  }): Promise<unknown>;
};
";
        assert_eq!(text, expected);
    }

    #[test]
    fn odd_names_are_quoted() {
        assert_eq!(key("get-weather"), "\"get-weather\"");
        assert_eq!(key("get_weather"), "get_weather");
        assert_eq!(key("9lives"), "\"9lives\"");
    }
}

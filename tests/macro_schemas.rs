//! The exact schemas `#[tool]` generates for a representative set of tools (snapshots),
//! and every one of them checked against the JSON Schema 2020-12 meta-schema.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;

use serde::Deserialize;
use serde_json::Value;
use toolnexus::{Context, Tool, tool, tools};

/// Add two numbers.
#[tool]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<i64, Infallible> {
    Ok(a + b)
}

/// A tool without parameters.
#[tool]
fn ping() -> Result<&'static str, Infallible> {
    Ok("pong")
}

/// Deploy the service.
#[tool(name = "deploy_service")]
async fn deploy(
    /// Where to deploy; asked for when absent.
    env: Option<String>,
    ctx: &Context,
) -> Result<String, toolnexus::Suspend> {
    let _ = ctx;
    Ok(env.unwrap_or_default())
}

/// Priority of a ticket.
#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

/// Who to notify.
#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Notify {
    /// By email.
    Email { address: String },
    /// On a channel.
    Channel { name: String },
}

/// A label.
#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Label {
    /// The label's text.
    text: String,
    #[serde(rename = "colour")]
    color: Option<String>,
}

/// File a ticket.
#[tool]
fn file_ticket(
    /// One-line summary.
    title: String,
    priority: Priority,
    /// Labels to attach.
    labels: Vec<Label>,
    notify: Option<Notify>,
    /// Extra fields.
    fields: HashMap<String, String>,
    #[serde(default)] count: u32,
) -> Result<String, Infallible> {
    let _ = (title, priority, labels, notify, fields, count);
    Ok(String::new())
}

/// A folder and everything under it.
#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Folder {
    name: String,
    children: Vec<Folder>,
}

/// Count the folders of a tree.
#[tool]
fn count_folders(#[args] root: Folder) -> Result<usize, Infallible> {
    fn count(f: &Folder) -> usize {
        1 + f.children.iter().map(count).sum::<usize>()
    }
    Ok(count(&root))
}

/// Every primitive.
#[tool]
#[allow(clippy::too_many_arguments)]
fn primitives(
    i8_: i8,
    u16_: u16,
    i64_: i64,
    u64_: u64,
    f32_: f32,
    f64_: f64,
    flag: bool,
    ch: char,
    sorted: BTreeMap<String, bool>,
) -> Result<String, Infallible> {
    let _ = (i8_, u16_, i64_, u64_, f32_, f64_, flag, ch, sorted);
    Ok(String::new())
}

fn all() -> Vec<Tool> {
    tools![add, ping, deploy, file_ticket, count_folders, primitives]
}

#[test]
fn schemas_match_their_snapshots() {
    for tool in all() {
        insta::assert_json_snapshot!(tool.name(), tool.input_schema());
    }
}

#[test]
fn every_schema_is_valid_json_schema_2020_12() {
    for tool in all() {
        if let Err(e) = jsonschema::draft202012::meta::validate(tool.input_schema()) {
            panic!("{}: {e}\n{}", tool.name(), tool.input_schema());
        }
    }
}

#[test]
fn schemas_are_self_contained_with_no_noise() {
    fn walk(value: &Value, path: &str, tool: &str) {
        match value {
            Value::Object(map) => {
                assert!(!map.contains_key("$schema"), "{tool}: $schema at {path}");
                assert!(!map.contains_key("title"), "{tool}: title at {path}");
                if let Some(Value::String(format)) = map.get("format") {
                    assert!(
                        !format.starts_with("int") && !format.starts_with("uint"),
                        "{tool}: format {format} at {path}"
                    );
                }
                if let Some(Value::String(reference)) = map.get("$ref") {
                    // Only the recursive tool refers to anything, and only inside itself.
                    assert_eq!(tool, "count_folders", "{tool}: $ref {reference} at {path}");
                    assert!(
                        reference == "#" || reference.starts_with("#/$defs/"),
                        "{tool}: external $ref {reference}"
                    );
                }
                for (key, child) in map {
                    match (key.as_str(), child) {
                        // Keys of these maps are names, not keywords: walk their schemas.
                        ("properties" | "$defs", Value::Object(named)) => {
                            for (name, schema) in named {
                                walk(schema, &format!("{path}/{key}/{name}"), tool);
                            }
                        }
                        _ => walk(child, &format!("{path}/{key}"), tool),
                    }
                }
            }
            Value::Array(items) => items
                .iter()
                .enumerate()
                .for_each(|(i, v)| walk(v, &format!("{path}/{i}"), tool)),
            _ => {}
        }
    }
    for tool in all() {
        let schema = tool.input_schema();
        assert_eq!(schema["type"], "object", "{}", tool.name());
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name());
        assert!(schema["properties"].is_object(), "{}", tool.name());
        walk(schema, "", tool.name());
        // Subschemas are inlined: `$defs` appear only for a type that refers to itself.
        if schema.get("$defs").is_some() {
            assert_eq!(tool.name(), "count_folders");
        }
    }
}

//! Hard shapes for the soundness test: root enums of every serde tagging (what `#[args]`
//! takes), `Option<Option<T>>`, maps, recursion, flatten, nested defaults, tuples, fixed
//! arrays, every integer width, a huge enum, deep nesting, raw identifiers.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::dispatch::Dispatch;
use toolnexus::{Tool, ToolResult};

use crate::corpus::tool_of;

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
enum External {
    Create { name: String },
    Delete { id: u32 },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "action")]
#[allow(dead_code)]
enum Internal {
    Create { name: String, private: Option<bool> },
    Delete { id: u32 },
    Purge {},
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
#[allow(dead_code)]
enum Adjacent {
    Move { x: i8, y: i8 },
    Say(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Untagged {
    ById { id: u64 },
    ByName { name: String, exact: bool },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct DoubleOption {
    /// Absent, null, or a value.
    limit: Option<Option<u16>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Maps {
    scores: BTreeMap<String, Vec<u8>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Expr {
    Num(i64),
    Neg(Box<Expr>),
    Add(Box<Expr>, Box<Expr>),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Recursion {
    expr: Expr,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Paging {
    page: u32,
    per_page: u8,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Flatten {
    query: String,
    #[serde(flatten)]
    paging: Paging,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Settings {
    #[serde(default)]
    retries: u32,
    #[serde(default)]
    verbose: bool,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default)]
#[allow(dead_code)]
struct Limits {
    cpu: u8,
    memory: u16,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct NestedDefaults {
    settings: Settings,
    limits: Limits,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Tuples {
    triple: (u8, String, bool),
    rgba: [u8; 4],
    letter: char,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Widths {
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: i128,
    f: isize,
    g: u8,
    h: u16,
    i: u32,
    j: u64,
    k: u128,
    l: usize,
    m: f32,
    n: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Wrap<T> {
    inner: T,
}

type Deep = Wrap<Wrap<Wrap<Wrap<Wrap<Wrap<Wrap<Wrap<Wrap<Wrap<Wrap<Wrap<u8>>>>>>>>>>>>;

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Deeply {
    top: Deep,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Raw {
    r#type: String,
    r#match: Option<u8>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Unit;

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithUnit {
    marker: Unit,
    n: u8,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Untyped {
    payload: Value,
}

/// A tool with a 1,200-value enum, as a hand-written schema (the values a country list
/// or a product catalogue would give): the handler accepts exactly those values.
fn huge_enum() -> Tool {
    let values: Vec<String> = (0..1200).map(|i| format!("product-{i:04}-sku")).collect();
    let schema = json!({
        "type": "object",
        "properties": {"sku": {"type": "string", "enum": values}},
        "required": ["sku"],
        "additionalProperties": false
    });
    Tool::from_handler(
        "huge_enum",
        "Picks a product.",
        schema,
        "custom",
        Box::new(move |args, _ctx| {
            let value = args.into_value("huge_enum").unwrap_or_default();
            let ok = value.as_object().is_some_and(|m| {
                m.len() == 1
                    && m["sku"]
                        .as_str()
                        .is_some_and(|s| values.iter().any(|v| v == s))
            });
            Dispatch::Ready(if ok {
                ToolResult::ok("ok")
            } else {
                ToolResult::error(format!("invalid arguments for huge_enum: {value}"))
            })
        }),
    )
}

/// Every hard shape, as a tool.
pub(crate) fn hard() -> Vec<Tool> {
    vec![
        tool_of::<External>("root_external", "Root enum, externally tagged."),
        tool_of::<Internal>("root_internal", "Root enum, internally tagged."),
        tool_of::<Adjacent>("root_adjacent", "Root enum, adjacently tagged."),
        tool_of::<Untagged>("root_untagged", "Root enum, untagged."),
        tool_of::<DoubleOption>("double_option", "Option<Option<T>>."),
        tool_of::<Maps>("maps", "A map of lists."),
        tool_of::<Recursion>("recursive_enum", "A recursive enum."),
        tool_of::<Flatten>("flatten", "A flattened struct."),
        tool_of::<NestedDefaults>("nested_defaults", "Defaults below the root."),
        tool_of::<Tuples>("tuples", "Tuples, a fixed array, a char."),
        tool_of::<Widths>("widths", "Every integer width."),
        tool_of::<Deeply>("deep", "Thirteen levels of objects."),
        tool_of::<Raw>("raw_idents", "Raw identifiers."),
        tool_of::<WithUnit>("unit_struct", "A unit struct field."),
        tool_of::<Untyped>("untyped_value", "Any JSON."),
        huge_enum(),
    ]
}

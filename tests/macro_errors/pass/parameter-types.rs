// Parameter forms: primitives, `Option`, `Vec`, `HashMap`, user structs and enums,
// `#[serde]` attributes on a parameter, `#[args]`, and the injected `&Context`/`Context`.
use std::collections::HashMap;

use serde_json::json;
use toolnexus::{tool, Context, ToolResult};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Metres,
    Feet,
}

/// Many kinds of parameters.
#[tool]
fn describe(
    /// Where.
    at: Point,
    unit: Unit,
    label: Option<String>,
    tags: Vec<String>,
    weights: HashMap<String, f64>,
    #[serde(default)] limit: u32,
    ctx: &Context,
) -> Result<String, String> {
    let unit = match unit {
        Unit::Metres => "m",
        Unit::Feet => "ft",
    };
    Ok(format!(
        "{},{} {unit} {} {} {} {limit} {}",
        at.x,
        at.y,
        label.unwrap_or_default(),
        tags.join("+"),
        weights.len(),
        ctx.call_id().unwrap_or("-"),
    ))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    /// The text to look for.
    text: String,
}

/// The whole argument object as one parameter.
#[tool]
async fn search(#[args] query: Query, ctx: Context) -> Result<String, String> {
    Ok(format!("{} {}", query.text, ctx.call_id().unwrap_or("-")))
}

fn main() {
    let tool = describe::tool();
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["at"]["description"], "Where.");
    assert_eq!(schema["properties"]["unit"]["enum"], json!(["metres", "feet"]));
    assert_eq!(schema["required"], json!(["at", "unit", "tags", "weights"]));
    assert!(schema["properties"].get("ctx").is_none());

    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let ctx = Context::default().with_call_id("c1");
    let args = json!({"at": {"x": 1, "y": 2}, "unit": "feet", "tags": ["a", "b"], "weights": {"w": 1.0}});
    assert_eq!(
        rt.block_on(tool.execute(args, ctx.clone())),
        ToolResult::ok("1,2 ft  a+b 1 0 c1")
    );

    let search = search::tool();
    assert_eq!(search.input_schema()["required"], json!(["text"]));
    assert_eq!(
        rt.block_on(search.execute(json!({"text": "rust"}), ctx)),
        ToolResult::ok("rust c1")
    );
}

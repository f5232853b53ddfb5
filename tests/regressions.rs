//! Regression tests for what the property tests (`tests/properties.rs`) and the fuzz
//! targets (`fuzz/`) found, one test per finding.

use std::convert::Infallible;

use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::{Context, Tool, ToolResult, Toolkit, tool};

async fn execute(toolkit: &Toolkit, name: &str, args: Value) -> ToolResult {
    toolkit.execute(name, args, Context::default()).await
}

async fn execute_json(toolkit: &Toolkit, name: &str, text: &str) -> ToolResult {
    toolkit.execute_json(name, text, Context::default()).await
}

/// Optional parameters only.
#[tool]
fn optionals(maybe: Option<i64>, #[serde(default)] count: u32) -> Result<String, Infallible> {
    Ok(format!("{maybe:?} {count}"))
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Color {
    Red,
    Green,
}

/// Takes a color.
#[tool]
fn paint(color: Color, layers: u8) -> Result<String, Infallible> {
    Ok(format!("{color:?} x{layers}"))
}

#[tokio::test]
async fn raw_text_null_means_no_arguments_as_a_null_value_does() {
    // Found by the property `arbitrary_json_gives_a_result_and_errors_name_the_tool`:
    // `Value::Null` was read as `{}` but the text `null` was refused, though both are
    // documented as "no arguments".
    let toolkit = Toolkit::new().with(optionals::tool());
    for text in ["null", " null\n"] {
        let by_text = execute_json(&toolkit, "optionals", text).await;
        assert_eq!(by_text, ToolResult::ok("None 0"), "{text:?}");
        assert_eq!(by_text, execute(&toolkit, "optionals", Value::Null).await);
    }
    // Tools over raw JSON get `{}` for it too.
    let raw = Tool::new_sync("raw", "Echoes.", json!({"type": "object"}), |args, _| {
        ToolResult::ok(args.to_string())
    });
    let toolkit = Toolkit::new().with(raw);
    assert_eq!(execute_json(&toolkit, "raw", "null").await.output, "{}");
    assert_eq!(execute(&toolkit, "raw", Value::Null).await.output, "{}");
}

#[tokio::test]
async fn an_enum_given_the_wrong_json_type_as_text_names_the_field() {
    // Found by the property
    // `a_missing_or_mistyped_field_is_an_error_naming_the_tool_and_the_field`: serde_json's
    // text deserializer reports an enum given `true` (or a number, `null`, an array) as a
    // syntax error, so valid JSON was answered with "the arguments are not valid JSON"
    // and no field name for the model to correct.
    let toolkit = Toolkit::new().with(paint::tool());
    for bad in [json!(true), json!(3), json!(null), json!([1])] {
        let args = json!({"color": bad, "layers": 2});
        let by_text = execute_json(&toolkit, "paint", &args.to_string()).await;
        assert!(by_text.is_error);
        assert!(
            by_text
                .output
                .starts_with("invalid arguments for paint: color: "),
            "{}",
            by_text.output
        );
        assert!(
            !by_text.output.contains("not valid JSON"),
            "{}",
            by_text.output
        );
        assert_eq!(by_text, execute(&toolkit, "paint", args).await);
    }
    // Text that really is not JSON still says so.
    let broken = execute_json(&toolkit, "paint", r#"{"color": tru"#).await;
    assert!(
        broken.output.contains("not valid JSON"),
        "{}",
        broken.output
    );
    // And valid arguments still work.
    let ok = execute_json(&toolkit, "paint", r#"{"color": "green", "layers": 3}"#).await;
    assert_eq!(ok, ToolResult::ok("Green x3"));
}

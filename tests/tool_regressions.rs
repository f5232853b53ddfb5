//! Regression tests for what the property tests (`tests/tool_properties.rs`) and the fuzz
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

/// Takes a float and reports the exact `f64` it received.
#[tool]
fn measure(x: f64) -> Result<String, Infallible> {
    Ok(format!("{:#018x}", x.to_bits()))
}

fn bits(x: f64) -> String {
    format!("{:#018x}", x.to_bits())
}

/// `measure` called with `args` as raw text and as a parsed value reports `expected`.
async fn measured_on_both_paths(toolkit: &Toolkit, args: &str, expected: String) {
    let expected = ToolResult::ok(expected);
    let from_text = execute_json(toolkit, "measure", args).await;
    assert_eq!(from_text, expected, "{args} as text");
    let value: Value = serde_json::from_str(args).unwrap();
    assert_eq!(
        execute(toolkit, "measure", value).await,
        expected,
        "{args} as a value"
    );
}

#[tokio::test]
async fn a_float_reaches_the_tool_exactly_as_written() {
    // Found by the fuzz target `mcp_message` (minimized input:
    // `{"jsonrpc":"2.0","method":"","params":{"":550000000001362346531}}`): the number was
    // written back as `5.5000000000136236e20` and that text read as `5.500000000013624e20`,
    // one unit in the last place away. serde_json's default float parser is not correctly
    // rounded, so a float a model or client wrote in its shortest form (as serde_json,
    // JavaScript and Python all write floats) could reach a tool as a neighbouring `f64`.
    // Fixed by serde_json's `float_roundtrip` feature in toolnexus's manifest. This test
    // suite cannot show the bug by itself: a dev-dependency here (jsonschema) turns the
    // same feature on for the whole build, so the manifest is checked as well.
    let manifest = include_str!("../toolnexus/Cargo.toml");
    assert!(
        manifest
            .lines()
            .any(|line| line.starts_with("serde_json =") && line.contains("\"float_roundtrip\"")),
        "toolnexus must enable serde_json's float_roundtrip feature itself"
    );
    let toolkit = Toolkit::new().with(measure::tool());
    for text in [
        "5.5000000000136236e20",
        "5.5000000000136236e+20",
        "0.1",
        "-2.5e-300",
    ] {
        let args = format!(r#"{{"x": {text}}}"#);
        measured_on_both_paths(&toolkit, &args, bits(text.parse().unwrap())).await;
    }
    // Any finite float, written the way serde_json writes it, reaches the tool unchanged.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = f64::from_bits(state);
        if !x.is_finite() {
            continue;
        }
        measured_on_both_paths(&toolkit, &json!({ "x": x }).to_string(), bits(x)).await;
    }
}

#[test]
fn an_mcp_message_with_a_large_number_round_trips() {
    // The same finding as the MCP server sees it: a parsed message, written out and read
    // again, must give the same text.
    use toolnexus::mcp::rmcp::model::ClientJsonRpcMessage;
    let input = r#"{"jsonrpc":"2.0","method":"","params":{"":550000000001362346531}}"#;
    let message: ClientJsonRpcMessage = serde_json::from_str(input).unwrap();
    let text = serde_json::to_string(&message).unwrap();
    let again: ClientJsonRpcMessage = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string(&again).unwrap(), text);
}

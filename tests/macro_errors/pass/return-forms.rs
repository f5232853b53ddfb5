// Every accepted return form, and what each one becomes.
use std::convert::Infallible;

use toolnexus::{tool, Context, Json, Request, Suspend, ToolResult};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Hit {
    id: u32,
}

type Answer<T> = Result<T, String>;

/// `Result<T: Display, E: Display>`.
#[tool]
fn display(fail: bool) -> Result<u32, String> {
    if fail { Err("no".into()) } else { Ok(7) }
}

/// `Result<T, Suspend>`.
#[tool]
fn suspends() -> Result<String, Suspend> {
    Err(Suspend(Request::input("Which one?")))
}

/// `Result<T, toolnexus::tool::Error>`, with `?` on any `Display` error.
#[tool]
fn error(text: String) -> Result<i64, toolnexus::tool::Error> {
    Ok(text.parse::<i64>()?)
}

/// `Suspend` on its own.
#[tool]
fn always_suspends() -> Suspend {
    Suspend(Request::approval("Go ahead?"))
}

/// `ToolResult` on its own.
#[tool]
fn result() -> ToolResult {
    ToolResult::ok("as is")
}

/// `Result<ToolResult, E>`.
#[tool]
async fn result_in_result() -> Result<ToolResult, Infallible> {
    Ok(ToolResult::error("from inside"))
}

/// `Json<T>`.
#[tool]
fn json() -> Json<Vec<Hit>> {
    Json(vec![Hit { id: 1 }])
}

/// `Result<Json<T>, E>`.
#[tool]
fn json_in_result() -> Result<Json<Hit>, String> {
    Ok(Json(Hit { id: 2 }))
}

/// Through a type alias.
#[tool]
fn aliased() -> Answer<&'static str> {
    Ok("alias")
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let run = |tool: toolnexus::Tool, args: &str| {
        rt.block_on(tool.execute_json(args, Context::default()))
    };
    assert_eq!(run(display::tool(), r#"{"fail": false}"#), ToolResult::ok("7"));
    assert_eq!(run(display::tool(), r#"{"fail": true}"#), ToolResult::error("no"));
    assert!(run(suspends::tool(), "{}").is_pending());
    assert_eq!(run(error::tool(), r#"{"text": "42"}"#), ToolResult::ok("42"));
    assert!(run(error::tool(), r#"{"text": "x"}"#).is_error);
    assert!(run(always_suspends::tool(), "{}").is_pending());
    assert_eq!(run(result::tool(), "{}"), ToolResult::ok("as is"));
    assert_eq!(run(result_in_result::tool(), "{}"), ToolResult::error("from inside"));
    // `Json<T>`: the JSON text, and the value beside it (a `Vec` wrapped in an object).
    let listed = run(json::tool(), "{}");
    assert_eq!(listed.output, r#"[{"id":1}]"#);
    assert_eq!(listed.structured(), Some(&serde_json::json!({"result": [{"id": 1}]})));
    assert!(json::tool().output_schema().is_some());
    let one = run(json_in_result::tool(), "{}");
    assert_eq!(one.output, r#"{"id":2}"#);
    assert_eq!(one.structured(), Some(&serde_json::json!({"id": 2})));
    assert!(display::tool().output_schema().is_none());
    assert_eq!(run(aliased::tool(), "{}"), ToolResult::ok("alias"));
}

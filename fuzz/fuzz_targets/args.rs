//! The argument path: arbitrary bytes as the raw JSON text of a tool call's arguments
//! (`Toolkit::execute_json`) and, when they parse, as a parsed value (`Toolkit::execute`).
//!
//! Fails on: any panic (libFuzzer's panic hook aborts even on a panic that `execute`
//! would have caught and turned into an error result), an error result that does not
//! name the tool, or the two paths disagreeing on success.

#![no_main]

#[path = "runtime.rs"]
mod runtime;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use runtime::runtime;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolnexus::{Context, Json, Tool, ToolResult, Toolkit, tool, tools};

type Echo = Result<Json<Value>, Infallible>;

/// Scalars.
#[tool]
fn scalars(a: i8, b: u64, c: i32, x: f64, flag: bool, letter: char, text: String) -> Echo {
    Ok(Json(json!([a, b, c, x, flag, letter, text])))
}

/// Collections.
#[tool]
async fn collections(
    list: Vec<i64>,
    map: BTreeMap<String, u8>,
    pair: (i64, String),
    maybe: Option<Vec<bool>>,
    #[serde(default)] count: u32,
) -> Echo {
    Ok(Json(json!([list, map, pair, maybe, count])))
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Color {
    Red,
    Green,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Rect { w: f64, h: f64 },
}

/// Nested types.
#[tool]
fn structured(point: Point, color: Color, shape: Shape, at: Option<Point>) -> Echo {
    Ok(Json(json!([point, color, shape, at])))
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Query {
    query: String,
    limit: Option<u16>,
}

/// The whole object as one struct.
#[tool]
fn search(#[args] q: Query) -> Echo {
    Ok(Json(json!([q.query, q.limit])))
}

/// No parameters.
#[tool]
fn nothing() -> Echo {
    Ok(Json(json!([])))
}

fn toolkit() -> &'static Toolkit {
    static TOOLKIT: OnceLock<Toolkit> = OnceLock::new();
    TOOLKIT.get_or_init(|| {
        let raw = Tool::new_sync("raw", "Echoes.", json!({"type": "object"}), |args, _| {
            ToolResult::ok(args.to_string())
        });
        let mut toolkit: Toolkit = tools![scalars, collections, structured, search, nothing]
            .into_iter()
            .collect();
        toolkit.register(raw).unwrap();
        toolkit
    })
}

fn check(tool: &str, result: &ToolResult) {
    if result.is_error {
        assert!(
            result.output.contains(tool),
            "error result does not name {tool}: {:?}",
            result.output
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    runtime().block_on(async {
        for tool in toolkit().tools() {
            let name = tool.name();
            let by_text = toolkit().execute_json(name, text, Context::default()).await;
            check(name, &by_text);
            if let Some(value) = &parsed {
                let by_value = toolkit()
                    .execute(name, value.clone(), Context::default())
                    .await;
                check(name, &by_value);
                // A JSON object with a repeated key is read differently on purpose: the
                // parsed value keeps the last one, the text path refuses the duplicate.
                if !by_text.is_error || !by_text.output.contains("duplicate field") {
                    assert_eq!(
                        by_text.is_error, by_value.is_error,
                        "{name}: text {by_text:?} vs value {by_value:?}"
                    );
                }
                if !by_text.is_error && !by_value.is_error {
                    assert_eq!(by_text.output, by_value.output, "{name}");
                }
            }
        }
    });
});

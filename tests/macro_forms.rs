//! Every form `#[tool]` accepts, each executed through a `Toolkit`.

use std::collections::HashMap;
use std::convert::Infallible;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolnexus::{Context, Json, Request, Suspend, ToolResult, Toolkit, tool, tools};

async fn run(toolkit: &Toolkit, name: &str, args: Value) -> ToolResult {
    toolkit.execute(name, args, Context::default()).await
}

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

/// Wait a moment, then echo.
#[tool]
async fn echo_later(text: String) -> Result<String, Infallible> {
    tokio::task::yield_now().await;
    Ok(text)
}

/// Public.
#[tool]
pub fn vis_pub() -> Result<&'static str, Infallible> {
    Ok("pub")
}

/// Crate-visible.
#[tool]
pub(crate) fn vis_crate() -> Result<&'static str, Infallible> {
    Ok("crate")
}

mod outer {
    pub mod inner {
        /// Lives two modules down.
        #[toolnexus::tool]
        pub fn nested(x: i64) -> Result<i64, std::convert::Infallible> {
            Ok(x * 10)
        }
    }
}

#[tokio::test]
async fn sync_async_and_every_visibility() {
    let toolkit: Toolkit = tools![add, echo_later, vis_pub, vis_crate, outer::inner::nested]
        .into_iter()
        .collect();
    assert_eq!(
        run(&toolkit, "add", json!({"a": 2, "b": 3})).await,
        ToolResult::ok("5")
    );
    assert_eq!(
        run(&toolkit, "echo_later", json!({"text": "hi"}))
            .await
            .output,
        "hi"
    );
    assert_eq!(run(&toolkit, "vis_pub", json!({})).await.output, "pub");
    assert_eq!(run(&toolkit, "vis_crate", json!({})).await.output, "crate");
    assert_eq!(run(&toolkit, "nested", json!({"x": 4})).await.output, "40");
    // The functions are still ordinary functions.
    assert_eq!(add(1, 2).unwrap(), 3);
    assert_eq!(echo_later("x".into()).await.unwrap(), "x");
}

#[tokio::test]
async fn a_tool_declared_inside_another_function() {
    /// Declared in a function body.
    #[tool]
    fn local(n: u32) -> Result<u32, Infallible> {
        Ok(n + 1)
    }
    let toolkit = Toolkit::new().with(local::tool());
    assert_eq!(run(&toolkit, "local", json!({"n": 1})).await.output, "2");
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema, PartialEq)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Color {
    Red,
    Green,
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Rect { w: f64, h: f64 },
}

fn default_limit() -> u32 {
    10
}

/// Takes one of everything and reports what it got.
#[tool]
#[allow(clippy::too_many_arguments)]
fn kinds(
    int: i32,
    float: f64,
    flag: bool,
    text: String,
    list: Vec<u16>,
    map: HashMap<String, i64>,
    maybe: Option<String>,
    point: Point,
    color: Color,
    shape: Shape,
    #[serde(default = "default_limit")] limit: u32,
    #[serde(default)] verbose: bool,
) -> Result<Json<Value>, Infallible> {
    let mut keys: Vec<_> = map.into_iter().collect();
    keys.sort();
    Ok(Json(json!({
        "int": int, "float": float, "flag": flag, "text": text, "list": list, "map": keys,
        "maybe": maybe, "point": point, "color": color, "shape": shape, "limit": limit,
        "verbose": verbose,
    })))
}

#[tokio::test]
async fn parameters_of_every_kind_reach_the_function() {
    let toolkit = Toolkit::new().with(kinds::tool());
    let args = json!({
        "int": -3, "float": 1.5, "flag": true, "text": "t", "list": [1, 2],
        "map": {"b": 2, "a": 1}, "maybe": "m", "point": {"x": 1.0, "y": 2.0},
        "color": "green", "shape": {"kind": "rect", "w": 2.0, "h": 3.0},
        "limit": 5, "verbose": true
    });
    let result = run(&toolkit, "kinds", args).await;
    assert!(!result.is_error, "{}", result.output);
    let got: Value = serde_json::from_str(&result.output).unwrap();
    assert_eq!(
        got,
        json!({
            "int": -3, "float": 1.5, "flag": true, "text": "t", "list": [1, 2],
            "map": [["a", 1], ["b", 2]], "maybe": "m", "point": {"x": 1.0, "y": 2.0},
            "color": "green", "shape": {"kind": "rect", "w": 2.0, "h": 3.0},
            "limit": 5, "verbose": true
        })
    );
}

#[tokio::test]
async fn optional_and_defaulted_parameters_may_be_absent_or_null() {
    let toolkit = Toolkit::new().with(kinds::tool());
    let minimal = json!({
        "int": 0, "float": 0.0, "flag": false, "text": "", "list": [], "map": {},
        "point": {"x": 0.0, "y": 0.0}, "color": "red", "shape": {"kind": "circle", "radius": 1.0}
    });
    let got: Value =
        serde_json::from_str(&run(&toolkit, "kinds", minimal.clone()).await.output).unwrap();
    assert_eq!(
        (
            got["maybe"].clone(),
            got["limit"].clone(),
            got["verbose"].clone()
        ),
        (Value::Null, json!(10), json!(false))
    );

    // Strict-mode models send `null` for optional fields: read as None.
    let mut with_null = minimal;
    with_null["maybe"] = Value::Null;
    let got: Value = serde_json::from_str(&run(&toolkit, "kinds", with_null).await.output).unwrap();
    assert_eq!(got["maybe"], Value::Null);

    let schema = kinds::tool().input_schema().clone();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        required,
        [
            "int", "float", "flag", "text", "list", "map", "point", "color", "shape"
        ]
    );
    assert_eq!(schema["properties"]["limit"]["default"], 10);
    assert_eq!(
        schema["properties"]["color"],
        json!({"type": "string", "enum": ["red", "green"]})
    );
}

/// A search request.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct SearchQuery {
    /// What to look for.
    query: String,
    /// How many hits at most.
    limit: Option<u32>,
}

/// Search the docs.
#[tool]
fn search(#[args] q: SearchQuery) -> Result<String, Infallible> {
    Ok(format!("{} (max {})", q.query, q.limit.unwrap_or(3)))
}

#[tokio::test]
async fn args_parameter_stands_for_the_whole_object() {
    let toolkit = Toolkit::new().with(search::tool());
    assert_eq!(
        run(&toolkit, "search", json!({"query": "rust"}))
            .await
            .output,
        "rust (max 3)"
    );
    let schema = search::tool().input_schema().clone();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "description": "A search request.",
            "properties": {
                "query": {"type": "string", "description": "What to look for."},
                "limit": {"type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX, "description": "How many hits at most."}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    );
}

/// Deploy the service; asks which environment when none is given.
#[tool(name = "deploy_service")]
async fn deploy(env: Option<String>, ctx: &Context) -> Result<String, Suspend> {
    let answered = ctx.answer().and_then(|a| a.text()).map(str::to_owned);
    match env.or(answered) {
        Some(env) => Ok(format!("deployed to {env}")),
        None => Err(Suspend(
            Request::input("Which environment?").with_id("env-1"),
        )),
    }
}

/// Report the call id.
#[tool]
fn whoami(ctx: Context) -> Result<String, Infallible> {
    Ok(ctx.call_id().unwrap_or("none").to_owned())
}

#[tokio::test]
async fn context_is_injected_and_carries_the_answer() {
    let toolkit = Toolkit::new().with(deploy::tool()).with(whoami::tool());
    let parked = run(&toolkit, "deploy_service", json!({})).await;
    assert!(parked.is_pending());
    let request = parked.pending_request().unwrap();
    assert_eq!(request.prompt, "Which environment?");

    let ctx = Context::default().with_answer(request.answer("prod"));
    let resumed = toolkit.execute("deploy_service", json!({}), ctx).await;
    assert_eq!(resumed, ToolResult::ok("deployed to prod"));

    let ctx = Context::default().with_call_id("call_7");
    assert_eq!(
        toolkit.execute("whoami", json!({}), ctx).await.output,
        "call_7"
    );
    // Neither schema mentions the context.
    assert_eq!(
        deploy::tool().input_schema()["properties"]
            .as_object()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(whoami::tool().input_schema()["properties"], json!({}));
}

/// First paragraph.
///
/// Second paragraph, with `code` and a list:
/// - one
/// - two
#[tool]
fn documented() -> Result<u8, Infallible> {
    Ok(0)
}

/// This doc comment is replaced.
#[tool(name = "renamed", description = "An explicit description.")]
fn overridden() -> Result<u8, Infallible> {
    Ok(0)
}

#[test]
fn descriptions_come_from_doc_comments_or_overrides() {
    assert_eq!(
        documented::tool().description(),
        "First paragraph.\n\nSecond paragraph, with `code` and a list:\n- one\n- two"
    );
    let tool = overridden::tool();
    assert_eq!(
        (tool.name(), tool.description()),
        ("renamed", "An explicit description.")
    );
    assert_eq!(
        add::tool().input_schema()["properties"]["b"]["description"],
        "The second addend."
    );
}

mod returns {
    use super::*;

    #[derive(Serialize, schemars::JsonSchema)]
    pub struct Hit {
        pub id: u32,
    }

    /// Result with Display error.
    #[tool]
    pub fn r_display(fail: bool) -> Result<f64, String> {
        if fail {
            Err("it failed".into())
        } else {
            Ok(2.5)
        }
    }

    /// Crate error type with ?.
    #[tool]
    pub fn r_error(text: String, ask: bool) -> Result<i64, toolnexus::tool::Error> {
        if ask {
            Err(Suspend::approval("Parse it?"))?;
        }
        Ok(text.parse::<i64>()?)
    }

    /// Bare Suspend.
    #[tool]
    pub fn r_suspend() -> Suspend {
        Suspend::input("Need input")
    }

    /// Bare ToolResult.
    #[tool]
    pub fn r_result() -> ToolResult {
        ToolResult::ok("raw").with_metadata("k", 1)
    }

    /// Result of ToolResult.
    #[tool]
    pub fn r_result_of_result(fail: bool) -> Result<ToolResult, std::io::Error> {
        if fail {
            Err(std::io::Error::other("disk on fire"))
        } else {
            Ok(ToolResult::ok("fine"))
        }
    }

    /// Bare Json.
    #[tool]
    pub fn r_json() -> Json<Vec<Hit>> {
        Json(vec![Hit { id: 1 }, Hit { id: 2 }])
    }

    pub type Outcome = Result<String, String>;

    /// Through a type alias.
    #[tool]
    pub fn r_alias() -> Outcome {
        Ok("aliased".into())
    }
}

#[tokio::test]
async fn every_return_form_maps_as_documented() {
    use returns::*;
    let toolkit: Toolkit = tools![
        r_display,
        r_error,
        r_suspend,
        r_result,
        r_result_of_result,
        r_json,
        r_alias
    ]
    .into_iter()
    .collect();
    assert_eq!(
        run(&toolkit, "r_display", json!({"fail": false})).await,
        ToolResult::ok("2.5")
    );
    assert_eq!(
        run(&toolkit, "r_display", json!({"fail": true})).await,
        ToolResult::error("it failed")
    );
    assert_eq!(
        run(&toolkit, "r_error", json!({"text": "7", "ask": false})).await,
        ToolResult::ok("7")
    );
    assert_eq!(
        run(&toolkit, "r_error", json!({"text": "x", "ask": false})).await,
        ToolResult::error("invalid digit found in string")
    );
    let parked = run(&toolkit, "r_error", json!({"text": "7", "ask": true})).await;
    assert_eq!(parked.pending_request().unwrap().kind, "approval");
    let parked = run(&toolkit, "r_suspend", json!({})).await;
    assert!(parked.is_pending() && parked.is_error);
    assert_eq!(parked.output, "Need input");
    assert_eq!(
        run(&toolkit, "r_result", json!({})).await,
        ToolResult::ok("raw").with_metadata("k", 1)
    );
    assert_eq!(
        run(&toolkit, "r_result_of_result", json!({"fail": false})).await,
        ToolResult::ok("fine")
    );
    assert_eq!(
        run(&toolkit, "r_result_of_result", json!({"fail": true})).await,
        ToolResult::error("disk on fire")
    );
    assert_eq!(
        run(&toolkit, "r_json", json!({})).await.output,
        r#"[{"id":1},{"id":2}]"#
    );
    assert_eq!(run(&toolkit, "r_alias", json!({})).await.output, "aliased");
}

#[tokio::test]
async fn argument_errors_name_the_tool_and_the_field() {
    let toolkit = Toolkit::new()
        .with(add::tool())
        .with(search::tool())
        .with(kinds::tool());
    let cases = [
        (
            "add",
            json!({"a": "x", "b": 1}),
            r#"invalid arguments for add: a: invalid type: string "x", expected i64"#,
        ),
        (
            "add",
            json!({"a": 1}),
            "invalid arguments for add: missing field `b`",
        ),
        (
            "add",
            json!({"a": 1, "b": 2, "c": 3}),
            "invalid arguments for add: c: unknown field `c`, expected `a` or `b`",
        ),
        (
            "add",
            json!([1, 2]),
            "invalid arguments for add: expected a JSON object of named arguments, got an array",
        ),
        (
            "search",
            json!({"query": 5}),
            "invalid arguments for search: query: invalid type: integer `5`, expected a string",
        ),
    ];
    for (tool, args, expected) in cases {
        let result = run(&toolkit, tool, args.clone()).await;
        assert_eq!(result, ToolResult::error(expected), "{tool} {args}");
    }
    let result = toolkit
        .execute_json("add", "[1, 2]", Context::default())
        .await;
    assert_eq!(
        result.output,
        "invalid arguments for add: expected a JSON object of named arguments, got an array"
    );
    // Raw text reports the same path, without a column number.
    let result = toolkit
        .execute_json("add", r#"{"a": 1, "b": true}"#, Context::default())
        .await;
    assert_eq!(
        result.output,
        "invalid arguments for add: b: invalid type: boolean `true`, expected i64"
    );
    // A repeated key: the text does not read, its parsed value (last key wins) would; the
    // text's own error stands, without a column number.
    let result = toolkit
        .execute_json("add", r#"{"a": 1, "a": 2, "b": 3}"#, Context::default())
        .await;
    assert_eq!(
        result.output,
        "invalid arguments for add: duplicate field `a`"
    );
    // Nested paths.
    let mut args = json!({
        "int": 0, "float": 0.0, "flag": false, "text": "", "list": [1, "two"], "map": {},
        "point": {"x": 0.0, "y": 0.0}, "color": "red", "shape": {"kind": "circle", "radius": 1.0}
    });
    let result = run(&toolkit, "kinds", args.clone()).await;
    assert_eq!(
        result.output,
        r#"invalid arguments for kinds: list[1]: invalid type: string "two", expected u16"#
    );
    args["list"] = json!([]);
    args["point"]["y"] = json!("up");
    let result = run(&toolkit, "kinds", args).await;
    assert_eq!(
        result.output,
        r#"invalid arguments for kinds: point.y: invalid type: string "up", expected f64"#
    );
}

#[test]
fn the_tool_is_built_once_and_shared() {
    let first = add::tool();
    let second = add::tool();
    assert!(std::ptr::eq(first.input_schema(), second.input_schema()));
    assert_eq!(first.source(), "native");
}

#[test]
fn registered_collects_every_tool_in_name_order() {
    let toolkit = Toolkit::registered();
    let names: Vec<&str> = toolkit.tools().iter().map(|t| t.name()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    for expected in [
        "add",
        "deploy_service",
        "echo_later",
        "kinds",
        "nested",
        "r_json",
        "renamed",
        "search",
        "whoami",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    // The tool declared inside a test function's body registers too.
    assert!(names.contains(&"local"));
    assert!(toolkit.rejected().is_empty(), "{:?}", toolkit.rejected());
}

/// A raw identifier and a keyword as parameter names.
#[tool]
fn raw_names(r#type: String, r#match: Option<u8>) -> Result<String, Infallible> {
    Ok(format!("{type}/{match:?}", type = r#type, match = r#match))
}

/// Thirteen parameters: more than the tuple reader takes, so the argument struct reads them.
#[tool]
#[allow(clippy::too_many_arguments)]
fn thirteen(
    a: u8,
    b: u8,
    c: u8,
    d: u8,
    e: u8,
    f: u8,
    g: u8,
    h: u8,
    i: u8,
    j: u8,
    k: u8,
    l: u8,
    m: Option<u8>,
) -> Result<u32, Infallible> {
    let all = [a, b, c, d, e, f, g, h, i, j, k, l, m.unwrap_or(0)];
    Ok(all.iter().map(|&x| u32::from(x)).sum())
}

#[tokio::test]
async fn raw_names_and_many_parameters_read_as_written() {
    let toolkit = Toolkit::new()
        .with(raw_names::tool())
        .with(thirteen::tool());
    let tool = raw_names::tool();
    let schema = &tool.input_schema()["properties"];
    assert!(
        schema.get("type").is_some() && schema.get("match").is_some(),
        "{schema}"
    );
    let result = run(&toolkit, "raw_names", json!({"type": "t", "match": 3})).await;
    assert_eq!(result.output, "t/Some(3)");
    let result = run(&toolkit, "raw_names", json!({"r#type": "t"})).await;
    assert_eq!(
        result.output,
        "invalid arguments for raw_names: r#type: unknown field `r#type`, expected `type` or `match`"
    );

    let mut args: serde_json::Map<String, Value> = ('a'..='l')
        .map(|name| (name.to_string(), json!(1)))
        .collect();
    let result = run(&toolkit, "thirteen", Value::Object(args.clone())).await;
    assert_eq!(result.output, "12");
    args.insert("m".into(), json!(300));
    let result = run(&toolkit, "thirteen", Value::Object(args)).await;
    assert_eq!(
        result.output,
        "invalid arguments for thirteen: m: invalid value: integer `300`, expected u8"
    );
}

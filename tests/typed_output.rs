//! Typed output: a tool returning `Json<T>` has an output schema, its results carry the
//! structured value beside the text, and MCP serves them as `outputSchema` and
//! `structuredContent`.
//!
//! Outside judges:
//! - the official Python MCP SDK (`tests/typed_output/client.py`, `$TOOLNEXUS_PYTHON`) and
//!   the official TypeScript SDK (`tests/typed_output/client.cjs`, from
//!   `$TOOLNEXUS_NODE_MODULES`) each validate `structuredContent` against `outputSchema`
//!   on their side: they accept what the tools return, and reject a tool that lies;
//! - ajv (draft 2020-12, strict) compiles the output schema of every shape of the schema
//!   corpus (tests/profiles/corpus.rs) and of the root shapes below, and validates every
//!   value those tools return against its own schema (`tests/typed_output/ajv_check.cjs`).
//!
//! `.ci/test` installs all three. Without them these tests FAIL (they never skip), saying
//! how to set them up.

#[path = "profiles/corpus.rs"]
#[allow(dead_code)]
mod corpus;
#[path = "typed_output/shapes.rs"]
mod shapes;

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use toolnexus::mcp::{McpServer, call_tool_result};
use toolnexus::{Context, IntoToolResult, Json, Request, Suspend, Tool, ToolResult, Toolkit, tool};

/// Hang protection only: no assertion depends on how long anything takes.
const PATIENCE: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------
// The tools
// ---------------------------------------------------------------------------------------

/// Today's weather in one city.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct Forecast {
    /// The city, as asked.
    city: String,
    /// Degrees Celsius.
    celsius: f64,
    /// A remark, when there is one (left out of the JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// One search hit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Hit {
    id: u32,
    title: String,
}

/// A category and its subcategories (a recursive type: its schema needs `$defs`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Category {
    name: String,
    children: Vec<Category>,
}

/// Today's forecast for a city.
#[tool]
fn forecast(city: String) -> Result<Json<Forecast>, String> {
    if city.is_empty() {
        return Err("forecast: `city` is empty; name a city".to_owned());
    }
    let note = (city == "Bergen").then(|| "rain, as always".to_owned());
    Ok(Json(Forecast {
        city,
        celsius: 11.5,
        note,
    }))
}

/// Search the catalogue.
#[tool]
async fn search(query: String) -> Json<Vec<Hit>> {
    tokio::task::yield_now().await;
    Json(vec![
        Hit {
            id: 1,
            title: format!("{query}: first"),
        },
        Hit {
            id: 2,
            title: format!("{query}: second"),
        },
    ])
}

/// Count the words of a text.
#[tool]
fn count_words(text: String) -> Result<Json<usize>, Infallible> {
    Ok(Json(text.split_whitespace().count()))
}

/// The category tree.
#[tool]
fn categories() -> Result<Json<Vec<Category>>, Infallible> {
    let leaf = |name: &str| Category {
        name: name.to_owned(),
        children: vec![],
    };
    Ok(Json(vec![Category {
        name: "tools".to_owned(),
        children: vec![leaf("hammers"), leaf("saws")],
    }]))
}

/// A forecast that first needs an approval.
#[tool]
fn approved_forecast(ctx: &Context) -> Result<Json<Forecast>, toolnexus::Error> {
    match ctx.answer() {
        Some(answer) if answer.ok => Ok(Json(Forecast {
            city: "Oslo".to_owned(),
            celsius: 3.0,
            note: None,
        })),
        _ => Err(Suspend(Request::approval("Fetch the forecast?")))?,
    }
}

/// Add two numbers (text output only: no output schema).
#[tool]
fn add(a: i64, b: i64) -> Result<i64, Infallible> {
    Ok(a + b)
}

/// A hand-written tool declaring `Forecast`'s output schema and returning a value that
/// does not fit it (`celsius` is a string): what the SDK clients must catch.
fn liar() -> Tool {
    let schema = <Json<Forecast> as IntoToolResult>::output_schema().unwrap();
    Tool::new_sync(
        "liar",
        "Claims a forecast, returns something else.",
        json!({"type": "object", "properties": {}}),
        |_, _| {
            let value = json!({"city": "Oslo", "celsius": "cold"});
            ToolResult::ok(value.to_string()).with_structured(value)
        },
    )
    .with_output_schema(schema)
}

fn toolkit() -> Toolkit {
    Toolkit::new()
        .with(forecast::tool())
        .with(search::tool())
        .with(count_words::tool())
        .with(categories::tool())
        .with(approved_forecast::tool())
        .with(add::tool())
        .with(liar())
}

async fn run(toolkit: &Toolkit, name: &str, args: Value) -> ToolResult {
    toolkit.execute(name, args, Context::default()).await
}

// ---------------------------------------------------------------------------------------
// Output schemas and structured values, in-process
// ---------------------------------------------------------------------------------------

#[test]
fn a_struct_output_schema_is_the_struct_schema_as_it_serializes() {
    let schema = forecast::tool().output_schema().cloned();
    assert_eq!(
        schema,
        Some(json!({
            "description": "Today's weather in one city.",
            "type": "object",
            "properties": {
                "city": {"description": "The city, as asked.", "type": "string"},
                "celsius": {"description": "Degrees Celsius.", "type": "number"},
                "note": {
                    "description": "A remark, when there is one (left out of the JSON otherwise).",
                    "type": ["string", "null"]
                }
            },
            // Serialized, `note` may be missing: it is not required.
            "required": ["city", "celsius"]
        }))
    );
}

#[test]
fn a_vec_and_a_number_are_wrapped_in_an_object_under_result() {
    assert_eq!(
        search::tool().output_schema(),
        Some(&json!({
            "type": "object",
            "properties": {"result": {
                "type": "array",
                "items": {
                    "description": "One search hit.",
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "minimum": 0, "maximum": u32::MAX},
                        "title": {"type": "string"}
                    },
                    "required": ["id", "title"]
                }
            }},
            "required": ["result"],
            "additionalProperties": false
        }))
    );
    assert_eq!(
        count_words::tool().output_schema(),
        Some(&json!({
            "type": "object",
            "properties": {"result": {"type": "integer", "minimum": 0}},
            "required": ["result"],
            "additionalProperties": false
        }))
    );
}

#[test]
fn a_wrapped_recursive_schema_keeps_its_defs_at_the_root() {
    let schema = categories::tool().output_schema().unwrap().clone();
    let children = &schema["properties"]["result"]["items"]["properties"]["children"];
    assert_eq!(children["items"]["$ref"], "#/$defs/Category", "{schema:#}");
    assert!(schema["$defs"]["Category"].is_object(), "{schema:#}");
    assert!(schema["properties"]["result"].get("$defs").is_none());
}

#[test]
fn a_tool_without_json_output_has_no_output_schema() {
    assert_eq!(add::tool().output_schema(), None);
    let listing = toolkit().to_mcp();
    let entries = listing.as_array().unwrap();
    for entry in entries {
        let name = entry["name"].as_str().unwrap();
        let tool = toolkit().get(name).unwrap().clone();
        assert_eq!(entry.get("outputSchema"), tool.output_schema(), "{name}");
    }
    let add_entry = entries.iter().find(|e| e["name"] == "add").unwrap();
    assert!(add_entry.get("outputSchema").is_none(), "{add_entry}");
    // Only MCP lists output schemas: no other provider takes one.
    let openai = toolkit().to_openai();
    assert!(!openai.to_string().contains("outputSchema"));
}

#[tokio::test]
async fn a_success_carries_the_value_beside_the_same_text() {
    let toolkit = toolkit();
    let found = run(&toolkit, "forecast", json!({"city": "Bergen"})).await;
    let expected = json!({"city": "Bergen", "celsius": 11.5, "note": "rain, as always"});
    assert_eq!(found.structured(), Some(&expected));
    assert_eq!(
        serde_json::from_str::<Value>(&found.output).unwrap(),
        expected
    );

    let hits = run(&toolkit, "search", json!({"query": "q"})).await;
    let structured = hits.structured().unwrap();
    assert_eq!(
        structured["result"][1],
        json!({"id": 2, "title": "q: second"})
    );
    // The text is the value itself; only the structured value is wrapped.
    assert_eq!(
        serde_json::from_str::<Value>(&hits.output).unwrap(),
        structured["result"]
    );

    let count = run(&toolkit, "count_words", json!({"text": "one two three"})).await;
    assert_eq!(
        (count.output.as_str(), count.structured()),
        ("3", Some(&json!({"result": 3})))
    );
}

#[tokio::test]
async fn every_way_a_call_finishes_fits_the_value_to_the_schema() {
    // Synchronous (finished before the call returns), async, and async under a timeout
    // and a cancellation token: three paths through `Tool::call`, one shape.
    let toolkit = toolkit();
    let sync = run(&toolkit, "count_words", json!({"text": "a b"})).await;
    let guarded = Context::default()
        .with_timeout(Duration::from_secs(30))
        .with_cancellation(toolnexus::CancellationToken::new());
    let async_guarded = toolkit
        .execute("search", json!({"query": "q"}), guarded)
        .await;
    let async_plain = run(&toolkit, "search", json!({"query": "q"})).await;
    assert_eq!(sync.structured(), Some(&json!({"result": 2})));
    assert_eq!(async_guarded, async_plain);
    assert!(async_plain.structured().unwrap()["result"].is_array());

    // After a suspension is answered, the re-run succeeds with its value.
    let parked = run(&toolkit, "approved_forecast", json!({})).await;
    let request = parked.pending_request().unwrap();
    let answered = Context::default().with_answer(request.answer(json!(true)));
    let done = toolkit
        .execute("approved_forecast", json!({}), answered)
        .await;
    assert_eq!(
        done.structured(),
        Some(&json!({"city": "Oslo", "celsius": 3.0}))
    );
}

#[tokio::test]
async fn the_wire_form_keeps_its_four_fields_with_the_value_under_metadata_structured() {
    let found = run(&toolkit(), "forecast", json!({"city": "Oslo"})).await;
    let wire = serde_json::to_value(&found).unwrap();
    assert_eq!(
        wire,
        json!({
            "output": r#"{"city":"Oslo","celsius":11.5}"#,
            "isError": false,
            "metadata": {"structured": {"city": "Oslo", "celsius": 11.5}}
        })
    );
    assert_eq!(toolnexus::dispatch::STRUCTURED_KEY, "structured");
    let back: ToolResult = serde_json::from_value(wire).unwrap();
    assert_eq!(back, found);
    assert_eq!(back.structured(), found.structured());
}

#[tokio::test]
async fn errors_and_suspensions_carry_no_structured_value() {
    let toolkit = toolkit();
    let failed = run(&toolkit, "forecast", json!({"city": ""})).await;
    assert!(failed.is_error);
    assert_eq!(failed.structured(), None);
    assert_eq!(failed.metadata, None);

    let parked = run(&toolkit, "approved_forecast", json!({})).await;
    assert!(parked.is_pending());
    assert_eq!(parked.structured(), None);
    assert!(!parked.metadata.as_ref().unwrap().contains_key("structured"));

    // A hand-written tool with an output schema that sets a value on an error: dropped.
    let sloppy = Tool::new_sync("sloppy", "", json!({"type": "object"}), |_, _| {
        ToolResult::error("failed").with_structured(json!([1]))
    })
    .with_output_schema(json!({"type": "array"}));
    let result = sloppy.execute(json!({}), Context::default()).await;
    assert!(result.metadata.unwrap().is_empty());
}

#[tokio::test]
async fn a_hand_written_tool_declares_an_output_schema_without_touching_its_clones() {
    let plain = Tool::new(
        "roll",
        "Rolls two dice.",
        json!({"type": "object"}),
        |_, _| async { ToolResult::ok("[3,5]").with_structured(json!([3, 5])) },
    );
    let typed = plain
        .clone()
        .with_output_schema(json!({"type": "array", "items": {"type": "integer"}}));
    assert_eq!(plain.output_schema(), None);
    assert_eq!(
        typed.output_schema().unwrap()["properties"]["result"]["items"],
        json!({"type": "integer"})
    );
    let typed_result = typed.execute(json!({}), Context::default()).await;
    assert_eq!(typed_result.structured(), Some(&json!({"result": [3, 5]})));
    // The clone without a schema is untouched: its value stays as the tool gave it.
    let plain_result = plain.execute(json!({}), Context::default()).await;
    assert_eq!(plain_result.structured(), Some(&json!([3, 5])));
    let listed = Toolkit::new().with(typed).to_mcp();
    assert_eq!(listed[0]["outputSchema"]["required"], json!(["result"]));

    // An object schema is kept as it is, and the value with it.
    let object = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let kept = Tool::new_sync("n", "", json!({"type": "object"}), |_, _| {
        ToolResult::ok("{\"n\":1}").with_structured(json!({"n": 1}))
    })
    .with_output_schema(object.clone());
    assert_eq!(kept.output_schema(), Some(&object));
    let result = kept.execute(json!({}), Context::default()).await;
    assert_eq!(result.structured(), Some(&json!({"n": 1})));
}

#[tokio::test]
async fn mcp_results_carry_structured_content_on_success_only() {
    let toolkit = toolkit();
    let found = run(&toolkit, "forecast", json!({"city": "Oslo"})).await;
    let mapped = serde_json::to_value(call_tool_result("forecast", found)).unwrap();
    assert_eq!(
        mapped["structuredContent"],
        json!({"city": "Oslo", "celsius": 11.5})
    );
    assert_eq!(
        mapped["content"][0]["text"],
        r#"{"city":"Oslo","celsius":11.5}"#
    );
    assert_eq!(mapped["isError"], false);
    // `structured` is carried as structuredContent, not in `_meta`.
    assert!(mapped.get("_meta").is_none(), "{mapped}");

    for result in [
        run(&toolkit, "forecast", json!({"city": ""})).await,
        run(&toolkit, "approved_forecast", json!({})).await,
        ToolResult::error("no").with_structured(json!({"a": 1})),
        // Not an object (only a tool without an output schema can give one): not sent.
        ToolResult::ok("[1]").with_structured(json!([1])),
    ] {
        let mapped = serde_json::to_value(call_tool_result("t", result)).unwrap();
        assert!(mapped.get("structuredContent").is_none(), "{mapped}");
    }
}

// ---------------------------------------------------------------------------------------
// The official SDK clients validate structuredContent against outputSchema
// ---------------------------------------------------------------------------------------

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> String {
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let probe = std::process::Command::new(&python)
        .args(["-c", "import mcp.client.session"])
        .output();
    match probe {
        Ok(out) if out.status.success() => python,
        outcome => panic!(
            "the official MCP Python client is missing: `{python} -c 'import mcp'` failed \
             ({outcome:?}).\nThese tests need it and do not skip. Set it up with `bash \
             .ci/test`, or:\n  python3 -m venv target/py-venv && target/py-venv/bin/pip \
             install mcp==2.3.0\n  export TOOLNEXUS_PYTHON=$PWD/target/py-venv/bin/python"
        ),
    }
}

fn node_modules() -> PathBuf {
    let dir = std::env::var_os("TOOLNEXUS_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/node/node_modules"));
    assert!(
        dir.join("@modelcontextprotocol/sdk").is_dir() && dir.join("ajv").is_dir(),
        "the MCP TypeScript SDK and ajv are missing from {}.\nThese tests need them and do \
         not skip. Set them up with `bash .ci/test` (or: npm install --prefix target/node \
         @modelcontextprotocol/sdk@1.32.2 ajv@8.20.0 ajv-formats@3.0.1, then export \
         TOOLNEXUS_NODE_MODULES=$PWD/target/node/node_modules)",
        dir.display()
    );
    dir
}

/// Runs `program args…` (stdin from `input`), bounded in time, and returns its JSON report.
async fn run_json(mut command: tokio::process::Command, input: Option<String>) -> Value {
    use tokio::io::AsyncWriteExt;
    let label = format!("{command:?}");
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("{label} could not start: {e}"));
    if let Some(input) = input {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).await.unwrap();
        drop(stdin);
    }
    let output = tokio::time::timeout(PATIENCE, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("{label} did not finish"))
        .unwrap();
    assert!(
        output.status.success(),
        "{label} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{label} printed no JSON report ({e}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn node(script: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new("node");
    command
        .arg(root().join("tests/typed_output").join(script))
        .env("NODE_PATH", node_modules());
    command
}

/// (label, tool, arguments) of every call the SDK clients make.
fn calls() -> Value {
    json!([
        ["struct", "forecast", {"city": "Bergen"}],
        ["vec", "search", {"query": "saw"}],
        ["number", "count_words", {"text": "one two three"}],
        ["recursive", "categories", {}],
        ["failure", "forecast", {"city": ""}],
        ["suspension", "approved_forecast", {}],
        ["untyped", "add", {"a": 2, "b": 3}],
        ["liar", "liar", {}],
    ])
}

/// `value` with every number as the `f64` JavaScript would hold.
fn as_f64_numbers(value: &Value) -> Value {
    match value {
        Value::Number(n) => n.as_f64().map_or(Value::Null, |f| json!(f)),
        Value::Array(items) => Value::Array(items.iter().map(as_f64_numbers).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), as_f64_numbers(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What both SDKs must report, each in its own words for the rejected call.
fn check_sdk_report(sdk: &str, report: &Value, rejection: &str) {
    let toolkit = toolkit();
    // Every tool is listed with its output schema, verbatim; `add` without one.
    for listed in report["tools"].as_array().unwrap() {
        let name = listed["name"].as_str().unwrap();
        let tool = toolkit.get(name).unwrap();
        // As JavaScript reads numbers: `u64::MAX` comes back as the nearest `f64`.
        assert_eq!(
            listed.get("outputSchema").map(as_f64_numbers),
            tool.output_schema().map(as_f64_numbers),
            "{sdk}: {name}"
        );
    }
    let add = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "add");
    assert!(add.unwrap().get("outputSchema").is_none(), "{sdk}");

    let calls = &report["calls"];
    let accepted = |label: &str| -> &Value {
        let call = &calls[label];
        assert!(
            call.get("error").is_none(),
            "{sdk} rejected {label}: {call}"
        );
        &call["result"]
    };
    let text_value = |result: &Value| -> Value {
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
    };

    let found = accepted("struct");
    let expected = json!({"city": "Bergen", "celsius": 11.5, "note": "rain, as always"});
    assert_eq!(found["structuredContent"], expected, "{sdk}");
    assert_eq!(text_value(found), expected, "{sdk}");

    let hits = accepted("vec");
    assert_eq!(
        hits["structuredContent"]["result"][0]["title"], "saw: first",
        "{sdk}"
    );
    assert_eq!(
        text_value(hits),
        hits["structuredContent"]["result"],
        "{sdk}"
    );

    let count = accepted("number");
    assert_eq!(count["structuredContent"], json!({"result": 3}), "{sdk}");

    let tree = accepted("recursive");
    assert_eq!(
        tree["structuredContent"]["result"][0]["children"][1]["name"], "saws",
        "{sdk}"
    );

    for label in ["failure", "suspension"] {
        let result = accepted(label);
        assert_eq!(result["isError"], true, "{sdk}: {label}");
        assert!(
            result.get("structuredContent").is_none(),
            "{sdk}: {label}: {result}"
        );
    }

    let untyped = accepted("untyped");
    assert!(
        untyped.get("structuredContent").is_none(),
        "{sdk}: {untyped}"
    );

    // The value that does not fit its schema is caught by the SDK itself.
    let error = calls["liar"]["error"].as_str().unwrap_or_else(|| {
        panic!(
            "{sdk} accepted structured content that breaks its schema: {}",
            calls["liar"]
        )
    });
    assert!(error.contains(rejection), "{sdk}: {error}");
    assert!(
        error.contains("celsius"),
        "{sdk} names the offending field: {error}"
    );
}

/// Serves the toolkit over streamable HTTP, runs `client` against it, shuts it down.
async fn against_server(client: impl FnOnce(String) -> tokio::process::Command) -> Value {
    let server = McpServer::new(toolkit())
        .serve_http("127.0.0.1:0")
        .await
        .expect("the server binds a local port");
    let report = run_json(client(server.url()), None).await;
    tokio::time::timeout(PATIENCE, server.shutdown())
        .await
        .expect("the server shuts down")
        .unwrap();
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_validates_structured_content_against_the_output_schema() {
    let report = against_server(|url| {
        let mut command = tokio::process::Command::new(python());
        command
            .arg(root().join("tests/typed_output/client.py"))
            .arg(url)
            .arg(calls().to_string());
        command
    })
    .await;
    check_sdk_report(
        "the Python SDK",
        &report,
        "Invalid structured content returned by tool liar",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_validates_structured_content_against_the_output_schema() {
    let report = against_server(|url| {
        let mut command = node("client.cjs");
        command.arg(url).arg(calls().to_string());
        command
    })
    .await;
    check_sdk_report(
        "the TypeScript SDK",
        &report,
        "Structured content does not match the tool's output schema",
    );
}

// ---------------------------------------------------------------------------------------
// The corpus: every output schema compiles under ajv 2020-12, every value fits its schema
// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_output_schema_compiles_under_ajv_and_every_value_fits_it() {
    let mut cases = Vec::new();
    let mut record = |tool: &Tool, result: ToolResult| {
        let name = tool.name().to_owned();
        assert!(!result.is_error, "{name}: {}", result.output);
        let schema = tool
            .output_schema()
            .expect("a typed tool has an output schema");
        assert_eq!(schema["type"], "object", "{name}: the root is an object");
        let value = result
            .structured()
            .expect("a success carries its value")
            .clone();
        assert!(value.is_object(), "{name}: {value}");
        // The text says the same thing as the value (unwrapped, if it was wrapped).
        let text: Value = serde_json::from_str(&result.output).unwrap();
        let wrapped = schema["required"] == json!(["result"])
            && schema.get("additionalProperties") == Some(&json!(false));
        let unwrapped = if wrapped {
            value["result"].clone()
        } else {
            value.clone()
        };
        assert_eq!(text, unwrapped, "{name}");
        cases.push(json!({"name": name, "schema": schema, "value": value}));
    };
    for case in corpus::corpus() {
        let result = case
            .output
            .execute(case.sample.clone(), Context::default())
            .await;
        record(&case.output, result);
    }
    for tool in shapes::root_shapes() {
        let result = tool.execute(json!({}), Context::default()).await;
        record(&tool, result);
    }
    let count = cases.len();
    assert!(count >= 60, "the corpus shrank: {count} cases");

    let report = run_json(node("ajv_check.cjs"), Some(Value::from(cases).to_string())).await;
    let checked = report.as_array().unwrap();
    assert_eq!(checked.len(), count);
    let failures: Vec<&Value> = checked
        .iter()
        .filter(|c| c["compiled"] != true || c["valid"] != true || c["rejectsNonObject"] != true)
        .collect();
    assert!(failures.is_empty(), "ajv disagrees: {failures:#?}");
}

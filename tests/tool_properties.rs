//! Property tests of the argument path: whatever a model sends, `Toolkit::execute` gives
//! back a `ToolResult` (never a panic), every error result names the tool, and arguments
//! that fit a tool's schema reach the function with exactly the values sent.
//!
//! The valid arguments are generated from each tool's own JSON schema (as `#[tool]`
//! derives it), not from the Rust types, so a schema that promises more than the function
//! accepts (or describes a field differently) fails here.
//!
//! Case counts are bounded so the suite stays fast in CI; raise them for a longer run with
//! `PROPTEST_CASES=5000 cargo test -p toolnexus-suite --test tool_properties`.

use std::collections::BTreeMap;
use std::convert::Infallible;

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolnexus::{Context, Json, Tool, ToolResult, Toolkit, tool, tools};

// ---------------------------------------------------------------------------------------
// The corpus: one tool per kind of parameter, each echoing what it received
// ---------------------------------------------------------------------------------------

type Echo = Result<Json<Value>, Infallible>;

fn echo(value: Value) -> Echo {
    Ok(Json(value))
}

/// The integer widths whose whole range the schema states (8 and 16 bits carry
/// `minimum`/`maximum`; `integer` is read as i64, and `minimum: 0` alone as u64).
#[tool]
fn ints(a: i8, b: u8, c: i16, d: u16, g: i64, h: u64) -> Echo {
    echo(json!({"a": a, "b": b, "c": c, "d": d, "g": g, "h": h}))
}

/// 32-bit integers: their schema is `integer` (and `minimum: 0`) without the upper
/// bound, so a model may send a value the function cannot hold (see
/// `integers_past_the_rust_type_are_an_error_naming_the_field`).
#[tool]
fn narrow(e: i32, f: u32) -> Echo {
    echo(json!({"e": e, "f": f}))
}

/// A float, a flag, a character and a string.
#[tool]
fn scalars(x: f64, flag: bool, letter: char, text: String) -> Echo {
    echo(json!({"x": x, "flag": flag, "letter": letter, "text": text}))
}

/// Sequences, maps and a tuple.
#[tool]
async fn collections(
    list: Vec<i64>,
    words: Vec<String>,
    map: BTreeMap<String, u8>,
    pair: (i64, String),
    grid: Vec<Vec<bool>>,
) -> Echo {
    tokio::task::yield_now().await;
    echo(json!({"list": list, "words": words, "map": map, "pair": pair, "grid": grid}))
}

/// Optional and defaulted parameters.
#[tool]
fn optionals(
    maybe: Option<i64>,
    note: Option<String>,
    #[serde(default)] count: u64,
    #[serde(default)] enabled: bool,
) -> Echo {
    echo(json!({"maybe": maybe, "note": note, "count": count, "enabled": enabled}))
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
    Blue,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Rect { w: f64, h: f64 },
    Dot,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Label {
    name: String,
    tags: Vec<String>,
    at: Option<Point>,
}

/// Nested structs and both kinds of enum.
#[tool]
async fn structured(point: Point, color: Color, shape: Shape, label: Label, ctx: &Context) -> Echo {
    let _ = ctx.call_id();
    echo(json!({"point": point, "color": color, "shape": shape, "label": label}))
}

/// A search request.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Query {
    /// What to look for.
    query: String,
    /// How many hits at most.
    limit: Option<u16>,
    /// Only these kinds.
    kinds: Vec<Color>,
}

/// The whole argument object as one struct.
#[tool]
fn search(#[args] q: Query) -> Echo {
    echo(serde_json::to_value(q).unwrap_or_default())
}

/// No parameters at all.
#[tool]
fn nothing(ctx: Context) -> Echo {
    let _ = ctx;
    echo(json!({}))
}

/// The tools whose schema states the full range of every parameter: valid-by-schema
/// arguments must reach the function unchanged.
fn corpus() -> Vec<Tool> {
    tools![
        ints,
        scalars,
        collections,
        optionals,
        structured,
        search,
        nothing
    ]
}

/// Every tool, for the properties about arbitrary input.
fn all_tools() -> Vec<Tool> {
    let mut tools = corpus();
    tools.push(narrow::tool());
    tools
}

// ---------------------------------------------------------------------------------------
// Values generated from a JSON schema
// ---------------------------------------------------------------------------------------

/// The range an `integer` schema allows: `minimum`/`maximum` where given; otherwise a
/// plain `integer` is read as i64 and a `minimum` of 0 or more as u64.
fn integer_bounds(schema: &Value) -> (i128, i128) {
    // Exactly, where the bound is an integer (`u64::MAX` has no exact `f64`).
    let exact = |key: &str| -> Option<i128> {
        let bound = schema.get(key)?;
        bound
            .as_i64()
            .map(i128::from)
            .or_else(|| bound.as_u64().map(i128::from))
            .or_else(|| {
                bound
                    .as_f64()
                    .map(|m| if key == "minimum" { m.ceil() } else { m.floor() } as i128)
            })
    };
    let (min, max) = (exact("minimum"), exact("maximum"));
    let lo = min.unwrap_or(i64::MIN as i128);
    let default_hi = if lo >= 0 {
        u64::MAX as i128
    } else {
        i64::MAX as i128
    };
    let hi = max.unwrap_or(default_hi);
    (lo, hi)
}

fn integer(schema: &Value) -> BoxedStrategy<Value> {
    let (lo, hi) = integer_bounds(schema);
    let edges =
        [lo, hi, 0.clamp(lo, hi), (lo + 1).min(hi), (hi - 1).max(lo)].map(|n| Just(n).boxed());
    let inner = if hi <= i64::MAX as i128 {
        (lo as i64..=hi as i64).prop_map(i128::from).boxed()
    } else if lo >= 0 {
        (lo as u64..=hi as u64).prop_map(i128::from).boxed()
    } else {
        unreachable!("no integer format spans i64::MIN..=u64::MAX")
    };
    let mut options = edges.to_vec();
    options.push(inner.clone());
    options.push(inner);
    Union::new(options)
        .prop_map(|n| match i64::try_from(n) {
            Ok(n) => Value::from(n),
            Err(_) => Value::from(n as u64),
        })
        .boxed()
}

fn number(schema: &Value) -> BoxedStrategy<Value> {
    use proptest::num::f64 as f64s;
    assert!(
        schema.get("format").is_none(),
        "unhandled number format: {schema}"
    );
    let any = f64s::POSITIVE | f64s::NEGATIVE | f64s::NORMAL | f64s::SUBNORMAL | f64s::ZERO;
    prop_oneof![any, (-1000i32..1000).prop_map(f64::from)]
        .prop_map(Value::from)
        .boxed()
}

/// Any text: control characters, quotes, backslashes and astral-plane characters included.
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        prop::collection::vec(any::<char>(), 0..12).prop_map(String::from_iter),
        prop::collection::vec(
            prop::sample::select(vec!['"', '\\', '\n', '\0', '{', '}', 'é', '😀', 'a']),
            0..8
        )
        .prop_map(String::from_iter),
    ]
    .boxed()
}

fn string(schema: &Value) -> BoxedStrategy<Value> {
    let min = schema.get("minLength").and_then(Value::as_u64);
    let max = schema.get("maxLength").and_then(Value::as_u64);
    if min == Some(1) && max == Some(1) {
        return any::<char>()
            .prop_map(|c| Value::from(c.to_string()))
            .boxed();
    }
    assert!(
        min.is_none() && max.is_none(),
        "unhandled string bounds: {schema}"
    );
    text().prop_map(Value::from).boxed()
}

fn object(schema: &Value, root: &Value) -> BoxedStrategy<Value> {
    if let Some(Value::Object(properties)) = schema.get("properties") {
        let mut acc: BoxedStrategy<Vec<(String, Value)>> = Just(Vec::new()).boxed();
        for (name, property) in properties {
            let name = name.clone();
            acc = (acc, from_schema(property, root))
                .prop_map(move |(mut fields, value)| {
                    fields.push((name.clone(), value));
                    fields
                })
                .boxed();
        }
        return acc
            .prop_map(|fields| Value::Object(fields.into_iter().collect()))
            .boxed();
    }
    match schema.get("additionalProperties") {
        Some(values @ Value::Object(_)) => {
            prop::collection::btree_map(text(), from_schema(values, root), 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect()))
                .boxed()
        }
        _ => Just(json!({})).boxed(),
    }
}

fn array(schema: &Value, root: &Value) -> BoxedStrategy<Value> {
    if let Some(Value::Array(prefix)) = schema.get("prefixItems") {
        let mut acc: BoxedStrategy<Vec<Value>> = Just(Vec::new()).boxed();
        for item in prefix {
            acc = (acc, from_schema(item, root))
                .prop_map(|(mut items, value)| {
                    items.push(value);
                    items
                })
                .boxed();
        }
        return acc.prop_map(Value::Array).boxed();
    }
    let items = schema.get("items").expect("an array schema has items");
    prop::collection::vec(from_schema(items, root), 0..4)
        .prop_map(Value::Array)
        .boxed()
}

/// A strategy for values valid under `schema` (the subset of JSON Schema that schemars
/// emits). Panics on a keyword it does not know, so the corpus cannot silently outgrow it.
fn from_schema(schema: &Value, root: &Value) -> BoxedStrategy<Value> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let path = reference.strip_prefix('#').expect("local $ref");
        let target = root.pointer(path).expect("$ref resolves");
        return from_schema(target, root);
    }
    if let Some(constant) = schema.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return prop::sample::select(values.clone()).boxed();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(options)) = schema.get(key) {
            return Union::new(options.iter().map(|o| from_schema(o, root))).boxed();
        }
    }
    match schema.get("type") {
        Some(Value::Array(types)) => Union::new(types.iter().map(|t| {
            let mut one = schema.clone();
            one["type"] = t.clone();
            from_schema(&one, root)
        }))
        .boxed(),
        Some(Value::String(t)) => match t.as_str() {
            "null" => Just(Value::Null).boxed(),
            "boolean" => any::<bool>().prop_map(Value::from).boxed(),
            "integer" => integer(schema),
            "number" => number(schema),
            "string" => string(schema),
            "array" => array(schema, root),
            "object" => object(schema, root),
            other => panic!("unhandled type {other:?} in {schema}"),
        },
        _ => panic!("unhandled schema {schema}"),
    }
}

/// Valid top-level arguments for `tool`: every property generated, then some of the
/// optional ones left out.
fn valid_args(tool: &Tool) -> BoxedStrategy<Value> {
    let schema = tool.input_schema().clone();
    let required: Vec<String> = schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (from_schema(&schema, &schema), any::<u64>())
        .prop_map(move |(mut args, drop_mask)| {
            let map = args.as_object_mut().expect("arguments are an object");
            let optional: Vec<String> = map
                .keys()
                .filter(|k| !required.contains(k))
                .cloned()
                .collect();
            for (i, key) in optional.iter().enumerate() {
                if drop_mask >> (i % 64) & 1 == 1 {
                    map.remove(key);
                }
            }
            args
        })
        .boxed()
}

/// What the function must have seen: the arguments, with each left-out property at its
/// schema default (or `null` for an `Option`).
fn expected_echo(tool: &Tool, args: &Value) -> Value {
    let schema = tool.input_schema();
    let mut expected = args.clone();
    if let (Some(Value::Object(properties)), Value::Object(map)) =
        (schema.get("properties"), &mut expected)
    {
        for (name, property) in properties {
            if !map.contains_key(name) {
                let default = property.get("default").cloned().unwrap_or(Value::Null);
                map.insert(name.clone(), default);
            }
        }
    }
    expected
}

/// Reads a value back through JSON text, the way the tool's output reaches the test, so
/// both sides of a comparison went through the same float parsing.
fn via_text(value: &Value) -> Value {
    serde_json::from_str(&value.to_string()).expect("serialized JSON parses")
}

// ---------------------------------------------------------------------------------------
// Arbitrary input
// ---------------------------------------------------------------------------------------

/// Any JSON value, with object keys drawn partly from `names` so that the generated
/// objects come close to valid arguments.
fn arbitrary_json(mut names: Vec<String>) -> BoxedStrategy<Value> {
    names.push("x".to_owned());
    let key = prop_oneof![prop::sample::select(names), text()];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
    .boxed()
}

/// A value whose JSON type the property schema does not accept.
fn wrong_type(property: &Value) -> Option<Value> {
    let mut accepted: Vec<&str> = match property.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    if accepted.contains(&"number") {
        accepted.push("integer");
    }
    [
        ("string", json!("not this")),
        ("boolean", json!(true)),
        ("array", json!([1, 2])),
        ("object", json!({"nested": 1})),
        ("integer", json!(7)),
    ]
    .into_iter()
    .find(|(t, _)| !accepted.contains(t))
    .map(|(_, v)| v)
}

fn property_names(tool: &Tool) -> Vec<String> {
    let mut names: Vec<String> = tool.input_schema()["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    names.push("unknown_field".to_owned());
    names
}

// ---------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(128)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Runs `check` over `strategy` for every tool of the corpus.
fn for_each_tool<S: Strategy>(
    tools: Vec<Tool>,
    strategy: impl Fn(&Tool) -> S,
    check: impl Fn(&Toolkit, &Tool, S::Value) -> Result<(), TestCaseError>,
) {
    let toolkit: Toolkit = tools.into_iter().collect();
    for tool in toolkit.tools() {
        let mut runner = TestRunner::new(Config {
            cases: cases(),
            failure_persistence: None,
            ..Config::default()
        });
        let outcome = runner.run(&strategy(tool), |input| check(&toolkit, tool, input));
        if let Err(failure) = outcome {
            panic!("{}: {failure}", tool.name());
        }
    }
}

fn execute(toolkit: &Toolkit, name: &str, args: Value) -> ToolResult {
    runtime().block_on(toolkit.execute(name, args, Context::default()))
}

fn execute_json(toolkit: &Toolkit, name: &str, text: &str) -> ToolResult {
    runtime().block_on(toolkit.execute_json(name, text, Context::default()))
}

fn names_the_tool(result: &ToolResult, tool: &Tool) -> Result<(), TestCaseError> {
    if result.is_error {
        prop_assert!(
            result.output.contains(tool.name()),
            "error result does not name the tool: {:?}",
            result.output
        );
    }
    Ok(())
}

#[test]
fn the_schema_generator_covers_the_whole_corpus() {
    // Guards the generator itself: each tool's schema yields values, and the corpus has
    // every kind of parameter the properties below rely on.
    let mut runner = TestRunner::deterministic();
    for tool in all_tools() {
        let args = valid_args(&tool).new_tree(&mut runner).unwrap().current();
        assert!(args.is_object(), "{}: {args}", tool.name());
    }
    let schemas = Value::Array(corpus().iter().map(|t| t.input_schema().clone()).collect());
    let text = schemas.to_string();
    for needle in [
        "\"minimum\":0",
        "\"maximum\":255",
        "\"prefixItems\"",
        "\"additionalProperties\":{",
        "\"oneOf\"",
        "\"enum\"",
        "\"null\"",
        "\"default\"",
        "\"maxLength\"",
        "\"number\"",
    ] {
        assert!(text.contains(needle), "the corpus lacks {needle}: {text}");
    }
}

#[test]
fn valid_arguments_reach_the_function_unchanged() {
    for_each_tool(corpus(), valid_args, |toolkit, tool, args| {
        let result = execute(toolkit, tool.name(), args.clone());
        prop_assert!(
            !result.is_error,
            "{} rejected {args}: {}",
            tool.name(),
            result.output
        );
        let got: Value = serde_json::from_str(&result.output).expect("the echo is JSON");
        prop_assert_eq!(got, via_text(&expected_echo(tool, &args)), "args: {}", args);
        Ok(())
    });
}

#[test]
fn valid_arguments_as_raw_text_reach_the_function_unchanged() {
    for_each_tool(corpus(), valid_args, |toolkit, tool, args| {
        let text = args.to_string();
        let result = execute_json(toolkit, tool.name(), &text);
        prop_assert!(
            !result.is_error,
            "{} rejected {text}: {}",
            tool.name(),
            result.output
        );
        let got: Value = serde_json::from_str(&result.output).expect("the echo is JSON");
        prop_assert_eq!(got, via_text(&expected_echo(tool, &args)), "args: {}", text);
        Ok(())
    });
}

#[test]
fn arbitrary_json_gives_a_result_and_errors_name_the_tool() {
    for_each_tool(
        all_tools(),
        |tool| arbitrary_json(property_names(tool)),
        |toolkit, tool, args| {
            let by_value = execute(toolkit, tool.name(), args.clone());
            names_the_tool(&by_value, tool)?;
            // The raw-text path agrees with the parsed one.
            let by_text = execute_json(toolkit, tool.name(), &args.to_string());
            names_the_tool(&by_text, tool)?;
            prop_assert_eq!(by_value.is_error, by_text.is_error, "args: {}", args);
            if !by_value.is_error {
                prop_assert_eq!(&by_value.output, &by_text.output);
            }
            Ok(())
        },
    );
}

#[test]
fn arbitrary_text_gives_a_result_and_errors_name_the_tool() {
    let strategy = |tool: &Tool| {
        prop_oneof![
            // Any text at all.
            text(),
            any::<String>(),
            // Valid arguments, cut short or with a character spliced in.
            (
                valid_args(tool),
                any::<prop::sample::Index>(),
                any::<char>(),
                any::<bool>()
            )
                .prop_map(|(args, at, c, cut)| {
                    let text = args.to_string();
                    let chars: Vec<char> = text.chars().collect();
                    let at = at.index(chars.len() + 1);
                    let mut out: String = chars[..at].iter().collect();
                    if !cut {
                        out.push(c);
                        out.extend(&chars[at..]);
                    }
                    out
                }),
        ]
    };
    for_each_tool(all_tools(), strategy, |toolkit, tool, text| {
        let result = execute_json(toolkit, tool.name(), &text);
        names_the_tool(&result, tool)
    });
}

#[test]
fn a_missing_or_mistyped_field_is_an_error_naming_the_tool_and_the_field() {
    let strategy = |tool: &Tool| {
        (
            valid_args(tool),
            any::<prop::sample::Index>(),
            any::<bool>(),
        )
    };
    for_each_tool(
        corpus(),
        strategy,
        |toolkit, tool, (mut args, pick, remove)| {
            let schema = tool.input_schema();
            let properties = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let map = args.as_object_mut().unwrap();
            let field = if remove {
                if required.is_empty() {
                    return Ok(());
                }
                let field = required[pick.index(required.len())].to_owned();
                map.remove(&field);
                field
            } else {
                if properties.is_empty() {
                    return Ok(());
                }
                let (field, property) =
                    properties.iter().nth(pick.index(properties.len())).unwrap();
                let Some(bad) = wrong_type(property) else {
                    return Ok(());
                };
                map.insert(field.clone(), bad);
                field.clone()
            };
            for result in [
                execute(toolkit, tool.name(), args.clone()),
                execute_json(toolkit, tool.name(), &args.to_string()),
            ] {
                prop_assert!(result.is_error, "{} accepted {args}", tool.name());
                names_the_tool(&result, tool)?;
                prop_assert!(
                    result.output.contains(&field),
                    "the error does not name `{field}`: {}",
                    result.output
                );
            }
            Ok(())
        },
    );
}

#[test]
fn an_unknown_field_is_an_error_naming_it() {
    // `search` takes its whole argument object as one `#[args]` struct, which (as serde
    // does by default) ignores fields it does not know; every other tool refuses them.
    let strict = corpus()
        .into_iter()
        .filter(|t| t.name() != "search")
        .collect();
    for_each_tool(strict, valid_args, |toolkit, tool, mut args| {
        args.as_object_mut()
            .unwrap()
            .insert("surprise_field".to_owned(), json!(1));
        let result = execute(toolkit, tool.name(), args);
        prop_assert!(result.is_error, "{} accepted an unknown field", tool.name());
        names_the_tool(&result, tool)?;
        prop_assert!(
            result.output.contains("surprise_field"),
            "{}",
            result.output
        );
        Ok(())
    });
}

#[test]
fn an_arbitrary_tool_name_is_an_unknown_tool_error() {
    let toolkit: Toolkit = all_tools().into_iter().collect();
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(text(), arbitrary_json(vec![])), |(name, args)| {
            let result = execute(&toolkit, &name, args);
            if toolkit.get(&name).is_none() {
                prop_assert_eq!(result, ToolResult::error(format!("Unknown tool: {name}")));
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn integers_past_the_rust_type_are_an_error_naming_the_field() {
    let toolkit = Toolkit::new().with(narrow::tool());
    let integer = || {
        prop_oneof![
            any::<i64>().prop_map(i128::from),
            any::<u64>().prop_map(i128::from),
            any::<i32>().prop_map(i128::from),
            any::<u32>().prop_map(i128::from),
        ]
    };
    let as_json = |n: i128| match i64::try_from(n) {
        Ok(n) => Value::from(n),
        Err(_) => Value::from(n as u64),
    };
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(integer(), integer()), |(e, f)| {
            let args = json!({"e": as_json(e), "f": as_json(f)});
            let fits_e = i32::try_from(e).is_ok();
            let fits_f = u32::try_from(f).is_ok();
            for result in [
                execute(&toolkit, "narrow", args.clone()),
                execute_json(&toolkit, "narrow", &args.to_string()),
            ] {
                match (fits_e, fits_f) {
                    (true, true) => {
                        prop_assert!(!result.is_error, "{}", result.output);
                        let got: Value = serde_json::from_str(&result.output).unwrap();
                        prop_assert_eq!(&got, &args);
                    }
                    (false, _) => prop_assert!(
                        result.is_error
                            && result
                                .output
                                .starts_with("invalid arguments for narrow: e: "),
                        "{}",
                        result.output
                    ),
                    (true, false) => prop_assert!(
                        result.is_error
                            && result
                                .output
                                .starts_with("invalid arguments for narrow: f: "),
                        "{}",
                        result.output
                    ),
                }
            }
            Ok(())
        })
        .unwrap();
}

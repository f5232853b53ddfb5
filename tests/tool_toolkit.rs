//! `Tool` and `Toolkit` built by hand: registration, lookup, execution, provider shapes,
//! and bad input that must end as an error result, never a crash or a hang.

use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::schema::Listing;
use toolnexus::schema::profile::Profile;
use toolnexus::tool::CancellationToken;
use toolnexus::{Context, Tool, ToolResult, Toolkit};

fn add_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "The first addend."},
            "b": {"type": "integer", "description": "The second addend."}
        },
        "required": ["a", "b"],
        "additionalProperties": false
    })
}

fn add() -> Tool {
    Tool::new_sync("add", "Add two numbers.", add_schema(), |args, _| {
        match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
            _ => ToolResult::error("add: `a` and `b` must be integers"),
        }
    })
}

fn slow(delay: Duration) -> Tool {
    Tool::new(
        "slow",
        "Sleeps.",
        json!({"type": "object"}),
        move |_, _| async move {
            tokio::time::sleep(delay).await;
            ToolResult::ok("woke up")
        },
    )
}

fn kit() -> Toolkit {
    Toolkit::new()
        .with(add())
        .with(Tool::new(
            "boom",
            "Always panics.",
            json!({"type": "object", "properties": {}}),
            |_, _| async move { panic!("kaboom") },
        ))
        .with(Tool::new_sync(
            "boom_sync",
            "Panics synchronously.",
            json!({"type": "object", "properties": {}}),
            |_, _| panic!("sync kaboom"),
        ))
}

#[tokio::test]
async fn executes_with_a_value_or_with_raw_json_text() {
    let toolkit = kit();
    let by_value = toolkit
        .execute("add", json!({"a": 2, "b": 3}), Context::default())
        .await;
    assert_eq!(by_value, ToolResult::ok("5"));
    let by_text = toolkit
        .execute_json("add", "{\"a\":1,\"b\":41}", Context::default())
        .await;
    assert_eq!(by_text, ToolResult::ok("42"));
}

#[tokio::test]
async fn unknown_tool_is_an_error_result() {
    let result = kit().execute("nope", json!({}), Context::default()).await;
    assert_eq!(result, ToolResult::error("Unknown tool: nope"));
    let result = kit().execute_json("nope", "{}", Context::default()).await;
    assert_eq!(result, ToolResult::error("Unknown tool: nope"));
}

#[tokio::test]
async fn malformed_json_text_is_an_error_result_saying_so() {
    let result = kit()
        .execute_json("add", "{\"a\": 1,", Context::default())
        .await;
    assert!(result.is_error);
    assert!(
        result
            .output
            .starts_with("invalid arguments for add: the arguments are not valid JSON"),
        "{}",
        result.output
    );
}

#[tokio::test]
async fn empty_text_and_null_mean_no_arguments() {
    let seen = Tool::new_sync(
        "seen",
        "Echoes its arguments.",
        json!({"type": "object"}),
        |args, _| ToolResult::ok(args.to_string()),
    );
    assert_eq!(
        seen.execute_json("  ", Context::default()).await.output,
        "{}"
    );
    assert_eq!(
        seen.execute(Value::Null, Context::default()).await.output,
        "{}"
    );
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result_naming_the_tool() {
    let toolkit = kit();
    let result = toolkit.execute("boom", json!({}), Context::default()).await;
    assert_eq!(result, ToolResult::error("boom panicked: kaboom"));
    let result = toolkit
        .execute("boom_sync", json!({}), Context::default())
        .await;
    assert_eq!(result, ToolResult::error("boom_sync panicked: sync kaboom"));
    // The toolkit is still usable afterwards.
    let after = toolkit
        .execute("add", json!({"a": 1, "b": 1}), Context::default())
        .await;
    assert_eq!(after.output, "2");
}

#[tokio::test]
async fn a_tool_past_its_timeout_ends_with_an_error_result() {
    let tool = slow(Duration::from_secs(3600));
    let ctx = Context::default().with_timeout(Duration::from_millis(20));
    let result = tool.execute(json!({}), ctx).await;
    assert_eq!(result, ToolResult::error("slow timed out after 20ms"));
    let quick = slow(Duration::ZERO);
    let ctx = Context::default().with_timeout(Duration::from_secs(5));
    assert_eq!(quick.execute(json!({}), ctx).await.output, "woke up");
}

#[tokio::test]
async fn a_cancelled_call_ends_with_an_error_result() {
    let tool = slow(Duration::from_secs(3600));
    let token = CancellationToken::new();
    let ctx = Context::default().with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(10)).await;
        token.cancel();
    });
    let result = tool.execute(json!({}), ctx).await;
    canceller.await.unwrap();
    assert_eq!(result, ToolResult::error("slow was cancelled"));
}

#[test]
fn duplicate_names_keep_the_first_and_report_the_clash() {
    let first = add();
    let second = Tool::new_sync("add", "A second add.", json!({"type": "object"}), |_, _| {
        ToolResult::ok("second")
    });
    let mut toolkit = Toolkit::new();
    toolkit.register(first).unwrap();
    let err = toolkit.register(second.clone()).unwrap_err();
    assert_eq!(err.name(), "add");
    assert_eq!(
        err.reason(),
        &toolnexus::tool::Rejection::Duplicate {
            kept_source: "custom".into()
        }
    );
    assert_eq!(err.refused().description(), "A second add.");
    assert!(
        err.to_string().contains("duplicate tool name `add`"),
        "{err}"
    );
    assert_eq!(toolkit.len(), 1);
    assert_eq!(
        toolkit.get("add").unwrap().description(),
        "Add two numbers."
    );

    // The builder form cannot return the error; the clash is kept on the toolkit.
    let built = Toolkit::new().with(add()).with(second);
    assert_eq!(built.tools().len(), 1);
    assert_eq!(built.rejected().len(), 1);
    assert_eq!(built.rejected()[0].name(), "add");
}

#[test]
fn lookup_and_order() {
    let toolkit = kit();
    let names: Vec<&str> = toolkit.tools().iter().map(Tool::name).collect();
    assert_eq!(names, ["add", "boom", "boom_sync"]);
    assert_eq!(toolkit.get("add").unwrap().input_schema(), &add_schema());
    assert_eq!(toolkit.get("add").unwrap().source(), "custom");
    assert!(toolkit.get("missing").is_none());
    assert!(!toolkit.is_empty());
}

#[test]
fn names_are_sanitized() {
    let tool = Tool::new_sync("files.read v2/ü", "", json!({"type": "object"}), |_, _| {
        ToolResult::default()
    });
    assert_eq!(tool.name(), "files_read_v2__");
}

fn one_tool() -> Toolkit {
    Toolkit::new().with(add())
}

#[test]
fn openai_shape() {
    assert_eq!(
        one_tool().to_openai(),
        json!([{
            "type": "function",
            "function": {"name": "add", "description": "Add two numbers.", "parameters": add_schema()}
        }])
    );
}

#[test]
fn anthropic_shape() {
    assert_eq!(
        one_tool().to_anthropic(),
        json!([{"name": "add", "description": "Add two numbers.", "input_schema": add_schema()}])
    );
}

#[test]
fn gemini_shape() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "The first addend."},
            "b": {"type": "integer", "description": "The second addend."}
        },
        "required": ["a", "b"]
    });
    assert_eq!(
        one_tool().to_gemini(),
        json!([{"functionDeclarations": [
            {"name": "add", "description": "Add two numbers.", "parameters": schema}
        ]}])
    );
}

#[test]
fn mcp_shape() {
    assert_eq!(
        one_tool().to_mcp(),
        json!([{"name": "add", "description": "Add two numbers.", "inputSchema": add_schema()}])
    );
}

#[test]
fn listings_follow_registration() {
    let mut toolkit = one_tool();
    assert_eq!(toolkit.to_mcp().as_array().unwrap().len(), 1);
    toolkit.register(slow(Duration::ZERO)).unwrap();
    let names: Vec<Value> = toolkit
        .to_mcp()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, [json!("add"), json!("slow")]);
}

#[test]
fn a_shared_listing_is_the_same_value_as_each_adapter_returns() {
    let toolkit = one_tool().with(slow(Duration::ZERO));
    let adapters: [(Profile, Listing); 6] = [
        (Profile::OpenAi, toolkit.to_openai()),
        (Profile::OpenAiStrict, toolkit.to_openai_strict()),
        (Profile::Anthropic, toolkit.to_anthropic()),
        (Profile::AnthropicStrict, toolkit.to_anthropic_strict()),
        (Profile::Gemini, toolkit.to_gemini()),
        (Profile::Mcp, toolkit.to_mcp()),
    ];
    for (profile, value) in adapters {
        let listing = toolkit.listing(profile);
        assert_eq!(listing, value, "{profile}");
        // The text is the value's own serialization, and reads back as the value.
        assert_eq!(
            listing.json(),
            serde_json::to_string(&value).unwrap(),
            "{profile}"
        );
        assert_eq!(listing.to_string(), listing.json());
        assert_eq!(serde_json::to_value(&listing).unwrap(), value, "{profile}");
        assert_eq!(listing.clone().into_value(), value, "{profile}");
    }
}

#[test]
fn a_shared_listing_embeds_verbatim_and_follows_registration() {
    #[derive(serde::Serialize)]
    struct Body<'a> {
        model: &'a str,
        tools: &'a serde_json::value::RawValue,
    }
    let mut toolkit = one_tool();
    let before = toolkit.listing(Profile::Anthropic);
    let body = serde_json::to_string(&Body {
        model: "m",
        tools: before.raw(),
    })
    .unwrap();
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body, json!({"model": "m", "tools": toolkit.to_anthropic()}));

    toolkit.register(slow(Duration::ZERO)).unwrap();
    let after = toolkit.listing(Profile::Anthropic);
    assert_eq!(after.as_array().unwrap().len(), 2);
    // A listing handed out earlier keeps what it was.
    assert_eq!(before.as_array().unwrap().len(), 1);
    assert_ne!(before, after);
    assert_eq!(before.into_value()[0]["name"], "add");
}

#[tokio::test]
async fn the_process_survives_a_burst_of_bad_calls() {
    let toolkit = kit();
    for _ in 0..50 {
        assert!(
            toolkit
                .execute("boom", json!({}), Context::default())
                .await
                .is_error
        );
        assert!(
            toolkit
                .execute_json("add", "not json", Context::default())
                .await
                .is_error
        );
        assert!(
            toolkit
                .execute("zzz", json!(null), Context::default())
                .await
                .is_error
        );
    }
    assert_eq!(
        toolkit
            .execute("add", json!({"a": 0, "b": 0}), Context::default())
            .await
            .output,
        "0"
    );
}

//! The first thing to run: build a toolkit, print its schemas for three providers, and
//! execute a call that succeeds, one that fails, one with bad arguments and one that
//! suspends for a human.
//!
//! ```text
//! cargo run --example quickstart
//! ```

use serde_json::json;
use toolnexus::{Context, Suspend, Tool, ToolResult, Toolkit};

fn toolkit() -> Toolkit {
    let add = Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The first addend."},
                "b": {"type": "integer", "description": "The second addend."}
            },
            "required": ["a", "b"],
            "additionalProperties": false
        }),
        |args, _| match (args["a"].as_i64(), args["b"].as_i64()) {
            (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
            _ => ToolResult::error("invalid arguments for add: `a` and `b` must be integers"),
        },
    );
    let divide = Tool::new_sync(
        "divide",
        "Divide a by b.",
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false
        }),
        |args, _| match (args["a"].as_f64(), args["b"].as_f64()) {
            (_, Some(0.0)) => ToolResult::error("cannot divide by zero"),
            (Some(a), Some(b)) => ToolResult::ok((a / b).to_string()),
            _ => ToolResult::error("invalid arguments for divide: `a` and `b` must be numbers"),
        },
    );
    let deploy = Tool::new(
        "deploy_service",
        "Deploy the service; asks which environment when none is given.",
        json!({
            "type": "object",
            "properties": {"env": {"type": ["string", "null"]}},
            "additionalProperties": false
        }),
        |args, ctx: Context| async move {
            let chosen = args["env"].as_str().map(str::to_owned);
            let answered = ctx.answer().and_then(|a| a.text()).map(str::to_owned);
            match chosen.or(answered) {
                Some(env) => ToolResult::ok(format!("deployed to {env}")),
                None => ToolResult::pending(Suspend::input("Which environment?").0),
            }
        },
    );
    Toolkit::new().with(add).with(divide).with(deploy)
}

fn show(label: &str, result: &ToolResult) {
    println!(
        "{label:<14} {}",
        serde_json::to_string(result).expect("serializable")
    );
}

#[tokio::main]
async fn main() {
    let toolkit = toolkit();
    let pretty = |v| serde_json::to_string_pretty(&v).expect("serializable");
    println!("== OpenAI tools ==\n{}\n", pretty(toolkit.to_openai()));
    println!(
        "== Anthropic tools ==\n{}\n",
        pretty(toolkit.to_anthropic())
    );
    println!("== Gemini tools ==\n{}\n", pretty(toolkit.to_gemini()));

    println!("== Calls ==");
    let ok = toolkit
        .execute_json("add", r#"{"a": 2, "b": 3}"#, Context::default())
        .await;
    show("success:", &ok);
    let failed = toolkit
        .execute("divide", json!({"a": 1, "b": 0}), Context::default())
        .await;
    show("failure:", &failed);
    let bad = toolkit
        .execute_json("add", r#"{"a": "two""#, Context::default())
        .await;
    show("bad arguments:", &bad);
    let parked = toolkit
        .execute("deploy_service", json!({}), Context::default())
        .await;
    show("suspended:", &parked);

    // A host resolves the suspension and runs the tool again with the answer.
    let request = parked
        .pending_request()
        .expect("deploy suspends without an env");
    let ctx = Context::default().with_answer(request.answer("staging"));
    let resumed = toolkit.execute("deploy_service", json!({}), ctx).await;
    show("resumed:", &resumed);

    // Strict mode: every property required (optional ones nullable), every object closed.
    let strict = toolkit.to_openai_strict();
    let tools = strict.as_array().cloned().unwrap_or_default();
    let one = tools
        .iter()
        .find(|t| t["function"]["name"] == "deploy_service")
        .or(tools.first())
        .cloned()
        .unwrap_or_default();
    println!("\n== OpenAI strict (one tool) ==\n{}", pretty(one));
}

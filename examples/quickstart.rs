//! The first thing to run: turn functions into tools, print their schemas for three
//! providers, and execute a call that succeeds, one that fails, one with bad arguments
//! and one that suspends for a human.
//!
//! ```text
//! cargo run --example quickstart
//! ```
//!
//! The tools themselves are ordinary functions with `#[tool]`, in `shared/tools.rs`.

#[path = "shared/tools.rs"]
mod tools;

use serde_json::json;
use toolnexus::{Context, ToolResult, Toolkit};

fn show(label: &str, result: &ToolResult) {
    println!(
        "{label:<15} {}",
        serde_json::to_string(result).expect("serializable")
    );
}

#[tokio::main]
async fn main() {
    let toolkit: Toolkit =
        toolnexus::tools![tools::add, tools::divide, tools::deploy, tools::screenshot]
            .into_iter()
            .collect();

    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).expect("serializable");
    println!("== OpenAI tools ==\n{}\n", pretty(&toolkit.to_openai()));
    println!(
        "== Anthropic tools ==\n{}\n",
        pretty(&toolkit.to_anthropic())
    );
    println!("== Gemini tools ==\n{}\n", pretty(&toolkit.to_gemini()));

    println!("== Calls ==");
    // Providers hand back the arguments as JSON text: pass it through as it is.
    let ok = toolkit
        .execute_json("add", r#"{"a": 2, "b": 3}"#, Context::default())
        .await;
    show("success:", &ok);
    let failed = toolkit
        .execute("divide", json!({"a": 1, "b": 0}), Context::default())
        .await;
    show("failure:", &failed);
    let bad = toolkit
        .execute_json("add", r#"{"a": "two", "b": 3}"#, Context::default())
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

    let shot = toolkit
        .execute("screenshot", json!({}), Context::default())
        .await;
    println!(
        "{:<15} {} + {} part(s)",
        "image:",
        shot.output,
        shot.parts.map_or(0, |p| p.len())
    );

    // Strict mode: every property required (optional ones nullable), every object closed.
    let strict = toolkit.to_openai_strict();
    let deploy = strict
        .as_array()
        .and_then(|tools| {
            tools
                .iter()
                .find(|t| t["function"]["name"] == "deploy_service")
        })
        .cloned()
        .expect("deploy_service is listed");
    println!("\n== OpenAI strict (one tool) ==\n{}", pretty(&deploy));
}

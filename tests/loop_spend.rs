//! Spend in money, from the usage the provider stand-in reports (`tests/providers/rules/`,
//! OpenAI's Responses API): each turn's cost is the price table's price of its tokens;
//! a spend cap stops a run exactly before the request that would pass it, by the rule
//! `UsageLimits::cost` documents (what was spent, plus the dearest turn so far as the
//! estimate of the next); a conversation's cap counts its earlier runs.

#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[path = "providers/rules/mod.rs"]
mod rules;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use serde_json::{Value, json};
use toolnexus::agent::StopReason;
use toolnexus::agent::{SpendScope, UsageLimits};
use toolnexus::model::{Cost, Price, PriceTable};
use toolnexus::providers::OpenAiResponses;
use toolnexus::{Client, RunStatus, Tool, ToolResult, Toolkit};

use harness::SECRET;
use rules::{Rules, Step};

fn toolkit() -> Toolkit {
    Toolkit::new().with(Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
        |args, _| {
            let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
            ToolResult::ok(sum.to_string())
        },
    ))
}

fn script() -> Vec<Step> {
    vec![
        Step::Calls(vec![("add", json!({"a": 2, "b": 3}))]),
        Step::Calls(vec![("add", json!({"a": 5, "b": 8}))]),
        Step::Text("5, then 13."),
    ]
}

fn model(url: &str) -> OpenAiResponses {
    OpenAiResponses::new(SECRET, "gpt-5.1").with_base_url(format!("{url}/v1"))
}

/// A price with every kind of token at its own rate, to see each counted.
fn price() -> Price {
    Price::new(2.0, 10.0)
        .with_cache(0.5, 2.5)
        .with_reasoning(20.0)
}

/// A turn's cost, from the usage in the stand-in's response body and `price()`, in
/// nano-dollars: counted here independently of the crate.
fn cost_of(response: &Value) -> u64 {
    let usage = &response["usage"];
    let input = usage["input_tokens"].as_u64().unwrap();
    let cached = usage["input_tokens_details"]["cached_tokens"]
        .as_u64()
        .unwrap();
    let output = usage["output_tokens"].as_u64().unwrap();
    let reasoning = usage["output_tokens_details"]["reasoning_tokens"]
        .as_u64()
        .unwrap();
    assert!(reasoning > 0 && input > 0);
    // A dollar per million tokens is a thousand nano-dollars per token.
    (input - cached) * 2_000 + cached * 500 + (output - reasoning) * 10_000 + reasoning * 20_000
}

fn table() -> PriceTable {
    PriceTable::empty().with("gpt-5.1", price())
}

#[tokio::test]
async fn each_turn_costs_its_tokens_at_the_table_price() {
    let server = Rules::start(script()).await;
    let client = Client::new(model(&server.url)).prices(table());
    let run = client.run("Add 2 and 3, then 5 and 8.", &toolkit()).await;
    assert!(run.is_done(), "{:?}", run.status);
    let costs: Vec<u64> = server.responses().iter().map(cost_of).collect();
    assert_eq!(costs.len(), 3);
    assert_eq!(
        run.usage.cost,
        Some(Cost::from_nano_usd(costs.iter().sum()))
    );
    // The shipped list prices know gpt-5.1 too; a client without a table prices nothing.
    let server = Rules::start(script()).await;
    let run = Client::new(model(&server.url))
        .prices(PriceTable::default())
        .run("Add 2 and 3, then 5 and 8.", &toolkit())
        .await;
    assert!(run.usage.cost.is_some_and(|c| c > Cost::ZERO));
    let server = Rules::start(script()).await;
    let run = Client::new(model(&server.url))
        .run("Add 2 and 3, then 5 and 8.", &toolkit())
        .await;
    assert_eq!(run.usage.cost, None);
}

#[tokio::test]
async fn a_spend_cap_stops_the_run_exactly_before_the_request_that_would_pass_it() {
    // The costs of the three turns, from an uncapped run.
    let server = Rules::start(script()).await;
    let uncapped = Client::new(model(&server.url)).prices(table());
    let run = uncapped.run("Add 2 and 3, then 5 and 8.", &toolkit()).await;
    assert!(run.is_done());
    let c: Vec<u64> = server.responses().iter().map(cost_of).collect();
    let (c1, c2) = (c[0], c[1]);
    assert!(c2 > c1, "the transcript grows");
    // Before the third request: spent c1 + c2, and the estimate of the next is the
    // dearest turn so far, c2.
    let threshold = c1 + c2 + c2;

    let server = Rules::start(script()).await;
    let cap = Cost::from_nano_usd(threshold - 1);
    let client = Client::new(model(&server.url))
        .prices(table())
        .usage_limits(UsageLimits::new().cost(cap));
    let run = client.run("Add 2 and 3, then 5 and 8.", &toolkit()).await;
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::SpendLimit {
                limit: cap,
                spent: Cost::from_nano_usd(c1 + c2),
                scope: SpendScope::Run,
            }
        }
    );
    assert_eq!(server.requests().len(), 2, "the third request was not made");
    assert_eq!(run.turns, 2);
    assert_eq!(
        run.tool_calls.len(),
        2,
        "the turns before it ran their calls"
    );
    let said = format!("{:?}", run.status);
    assert!(said.contains("SpendLimit"), "{said}");

    // At the threshold itself, the third request fits.
    let server = Rules::start(script()).await;
    let client = Client::new(model(&server.url))
        .prices(table())
        .usage_limits(UsageLimits::new().cost(Cost::from_nano_usd(threshold)));
    let run = client.run("Add 2 and 3, then 5 and 8.", &toolkit()).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(server.requests().len(), 3);

    // A cap below the first turn's cost still lets the first request go (nothing is
    // known before it), and stops the second.
    let server = Rules::start(script()).await;
    let client = Client::new(model(&server.url))
        .prices(table())
        .usage_limits(UsageLimits::new().cost(Cost::from_nano_usd(1)));
    let run = client.run("Add 2 and 3, then 5 and 8.", &toolkit()).await;
    assert!(matches!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::SpendLimit { .. }
        }
    ));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_conversation_cap_counts_the_conversations_earlier_runs() {
    let server = Rules::start([Step::Text("Hello."), Step::Text("Again.")]).await;
    let first = {
        let probe = Rules::start([Step::Text("Hello.")]).await;
        let run = Client::new(model(&probe.url))
            .prices(table())
            .run("Hi", &toolkit())
            .await;
        run.usage.cost.unwrap()
    };
    let client = Client::new(model(&server.url))
        .prices(table())
        .usage_limits(UsageLimits::new().conversation_cost(first));
    let run = client.ask("chat-1", "Hi", &toolkit()).await.unwrap();
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.usage.cost, Some(first));
    // The conversation spent its cap: its next run makes no request.
    let run = client.ask("chat-1", "Hi again", &toolkit()).await.unwrap();
    let RunStatus::Incomplete {
        reason: StopReason::SpendLimit { spent, scope, .. },
    } = run.status
    else {
        panic!("{:?}", run.status);
    };
    assert_eq!((spent, scope), (first, SpendScope::Conversation));
    assert_eq!(server.requests().len(), 1);
    // Another conversation has its own.
    let run = client.ask("chat-2", "Hi", &toolkit()).await.unwrap();
    assert!(run.is_done(), "{:?}", run.status);
}

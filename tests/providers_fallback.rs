//! Fallback between providers, against the local server that enforces each API's rules
//! (`tests/providers/rules/`): OpenAI answers a first turn with its encrypted reasoning,
//! then is rate limited (429, OpenAI's own error body); Anthropic, next, is overloaded
//! (529, Anthropic's body); Gemini answers. Every request body is checked by its
//! provider's official SDK types, and no provider is shown another's reasoning, while
//! OpenAI gets its own back on the next turn.

#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[path = "providers/rules/mod.rs"]
mod rules;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::agent::StopReason;
use toolnexus::model::{FallbackModel, ModelErrorKind, Router};
use toolnexus::providers::{Anthropic, Gemini, OpenAiResponses, Retry};
use toolnexus::{
    Client, Event, Message, ModelError, ModelSettings, Reasoning, Reply, RunStatus, ScriptedModel,
    Tool, ToolResult, Toolkit,
};

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

fn fallback(url: &str) -> FallbackModel {
    let openai = OpenAiResponses::new(SECRET, "gpt-5.1")
        .with_base_url(format!("{url}/v1"))
        .retry(Retry::none())
        .with_settings(
            ModelSettings::new().reasoning(Reasoning::effort("high").with_summary("auto")),
        );
    let anthropic = Anthropic::new(SECRET, "claude-sonnet-4-5")
        .with_base_url(url)
        .retry(Retry::none());
    let gemini = Gemini::new(SECRET, "gemini-3-pro-preview")
        .with_base_url(url)
        .retry(Retry::none())
        .with_settings(ModelSettings::new().reasoning(Reasoning::effort("high")));
    FallbackModel::new(openai).then(anthropic).then(gemini)
}

/// OpenAI's 429 body, as the API sends it.
fn rate_limited() -> Value {
    json!({"error": {
        "message": "Rate limit reached for gpt-5.1 in organization org-test on tokens per min \
                    (TPM): Limit 30000, Used 29800, Requested 1200. Please try again in 2s.",
        "type": "tokens", "param": null, "code": "rate_limit_exceeded"}})
}

/// Anthropic's 529 body, as the API sends it.
fn overloaded() -> Value {
    json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
}

/// Which API a recorded request body was for, by its shape.
fn api(body: &Value) -> &'static str {
    if body.get("input").is_some() {
        "openai-responses"
    } else if body.get("contents").is_some() {
        "gemini"
    } else {
        "anthropic"
    }
}

/// Whether a request body carries any provider's reasoning state.
fn carries_reasoning(body: &Value) -> Vec<&'static str> {
    let text = body.to_string();
    [
        "encrypted_content",
        "\"reasoning\",",
        "thoughtSignature",
        "signature",
        "redacted_thinking",
    ]
    .into_iter()
    .filter(|needle| text.contains(needle))
    .collect()
}

#[tokio::test]
async fn a_429_then_a_529_falls_back_and_no_reasoning_crosses_providers() {
    let server = Rules::start([
        Step::Calls(vec![("add", json!({"a": 2, "b": 3}))]),
        Step::Fail(429, rate_limited()),
        Step::Fail(529, overloaded()),
        Step::Calls(vec![("add", json!({"a": 5, "b": 8}))]),
        Step::Text("2 + 3 = 5, and 5 + 8 = 13."),
    ])
    .await;
    let answered = Arc::new(Mutex::new(Vec::new()));
    let seen = answered.clone();
    let client = Client::new(fallback(&server.url))
        .system("You add numbers.")
        .on_event(move |event| {
            if let Event::ModelTurnFinished { reply, .. } = event {
                seen.lock()
                    .unwrap()
                    .push(reply.model.clone().unwrap_or_default());
            }
        });
    let run = client.run("Add 2 and 3, then 5 and 8.", &toolkit()).await;

    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "2 + 3 = 5, and 5 + 8 = 13.");
    assert_eq!(
        server.errors(),
        vec![rate_limited(), overloaded()],
        "no rule broken"
    );
    assert_eq!(
        *answered.lock().unwrap(),
        [
            "openai/gpt-5.1",
            "gcp.gemini/gemini-3-pro-preview",
            "openai/gpt-5.1"
        ]
    );
    assert_eq!(run.model.as_deref(), Some("openai/gpt-5.1"));

    let requests = server.requests();
    let apis: Vec<&str> = requests.iter().map(api).collect();
    assert_eq!(
        apis,
        [
            "openai-responses",
            "openai-responses",
            "anthropic",
            "gemini",
            "openai-responses"
        ]
    );
    // The fallbacks were shown the turns' text and calls, and none of the reasoning.
    assert_eq!(carries_reasoning(&requests[2]), Vec::<&str>::new());
    assert_eq!(carries_reasoning(&requests[3]), Vec::<&str>::new());
    assert_eq!(
        requests[3]["contents"][1]["parts"][0]["functionCall"]["name"],
        "add"
    );
    // OpenAI got its own reasoning back (its rules refuse a call without it), and not
    // Gemini's thought signature.
    let items: Vec<&str> = requests[4]["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap_or("message"))
        .collect();
    assert_eq!(
        items,
        [
            "message",
            "reasoning",
            "function_call",
            "function_call_output",
            "function_call",
            "function_call_output"
        ]
    );
    assert!(!requests[4].to_string().contains("thoughtSignature"));

    for kind in ["openai-responses", "anthropic", "gemini"] {
        let bodies: Vec<Value> = requests
            .iter()
            .filter(|b| api(b) == kind)
            .cloned()
            .collect();
        harness::validate(kind, &bodies);
    }
}

#[tokio::test]
async fn an_error_not_chosen_ends_the_turn_and_the_last_error_lists_the_others() {
    let refused = json!({"error": {"message": "Invalid value: 'x'.", "type": "invalid_request_error",
        "param": "input", "code": "invalid_value"}});
    let server = Rules::start([Step::Fail(400, refused.clone())]).await;
    let run = Client::new(fallback(&server.url))
        .run("Hi", &toolkit())
        .await;
    let RunStatus::Incomplete {
        reason: StopReason::ModelError { message },
    } = &run.status
    else {
        panic!("{:?}", run.status);
    };
    assert!(message.contains("HTTP 400"), "{message}");
    assert_eq!(
        server.requests().len(),
        1,
        "a refused request is not retried elsewhere"
    );

    // With refusals chosen too, the next model is asked; when all fail, the error says
    // what each one said.
    let server = Rules::start([
        Step::Fail(400, refused),
        Step::Fail(529, overloaded()),
        Step::Fail(429, rate_limited()),
    ])
    .await;
    let model = fallback(&server.url).on([
        ModelErrorKind::Refused,
        ModelErrorKind::Overloaded,
        ModelErrorKind::RateLimited,
    ]);
    let run = Client::new(model).run("Hi", &toolkit()).await;
    let RunStatus::Incomplete {
        reason: StopReason::ModelError { message },
    } = &run.status
    else {
        panic!("{:?}", run.status);
    };
    assert!(message.contains("rate limited (HTTP 429)"), "{message}");
    assert!(
        message.contains("openai/gpt-5.1: OpenAI Responses: the request was rejected (HTTP 400)"),
        "{message}"
    );
    assert!(
        message.contains("anthropic/claude-sonnet-4-5: Anthropic: the service is overloaded"),
        "{message}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_router_picks_the_model_per_turn_from_the_transcript() {
    let strong = Arc::new(ScriptedModel::new([Reply::call(
        "c1",
        "add",
        r#"{"a":1,"b":2}"#,
    )]));
    let cheap = Arc::new(ScriptedModel::new([Reply::text("3")]));
    let router = Router::new(|transcript: &[Message]| match transcript.last() {
        Some(Message::Tool { .. }) => 1,
        _ => 0,
    })
    .with(strong.clone())
    .with(cheap.clone());
    let run = Client::new(router).run("1 + 2?", &toolkit()).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "3");
    assert_eq!(strong.transcripts().len(), 1);
    assert_eq!(cheap.transcripts().len(), 1);

    let lost = Router::new(|_: &[Message]| 2).with(ScriptedModel::default());
    let run = Client::new(lost).run("hi", &toolkit()).await;
    assert!(
        format!("{:?}", run.status).contains("the router picked model 2, and it has 1"),
        "{:?}",
        run.status
    );
}

#[tokio::test]
async fn a_scripted_fallback_moves_on_only_for_the_chosen_kinds() {
    let busy = ScriptedModel::default()
        .then_fail(ModelError::new("slow down").with_kind(ModelErrorKind::RateLimited));
    let spare = Arc::new(ScriptedModel::new([Reply::text("spare")]));
    let run = Client::new(FallbackModel::new(busy).then(spare.clone()))
        .run("hi", &toolkit())
        .await;
    assert_eq!(run.text, "spare");

    let broken = ScriptedModel::default().then_fail(ModelError::new("malformed response"));
    let spare = Arc::new(ScriptedModel::new([Reply::text("spare")]));
    let run = Client::new(FallbackModel::new(broken).then(spare.clone()))
        .run("hi", &toolkit())
        .await;
    assert!(format!("{:?}", run.status).contains("malformed response"));
    assert_eq!(
        spare.remaining(),
        1,
        "an Other error is not a reason to fall back"
    );
}

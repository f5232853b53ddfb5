//! Reasoning kept across tool calls, on every provider, against a local server that
//! enforces each API's rules (`tests/providers/rules/`): one run per provider with tools
//! and reasoning on, three model turns, a suspension in the middle; the halted run goes
//! through JSON (as another process would read it) and is resumed (streaming, this time).
//! Every request body is checked by the provider's official SDK types, every response
//! and stream event parsed by its models; the server refuses, with the API's own error
//! body, a request that drops or alters what the model's reasoning left.

#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[path = "providers/rules/mod.rs"]
mod rules;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::agent::StopReason;
use toolnexus::providers::{Anthropic, Bedrock, Gemini, OpenAi, OpenAiResponses};
use toolnexus::{
    Answer, Client, Event, Message, Model, ModelSettings, Reasoning, Request, RunResult, RunStatus,
    Tool, ToolResult, Toolkit,
};

use harness::SECRET;
use rules::{Rules, Step};

/// Resumes a halted run with `answer`: the one place this file calls the resume API.
async fn resume(
    client: &Client,
    halted: RunResult,
    answer: Answer,
    toolkit: &Toolkit,
) -> RunResult {
    assert!(halted.pending.is_some(), "the run halted on a request");
    client
        .resume(halted, answer, toolkit)
        .await
        .expect("the answer fits the halted run")
}

/// add, and deploy (asks where, unless told).
fn toolkit(deploys: Arc<AtomicUsize>) -> Toolkit {
    let object = |props: Value| json!({"type": "object", "properties": props});
    Toolkit::new()
        .with(Tool::new_sync(
            "add",
            "Add two numbers.",
            object(json!({"a": {"type": "integer"}, "b": {"type": "integer"}})),
            |args, _| {
                let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                ToolResult::ok(sum.to_string())
            },
        ))
        .with(Tool::new_sync(
            "deploy",
            "Deploys the service; asks where.",
            object(json!({"env": {"type": "string"}})),
            move |args, ctx| {
                deploys.fetch_add(1, Ordering::SeqCst);
                let answered = ctx.answer().and_then(Answer::text).map(str::to_owned);
                match args["env"].as_str().map(str::to_owned).or(answered) {
                    Some(env) => ToolResult::ok(format!("deployed to {env}")),
                    None => ToolResult::pending(Request::input("Which environment?")),
                }
            },
        ))
}

fn script() -> Vec<Step> {
    vec![
        Step::Calls(vec![
            ("add", json!({"a": 2, "b": 3})),
            ("deploy", json!({})),
        ]),
        Step::Calls(vec![("add", json!({"a": 5, "b": 8}))]),
        Step::Text("Deployed to staging; 2 + 3 = 5 and 5 + 8 = 13."),
    ]
}

/// The first leg: a run that halts on `deploy` after one model turn, read back from JSON.
async fn halt<M: Model + Clone + 'static>(model: &M, toolkit: &Toolkit) -> RunResult {
    let client = Client::new(model.clone()).system("You run tools.");
    let halted = client.run("Add 2 and 3, then deploy.", toolkit).await;
    assert_eq!(halted.status, RunStatus::Pending, "{:?}", halted.status);
    assert_eq!(halted.turns, 1);
    let saved = serde_json::to_string(&halted).unwrap();
    serde_json::from_str(&saved).unwrap()
}

/// The second leg, in a client of its own (as a new process would build it) that
/// streams: two more model turns.
async fn finish<M: Model + Clone + 'static>(
    model: &M,
    halted: RunResult,
    toolkit: &Toolkit,
) -> (RunResult, Vec<String>) {
    let streamed = Arc::new(Mutex::new(Vec::new()));
    let seen = streamed.clone();
    let client = Client::new(model.clone())
        .system("You run tools.")
        .on_event(move |event| {
            if let Event::TextDelta { .. } = event {
                seen.lock().unwrap().push("text".to_owned());
            }
        });
    let id = halted.pending.as_ref().unwrap().id.clone();
    let run = resume(
        &client,
        halted,
        Answer::accept(&id).with_data("staging"),
        toolkit,
    )
    .await;
    let seen = streamed.lock().unwrap().clone();
    (run, seen)
}

/// The native turn the halted run keeps for its first model turn.
fn native(run: &RunResult) -> &Value {
    run.messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant {
                native: Some(native),
                ..
            } => Some(&native.content),
            _ => None,
        })
        .expect("the turn keeps the provider's own form")
}

fn native_mut(run: &mut RunResult) -> &mut Value {
    run.messages
        .iter_mut()
        .find_map(|m| match m {
            Message::Assistant {
                native: Some(native),
                ..
            } => Some(&mut native.content),
            _ => None,
        })
        .expect("the turn keeps the provider's own form")
}

/// Breaks what a halted run kept of the model's reasoning (its native turn).
type Breaker = fn(&mut Value);

/// A resumed run that the server refused: its error, which must carry `words`.
async fn refused<M: Model + Clone + 'static>(
    model: &M,
    halted: RunResult,
    toolkit: &Toolkit,
    words: &str,
) {
    let (run, _) = finish(model, halted, toolkit).await;
    match &run.status {
        RunStatus::Incomplete {
            reason: StopReason::ModelError { message },
        } => {
            assert!(message.contains(words), "{message}");
            assert!(!message.contains("unknown model"), "{message}");
        }
        other => panic!("the server should refuse the request: {other:?}"),
    }
}

/// What every run checks: three requests, none refused; each request body accepted by
/// the SDK, each response and event parsed by it.
fn judged(server: &Rules, requests: &str, responses: &str, events: &str) {
    assert_eq!(server.errors(), Vec::<Value>::new(), "no rule broken");
    assert_eq!(server.requests().len(), 3);
    assert_eq!(server.remaining(), 0);
    harness::validate(requests, &server.requests());
    harness::validate(responses, &server.responses());
    harness::validate(events, &server.events());
}

fn done(run: &RunResult) {
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "Deployed to staging; 2 + 3 = 5 and 5 + 8 = 13.");
    let outputs: Vec<&str> = run
        .tool_calls
        .iter()
        .map(|c| c.result.output.as_str())
        .collect();
    assert_eq!(outputs, ["deployed to staging", "13"]);
}

fn responses_model(url: &str) -> OpenAiResponses {
    OpenAiResponses::new(SECRET, "gpt-5.1")
        .with_base_url(format!("{url}/v1"))
        .with_settings(
            ModelSettings::new().reasoning(Reasoning::effort("high").with_summary("auto")),
        )
}

#[tokio::test]
async fn openai_responses_keeps_its_encrypted_reasoning_items() {
    let toolkit = toolkit(Arc::default());
    let server = Rules::start(script()).await;
    let model = responses_model(&server.url);
    let halted = halt(&model, &toolkit).await;
    let items = native(&halted);
    assert_eq!(items[0]["type"], "reasoning");
    assert!(
        items[0]["encrypted_content"].is_string(),
        "encrypted, as nothing is stored"
    );

    let (run, text) = finish(&model, halted.clone(), &toolkit).await;
    done(&run);
    assert!(!text.is_empty(), "the resumed leg streamed");
    assert!(run.usage.reasoning_tokens > 0);
    let requests = server.requests();
    assert!(requests.iter().all(|r| r["store"] == false));
    let third: Vec<&str> = requests[2]["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        third,
        [
            "message",
            "reasoning",
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
            "reasoning",
            "function_call",
            "function_call_output"
        ]
    );
    judged(
        &server,
        "openai-responses",
        "openai-responses-response",
        "openai-responses-stream",
    );

    // Dropping the reasoning item, losing its encrypted content, or altering it, is
    // refused as the API refuses it.
    let cases: [(Breaker, &str); 3] = [
        (
            |items| {
                items.as_array_mut().unwrap().remove(0);
            },
            "was provided without its required 'reasoning' item",
        ),
        (
            |items| {
                items[0]
                    .as_object_mut()
                    .unwrap()
                    .remove("encrypted_content");
            },
            "Items are not persisted when `store` is set to false",
        ),
        (
            |items| items[0]["encrypted_content"] = json!("Zm9yZ2Vk"),
            "could not be verified",
        ),
    ];
    for (break_it, words) in cases {
        let server = Rules::start(script()).await;
        let model = responses_model(&server.url);
        let mut halted = halt(&model, &toolkit).await;
        break_it(native_mut(&mut halted));
        refused(&model, halted, &toolkit, words).await;
    }
}

fn bedrock_model(url: &str) -> Bedrock {
    Bedrock::new("us-east-1", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
        .with_base_url(url)
        .credentials("AKIDEXAMPLE", "secret-key-example", None)
        .with_settings(ModelSettings::new().reasoning(Reasoning::budget(2_048)))
}

#[tokio::test]
async fn bedrock_keeps_its_signed_reasoning_content() {
    let toolkit = toolkit(Arc::default());
    let server = Rules::start(script()).await;
    let model = bedrock_model(&server.url);
    let halted = halt(&model, &toolkit).await;
    let blocks = native(&halted);
    assert!(blocks[0]["reasoningContent"]["reasoningText"]["signature"].is_string());
    assert!(blocks[1]["reasoningContent"]["redactedContent"].is_string());

    let (run, text) = finish(&model, halted, &toolkit).await;
    done(&run);
    assert!(
        !text.is_empty(),
        "the resumed leg streamed (ConverseStream)"
    );
    let requests = server.requests();
    assert_eq!(
        requests[0]["additionalModelRequestFields"],
        json!({"thinking": {"type": "enabled", "budget_tokens": 2048}})
    );
    // The third request sends both earlier turns' reasoning back, unchanged, first.
    let messages = requests[2]["messages"].as_array().unwrap();
    assert!(messages[1]["content"][0]["reasoningContent"]["reasoningText"].is_object());
    assert!(messages[1]["content"][1]["reasoningContent"]["redactedContent"].is_string());
    assert!(messages[3]["content"][0]["reasoningContent"]["reasoningText"].is_object());
    assert_eq!(server.errors(), Vec::<Value>::new(), "no rule broken");
    assert_eq!(requests.len(), 3);
    harness::validate("bedrock", &requests);
    harness::validate("bedrock-response", &server.responses());
    harness::validate("bedrock-stream", &server.frames());

    let cases: [(Breaker, &str); 2] = [
        (
            |blocks| {
                blocks.as_array_mut().unwrap().drain(..2);
            },
            "Expected `thinking` or `redacted_thinking`, but found `toolUse`",
        ),
        (
            |blocks| {
                blocks[0]["reasoningContent"]["reasoningText"]["text"] = json!("I changed my mind.")
            },
            "Invalid `signature` in `thinking` block",
        ),
    ];
    for (break_it, words) in cases {
        let server = Rules::start(script()).await;
        let model = bedrock_model(&server.url);
        let mut halted = halt(&model, &toolkit).await;
        break_it(native_mut(&mut halted));
        refused(&model, halted, &toolkit, words).await;
    }
}

fn anthropic_model(url: &str) -> Anthropic {
    Anthropic::new(SECRET, "claude-sonnet-4-5")
        .with_base_url(url)
        .with_settings(ModelSettings::new().reasoning(Reasoning::budget(2_048)))
}

#[tokio::test]
async fn anthropic_keeps_its_signed_thinking_blocks() {
    let toolkit = toolkit(Arc::default());
    let server = Rules::start(script()).await;
    let model = anthropic_model(&server.url);
    let halted = halt(&model, &toolkit).await;
    let blocks = native(&halted);
    assert_eq!(blocks[0]["type"], "thinking");
    assert!(blocks[0]["signature"].is_string());
    assert_eq!(blocks[1]["type"], "redacted_thinking");

    let (run, _) = finish(&model, halted, &toolkit).await;
    done(&run);
    let requests = server.requests();
    assert_eq!(
        requests[0]["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(requests[0]["max_tokens"], 2_048 + 4_096);
    // The third request sends both earlier turns' thinking back, unchanged, first.
    let messages = requests[2]["messages"].as_array().unwrap();
    assert_eq!(messages[1]["content"][0]["type"], "thinking");
    assert_eq!(messages[1]["content"][1]["type"], "redacted_thinking");
    assert_eq!(messages[3]["content"][0]["type"], "thinking");
    judged(
        &server,
        "anthropic",
        "anthropic-response",
        "anthropic-stream",
    );

    // A thinking block dropped, or altered, is refused as the API refuses it.
    let cases: [(Breaker, &str); 2] = [
        (
            |blocks| {
                blocks.as_array_mut().unwrap().drain(..2);
            },
            "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
        ),
        (
            |blocks| blocks[0]["thinking"] = json!("I changed my mind."),
            "Invalid `signature` in `thinking` block",
        ),
    ];
    for (break_it, words) in cases {
        let server = Rules::start(script()).await;
        let model = anthropic_model(&server.url);
        let mut halted = halt(&model, &toolkit).await;
        break_it(native_mut(&mut halted));
        refused(&model, halted, &toolkit, words).await;
    }
}

fn gemini_model(url: &str) -> Gemini {
    Gemini::new(SECRET, "gemini-3-pro-preview")
        .with_base_url(url)
        .with_settings(
            ModelSettings::new().reasoning(Reasoning::effort("high").with_summary("auto")),
        )
}

#[tokio::test]
async fn gemini_keeps_its_thought_signatures() {
    let toolkit = toolkit(Arc::default());
    let server = Rules::start(script()).await;
    let model = gemini_model(&server.url);
    let halted = halt(&model, &toolkit).await;
    let parts = native(&halted);
    assert_eq!(parts[0]["thought"], true);
    assert!(parts[1]["thoughtSignature"].is_string());

    let (run, _) = finish(&model, halted, &toolkit).await;
    done(&run);
    assert!(run.usage.reasoning_tokens > 0);
    let requests = server.requests();
    assert_eq!(
        requests[0]["generationConfig"]["thinkingConfig"],
        json!({"thinkingLevel": "HIGH", "includeThoughts": true})
    );
    judged(&server, "gemini", "gemini-response", "gemini-response");

    // A signature dropped, or altered, is refused as the API refuses it.
    let cases: [(Breaker, &str); 2] = [
        (
            |parts| {
                parts[1].as_object_mut().unwrap().remove("thoughtSignature");
            },
            "Function call is missing a thought_signature in functionCall parts",
        ),
        (
            |parts| parts[1]["thoughtSignature"] = json!("Zm9yZ2Vk"),
            "Corrupted thought signature.",
        ),
    ];
    for (break_it, words) in cases {
        let server = Rules::start(script()).await;
        let model = gemini_model(&server.url);
        let mut halted = halt(&model, &toolkit).await;
        break_it(native_mut(&mut halted));
        refused(&model, halted, &toolkit, words).await;
    }
}

#[tokio::test]
async fn openai_chat_completions_runs_with_reasoning_effort() {
    // Chat Completions returns no reasoning to keep: the run's turns carry none, and the
    // effort reaches every request.
    use server::{Canned, Server};
    let completion = |message: Value, finish: &str| {
        Canned::json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "o4-mini",
            "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 30, "total_tokens": 70,
                      "completion_tokens_details": {"reasoning_tokens": 20},
                      "prompt_tokens_details": {"cached_tokens": 16}}
        }))
    };
    let call = |id: &str, name: &str, args: Value| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}});
    let server = Server::start([
        completion(
            json!({"role": "assistant", "content": null, "refusal": null,
                   "tool_calls": [call("c1", "add", json!({"a": 2, "b": 3})), call("c2", "deploy", json!({}))]}),
            "tool_calls",
        ),
        completion(
            json!({"role": "assistant", "content": null, "refusal": null,
                   "tool_calls": [call("c3", "add", json!({"a": 5, "b": 8}))]}),
            "tool_calls",
        ),
        completion(
            json!({"role": "assistant", "content": "Deployed to staging; 2 + 3 = 5 and 5 + 8 = 13.", "refusal": null}),
            "stop",
        ),
    ])
    .await;
    let toolkit = toolkit(Arc::default());
    let model = OpenAi::new(SECRET, "o4-mini")
        .with_base_url(format!("{}/v1", server.url))
        .with_settings(ModelSettings::new().reasoning(Reasoning::effort("high")));
    let halted = halt(&model, &toolkit).await;
    let client = Client::new(model.clone()).system("You run tools.");
    let id = halted.pending.as_ref().unwrap().id.clone();
    let run = resume(
        &client,
        halted,
        Answer::accept(&id).with_data("staging"),
        &toolkit,
    )
    .await;
    done(&run);
    // The resumed leg's two turns.
    assert_eq!(run.usage.reasoning_tokens, 40);
    assert_eq!(run.usage.cache_read_tokens, 32);
    assert!(
        server
            .bodies()
            .iter()
            .all(|b| b["reasoning_effort"] == "high")
    );
    harness::validate("openai", &server.bodies());
}

#[test]
fn more_than_four_cache_breakpoints_are_refused_as_the_api_refuses_them() {
    let block =
        |text: &str| json!({"type": "text", "text": text, "cache_control": {"type": "ephemeral"}});
    let body = json!({"model": "claude-test", "max_tokens": 10,
        "system": [block("a"), block("b")],
        "messages": [{"role": "user", "content": [block("c"), block("d"), block("e")]}]});
    let shared = rules::Shared::default();
    let Some(rules::Out::Json(400, error)) = rules::anthropic::check(&shared, &body) else {
        panic!("five breakpoints pass");
    };
    assert_eq!(
        error["error"]["message"],
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    );
    // The SDK check counts them too.
    if let Some(errors) = harness::validation_errors("anthropic", &[body]) {
        assert!(
            errors.join("\n").contains("5 cache_control breakpoints"),
            "{errors:?}"
        );
    }
}

//! `ModelSettings` on every provider: each setting a provider honours reaches its request
//! body in the provider's own field (every body checked by the official SDK types), each
//! one it cannot honour fails the turn before anything is sent, with an error naming the
//! provider and the setting; a client's settings merge over the model's field by field.
//! And Anthropic's prompt caching over a ten-turn loop, against the rules server's
//! simulated cache: what it reads and writes, on and off.

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
use toolnexus::model::FnModel;
use toolnexus::providers::{Anthropic, Gemini, OpenAi, OpenAiResponses};
use toolnexus::{
    Client, Message, Model, ModelSettings, Reasoning, Reply, RunStatus, ScriptedModel, Tool,
    ToolChoice, ToolResult, Toolkit,
};

use harness::SECRET;
use server::{Canned, Server};

fn openai_text() -> Canned {
    Canned::json(
        json!({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
                     "message": {"role": "assistant", "content": "ok", "refusal": null}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}),
    )
}

fn anthropic_text() -> Canned {
    Canned::json(
        json!({"id": "m", "type": "message", "role": "assistant", "model": "c",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )
}

fn gemini_text() -> Canned {
    Canned::json(
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
        "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1}}),
    )
}

/// Every refused setting fails before a request, naming the provider and the setting.
async fn refuses<M: Model>(
    model: impl Fn(ModelSettings) -> M,
    provider: &str,
    cases: Vec<(ModelSettings, &str)>,
) {
    let toolkit = harness::toolkit(Default::default());
    for (settings, setting) in cases {
        let error = model(settings)
            .complete(toolnexus::model::ModelRequest::new(
                &[Message::user("hi")],
                &toolkit,
            ))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(provider) && error.contains(&format!("`{setting}`")),
            "{provider} / {setting}: {error}"
        );
    }
}

#[tokio::test]
async fn openai_chat_completions() {
    let server = Server::start([openai_text()]).await;
    let toolkit = harness::toolkit(Default::default());
    let url = format!("{}/v1", server.url);
    let model = |settings| {
        OpenAi::new(SECRET, "gpt-4.1-mini")
            .with_base_url(&url)
            .with_settings(settings)
    };
    model(
        ModelSettings::new()
            .temperature(0.2)
            .top_p(0.9)
            .max_tokens(300)
            .tool_choice(ToolChoice::tool("add"))
            .parallel_tool_calls(false)
            .stop(["END"])
            .seed(7)
            .extra(json!({"service_tier": "flex"})),
    )
    .complete(toolnexus::model::ModelRequest::new(
        &[Message::user("hi")],
        &toolkit,
    ))
    .await
    .unwrap();
    let body = &server.bodies()[0];
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(body["top_p"], 0.9);
    assert_eq!(body["max_completion_tokens"], 300);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "add"}})
    );
    assert_eq!(body["parallel_tool_calls"], false);
    assert_eq!(body["stop"], json!(["END"]));
    assert_eq!(body["seed"], 7);
    assert_eq!(body["service_tier"], "flex");
    harness::validate("openai", &server.bodies());

    let reasoner = |settings| {
        OpenAi::new(SECRET, "o3")
            .with_base_url(&url)
            .with_settings(settings)
    };
    refuses(
        reasoner,
        "OpenAI:",
        vec![
            (ModelSettings::new().temperature(0.5), "temperature"),
            (ModelSettings::new().top_p(0.5), "top_p"),
            (
                ModelSettings::new().reasoning(Reasoning::budget(4_000)),
                "reasoning",
            ),
            (
                ModelSettings::new().reasoning(Reasoning::effort("high").with_summary("auto")),
                "reasoning",
            ),
            (
                ModelSettings::new().reasoning(Reasoning::effort("extreme")),
                "reasoning",
            ),
            (ModelSettings::new().stop(["a", "b", "c", "d", "e"]), "stop"),
            (
                ModelSettings::new().tool_choice(ToolChoice::tool("missing")),
                "tool_choice",
            ),
        ],
    )
    .await;
    assert_eq!(server.requests().len(), 1, "nothing refused was sent");
}

#[tokio::test]
async fn anthropic_messages() {
    let server = Server::start([anthropic_text(), anthropic_text()]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = |settings| {
        Anthropic::new(SECRET, "claude-sonnet-4-5")
            .with_base_url(&server.url)
            .with_settings(settings)
    };
    model(
        ModelSettings::new()
            .max_tokens(1_000)
            .tool_choice(ToolChoice::Required)
            .parallel_tool_calls(false)
            .stop(["END"])
            .extra(json!({"metadata": {"user_id": "u-1"}})),
    )
    .complete(toolnexus::model::ModelRequest::new(
        &[Message::user("hi")],
        &toolkit,
    ))
    .await
    .unwrap();
    model(
        ModelSettings::new()
            .reasoning(Reasoning::effort("high").with_summary("none"))
            .tool_choice(ToolChoice::tool("add"))
            .tool_choice(ToolChoice::Auto),
    )
    .complete(toolnexus::model::ModelRequest::new(
        &[Message::user("hi")],
        &toolkit,
    ))
    .await
    .unwrap();
    let bodies = server.bodies();
    assert_eq!(bodies[0]["max_tokens"], 1_000);
    assert_eq!(
        bodies[0]["tool_choice"],
        json!({"type": "any", "disable_parallel_tool_use": true})
    );
    assert_eq!(bodies[0]["stop_sequences"], json!(["END"]));
    assert_eq!(bodies[0]["metadata"], json!({"user_id": "u-1"}));
    assert!(bodies[0].get("thinking").is_none());
    assert_eq!(
        bodies[1]["thinking"],
        json!({"type": "adaptive", "display": "omitted"})
    );
    assert_eq!(bodies[1]["output_config"], json!({"effort": "high"}));
    assert_eq!(bodies[1]["tool_choice"], json!({"type": "auto"}));
    harness::validate("anthropic", &bodies);

    refuses(
        model,
        "Anthropic:",
        vec![
            (ModelSettings::new().temperature(0.5), "temperature"),
            (ModelSettings::new().top_p(0.5), "top_p"),
            (ModelSettings::new().seed(1), "seed"),
            (
                ModelSettings::new().reasoning(Reasoning::effort("minimal")),
                "reasoning",
            ),
            (
                ModelSettings::new().reasoning(Reasoning::budget(500)),
                "reasoning",
            ),
            (
                ModelSettings::new()
                    .reasoning(Reasoning::budget(4_000))
                    .max_tokens(2_000),
                "max_tokens",
            ),
            (
                ModelSettings::new()
                    .reasoning(Reasoning::budget(4_000))
                    .tool_choice(ToolChoice::Required),
                "tool_choice",
            ),
            (
                ModelSettings::new().reasoning(Reasoning::budget(4_000).with_effort("high")),
                "reasoning",
            ),
        ],
    )
    .await;
    assert_eq!(server.requests().len(), 2, "nothing refused was sent");
}

#[tokio::test]
async fn gemini_generate_content() {
    let server = Server::start([gemini_text()]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = |settings| {
        Gemini::new(SECRET, "gemini-2.5-flash")
            .with_base_url(&server.url)
            .with_settings(settings)
    };
    model(
        ModelSettings::new()
            .temperature(0.2)
            .top_p(0.9)
            .max_tokens(300)
            .stop(["END"])
            .seed(7)
            .tool_choice(ToolChoice::tool("add"))
            .reasoning(Reasoning::budget(1_024).with_summary("auto"))
            .extra(json!({"generationConfig": {"topK": 40}})),
    )
    .complete(toolnexus::model::ModelRequest::new(
        &[Message::user("hi")],
        &toolkit,
    ))
    .await
    .unwrap();
    let body = &server.bodies()[0];
    assert_eq!(
        body["generationConfig"],
        json!({"maxOutputTokens": 300, "temperature": 0.2, "topP": 0.9, "stopSequences": ["END"],
               "seed": 7, "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": true},
               "topK": 40})
    );
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["add"]}})
    );
    harness::validate("gemini", &server.bodies());

    refuses(
        model,
        "Gemini:",
        vec![
            (
                ModelSettings::new().parallel_tool_calls(false),
                "parallel_tool_calls",
            ),
            (
                ModelSettings::new().reasoning(Reasoning::effort("max")),
                "reasoning",
            ),
            (ModelSettings::new().seed(i64::from(i32::MAX) + 1), "seed"),
            (
                ModelSettings::new()
                    .extra(json!({"generationConfig": {"temperature": 1.0}}))
                    .temperature(0.5),
                "extra",
            ),
            (
                ModelSettings::new().extra(json!(["not", "an", "object"])),
                "extra",
            ),
        ],
    )
    .await;
    assert_eq!(server.requests().len(), 1, "nothing refused was sent");
}

#[tokio::test]
async fn client_settings_merge_over_the_models_field_by_field() {
    let server = Server::start([openai_text()]).await;
    let model = OpenAi::new(SECRET, "gpt-4.1-mini")
        .with_base_url(format!("{}/v1", server.url))
        .with_settings(ModelSettings::new().temperature(0.2).max_tokens(100));
    let client = Client::new(model)
        .settings(ModelSettings::new().temperature(0.0))
        .settings(ModelSettings::new().seed(3));
    let run = client.run("hi", &Toolkit::new()).await;
    assert!(run.is_done(), "{:?}", run.status);
    let body = &server.bodies()[0];
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["max_completion_tokens"], 100);
    assert_eq!(body["seed"], 3);

    // A scripted model takes any settings and shows what each turn was asked with.
    let scripted = std::sync::Arc::new(ScriptedModel::new([Reply::text("ok")]));
    let client = Client::new(scripted.clone()).settings(ModelSettings::new().top_p(0.5));
    client.run("hi", &Toolkit::new()).await;
    assert_eq!(scripted.asked_with(), [ModelSettings::new().top_p(0.5)]);

    // A model that takes no settings fails its turn rather than drop them.
    let plain = FnModel::new_sync(|_, _| Ok(Reply::text("ok")));
    let run = Client::new(plain)
        .settings(ModelSettings::new().temperature(0.1))
        .run("hi", &Toolkit::new())
        .await;
    match run.status {
        RunStatus::Incomplete {
            reason: StopReason::ModelError { message },
        } => assert!(
            message.contains("takes no settings") && message.contains("temperature"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    // And a refused setting ends the run as a model error naming it, nothing sent.
    let server = Server::start([openai_text()]).await;
    let model = OpenAiResponses::new(SECRET, "o4-mini").with_base_url(format!("{}/v1", server.url));
    let run = Client::new(model)
        .settings(ModelSettings::new().temperature(0.7))
        .run("hi", &Toolkit::new())
        .await;
    match run.status {
        RunStatus::Incomplete {
            reason: StopReason::ModelError { message },
        } => assert!(
            message.contains("OpenAI Responses: the setting `temperature`"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(server.requests().is_empty());
}

/// Eight tools with long descriptions and a long system prompt: a prefix past the 1,024
/// tokens the cache keeps.
fn big_toolkit() -> Toolkit {
    (0..8)
        .map(|i| {
            let description = format!(
                "Tool {i}: looks up records in source {i} of the warehouse, by name, date range and \
                 tags; returns at most fifty rows, newest first, with their identifiers. {}",
                "Use it only for questions about that source; say which filters you used. ".repeat(4)
            );
            Tool::new_sync(
                format!("lookup_{i}"),
                description,
                json!({"type": "object", "properties": {
                    "name": {"type": "string", "description": "The record's name, or a prefix of it."},
                    "from": {"type": "string", "description": "The first day, YYYY-MM-DD."},
                    "to": {"type": "string", "description": "The last day, YYYY-MM-DD."},
                    "tags": {"type": "array", "items": {"type": "string"}}}}),
                |_, _| ToolResult::ok("42 rows: r-1001 (2024-03-01), r-1002 (2024-03-02), r-1003 (2024-03-04)"),
            )
        })
        .collect()
}

/// Ten model turns (nine calls, then the answer) against the simulated cache.
async fn ten_turns(caching: bool) -> (toolnexus::RunResult, Vec<rules::CacheTurn>, Vec<Value>) {
    let mut script: Vec<rules::Step> = (0..9)
        .map(|i| {
            rules::Step::Calls(vec![(
                ["lookup_0", "lookup_1", "lookup_2"][i % 3],
                json!({"name": format!("r-{i}")}),
            )])
        })
        .collect();
    script.push(rules::Step::Text("Found them all."));
    let server = rules::Rules::start(script).await;
    let model = Anthropic::new(SECRET, "claude-sonnet-4-5")
        .with_base_url(&server.url)
        .prompt_caching(caching);
    let system = "You are the warehouse's research assistant. ".repeat(40);
    let run = Client::new(model)
        .system(system)
        .max_turns(10)
        .run("Find every record named r-0 to r-8.", &big_toolkit())
        .await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.turns, 10);
    assert!(server.errors().is_empty(), "{:?}", server.errors());
    (run, server.cache_turns(), server.requests())
}

#[tokio::test]
async fn prompt_caching_over_a_ten_turn_loop() {
    let (cached, turns, requests) = ten_turns(true).await;
    let (plain, plain_turns, plain_requests) = ten_turns(false).await;
    harness::validate("anthropic", &requests);
    assert!(
        plain_requests
            .iter()
            .all(|r| rules::anthropic::breakpoints(r) == 0)
    );
    assert!(
        plain_turns
            .iter()
            .all(|t| t.read_bytes == 0 && t.written_bytes == 0)
    );
    assert!(
        requests
            .iter()
            .all(|r| rules::anthropic::breakpoints(r) <= 4)
    );

    // The first turn writes the prefix; each later one reads everything the turn before
    // it wrote, and writes its own tail.
    assert_eq!(turns[0].read_bytes, 0);
    assert!(turns[0].written_bytes > 0);
    for k in 1..turns.len() {
        assert_eq!(
            turns[k].read_bytes,
            turns[k - 1].read_bytes + turns[k - 1].written_bytes,
            "turn {} reads what turn {k} cached",
            k + 1
        );
    }
    // The run's usage is the server's, summed.
    let read: u64 = turns.iter().map(|t| t.cache_read_input_tokens).sum();
    let written: u64 = turns.iter().map(|t| t.cache_creation_input_tokens).sum();
    assert_eq!(cached.usage.cache_read_tokens, read);
    assert_eq!(cached.usage.cache_write_tokens, written);
    assert_eq!(plain.usage.cache_read_tokens, 0);

    // Input priced as Anthropic prices it: a write 1.25x, a read 0.1x.
    let bytes = |t: &[rules::CacheTurn]| t.iter().map(|t| t.bytes).sum::<usize>();
    let priced = |usage: &toolnexus::Usage| {
        let plain = usage.prompt_tokens - usage.cache_read_tokens - usage.cache_write_tokens;
        plain as f64 + 1.25 * usage.cache_write_tokens as f64 + 0.1 * usage.cache_read_tokens as f64
    };
    let read_bytes: usize = turns.iter().map(|t| t.read_bytes).sum();
    println!(
        "ten-turn loop: prompt {} bytes (caching off: {}); read from the cache {} bytes ({:.1}%), \
         written {} bytes; input tokens {} / {} (read {}, written {}); priced input {:.0} vs \
         {:.0} tokens ({:.1}% of it)",
        bytes(&turns),
        bytes(&plain_turns),
        read_bytes,
        100.0 * read_bytes as f64 / bytes(&turns) as f64,
        turns.iter().map(|t| t.written_bytes).sum::<usize>(),
        cached.usage.prompt_tokens,
        plain.usage.prompt_tokens,
        cached.usage.cache_read_tokens,
        cached.usage.cache_write_tokens,
        priced(&cached.usage),
        priced(&plain.usage),
        100.0 * priced(&cached.usage) / priced(&plain.usage),
    );
    assert!(priced(&cached.usage) < 0.5 * priced(&plain.usage));
}

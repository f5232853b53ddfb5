//! `Anthropic::defer_loading`: Anthropic's own tool search. A local server plays the
//! Messages API, answering with `server_tool_use` / `tool_search_tool_result` /
//! `tool_reference` blocks (JSON and server-sent events); the canned responses are checked
//! against the official `anthropic` Python SDK's `Message` model, and every request sent
//! against its request types, so the kept blocks are sent back in a form the API takes.

#[path = "support/providers.rs"]
#[allow(dead_code)]
mod harness;
#[path = "providers/server.rs"]
#[allow(dead_code)]
mod server;

use serde_json::{Value, json};
use toolnexus::providers::{Anthropic, DeferLoading, Wire};
use toolnexus::{Client, Message, Model, Tool, ToolCall, ToolResult, Toolkit};

use harness::SECRET;
use server::{Canned, Server};

fn toolkit() -> Toolkit {
    let object = |props: Value| json!({"type": "object", "properties": props});
    Toolkit::new()
        .with(Tool::new_sync(
            "get_time",
            "The current time.",
            object(json!({})),
            |_, _| ToolResult::ok("12:00"),
        ))
        .with(Tool::new_sync(
            "get_weather",
            "Today's weather in a city.",
            object(json!({"city": {"type": "string"}})),
            |args, _| ToolResult::ok(format!("Sunny in {}", args["city"].as_str().unwrap_or("?"))),
        ))
        .with(Tool::new_sync(
            "book_flight",
            "Books a flight.",
            object(json!({"to": {"type": "string"}})),
            |_, _| ToolResult::ok("booked"),
        ))
}

/// The content of a turn that searched, found `get_weather`, and calls it.
fn searched() -> Vec<Value> {
    vec![
        json!({"type": "text", "text": "Let me find a tool."}),
        json!({"type": "server_tool_use", "id": "srvtoolu_01", "name": "tool_search_tool_bm25",
               "input": {"query": "weather"}}),
        json!({"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01",
               "content": {"type": "tool_search_tool_search_result",
                           "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}}),
        json!({"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}),
    ]
}

fn message(content: Vec<Value>, stop_reason: &str) -> Value {
    json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 30, "output_tokens": 11,
                  "server_tool_use": {"web_fetch_requests": 0, "web_search_requests": 0}}
    })
}

fn model(url: &str) -> Anthropic {
    Anthropic::new(SECRET, "claude-test")
        .with_base_url(url)
        .defer_loading(DeferLoading::bm25().visible(["get_time"]))
}

#[tokio::test]
async fn search_blocks_are_kept_and_sent_back() {
    let responses = [
        message(searched(), "tool_use"),
        message(
            vec![json!({"type": "text", "text": "Sunny in Paris."})],
            "end_turn",
        ),
    ];
    harness::validate("anthropic-response", &responses);
    let server = Server::start(responses.iter().cloned().map(Canned::json)).await;
    let run = Client::new(model(&server.url))
        .run("Weather in Paris?", &toolkit())
        .await;
    assert_eq!(run.text, "Sunny in Paris.");

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    harness::validate("anthropic", &bodies);
    let tools = bodies[0]["tools"].as_array().unwrap();
    assert_eq!(
        tools[0],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    let deferred: Vec<(&str, bool)> = tools[1..]
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["defer_loading"] == true))
        .collect();
    assert_eq!(
        deferred,
        [
            ("get_time", false),
            ("get_weather", true),
            ("book_flight", true)
        ]
    );
    // The second request carries the turn as it came, then the result of its call.
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], Value::Array(searched()));
    assert_eq!(
        messages[2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_01",
               "content": [{"type": "text", "text": "Sunny in Paris"}],
               "cache_control": {"type": "ephemeral"}})
    );
    // Without a system prompt, the tools' cache breakpoint is on the last tool that is
    // not deferred (deferred tools stay out of the cached prefix).
    assert_eq!(tools[1]["cache_control"], json!({"type": "ephemeral"}));
    assert!(tools[2..].iter().all(|t| t.get("cache_control").is_none()));

    // The transcript keeps the blocks, and keeps them through JSON (a halted run).
    let native = run
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant {
                native: Some(native),
                ..
            } => Some(native),
            _ => None,
        })
        .expect("the searching turn keeps its native form");
    assert_eq!(native.provider, "anthropic");
    assert_eq!(native.content, Value::Array(searched()));
    let json = serde_json::to_string(&run.messages).unwrap();
    let back: Vec<Message> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, run.messages);
    assert!(
        run.messages.last().unwrap().calls().is_empty(),
        "a turn without server blocks keeps none"
    );
    assert!(matches!(
        run.messages.last(),
        Some(Message::Assistant { native: None, .. })
    ));
}

#[tokio::test]
async fn streamed_search_blocks_are_kept_and_sent_back() {
    let event = |name: &'static str, data: Value| (Some(name), data.to_string());
    let start = json!({"type": "message_start", "message": {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 30, "output_tokens": 1}}});
    let block = |index: usize, content_block: Value| {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": content_block}),
        )
    };
    let delta = |index: usize, delta: Value| {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    };
    let stop = |index: usize| {
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        )
    };
    let content = searched();
    let server = Server::start([Canned::sse([
        event("message_start", start),
        block(0, json!({"type": "text", "text": ""})),
        delta(0, json!({"type": "text_delta", "text": "Let me "})),
        delta(0, json!({"type": "text_delta", "text": "find a tool."})),
        stop(0),
        block(
            1,
            json!({"type": "server_tool_use", "id": "srvtoolu_01", "name": "tool_search_tool_bm25", "input": {}}),
        ),
        delta(
            1,
            json!({"type": "input_json_delta", "partial_json": "{\"query\": "}),
        ),
        delta(
            1,
            json!({"type": "input_json_delta", "partial_json": "\"weather\"}"}),
        ),
        stop(1),
        block(2, content[2].clone()),
        stop(2),
        block(
            3,
            json!({"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}),
        ),
        delta(
            3,
            json!({"type": "input_json_delta", "partial_json": "{\"city\": \"Paris\"}"}),
        ),
        stop(3),
        event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
                   "usage": {"output_tokens": 20}}),
        ),
        event("message_stop", json!({"type": "message_stop"})),
    ])])
    .await;
    let model = model(&server.url);
    let toolkit = toolkit();
    let (reply, _) = harness::stream(&model, &toolkit).await;
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(reply.tool_calls[0].name, "get_weather");
    let native = reply
        .native
        .expect("the streamed turn keeps its native form");
    assert_eq!(native.content, Value::Array(content.clone()));

    // The next request built from that turn is the one the API wants.
    let call = ToolCall::new("toolu_01", "get_weather", r#"{"city": "Paris"}"#);
    let transcript = [
        Message::user("hi"),
        Message::Assistant {
            content: reply.content,
            tool_calls: vec![call.clone()],
            native: Some(native),
        },
        Message::tool_result(&call.id, &ToolResult::ok("Sunny")),
    ];
    let body: Value =
        serde_json::from_slice(&model.request_body(&transcript, &toolkit, false).unwrap()).unwrap();
    assert_eq!(body["messages"][1]["content"], Value::Array(content));
    harness::validate("anthropic", &[server.bodies()[0].clone(), body]);
}

#[tokio::test]
async fn small_toolkits_and_other_providers_turns_are_left_alone() {
    let toolkit = toolkit();
    let small = Anthropic::new(SECRET, "claude-test")
        .defer_loading(DeferLoading::regex().above(3))
        .prompt_caching(false);
    let body: Value = serde_json::from_slice(
        &small
            .request_body(&[Message::user("hi")], &toolkit, false)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        body["tools"],
        *toolkit.listing(toolnexus::schema::profile::Profile::Anthropic),
        "3 tools are not more than 3: listed as they are"
    );
    let regex = DeferLoading::regex().above(2).tools(&toolkit);
    assert_eq!(regex[0]["type"], "tool_search_tool_regex_20251119");
    assert_eq!(regex.as_array().unwrap().len(), 4);

    // A native turn written by another provider is read as text and calls only.
    let call = ToolCall::new("toolu_9", "get_time", "{}");
    let foreign = Message::Assistant {
        content: Some("hm".into()),
        tool_calls: vec![call.clone()],
        native: Some(Box::new(toolnexus::model::NativeTurn::new(
            "other",
            json!([{"type": "weird"}]),
        ))),
    };
    let transcript = [
        Message::user("hi"),
        foreign,
        Message::tool_result(&call.id, &ToolResult::ok("12:00")),
    ];
    let body: Value =
        serde_json::from_slice(&small.request_body(&transcript, &toolkit, false).unwrap()).unwrap();
    assert_eq!(
        body["messages"][1]["content"],
        json!([{"type": "text", "text": "hm"},
               {"type": "tool_use", "id": "toolu_9", "name": "get_time", "input": {}}])
    );
    harness::validate("anthropic", &[body]);
    assert_eq!(Anthropic::new(SECRET, "m").describe().name, Some("m"));
}

/// Extended thinking beside tool search: the turn's signed thinking block comes first and
/// goes back first and unchanged, with the search's blocks after it as they came.
#[tokio::test]
async fn thinking_blocks_and_search_blocks_go_back_together() {
    let thinking = json!({"type": "thinking", "thinking": "A weather tool is needed.",
                          "signature": "EqQBCkYIARgCIkD0c2lnbmF0dXJl"});
    let mut content = vec![thinking.clone()];
    content.extend(searched());
    let responses = [
        message(content.clone(), "tool_use"),
        message(
            vec![
                json!({"type": "thinking", "thinking": "Done.", "signature": "EqQBCkYIARgCIkDkb25l"}),
                json!({"type": "text", "text": "Sunny in Paris."}),
            ],
            "end_turn",
        ),
    ];
    harness::validate("anthropic-response", &responses);
    let server = Server::start(responses.iter().cloned().map(Canned::json)).await;
    let model = model(&server.url).with_settings(
        toolnexus::ModelSettings::new().reasoning(toolnexus::Reasoning::budget(1_024)),
    );
    let run = Client::new(model)
        .run("Weather in Paris?", &toolkit())
        .await;
    assert_eq!(run.text, "Sunny in Paris.");
    let bodies = server.bodies();
    assert_eq!(
        bodies[0]["thinking"],
        json!({"type": "enabled", "budget_tokens": 1024})
    );
    let sent = &bodies[1]["messages"][1]["content"];
    assert_eq!(
        sent[0], thinking,
        "the thinking block goes back unchanged, first"
    );
    assert_eq!(*sent, Value::Array(content));
    harness::validate("anthropic", &bodies);
}

//! `toolnexus::providers::Anthropic` against a local server replaying Messages API
//! responses (JSON and server-sent events), with every request body it sent checked
//! against the official `anthropic` Python SDK's request types.

#[path = "support/providers.rs"]
mod harness;
#[path = "providers/server.rs"]
mod server;

use serde_json::{Value, json};
use toolnexus::model::FinishReason;
use toolnexus::providers::{Anthropic, Retry};
use toolnexus::{Message, Model, ToolCall, Toolkit, Usage};

use harness::{Fake, SECRET};
use server::{Canned, Server};

struct AnthropicFake;

impl Fake for AnthropicFake {
    const NAME: &'static str = "anthropic";
    type Model = Anthropic;

    fn model(&self, url: &str) -> Anthropic {
        Anthropic::new(SECRET, "claude-test").with_base_url(url)
    }

    fn calls(&self, calls: &[(&str, &str, Value)]) -> Canned {
        let mut content = vec![json!({"type": "text", "text": "On it."})];
        content.extend(calls.iter().map(
            |(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}),
        ));
        message(content, "tool_use")
    }

    fn text(&self, text: &str) -> Canned {
        message(vec![json!({"type": "text", "text": text})], "end_turn")
    }

    fn error(&self, status: u16, code: &str, message: &str) -> Canned {
        let kind = match status {
            401 => "authentication_error",
            404 => "not_found_error",
            429 => "rate_limit_error",
            529 => "overloaded_error",
            500..=599 => "api_error",
            _ => "invalid_request_error",
        };
        // Anthropic words a context overflow in the message only.
        let message = if code == "context_length_exceeded" {
            "prompt is too long: 210000 tokens > 200000 maximum".to_owned()
        } else {
            message.to_owned()
        };
        Canned::status(
            status,
            json!({"type": "error", "error": {"type": kind, "message": message}}),
        )
    }

    fn auth(&self) -> (&'static str, String) {
        ("x-api-key", SECRET.to_owned())
    }

    fn retry(&self, model: Anthropic, retry: Retry) -> Anthropic {
        model.retry(retry)
    }
}

/// A Messages API response, shaped as Anthropic documents it.
fn message(content: Vec<Value>, stop_reason: &str) -> Canned {
    Canned::json(json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 30, "output_tokens": 11, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 4}
    }))
}

provider_suite!(AnthropicFake, "ANTHROPIC_API_KEY", "claude-test");

#[tokio::test]
async fn full_loop_with_parallel_calls_errors_images_and_suspensions() {
    let server = harness::full_loop(&AnthropicFake).await;
    for request in server.requests() {
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.headers["anthropic-version"], "2023-06-01");
    }
    let second = &server.bodies()[1];
    // Prompt caching (on by default): the system prompt carries the breakpoint that
    // caches the tools and itself.
    assert_eq!(
        second["system"],
        json!([{"type": "text", "text": "You run tools.", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(second["max_tokens"], Anthropic::DEFAULT_MAX_TOKENS);
    let messages = second["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"], "roles alternate");
    let assistant = messages[1]["content"].as_array().unwrap();
    assert_eq!(assistant[0], json!({"type": "text", "text": "On it."}));
    assert_eq!(
        assistant[1],
        json!({"type": "tool_use", "id": "call_add", "name": "add", "input": {"a": 2, "b": 3}})
    );
    // One user message holds the four results, in call order.
    let results = messages[2]["content"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(
        results[0],
        json!({"type": "tool_result", "tool_use_id": "call_add", "content": [{"type": "text", "text": "5"}]})
    );
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(results[1]["content"][0]["text"], "disk full");
    let image = &results[2]["content"][1];
    assert_eq!(image["type"], "image");
    assert_eq!(image["source"]["media_type"], "image/png");
    assert!(
        image["source"]["data"]
            .as_str()
            .unwrap()
            .starts_with("iVBOR")
    );
    let toolkit = harness::toolkit(Default::default());
    assert_eq!(
        second["tools"],
        *toolkit.listing(toolnexus::schema::profile::Profile::Anthropic)
    );
}

#[tokio::test]
async fn overloaded_529_is_retried() {
    let server = Server::start([
        AnthropicFake.error(529, "overloaded", "Overloaded"),
        AnthropicFake.text("back"),
    ])
    .await;
    let model = AnthropicFake
        .model(&server.url)
        .retry(Retry::default().initial_backoff(std::time::Duration::from_millis(5)));
    let reply = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(reply.content.as_deref(), Some("back"));
    assert_eq!(
        reply.usage,
        Usage::new(34, 11).with_cache(4, 0),
        "cache reads count as input"
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn refusals_and_length_cutoffs_are_finish_reasons() {
    let server = Server::start([
        message(vec![json!({"type": "text", "text": "I won't."})], "refusal"),
        message(
            vec![json!({"type": "text", "text": "The answer is"})],
            "max_tokens",
        ),
    ])
    .await;
    let model = AnthropicFake.model(&server.url);
    let refused = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(refused.finish_reason, Some(FinishReason::Refusal));
    let cut = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(cut.finish_reason, Some(FinishReason::Length));
}

/// Events as Anthropic streams them: message_start, a text block in pieces, two tool_use
/// blocks whose input arrives as partial JSON, pings, message_delta with the stop reason
/// and output tokens, message_stop.
fn streamed_turn() -> Canned {
    let event = |name: &'static str, data: Value| (Some(name), data.to_string());
    Canned::sse([
        event(
            "message_start",
            json!({"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-test",
            "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        event("ping", json!({"type": "ping"})),
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}}),
        ),
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "add that."}}),
        ),
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}}),
        ),
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        ),
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"a\": 2,"}}),
        ),
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": " \"b\": 3}"}}),
        ),
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "fail", "input": {}}}),
        ),
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 2}),
        ),
        event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 15}}),
        ),
        event("message_stop", json!({"type": "message_stop"})),
    ])
}

#[tokio::test]
async fn streaming_assembles_text_and_tool_call_deltas() {
    let server = Server::start([streamed_turn()]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = AnthropicFake.model(&server.url);
    let (reply, _) = harness::stream(&model, &toolkit).await;
    assert_eq!(reply.content.as_deref(), Some("Let me add that."));
    assert_eq!(
        reply.tool_calls,
        [
            ToolCall::new("toolu_1", "add", r#"{"a": 2, "b": 3}"#),
            ToolCall::new("toolu_2", "fail", "{}")
        ]
    );
    assert_eq!(reply.usage, Usage::new(25, 15));
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(server.bodies()[0]["stream"], true);
    harness::validate("anthropic", &server.bodies());
}

#[tokio::test]
async fn a_stream_error_event_is_a_model_error() {
    let server = Server::start([Canned::sse([(
        Some("error"),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
            .to_string(),
    )])])
    .await;
    let model = AnthropicFake.model(&server.url);
    let sink = |_| {};
    let error = model
        .complete(
            toolnexus::model::ModelRequest::new(&[Message::user("hi")], &Toolkit::new())
                .with_on_delta(&sink),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("overloaded_error: Overloaded"), "{error}");
}

#[tokio::test]
async fn pdfs_audio_and_pending_calls_take_the_documented_forms() {
    let server = Server::start([AnthropicFake.text("ok")]).await;
    let pdf = toolnexus::ContentPart::file_bytes(
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF".to_vec(),
        "application/pdf",
    )
    .unwrap();
    let wav = riff_wav();
    let transcript = vec![
        Message::system("Be brief."),
        Message::user("go"),
        Message::tool_calls(
            None,
            vec![
                ToolCall::new("c1", "read", "{}"),
                ToolCall::new("c2", "deploy", "not json"),
            ],
        ),
        Message::tool_result(
            "c1",
            &toolnexus::ToolResult::ok("two files").with_parts(vec![pdf, wav]),
        ),
        Message::tool_result(
            "c2",
            &toolnexus::ToolResult::pending(toolnexus::Request::input("Where?")),
        ),
        Message::user("and then?"),
    ];
    let model = AnthropicFake.model(&server.url).strict(true).max_tokens(64);
    model
        .complete(toolnexus::model::ModelRequest::new(
            &transcript,
            &harness::toolkit(Default::default()),
        ))
        .await
        .unwrap();
    let body = &server.bodies()[0];
    harness::assert_no_toolnexus_keys("anthropic", body);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "the user prompt joins the tool results");
    assert_eq!(
        messages[1]["content"][1]["input"],
        json!({}),
        "invalid arguments become {{}}"
    );
    let blocks = messages[2]["content"].as_array().unwrap();
    assert_eq!(blocks[0]["content"][1]["type"], "document");
    assert_eq!(
        blocks[0]["content"][1]["source"]["media_type"],
        "application/pdf"
    );
    assert!(
        blocks[0]["content"][2]["text"]
            .as_str()
            .unwrap()
            .contains("audio")
    );
    assert!(
        blocks[1].get("is_error").is_none(),
        "a pending call is not an error"
    );
    assert!(
        blocks[1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Where?")
    );
    // The conversation's tail carries the moving cache breakpoint.
    assert_eq!(
        blocks[2],
        json!({"type": "text", "text": "and then?", "cache_control": {"type": "ephemeral"}})
    );
    assert_eq!(body["tools"][0]["strict"], true);
    harness::validate("anthropic", &server.bodies());
}

/// A tiny valid WAV file.
pub fn riff_wav() -> toolnexus::ContentPart {
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&40u32.to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&[1, 0, 1, 0]);
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&[1, 0, 8, 0]);
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&4u32.to_le_bytes());
    wav.extend_from_slice(&[128, 128, 128, 128]);
    toolnexus::ContentPart::audio_bytes(wav, "audio/wav").unwrap()
}

/// A prompt of parts reaches the Messages API as its own blocks: images by `base64` and
/// `url` sources, the PDF as a `document`; the API has no audio block, so the clip is a
/// text line saying it was left out.
#[tokio::test]
async fn a_prompt_with_images_a_file_and_audio_is_sent_in_anthropic_blocks() {
    let server = harness::image_prompt(&AnthropicFake).await;
    let body = &server.bodies()[0];
    let content = body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(body["messages"][0]["role"], "user");
    assert_eq!(content[0]["type"], "image");
    assert_eq!(content[0]["source"]["type"], "base64");
    assert_eq!(content[0]["source"]["media_type"], "image/png");
    assert_eq!(
        content[1..4],
        [
            json!({"type": "text", "text": "What do these show?"}),
            json!({"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}),
            json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjcK"}}),
        ]
    );
    // The last block of the last message carries the cache breakpoint.
    assert_eq!(content[4]["type"], "text");
    assert_eq!(
        content[4]["text"],
        "[audio (audio/wav, 12 bytes) omitted: Anthropic does not accept this kind of content here]"
    );
}

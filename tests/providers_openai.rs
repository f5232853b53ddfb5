//! `toolnexus::providers::OpenAi` against a local server replaying Chat Completions
//! responses (JSON and server-sent events), with every request body it sent checked
//! against the official `openai` Python SDK's request types.

#[path = "support/providers.rs"]
mod harness;
#[path = "providers/server.rs"]
mod server;

use serde_json::{Value, json};
use toolnexus::model::{Delta, FinishReason};
use toolnexus::providers::{OpenAi, Retry};
use toolnexus::{Message, Model, ToolCall, Toolkit, Usage};

use harness::{Fake, SECRET};
use server::{Canned, Server};

struct OpenAiFake;

impl Fake for OpenAiFake {
    const NAME: &'static str = "openai";
    type Model = OpenAi;

    fn model(&self, url: &str) -> OpenAi {
        OpenAi::new(SECRET, "gpt-test").with_base_url(format!("{url}/v1"))
    }

    fn calls(&self, calls: &[(&str, &str, Value)]) -> Canned {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, args)| {
                json!({"id": id, "type": "function",
                       "function": {"name": name, "arguments": args.to_string()}})
            })
            .collect();
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": calls, "refusal": null}),
            "tool_calls",
        )
    }

    fn text(&self, text: &str) -> Canned {
        completion(
            json!({"role": "assistant", "content": text, "refusal": null}),
            "stop",
        )
    }

    fn error(&self, status: u16, code: &str, message: &str) -> Canned {
        Canned::status(
            status,
            json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": code}}),
        )
    }

    fn auth(&self) -> (&'static str, String) {
        ("authorization", format!("Bearer {SECRET}"))
    }

    fn retry(&self, model: OpenAi, retry: Retry) -> OpenAi {
        model.retry(retry)
    }
}

/// A Chat Completions response with one choice, shaped as OpenAI documents it.
fn completion(message: Value, finish: &str) -> Canned {
    Canned::json(json!({
        "id": "chatcmpl-123", "object": "chat.completion", "created": 1_700_000_000,
        "model": "gpt-test", "system_fingerprint": "fp_1",
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
    }))
}

provider_suite!(OpenAiFake, "OPENAI_API_KEY", "gpt-test");

#[test]
fn has_api_key_says_whether_a_key_is_set() {
    assert!(OpenAi::new(SECRET, "gpt-test").has_api_key());
    assert!(!OpenAi::compatible("http://localhost:11434/v1", "qwen3").has_api_key());
}

#[tokio::test]
async fn full_loop_with_parallel_calls_errors_images_and_suspensions() {
    let server = harness::full_loop(&OpenAiFake).await;
    let bodies = server.bodies();
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.path == "/v1/chat/completions")
    );
    let second = &bodies[1];
    let messages = second["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "tool",
            "tool",
            "user"
        ]
    );
    assert_eq!(messages[2]["tool_calls"].as_array().unwrap().len(), 4);
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        r#"{"a":2,"b":3}"#
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_add", "content": "5"})
    );
    assert_eq!(messages[4]["content"], "Error: disk full");
    assert_eq!(messages[5]["content"], "a picture");
    assert_eq!(messages[6]["content"], "deployed to staging");
    // The image follows the tool messages, in a user message naming its call.
    let attachment = messages[7]["content"].as_array().unwrap();
    assert!(
        attachment[0]["text"]
            .as_str()
            .unwrap()
            .contains("call_snap")
    );
    let url = attachment[1]["image_url"]["url"].as_str().unwrap();
    assert!(url.starts_with("data:image/png;base64,iVBOR"), "{url}");
    // The tools come from the shared listing.
    let toolkit = harness::toolkit(Default::default());
    assert_eq!(
        second["tools"],
        *toolkit.listing(toolnexus::schema::profile::Profile::OpenAi)
    );
    assert_eq!(second["model"], "gpt-test");
    assert!(second.get("stream").is_none());
}

#[tokio::test]
async fn compatible_server_gets_no_key() {
    let server = Server::start([OpenAiFake.text("hello from a local model")]).await;
    let model = OpenAi::compatible(format!("{}/v1/", server.url), "qwen3");
    let reply = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(reply.content.as_deref(), Some("hello from a local model"));
    assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
    assert_eq!(reply.usage, Usage::new(12, 7));
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert!(request.headers.get("authorization").is_none());
    // No tools: no `tools` key (an empty list is refused by some servers).
    assert!(request.body.get("tools").is_none());
}

#[tokio::test]
async fn refusals_and_length_cutoffs_are_finish_reasons() {
    let server = Server::start([
        completion(
            json!({"role": "assistant", "content": null, "refusal": "I can't help with that."}),
            "stop",
        ),
        completion(
            json!({"role": "assistant", "content": "The answer is", "refusal": null}),
            "length",
        ),
    ])
    .await;
    let model = OpenAiFake.model(&server.url);
    let refused = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(refused.finish_reason, Some(FinishReason::Refusal));
    assert_eq!(refused.content.as_deref(), Some("I can't help with that."));
    let cut = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(cut.finish_reason, Some(FinishReason::Length));
}

#[tokio::test]
async fn strict_mode_lists_the_strict_tools() {
    let server = Server::start([OpenAiFake.text("ok")]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = OpenAiFake.model(&server.url).strict(true).max_tokens(100);
    model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &toolkit,
        ))
        .await
        .unwrap();
    let body = &server.bodies()[0];
    assert_eq!(
        body["tools"],
        *toolkit.listing(toolnexus::schema::profile::Profile::OpenAiStrict)
    );
    assert_eq!(body["tools"][0]["function"]["strict"], true);
    assert_eq!(body["max_completion_tokens"], 100);
    harness::validate("openai", &server.bodies());
}

/// Chunks shaped as OpenAI streams them: role first, text pieces, two tool calls whose
/// arguments arrive in pieces (id and name on the first), the finish reason, then the
/// usage in a chunk with no choices, then `[DONE]`.
fn streamed_turn() -> Canned {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
               "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]})
        .to_string()
    };
    let call = |index: u32, id: Option<&str>, name: Option<&str>, args: &str| {
        let mut function = json!({"arguments": args});
        if let Some(name) = name {
            function["name"] = json!(name);
        }
        let mut call = json!({"index": index, "function": function});
        if let Some(id) = id {
            call["id"] = json!(id);
            call["type"] = json!("function");
        }
        chunk(json!({"tool_calls": [call]}), Value::Null)
    };
    Canned::sse([
        (None, chunk(json!({"role": "assistant", "content": ""}), Value::Null)),
        (None, chunk(json!({"content": "Let me "}), Value::Null)),
        (None, chunk(json!({"content": "add that."}), Value::Null)),
        (None, call(0, Some("call_1"), Some("add"), "")),
        (None, call(0, None, None, "{\"a\": 2,")),
        (None, call(0, None, None, " \"b\": 3}")),
        (None, call(1, Some("call_2"), Some("fail"), "{}")),
        (None, chunk(json!({}), json!("tool_calls"))),
        (None, json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
                      "choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29}}).to_string()),
        (None, "[DONE]".to_owned()),
    ])
}

#[tokio::test]
async fn streaming_assembles_text_and_tool_call_deltas() {
    let server = Server::start([streamed_turn()]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = OpenAiFake.model(&server.url);
    let (reply, deltas) = harness::stream(&model, &toolkit).await;
    assert_eq!(reply.content.as_deref(), Some("Let me add that."));
    assert_eq!(
        reply.tool_calls,
        [
            ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#),
            ToolCall::new("call_2", "fail", "{}")
        ]
    );
    assert_eq!(reply.usage, Usage::new(20, 9));
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    assert!(deltas.contains(&Delta::ToolCall {
        index: 1,
        id: Some("call_2".into()),
        name: Some("fail".into()),
        arguments: "{}".into()
    }));
    let body = &server.bodies()[0];
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    harness::validate("openai", &server.bodies());
}

#[tokio::test]
async fn a_pending_call_is_described_not_leaked() {
    let server = Server::start([OpenAiFake.text("ok")]).await;
    let request = toolnexus::Request::input("Which environment?");
    let transcript = vec![
        Message::user("deploy"),
        Message::tool_calls(None, vec![ToolCall::new("c1", "deploy", "{}")]),
        Message::tool_result("c1", &toolnexus::ToolResult::pending(request)),
    ];
    OpenAiFake
        .model(&server.url)
        .complete(toolnexus::model::ModelRequest::new(
            &transcript,
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    let body = &server.bodies()[0];
    harness::assert_no_toolnexus_keys("openai", body);
    let text = body["messages"][2]["content"].as_str().unwrap();
    assert!(
        text.contains("waiting on the user") && text.contains("Which environment?"),
        "{text}"
    );
    harness::validate("openai", &server.bodies());
}

/// The validator has teeth: the transcript as toolnexus serializes it (with `is_error`,
/// `parts` and `pending` on tool messages) is refused.
#[test]
fn the_validator_refuses_toolnexus_only_keys() {
    let call = ToolCall::new("c1", "snapshot", "{}");
    let result = toolnexus::ToolResult::error("no camera").with_parts(vec![harness::png()]);
    let transcript = vec![
        Message::user("hi"),
        Message::tool_calls(None, vec![call]),
        Message::tool_result("c1", &result),
    ];
    let naive = json!({"model": "gpt-test", "messages": transcript});
    let Some(errors) = harness::validation_errors("openai", &[naive]) else {
        return;
    };
    let errors = errors.join("\n");
    assert!(
        errors.contains("is_error") && errors.contains("parts"),
        "{errors}"
    );
}

fn rate_limited_for_an_hour() -> Vec<Canned> {
    vec![
        OpenAiFake
            .error(
                429,
                "rate_limit_exceeded",
                "Rate limit reached for requests",
            )
            .header("retry-after", "3600"),
        OpenAiFake.text("never reached"),
    ]
}

#[tokio::test]
async fn a_retry_after_beyond_the_hosts_limit_is_not_waited_for() {
    let server = Server::start(rate_limited_for_an_hour()).await;
    let capped = Retry::default().max_retry_after(std::time::Duration::from_secs(60));
    let error = OpenAiFake
        .retry(OpenAiFake.model(&server.url), capped)
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(server.requests().len(), 1);
    assert!(
        error.contains("rate limited") && error.contains("asked to wait 3600 s"),
        "{error}"
    );
}

#[tokio::test]
async fn by_default_a_long_retry_after_is_waited_for_as_the_python_port_waits() {
    let server = Server::start(rate_limited_for_an_hour()).await;
    let model = OpenAiFake.model(&server.url);
    let messages = [Message::user("hi")];
    let toolkit = Toolkit::new();
    let call = model.complete(toolnexus::model::ModelRequest::new(&messages, &toolkit));
    // Still waiting out the hour: neither an error nor a second request. (The bound only
    // ends the test; whatever the machine's speed, the retry is an hour away.)
    let waited = tokio::time::timeout(std::time::Duration::from_millis(500), call).await;
    assert!(waited.is_err(), "gave up instead of waiting: {waited:?}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn parameterless_calls_without_arguments_get_an_empty_object() {
    let server = Server::start([completion(
        json!({"role": "assistant", "content": null,
               "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fail"}}]}),
        "tool_calls",
    )])
    .await;
    let reply = OpenAiFake
        .model(&server.url)
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(reply.tool_calls, [ToolCall::new("c1", "fail", "{}")]);
}

/// A prompt of parts reaches Chat Completions as its own content parts: images by data
/// URL and by URL, the PDF as a named `file`, the WAV clip as `input_audio`.
#[tokio::test]
async fn a_prompt_with_images_a_file_and_audio_is_sent_in_openai_parts() {
    let server = harness::image_prompt(&OpenAiFake).await;
    let body = &server.bodies()[0];
    let content = body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(body["messages"][0]["role"], "user");
    let url = content[0]["image_url"]["url"].as_str().unwrap();
    assert!(url.starts_with("data:image/png;base64,iVBOR"), "{url}");
    assert_eq!(
        content[1..],
        [
            json!({"type": "text", "text": "What do these show?"}),
            json!({"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}),
            json!({"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0xLjcK", "filename": "report.pdf"}}),
            json!({"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": "wav"}}),
        ]
    );
}

//! `toolnexus::providers::OpenAiResponses` against a local server replaying Responses API
//! bodies (JSON and server-sent events), with every request body it sent checked against
//! the official `openai` Python SDK's `ResponseCreateParams`, and every response and
//! stream event it replays parsed by the SDK's `Response` and `ResponseStreamEvent`.

#[path = "support/providers.rs"]
mod harness;
#[path = "providers/server.rs"]
mod server;

use serde_json::{Value, json};
use toolnexus::model::{Delta, FinishReason};
use toolnexus::providers::{OpenAiResponses, Retry, Wire};
use toolnexus::{
    Message, Model, ModelSettings, Reasoning, ToolCall, ToolChoice, ToolResult, Toolkit, Usage,
};

use harness::{Fake, SECRET};
use server::{Canned, Server};

struct ResponsesFake;

/// A response object shaped as the API documents it.
fn response(output: Vec<Value>, status: &str, incomplete: Option<&str>) -> Value {
    json!({
        "id": "resp_1", "object": "response", "created_at": 1_760_000_000, "status": status,
        "model": "gpt-test", "output": output, "parallel_tool_calls": true,
        "tool_choice": "auto", "tools": [], "error": null,
        "incomplete_details": incomplete.map(|reason| json!({"reason": reason})),
        "usage": {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 0},
                  "output_tokens": 7, "output_tokens_details": {"reasoning_tokens": 3},
                  "total_tokens": 19}
    })
}

fn message(text: &str) -> Value {
    json!({"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

impl Fake for ResponsesFake {
    const NAME: &'static str = "openai-responses";
    type Model = OpenAiResponses;

    fn model(&self, url: &str) -> OpenAiResponses {
        OpenAiResponses::new(SECRET, "gpt-test").with_base_url(format!("{url}/v1"))
    }

    fn calls(&self, calls: &[(&str, &str, Value)]) -> Canned {
        let output = calls
            .iter()
            .enumerate()
            .map(|(i, (id, name, args))| {
                json!({"id": format!("fc_{i}"), "type": "function_call", "call_id": id,
                       "name": name, "arguments": args.to_string(), "status": "completed"})
            })
            .collect();
        Canned::json(response(output, "completed", None))
    }

    fn text(&self, text: &str) -> Canned {
        Canned::json(response(vec![message(text)], "completed", None))
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

    fn retry(&self, model: OpenAiResponses, retry: Retry) -> OpenAiResponses {
        model.retry(retry)
    }
}

#[test]
fn the_replayed_bodies_parse_in_the_sdk() {
    let bodies = [
        response(vec![message("hi")], "completed", None),
        response(
            vec![
                json!({"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "ZW5j"}),
                json!({"id": "fc_1", "type": "function_call", "call_id": "c1", "name": "add",
                        "arguments": "{}", "status": "completed"}),
            ],
            "completed",
            None,
        ),
        response(
            vec![message("The answer is")],
            "incomplete",
            Some("max_output_tokens"),
        ),
        response(
            vec![
                json!({"id": "msg_2", "type": "message", "role": "assistant", "status": "completed",
                        "content": [{"type": "refusal", "refusal": "I can't help with that."}]}),
            ],
            "completed",
            None,
        ),
    ];
    harness::validate("openai-responses-response", &bodies);
    let events: Vec<Value> = streamed_events()
        .into_iter()
        .map(|(_, data)| serde_json::from_str(&data).unwrap())
        .collect();
    harness::validate("openai-responses-stream", &events);
    // The validator has teeth: a misspelled key is refused.
    let mut wrong = bodies[0].clone();
    wrong["output"][0]["contents"] = json!([]);
    if let Some(errors) = harness::validation_errors("openai-responses-response", &[wrong]) {
        assert!(errors.join("\n").contains("contents"), "{errors:?}");
    }
}

provider_suite!(ResponsesFake, "OPENAI_API_KEY", "gpt-test");

#[tokio::test]
async fn full_loop_with_parallel_calls_errors_images_and_suspensions() {
    let server = harness::full_loop(&ResponsesFake).await;
    assert!(server.requests().iter().all(|r| r.path == "/v1/responses"));
    let second = &server.bodies()[1];
    assert_eq!(second["instructions"], "You run tools.");
    assert_eq!(second["store"], false);
    // gpt-test is no reasoning model and none was asked for: no encrypted reasoning
    // (the API refuses it for such models).
    assert!(second.get("include").is_none());
    let input = second["input"].as_array().unwrap();
    let kinds: Vec<&str> = input.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "message",
            "function_call",
            "function_call",
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
            "function_call_output",
            "function_call_output"
        ]
    );
    assert_eq!(
        input[1],
        json!({"type": "function_call", "call_id": "call_add", "name": "add", "arguments": r#"{"a":2,"b":3}"#})
    );
    assert_eq!(
        input[5],
        json!({"type": "function_call_output", "call_id": "call_add", "output": "5"})
    );
    assert_eq!(input[6]["output"], "Error: disk full");
    // The image travels inside its call's output.
    let snap = input[7]["output"].as_array().unwrap();
    assert_eq!(snap[0], json!({"type": "input_text", "text": "a picture"}));
    assert_eq!(snap[1]["type"], "input_image");
    let url = snap[1]["image_url"].as_str().unwrap();
    assert!(url.starts_with("data:image/png;base64,iVBOR"), "{url}");
    // The tools: the shared listing, flattened, `strict` always said.
    let tools = second["tools"].as_array().unwrap();
    assert_eq!(tools[0]["type"], "function");
    assert_eq!(tools[0]["name"], "add");
    assert_eq!(tools[0]["strict"], false);
    assert!(tools[0].get("function").is_none());
}

#[tokio::test]
async fn refusals_incomplete_and_usage() {
    let server = Server::start([
        Canned::json(response(
            vec![
                json!({"id": "msg_2", "type": "message", "role": "assistant", "status": "completed",
                        "content": [{"type": "refusal", "refusal": "I can't help with that."}]}),
            ],
            "completed",
            None,
        )),
        Canned::json(response(
            vec![message("The answer is")],
            "incomplete",
            Some("max_output_tokens"),
        )),
        Canned::json(
            json!({"error": {"message": "boom", "code": "server_error"}, "status": "failed",
                            "output": []}),
        ),
    ])
    .await;
    let model = ResponsesFake.model(&server.url);
    let refused = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(refused.finish_reason, Some(FinishReason::Refusal));
    assert_eq!(refused.content.as_deref(), Some("I can't help with that."));
    assert_eq!(
        refused.usage,
        Usage::new(12, 7).with_cache(4, 0).with_reasoning(3)
    );
    let cut = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(cut.finish_reason, Some(FinishReason::Length));
    assert_eq!(cut.content.as_deref(), Some("The answer is"));
    let failed = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        failed.contains("OpenAI Responses") && failed.contains("boom"),
        "{failed}"
    );
}

#[tokio::test]
async fn compatible_server_and_strict_tools() {
    let server = Server::start([ResponsesFake.text("hello from a local model")]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = OpenAiResponses::compatible(format!("{}/v1/", server.url), "gpt-oss-20b")
        .strict(true)
        .max_tokens(100);
    let reply = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &toolkit,
        ))
        .await
        .unwrap();
    assert_eq!(reply.content.as_deref(), Some("hello from a local model"));
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/responses");
    assert!(request.headers.get("authorization").is_none());
    let body = &request.body;
    assert_eq!(body["max_output_tokens"], 100);
    let strict: Vec<bool> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["strict"].as_bool().unwrap())
        .collect();
    assert_eq!(strict, [true, true, true, true]);
    assert_eq!(
        body["tools"][0]["parameters"],
        toolkit.listing(toolnexus::schema::profile::Profile::OpenAiStrict)[0]["function"]["parameters"]
    );
    harness::validate("openai-responses", &server.bodies());
}

#[tokio::test]
async fn settings_reach_the_body_and_what_cannot_be_sent_is_refused() {
    let server = Server::start([ResponsesFake.text("ok")]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = OpenAiResponses::new(SECRET, "gpt-5.1")
        .with_base_url(format!("{}/v1", server.url))
        .with_settings(
            ModelSettings::new()
                .max_tokens(2_000)
                .tool_choice(ToolChoice::tool("add"))
                .parallel_tool_calls(false)
                .reasoning(Reasoning::effort("high").with_summary("auto"))
                .extra(json!({"service_tier": "flex", "metadata": {"run": "42"}})),
        );
    model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &toolkit,
        ))
        .await
        .unwrap();
    let body = &server.bodies()[0];
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "name": "add"})
    );
    assert_eq!(body["parallel_tool_calls"], false);
    assert_eq!(body["max_output_tokens"], 2_000);
    assert_eq!(
        body["reasoning"],
        json!({"effort": "high", "summary": "auto"})
    );
    assert_eq!(body["store"], false);
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(body["service_tier"], "flex");
    assert_eq!(body["metadata"], json!({"run": "42"}));
    harness::validate("openai-responses", &server.bodies());

    // gpt-5.1 takes a temperature only with effort `none`; the Responses API has no seed
    // and no stop sequences; a named tool must be in the toolkit. Nothing is sent.
    let refused = [
        (ModelSettings::new().temperature(0.2), "temperature"),
        (ModelSettings::new().seed(7), "seed"),
        (ModelSettings::new().stop(["END"]), "stop"),
        (
            ModelSettings::new().tool_choice(ToolChoice::tool("nope")),
            "tool_choice",
        ),
        (
            ModelSettings::new().reasoning(Reasoning::budget(8_000)),
            "reasoning",
        ),
        (
            ModelSettings::new().extra(json!({"model": "other"})),
            "extra",
        ),
    ];
    for (settings, setting) in refused {
        let error = model
            .clone()
            .with_settings(settings)
            .complete(toolnexus::model::ModelRequest::new(
                &[Message::user("hi")],
                &toolkit,
            ))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("OpenAI Responses") && error.contains(&format!("`{setting}`")),
            "{error}"
        );
    }
    assert_eq!(server.requests().len(), 1, "no refused turn was sent");
    let none = model.clone().with_settings(
        ModelSettings::new()
            .temperature(0.2)
            .reasoning(Reasoning::effort("none")),
    );
    assert!(
        none.request_body(&[Message::user("hi")], &toolkit, false)
            .is_ok()
    );
}

/// Events shaped as the API streams them: a reasoning item with a summary, text in
/// pieces, a function call whose arguments arrive in pieces, then the completed response.
fn streamed_events() -> Vec<(Option<&'static str>, String)> {
    let reasoning = json!({"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Adding."}],
                           "encrypted_content": "ZW5j"});
    let text = json!({"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": "Let me add that.", "annotations": []}]});
    let call = json!({"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "add",
                      "arguments": r#"{"a": 2, "b": 3}"#, "status": "completed"});
    let done = response(
        vec![reasoning.clone(), text.clone(), call.clone()],
        "completed",
        None,
    );
    let mut created = done.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    let events = vec![
        ("response.created", json!({"response": created})),
        (
            "response.output_item.added",
            json!({"output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
        ),
        (
            "response.reasoning_summary_text.delta",
            json!({"item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "Adding."}),
        ),
        (
            "response.output_item.done",
            json!({"output_index": 0, "item": reasoning}),
        ),
        (
            "response.output_item.added",
            json!({"output_index": 1, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}}),
        ),
        (
            "response.output_text.delta",
            json!({"item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "Let me ", "logprobs": []}),
        ),
        (
            "response.output_text.delta",
            json!({"item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "add that.", "logprobs": []}),
        ),
        (
            "response.output_item.done",
            json!({"output_index": 1, "item": text}),
        ),
        (
            "response.output_item.added",
            json!({"output_index": 2, "item": {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "add", "arguments": "", "status": "in_progress"}}),
        ),
        (
            "response.function_call_arguments.delta",
            json!({"item_id": "fc_1", "output_index": 2, "delta": "{\"a\": 2,"}),
        ),
        (
            "response.function_call_arguments.delta",
            json!({"item_id": "fc_1", "output_index": 2, "delta": " \"b\": 3}"}),
        ),
        (
            "response.function_call_arguments.done",
            json!({"item_id": "fc_1", "output_index": 2, "arguments": "{\"a\": 2, \"b\": 3}"}),
        ),
        (
            "response.output_item.done",
            json!({"output_index": 2, "item": call}),
        ),
        ("response.completed", json!({"response": done})),
    ];
    events
        .into_iter()
        .enumerate()
        .map(|(seq, (name, mut data))| {
            data["type"] = json!(name);
            data["sequence_number"] = json!(seq);
            (Some(name), data.to_string())
        })
        .collect()
}

#[tokio::test]
async fn streaming_assembles_text_calls_and_reasoning() {
    let server = Server::start([Canned::sse(streamed_events())]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = ResponsesFake.model(&server.url);
    let (reply, deltas) = harness::stream(&model, &toolkit).await;
    assert_eq!(reply.content.as_deref(), Some("Let me add that."));
    assert_eq!(
        reply.tool_calls,
        [ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#)]
    );
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    assert!(deltas.contains(&Delta::Reasoning("Adding.".into())));
    let native = reply.native.expect("the reasoning item is kept");
    assert_eq!(native.provider, "openai.responses");
    assert_eq!(native.content[0]["encrypted_content"], "ZW5j");
    let body = &server.bodies()[0];
    assert_eq!(body["stream"], true);
    harness::validate("openai-responses", &server.bodies());

    // The next request sends the reasoning item back before the call, the message as it
    // came, and the call with the item id that ties it to its reasoning.
    let transcript = vec![
        Message::user("hi"),
        Message::Assistant {
            content: reply.content.clone(),
            tool_calls: reply.tool_calls.clone(),
            native: Some(native),
        },
        Message::tool_result("call_1", &ToolResult::ok("5")),
    ];
    let next: Value =
        serde_json::from_slice(&model.request_body(&transcript, &toolkit, false).unwrap()).unwrap();
    let kinds: Vec<&str> = next["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "message",
            "reasoning",
            "message",
            "function_call",
            "function_call_output"
        ]
    );
    assert_eq!(next["input"][1]["encrypted_content"], "ZW5j");
    assert_eq!(next["input"][3]["id"], "fc_1");
    harness::validate("openai-responses", &[next]);
}

#[tokio::test]
async fn a_stream_error_event_is_a_model_error() {
    let server = Server::start([Canned::sse([
        (Some("response.created"), json!({"type": "response.created", "sequence_number": 0, "response": response(vec![], "in_progress", None)}).to_string()),
        (Some("error"), json!({"type": "error", "sequence_number": 1, "code": "rate_limit_exceeded", "message": "Slow down", "param": null}).to_string()),
    ])])
    .await;
    let sink = |_: Delta| {};
    let error = ResponsesFake
        .model(&server.url)
        .complete(
            toolnexus::model::ModelRequest::new(&[Message::user("hi")], &Toolkit::new())
                .with_on_delta(&sink),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("rate_limit_exceeded: Slow down"), "{error}");
}

#[tokio::test]
async fn pdfs_and_pending_calls_take_the_documented_forms() {
    let server = Server::start([ResponsesFake.text("ok")]).await;
    let pdf = toolnexus::ContentPart::file_bytes(
        b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF".to_vec(),
        "application/pdf",
    )
    .unwrap();
    let transcript = vec![
        Message::user("read it, then deploy"),
        Message::tool_calls(
            None,
            vec![
                ToolCall::new("c1", "snapshot", "{}"),
                ToolCall::new("c2", "deploy", "{}"),
            ],
        ),
        Message::tool_result("c1", &ToolResult::ok("the report").with_parts(vec![pdf])),
        Message::tool_result(
            "c2",
            &ToolResult::pending(toolnexus::Request::input("Where?")),
        ),
    ];
    ResponsesFake
        .model(&server.url)
        .complete(toolnexus::model::ModelRequest::new(
            &transcript,
            &harness::toolkit(Default::default()),
        ))
        .await
        .unwrap();
    let body = &server.bodies()[0];
    harness::assert_no_toolnexus_keys("openai-responses", body);
    let file = &body["input"][3]["output"][1];
    assert_eq!(file["type"], "input_file");
    // An unnamed file goes as "file", as the Python port sends it.
    assert_eq!(file["filename"], "file");
    assert!(
        file["file_data"]
            .as_str()
            .unwrap()
            .starts_with("data:application/pdf;base64,")
    );
    let pending = body["input"][4]["output"].as_str().unwrap();
    assert!(
        pending.contains("waiting on the user") && pending.contains("Where?"),
        "{pending}"
    );
    harness::validate("openai-responses", &server.bodies());
}

/// A prompt of parts reaches the Responses API as its own input parts: images by data
/// URL and by URL, the PDF as a named `input_file`; it takes no audio part, so the clip
/// is a text line saying it was left out.
#[tokio::test]
async fn a_prompt_with_images_a_file_and_audio_is_sent_in_responses_parts() {
    let server = harness::image_prompt(&ResponsesFake).await;
    let body = &server.bodies()[0];
    let content = body["input"][0]["content"].as_array().unwrap();
    assert_eq!(body["input"][0]["role"], "user");
    let url = content[0]["image_url"].as_str().unwrap();
    assert!(url.starts_with("data:image/png;base64,iVBOR"), "{url}");
    assert_eq!(
        content[1..],
        [
            json!({"type": "input_text", "text": "What do these show?"}),
            json!({"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "auto"}),
            json!({"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0xLjcK", "filename": "report.pdf"}),
            json!({"type": "input_text", "text": "[audio (audio/wav, 12 bytes) omitted: OpenAI Responses does not accept this kind of content here]"}),
        ]
    );
}

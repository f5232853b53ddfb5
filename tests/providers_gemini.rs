//! `toolnexus::providers::Gemini` against a local server replaying `generateContent`
//! responses (JSON and server-sent events), with every request body it sent checked
//! against google-genai's pydantic models (unknown fields forbidden).

#[path = "support/providers.rs"]
mod harness;
#[path = "providers/server.rs"]
mod server;

use serde_json::{Value, json};
use toolnexus::model::FinishReason;
use toolnexus::providers::{Gemini, Retry};
use toolnexus::{Message, Model, ToolCall, Toolkit, Usage};

use harness::{Fake, SECRET};
use server::{Canned, Server};

struct GeminiFake;

impl Fake for GeminiFake {
    const NAME: &'static str = "gemini";
    type Model = Gemini;

    fn model(&self, url: &str) -> Gemini {
        Gemini::new(SECRET, "gemini-test").with_base_url(url)
    }

    fn calls(&self, calls: &[(&str, &str, Value)]) -> Canned {
        let parts: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (id, name, args))| {
                let mut part = json!({"functionCall": {"id": id, "name": name, "args": args}});
                if i == 0 {
                    part["thoughtSignature"] = json!("c2lnbmF0dXJl");
                }
                part
            })
            .collect();
        response(parts, "STOP")
    }

    fn text(&self, text: &str) -> Canned {
        response(vec![json!({"text": text})], "STOP")
    }

    fn error(&self, status: u16, _code: &str, message: &str) -> Canned {
        let state = match status {
            400 => "INVALID_ARGUMENT",
            401 => "UNAUTHENTICATED",
            403 => "PERMISSION_DENIED",
            404 => "NOT_FOUND",
            429 => "RESOURCE_EXHAUSTED",
            503 => "UNAVAILABLE",
            _ => "INTERNAL",
        };
        let message = if status == 400 && message.contains("context") {
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
        } else {
            message
        };
        Canned::status(
            status,
            json!({"error": {"code": status, "message": message, "status": state}}),
        )
    }

    fn auth(&self) -> (&'static str, String) {
        ("x-goog-api-key", SECRET.to_owned())
    }

    fn retry(&self, model: Gemini, retry: Retry) -> Gemini {
        model.retry(retry)
    }
}

/// A `generateContent` response, shaped as the Gemini API documents it.
fn response(parts: Vec<Value>, finish: &str) -> Canned {
    Canned::json(json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 8, "totalTokenCount": 48},
        "modelVersion": "gemini-test", "responseId": "r1"
    }))
}

provider_suite!(GeminiFake, "GEMINI_API_KEY", "gemini-test");

#[test]
fn the_models_prefix_is_dropped() {
    assert_eq!(
        Gemini::new(SECRET, "models/gemini-test").model(),
        "gemini-test"
    );
}

#[tokio::test]
async fn full_loop_with_parallel_calls_errors_images_and_suspensions() {
    let server = harness::full_loop(&GeminiFake).await;
    for request in server.requests() {
        assert_eq!(request.path, "/v1beta/models/gemini-test:generateContent");
    }
    let second = &server.bodies()[1];
    assert_eq!(
        second["systemInstruction"],
        json!({"parts": [{"text": "You run tools."}]})
    );
    let contents = second["contents"].as_array().unwrap();
    let roles: Vec<&str> = contents
        .iter()
        .map(|c| c["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model", "user"]);
    let calls = contents[1]["parts"].as_array().unwrap();
    assert_eq!(
        calls[0],
        json!({"functionCall": {"id": "call_add", "name": "add", "args": {"a": 2, "b": 3}},
               "thoughtSignature": "c2lnbmF0dXJl"}),
        "the call's thought signature goes back with it"
    );
    let responses = contents[2]["parts"].as_array().unwrap();
    assert_eq!(
        responses[0],
        json!({"functionResponse": {"id": "call_add", "name": "add", "response": {"output": "5"}}})
    );
    assert_eq!(
        responses[1]["functionResponse"]["response"],
        json!({"error": "disk full"})
    );
    let image = &responses[2]["functionResponse"]["parts"][0]["inlineData"];
    assert_eq!(image["mimeType"], "image/png");
    assert!(image["data"].as_str().unwrap().starts_with("iVBOR"));
    let toolkit = harness::toolkit(Default::default());
    assert_eq!(
        second["tools"],
        *toolkit.listing(toolnexus::schema::profile::Profile::Gemini)
    );
}

#[tokio::test]
async fn calls_without_ids_get_local_ones_that_stay_local() {
    let server = Server::start([
        response(
            vec![json!({"functionCall": {"name": "add", "args": {"a": 1, "b": 1}}})],
            "STOP",
        ),
        GeminiFake.text("2"),
    ])
    .await;
    let toolkit = harness::toolkit(Default::default());
    let run = toolnexus::Client::new(GeminiFake.model(&server.url))
        .run("1+1", &toolkit)
        .await;
    assert!(run.is_done(), "{:?}", run.status);
    assert!(!run.tool_calls[0].call.id.is_empty());
    let second = &server.bodies()[1];
    let call = &second["contents"][1]["parts"][0]["functionCall"];
    assert!(call.get("id").is_none(), "{call}");
    let response = &second["contents"][2]["parts"][0]["functionResponse"];
    assert!(
        response.get("id").is_none() && response["name"] == "add",
        "{response}"
    );
    harness::validate("gemini", &server.bodies());
}

#[tokio::test]
async fn safety_stops_length_cutoffs_and_blocked_prompts() {
    let server = Server::start([
        response(vec![json!({"text": "I cannot"})], "SAFETY"),
        response(vec![json!({"text": "The answer is"})], "MAX_TOKENS"),
        Canned::json(
            json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
                            "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 5}}),
        ),
    ])
    .await;
    let model = GeminiFake.model(&server.url);
    let filtered = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(filtered.finish_reason, Some(FinishReason::ContentFilter));
    let cut = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(cut.finish_reason, Some(FinishReason::Length));
    let blocked = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap_err();
    assert!(
        blocked.to_string().contains("PROHIBITED_CONTENT"),
        "{blocked}"
    );
}

/// Chunks as Gemini streams them with `alt=sse`: each a whole response with a piece of
/// text, function calls arriving whole, usage and finish reason on the last.
fn streamed_turn() -> Canned {
    let chunk = |parts: Value, last: bool| {
        let mut chunk = json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
                               "modelVersion": "gemini-test"});
        if last {
            chunk["candidates"][0]["finishReason"] = json!("STOP");
            chunk["usageMetadata"] = json!({"promptTokenCount": 40, "candidatesTokenCount": 12, "thoughtsTokenCount": 3, "totalTokenCount": 55});
        }
        (None, chunk.to_string())
    };
    Canned::sse([
        chunk(json!([{"text": "Let me "}]), false),
        chunk(json!([{"text": "add that."}]), false),
        chunk(
            json!([{"functionCall": {"id": "g1", "name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "c2ln"},
                     {"functionCall": {"id": "g2", "name": "fail", "args": {}}}]),
            true,
        ),
    ])
}

#[tokio::test]
async fn streaming_assembles_text_and_tool_call_deltas() {
    let server = Server::start([streamed_turn()]).await;
    let toolkit = harness::toolkit(Default::default());
    let model = GeminiFake.model(&server.url).max_tokens(256);
    let (reply, _) = harness::stream(&model, &toolkit).await;
    assert_eq!(reply.content.as_deref(), Some("Let me add that."));
    assert_eq!(
        reply.tool_calls,
        [
            ToolCall::new("g1", "add", r#"{"a":2,"b":3}"#),
            ToolCall::new("g2", "fail", "{}")
        ]
    );
    assert_eq!(
        reply.usage,
        Usage::new(40, 15).with_reasoning(3),
        "thinking tokens count as output, and as reasoning"
    );
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    let request = &server.requests()[0];
    assert_eq!(
        request.path,
        "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        request.body["generationConfig"],
        json!({"maxOutputTokens": 256})
    );
    harness::validate("gemini", &server.bodies());
}

#[tokio::test]
async fn pdfs_audio_and_pending_calls_take_the_documented_forms() {
    let server = Server::start([GeminiFake.text("ok")]).await;
    let pdf = toolnexus::ContentPart::file_bytes(
        b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF".to_vec(),
        "application/pdf",
    )
    .unwrap();
    let mut wav = b"RIFF\x28\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00".to_vec();
    wav.extend_from_slice(
        b"\x40\x1f\x00\x00\x40\x1f\x00\x00\x01\x00\x08\x00data\x04\x00\x00\x00\x80\x80\x80\x80",
    );
    let wav = toolnexus::ContentPart::audio_bytes(wav, "audio/wav").unwrap();
    let transcript = vec![
        Message::user("go"),
        Message::tool_calls(
            Some("Reading.".into()),
            vec![
                ToolCall::new("c1", "read", "{}"),
                ToolCall::new("c2", "deploy", "{}"),
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
    ];
    GeminiFake
        .model(&server.url)
        .complete(toolnexus::model::ModelRequest::new(
            &transcript,
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    let body = &server.bodies()[0];
    harness::assert_no_toolnexus_keys("gemini", body);
    assert!(body.get("tools").is_none());
    let parts = body["contents"][2]["parts"].as_array().unwrap();
    assert_eq!(
        parts[0]["functionResponse"]["parts"][0]["inlineData"]["mimeType"],
        "application/pdf"
    );
    assert!(
        parts[0]["functionResponse"]["parts"]
            .as_array()
            .unwrap()
            .len()
            == 1
    );
    let pending = parts[1]["functionResponse"]["response"]["output"]
        .as_str()
        .unwrap();
    assert_eq!(
        parts[2]["inlineData"]["mimeType"], "audio/wav",
        "audio follows the responses"
    );
    assert!(pending.contains("Where?"), "{pending}");
    harness::validate("gemini", &server.bodies());
}

/// A prompt of parts reaches Gemini as its own parts: bytes as `inlineData`, the linked
/// image as `fileData`, the question as `text`.
#[tokio::test]
async fn a_prompt_with_images_a_file_and_audio_is_sent_in_gemini_parts() {
    let server = harness::image_prompt(&GeminiFake).await;
    let body = &server.bodies()[0];
    let parts = body["contents"][0]["parts"].as_array().unwrap();
    assert_eq!(body["contents"][0]["role"], "user");
    assert_eq!(parts[0]["inlineData"]["mimeType"], "image/png");
    assert_eq!(
        parts[1..],
        [
            json!({"text": "What do these show?"}),
            json!({"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/cat.png"}}),
            json!({"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0xLjcK"}}),
            json!({"inlineData": {"mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"}}),
        ]
    );
}

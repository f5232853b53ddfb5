//! `toolnexus::providers::Bedrock` against a local server replaying Converse and
//! ConverseStream responses, judged by botocore, AWS's own Python core: every request
//! body passes botocore's parameter validator on the bedrock-runtime service model and
//! is what botocore's serializer writes from the same parameters; every request's
//! signature is what botocore's SigV4Auth computes for the same request, credentials and
//! time; every response body the tests replay parses with botocore's rest-json parser,
//! and every event stream (written with the AWS event-stream encoder) is read by
//! botocore's EventStream reader as the events it carries.

#[path = "providers/eventstream.rs"]
mod eventstream;
#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use serde_json::{Value, json};
use toolnexus::model::{Delta, FinishReason};
use toolnexus::providers::{Bedrock, Retry, Wire};
use toolnexus::{
    Message, Model, ModelSettings, Reasoning, ToolCall, ToolChoice, ToolResult, Toolkit,
};

use harness::Fake;
use server::{Canned, Recorded, Server};

const MODEL: &str = "anthropic.claude-sonnet-4-5-v1:0";
const KEY: &str = "AKIDEXAMPLE";
const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const TOKEN: &str = "session-token-0123456789";
const STREAM_TYPE: &str = "application/vnd.amazon.eventstream";

struct BedrockFake;

/// A Converse response body.
fn response(content: Vec<Value>, stop: &str) -> Value {
    json!({
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 30, "outputTokens": 12, "totalTokens": 62,
                  "cacheReadInputTokens": 16, "cacheWriteInputTokens": 4},
        "metrics": {"latencyMs": 310}
    })
}

fn model(url: &str) -> Bedrock {
    Bedrock::new("us-east-1", MODEL)
        .with_base_url(url)
        .credentials(KEY, SECRET, Some(TOKEN.to_owned()))
}

impl Fake for BedrockFake {
    const NAME: &'static str = "bedrock";
    type Model = Bedrock;

    fn model(&self, url: &str) -> Bedrock {
        model(url)
    }

    fn calls(&self, calls: &[(&str, &str, Value)]) -> Canned {
        let content = calls
            .iter()
            .map(|(id, name, input)| json!({"toolUse": {"toolUseId": id, "name": name, "input": input}}))
            .collect();
        Canned::json(response(content, "tool_use"))
    }

    fn text(&self, text: &str) -> Canned {
        Canned::json(response(vec![json!({"text": text})], "end_turn"))
    }

    fn error(&self, status: u16, code: &str, message: &str) -> Canned {
        let kind = match status {
            429 => "ThrottlingException",
            404 => "ResourceNotFoundException",
            503 => "ServiceUnavailableException",
            403 => "AccessDeniedException",
            _ => "ValidationException",
        };
        let _ = code;
        Canned::status(status, json!({ "message": message })).header(
            "x-amzn-errortype",
            format!("{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
        )
    }

    fn auth(&self) -> (&'static str, String) {
        // The signature changes with every request; the session token does not.
        ("x-amz-security-token", TOKEN.to_owned())
    }

    fn retry(&self, model: Bedrock, retry: Retry) -> Bedrock {
        model.retry(retry)
    }
}

/// Every recorded request, with its path, judged by botocore: the body (validator and
/// serializer) and the signature.
fn judge_requests(requests: &[Recorded], url: &str) {
    let bodies: Vec<Value> = requests
        .iter()
        .map(|r| json!({"path": r.path, "body": r.body}))
        .collect();
    harness::validate("bedrock", &bodies);
    let signed: Vec<Value> = requests
        .iter()
        .map(|r| {
            let headers: serde_json::Map<String, Value> = r
                .headers
                .iter()
                .map(|(name, value)| (name.to_string(), json!(value.to_str().unwrap())))
                .collect();
            json!({"method": r.method, "url": format!("{url}{}", r.path), "headers": headers,
                   "body": base64(&r.raw), "access_key": KEY, "secret_key": SECRET,
                   "token": TOKEN, "region": "us-east-1"})
        })
        .collect();
    harness::validate("bedrock-signatures", &signed);
}

fn base64(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            let _ = match i <= chunk.len() {
                true => write!(out, "{}", TABLE[(n >> (18 - 6 * i)) as usize & 63] as char),
                false => write!(out, "="),
            };
        }
    }
    out
}

/// The stream of `response`, and botocore's reading of it.
fn stream_of(response: &Value) -> Vec<u8> {
    let events = eventstream::events(response);
    let bytes = eventstream::frames(&events);
    let expected: Vec<Value> = events
        .iter()
        .map(|(k, p)| json!({ k.as_str(): p }))
        .collect();
    harness::validate(
        "bedrock-stream",
        &[json!({"bytes": base64(&bytes), "events": expected})],
    );
    bytes
}

#[test]
fn the_replayed_bodies_parse_in_botocore() {
    let bodies = [
        response(vec![json!({"text": "hi"})], "end_turn"),
        response(
            vec![
                json!({"reasoningContent": {"reasoningText": {"text": "Add first.", "signature": "c2ln"}}}),
                json!({"reasoningContent": {"redactedContent": "cmVkYWN0ZWQ="}}),
                json!({"toolUse": {"toolUseId": "tooluse_1", "name": "add", "input": {"a": 1}}}),
            ],
            "tool_use",
        ),
        response(vec![json!({"text": "The answer is"})], "max_tokens"),
    ];
    harness::validate("bedrock-response", &bodies);
    for body in &bodies {
        stream_of(body);
    }
    // The judge has teeth: a misspelled member, a frame botocore reads otherwise.
    let mut wrong = bodies[0].clone();
    wrong["output"]["message"]["contents"] = json!([]);
    if let Some(errors) = harness::validation_errors("bedrock-response", &[wrong]) {
        assert!(errors.join("\n").contains("contents"), "{errors:?}");
    }
    let events = eventstream::events(&bodies[0]);
    let bytes = eventstream::frames(&events);
    let claimed = json!([{"messageStart": {"role": "user"}}]);
    if let Some(errors) = harness::validation_errors(
        "bedrock-stream",
        &[json!({"bytes": base64(&bytes), "events": claimed})],
    ) {
        assert_eq!(errors.len(), 1, "{errors:?}");
    }
    let body = json!({"messages": [{"role": "user", "content": [{"text": "hi"}]}], "inferenceConfig": {"maxTokens": "ten"}});
    if let Some(errors) = harness::validation_errors("bedrock", &[body]) {
        assert!(errors.join("\n").contains("maxTokens"), "{errors:?}");
    }
}

#[tokio::test]
async fn full_loop_with_parallel_calls_errors_images_and_suspensions() {
    let server = harness::full_loop(&BedrockFake).await;
    let requests = server.requests();
    let path = "/model/anthropic.claude-sonnet-4-5-v1%3A0/converse";
    assert!(
        requests.iter().all(|r| r.path == path),
        "{:?}",
        requests[0].path
    );
    let second = &requests[1].body;
    // Claude takes cache points: after the system prompt, at the conversation's end.
    assert_eq!(
        second["system"],
        json!([{"text": "You run tools."}, {"cachePoint": {"type": "default"}}])
    );
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        3,
        "user, assistant (four calls), user (four results)"
    );
    assert_eq!(
        messages[1]["content"][0],
        json!({"toolUse": {"toolUseId": "call_add", "name": "add", "input": {"a": 2, "b": 3}}})
    );
    let results = messages[2]["content"].as_array().unwrap();
    assert_eq!(
        results[0],
        json!({"toolResult": {"toolUseId": "call_add", "content": [{"text": "5"}]}})
    );
    assert_eq!(results[1]["toolResult"]["status"], "error");
    assert_eq!(
        results[1]["toolResult"]["content"],
        json!([{"text": "disk full"}])
    );
    let snapshot = &results[2]["toolResult"]["content"];
    assert_eq!(snapshot[0], json!({"text": "a picture"}));
    assert_eq!(snapshot[1]["image"]["format"], "png");
    assert_eq!(
        results.last().unwrap(),
        &json!({"cachePoint": {"type": "default"}})
    );
    for request in &requests {
        let authorization = request.headers["authorization"].to_str().unwrap();
        assert!(authorization.starts_with(&format!("AWS4-HMAC-SHA256 Credential={KEY}/")));
        assert!(authorization.contains("/us-east-1/bedrock/aws4_request"));
        assert!(!authorization.contains(SECRET));
    }
    judge_requests(&requests, &server.url);
}

#[tokio::test]
async fn streams_text_calls_and_reasoning_from_event_stream_frames() {
    let turn = response(
        vec![
            json!({"reasoningContent": {"reasoningText": {"text": "Two sums, in parallel.", "signature": "c2lnbmF0dXJl"}}}),
            json!({"text": "Adding: "}),
            json!({"toolUse": {"toolUseId": "tooluse_a", "name": "add", "input": {"a": 2, "b": 3}}}),
            json!({"toolUse": {"toolUseId": "tooluse_b", "name": "add", "input": {"a": 5, "b": 8}}}),
        ],
        "tool_use",
    );
    let server = Server::start([Canned::binary(STREAM_TYPE, stream_of(&turn))]).await;
    let toolkit = harness::toolkit(Default::default());
    let model =
        model(&server.url).with_settings(ModelSettings::new().reasoning(Reasoning::budget(2_048)));
    let (reply, deltas) = harness::stream(&model, &toolkit).await;
    assert_eq!(reply.content.as_deref(), Some("Adding: "));
    assert_eq!(
        reply.tool_calls,
        [
            ToolCall::new("tooluse_a", "add", r#"{"a":2,"b":3}"#),
            ToolCall::new("tooluse_b", "add", r#"{"a":5,"b":8}"#),
        ]
    );
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(reply.usage.prompt_tokens, 50);
    assert_eq!(reply.usage.cache_read_tokens, 16);
    assert_eq!(reply.usage.cache_write_tokens, 4);
    assert!(
        deltas.contains(&Delta::Reasoning("Two sums, i".into())),
        "{deltas:?}"
    );
    // The reasoning is kept as Converse wrote it, to go back with the calls.
    let native = reply.native.expect("the reasoning is kept");
    assert_eq!(native.provider, "aws.bedrock");
    assert_eq!(native.content[0], turn["output"]["message"]["content"][0]);
    assert_eq!(native.content[2], turn["output"]["message"]["content"][2]);
    let request = &server.requests()[0];
    assert_eq!(
        request.path,
        "/model/anthropic.claude-sonnet-4-5-v1%3A0/converse-stream"
    );
    assert_eq!(
        request.body["additionalModelRequestFields"],
        json!({"thinking": {"type": "enabled", "budget_tokens": 2048}})
    );
    assert_eq!(request.body["inferenceConfig"], json!({"maxTokens": 6144}));
    judge_requests(&server.requests(), &server.url);
}

#[tokio::test]
async fn a_stream_that_ends_in_an_exception_is_an_error() {
    let mut bytes = eventstream::frames(&[("messageStart".into(), json!({"role": "assistant"}))]);
    bytes.extend(eventstream::exception(
        "throttlingException",
        "Too many tokens, please wait.",
    ));
    let server = Server::start([Canned::binary(STREAM_TYPE, bytes)]).await;
    let sink = |_: Delta| {};
    let error = model(&server.url)
        .complete(
            toolnexus::model::ModelRequest::new(&[Message::user("hi")], &Toolkit::new())
                .with_on_delta(&sink),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("throttlingException: Too many tokens"),
        "{error}"
    );
}

#[tokio::test]
async fn settings_map_to_converse_fields_or_are_refused_by_name() {
    let server = Server::start([BedrockFake.text("ok"), BedrockFake.text("ok")]).await;
    let toolkit = harness::toolkit(Default::default());
    let settings = ModelSettings::new()
        .temperature(0.3)
        .top_p(0.9)
        .max_tokens(512)
        .stop(["END"])
        .tool_choice(ToolChoice::tool("add"))
        .extra(json!({"additionalModelRequestFields": {"top_k": 40}}));
    let reply = model(&server.url)
        .with_settings(settings)
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &toolkit,
        ))
        .await
        .unwrap();
    assert_eq!(reply.content.as_deref(), Some("ok"));
    let body = &server.bodies()[0];
    assert_eq!(
        body["inferenceConfig"],
        json!({"maxTokens": 512, "temperature": 0.3, "topP": 0.9, "stopSequences": ["END"]})
    );
    assert_eq!(
        body["toolConfig"]["toolChoice"],
        json!({"tool": {"name": "add"}})
    );
    assert_eq!(body["additionalModelRequestFields"], json!({"top_k": 40}));
    let tools = body["toolConfig"]["tools"].as_array().unwrap();
    assert_eq!(tools[0]["toolSpec"]["name"], "add");
    assert_eq!(
        tools[0]["toolSpec"]["inputSchema"]["json"]["type"],
        "object"
    );
    // Claude without a system prompt: the tools carry the cache point.
    assert_eq!(
        tools.last().unwrap(),
        &json!({"cachePoint": {"type": "default"}})
    );

    // A model without cache points (Llama) gets none; Nova reasons at an effort.
    let llama = model(&server.url);
    let llama = Bedrock::new("us-east-1", "meta.llama3-70b-instruct-v1:0")
        .with_base_url(llama.base_url())
        .credentials(KEY, SECRET, None);
    llama
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::system("Be brief."), Message::user("hi")],
            &toolkit,
        ))
        .await
        .unwrap();
    let body = &server.bodies()[1];
    assert!(!body.to_string().contains("cachePoint"), "{body}");
    assert_eq!(body["system"], json!([{"text": "Be brief."}]));
    let nova = Bedrock::new("us-east-1", "amazon.nova-pro-v1:0")
        .with_settings(ModelSettings::new().reasoning(Reasoning::effort("medium")));
    let nova_body: Value = serde_json::from_slice(
        &nova
            .request_body(&[Message::user("hi")], &toolkit, false)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        nova_body["additionalModelRequestFields"],
        json!({"reasoningConfig": {"type": "enabled", "maxReasoningEffort": "medium"}})
    );
    let mut judged: Vec<Value> = server
        .bodies()
        .iter()
        .map(|b| json!({"path": "/model/m/converse", "body": b}))
        .collect();
    judged.push(nova_body);
    harness::validate("bedrock", &judged);

    let refused = |settings: ModelSettings, model: &str| {
        Bedrock::new("us-east-1", model)
            .with_settings(settings)
            .request_body(&[Message::user("hi")], &toolkit, false)
            .unwrap_err()
            .to_string()
    };
    for (settings, model, words) in [
        (ModelSettings::new().seed(7), MODEL, "`seed`"),
        (
            ModelSettings::new().tool_choice(ToolChoice::None),
            MODEL,
            "no `none`",
        ),
        (
            ModelSettings::new().parallel_tool_calls(false),
            MODEL,
            "`parallel_tool_calls`",
        ),
        (
            ModelSettings::new().reasoning(Reasoning::effort("high")),
            MODEL,
            "Reasoning::budget",
        ),
        (
            ModelSettings::new().reasoning(Reasoning::budget(500)),
            MODEL,
            "at least 1024",
        ),
        (
            ModelSettings::new().reasoning(Reasoning::budget(4_000)),
            "amazon.nova-lite-v1:0",
            "not a token budget",
        ),
        (
            ModelSettings::new().reasoning(Reasoning::effort("high")),
            "meta.llama3-70b-instruct-v1:0",
            "additionalModelRequestFields",
        ),
    ] {
        let error = refused(settings, model);
        assert!(error.starts_with("Bedrock: the setting"), "{error}");
        assert!(error.contains(words), "{error}");
        assert!(error.contains("nothing was sent"), "{error}");
    }
}

#[tokio::test]
async fn a_tool_result_carries_a_pdf_as_a_named_document() {
    let pdf = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n".to_vec();
    let result = ToolResult::ok("the report").with_parts(vec![
        toolnexus::ContentPart::file_bytes(pdf, "application/pdf").unwrap(),
    ]);
    let transcript = [
        Message::user("Read it."),
        Message::Assistant {
            content: None,
            tool_calls: vec![ToolCall::new("tooluse_r", "snapshot", "{}")],
            native: None,
        },
        Message::tool_result("tooluse_r", &result),
    ];
    let toolkit = harness::toolkit(Default::default());
    let body: Value = serde_json::from_slice(
        &Bedrock::new("us-east-1", "meta.llama3-70b-instruct-v1:0")
            .request_body(&transcript, &toolkit, false)
            .unwrap(),
    )
    .unwrap();
    let document = &body["messages"][2]["content"][0]["toolResult"]["content"][1]["document"];
    assert_eq!(document["format"], "pdf");
    assert_eq!(document["name"], "document 1");
    harness::validate("bedrock", &[body]);
}

#[tokio::test]
async fn an_api_key_goes_as_a_bearer_token_unsigned() {
    let server = Server::start([BedrockFake.text("ok")]).await;
    let model = Bedrock::new("us-west-2", MODEL)
        .with_base_url(&server.url)
        .api_key("bedrock-api-key-123456");
    model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    let request = &server.requests()[0];
    assert_eq!(
        request.headers["authorization"],
        "Bearer bedrock-api-key-123456"
    );
    assert!(request.headers.get("x-amz-date").is_none());
    assert!(!format!("{model:?}").contains("bedrock-api-key-123456"));
}

#[tokio::test]
async fn refused_credentials_say_what_to_check_and_show_no_secret() {
    let server = Server::start([BedrockFake.error(
        403,
        "",
        "The security token included in the request is invalid.",
    )])
    .await;
    let model = model(&server.url);
    let error = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(server.requests().len(), 1, "a 403 is not retried");
    assert!(error.contains("AWS credentials were refused"), "{error}");
    assert!(error.contains("AccessDeniedException"), "{error}");
    for secret in [SECRET, TOKEN] {
        assert!(!error.contains(secret), "{error}");
        assert!(!format!("{model:?}").contains(secret));
    }
}

#[tokio::test]
async fn throttling_is_retried_as_on_every_provider() {
    harness::rate_limited_then_ok(&BedrockFake).await;
    harness::errors_say_what_happened(&BedrockFake, MODEL).await;
    harness::dropped_turn_is_cancelled(&BedrockFake).await;
}

/// A prompt of parts reaches the Converse API as its own blocks: the PNG as an `image`,
/// the PDF as a `document`. Converse takes media as bytes only: the linked image and
/// the audio clip are text lines saying they were left out.
#[tokio::test]
async fn a_prompt_with_images_a_file_and_audio_is_sent_in_converse_blocks() {
    let server = harness::image_prompt(&BedrockFake).await;
    let body = &server.bodies()[0];
    let content = body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(body["messages"][0]["role"], "user");
    assert_eq!(content[0]["image"]["format"], "png");
    assert_eq!(content[1], json!({"text": "What do these show?"}));
    assert_eq!(
        content[2],
        json!({"text": "[image (image/png, 0 bytes) at https://example.com/cat.png omitted: Bedrock does not accept this kind of content by URL here]"})
    );
    assert_eq!(
        content[3],
        json!({"document": {"format": "pdf", "name": "document 1", "source": {"bytes": "JVBERi0xLjcK"}}})
    );
    assert_eq!(
        content[4],
        json!({"text": "[audio (audio/wav, 12 bytes) omitted: Bedrock does not accept this kind of content here]"})
    );
}

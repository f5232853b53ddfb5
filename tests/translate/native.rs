//! The Rust port's own providers the Python port does not have: Gemini (`generateContent`)
//! and OpenAI's Responses API, on the contract's fixture input. The inbound half is
//! checked in each API's terms, every body against the SDKs' types, and the result in the
//! contract's shape.

use serde_json::{Value, json};
use toolnexus::providers::{Gemini, OpenAi, OpenAiResponses};
use toolnexus::translate::{TranslateError, TranslateRequest, translate};

use crate::cases::{Case, fixture_request};
use crate::server::{Canned, Server};

fn fixture() -> Case {
    Case {
        name: "fixture",
        request: fixture_request(),
        toolkit: None,
        anthropic: None,
        openai: None,
    }
}

#[tokio::test]
async fn gemini_reads_the_history_natively() {
    let server = Server::start([Canned::json(json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "On it."},
            {"functionCall": {"name": "alpha", "args": {"n": 3}}}
        ]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 8, "totalTokenCount": 48}
    }))])
    .await;
    let model = Gemini::new("k", "gemini-test")
        .with_base_url(&server.url)
        .max_retries(0);
    let result = translate(&model, &crate::port::request(&fixture()))
        .await
        .unwrap();
    let body = &server.bodies()[0];
    assert_eq!(
        body["systemInstruction"]["parts"],
        json!([{"text": "Be terse."}]),
        "{body}"
    );
    let contents = body["contents"].as_array().unwrap();
    let roles: Vec<&str> = contents
        .iter()
        .map(|c| c["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model", "user"], "{body}");
    assert_eq!(contents[0]["parts"], json!([{"text": "part one part two"}]));
    assert_eq!(
        contents[1]["parts"],
        json!([
            {"text": "thinking"},
            {"functionCall": {"id": "c1", "name": "alpha", "args": {"n": 1}}},
            {"functionCall": {"id": "c2", "name": "beta", "args": {"n": 2}}}
        ])
    );
    // The two results in one user turn, each naming its function; the trailing prompt after them.
    let results = contents[2]["parts"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{body}");
    for (part, (id, name, output)) in results
        .iter()
        .zip([("c1", "alpha", "ra"), ("c2", "beta", "rb")])
    {
        let response = &part["functionResponse"];
        assert_eq!(
            (&response["id"], &response["name"]),
            (&json!(id), &json!(name)),
            "{body}"
        );
        assert_eq!(response["response"], json!({"output": output}), "{body}");
    }
    assert_eq!(results[2], json!({"text": "and now?"}));
    assert_eq!(body["tools"][0]["functionDeclarations"][0]["name"], "alpha");
    assert_eq!(
        body["toolConfig"]["functionCallingConfig"]["mode"], "ANY",
        "{body}"
    );
    crate::harness::validate("gemini", &server.bodies());

    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result["text"], "On it.");
    assert_eq!(result["toolCalls"][0]["name"], "alpha");
    assert_eq!(result["toolCalls"][0]["arguments"], "{\"n\":3}");
    assert_eq!(result["finishReason"], "tool_calls");
    assert_eq!(
        result["usage"],
        json!({"prompt_tokens": 40, "completion_tokens": 8, "total_tokens": 48})
    );
    assert_eq!(result["model"], "gemini-test");
}

#[tokio::test]
async fn responses_reads_the_history_natively() {
    let server = Server::start([Canned::json(json!({
        "id": "resp_1", "object": "response", "created_at": 1_760_000_000, "status": "completed",
        "model": "gpt-test", "parallel_tool_calls": true, "tool_choice": "required", "tools": [],
        "error": null, "incomplete_details": null,
        "output": [{"id": "fc_1", "type": "function_call", "call_id": "call_9", "name": "alpha",
                    "arguments": "{\"n\":3}", "status": "completed"}],
        "usage": {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 7, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 19}
    }))])
    .await;
    let model = OpenAiResponses::new("k", "gpt-test")
        .with_base_url(format!("{}/v1", server.url))
        .max_retries(0);
    let result = translate(&model, &crate::port::request(&fixture()))
        .await
        .unwrap();
    let body = &server.bodies()[0];
    assert_eq!(body["instructions"], "Be terse.", "{body}");
    let kinds: Vec<Value> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            item.get("type")
                .cloned()
                .unwrap_or_else(|| item["role"].clone())
        })
        .collect();
    assert_eq!(
        kinds,
        [
            json!("message"),
            json!("message"),
            json!("function_call"),
            json!("function_call"),
            json!("function_call_output"),
            json!("function_call_output"),
            json!("message")
        ],
        "{body}"
    );
    let input = body["input"].as_array().unwrap();
    assert_eq!(
        (&input[2]["call_id"], &input[2]["arguments"]),
        (&json!("c1"), &json!("{\"n\":1}"))
    );
    assert_eq!(
        (&input[3]["call_id"], &input[3]["arguments"]),
        (&json!("c2"), &json!("{\"n\":2}"))
    );
    assert_eq!(
        (&input[4]["call_id"], &input[4]["output"]),
        (&json!("c1"), &json!("ra"))
    );
    assert_eq!(
        (&input[5]["call_id"], &input[5]["output"]),
        (&json!("c2"), &json!("rb"))
    );
    assert_eq!(body["tools"][0]["name"], "alpha");
    assert_eq!(body["tool_choice"], "required");
    crate::harness::validate("openai-responses", &server.bodies());

    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(
        result["toolCalls"],
        json!([{"id": "call_9", "name": "alpha", "arguments": "{\"n\":3}"}])
    );
    assert_eq!(result["finishReason"], "tool_calls");
    assert_eq!(result["usage"]["total_tokens"], 19);
}

/// A tool the provider's dialect cannot express is refused before anything is sent,
/// rather than left out of the listing (a silent loss): Gemini takes no recursive schema,
/// which OpenAI lists as it is.
#[tokio::test]
async fn a_tool_the_provider_cannot_list_is_refused() {
    let recursive = json!({"type": "function", "function": {"name": "tree", "description": "a tree",
        "parameters": {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}}}}});
    let request =
        TranslateRequest::new([json!({"role": "user", "content": "hi"})]).tools([recursive]);
    let server = Server::start([]).await;
    let gemini = Gemini::new("k", "gemini-test").with_base_url(&server.url);
    match translate(&gemini, &request).await {
        Err(TranslateError::Request { at, message }) => {
            assert_eq!(at, "tools");
            assert!(message.contains("tree"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(server.requests().is_empty(), "nothing was sent");

    let server = Server::start([Canned::json(crate::cases::chat(
        json!({"content": "ok"}),
        "stop",
    ))])
    .await;
    let openai = OpenAi::compatible(format!("{}/v1", server.url), "m");
    translate(&openai, &request).await.unwrap();
    assert_eq!(server.bodies()[0]["tools"][0]["function"]["name"], "tree");
}

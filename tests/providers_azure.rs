//! `toolnexus::providers::AzureOpenAi` against a local server, every request checked
//! against Azure OpenAI's published REST reference (the data-plane inference
//! specification, `stable/2024-10-21/inference.json`: server `https://{endpoint}/openai`,
//! `POST /deployments/{deployment-id}/chat/completions` with the required query
//! parameter `api-version`, security `apiKey` (header `api-key`) or `bearer`; the
//! Responses API at `/responses` with the deployment as `model`, and Azure's v1 API at
//! `/openai/v1/…` without `api-version`), and every body by the openai SDK's request
//! types, as for OpenAI itself.

#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use serde_json::json;
use toolnexus::providers::AzureOpenAi;
use toolnexus::{Client, Message, Model, ModelSettings, Reasoning, Toolkit};

use server::{Canned, Recorded, Server};

const KEY: &str = "azure-key-0123456789abcdef";

fn chat_reply(text: &str) -> Canned {
    Canned::json(
        json!({"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}),
    )
}

fn calls_reply() -> Canned {
    Canned::json(
        json!({"id": "c0", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
            "content": null, "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}),
    )
}

fn responses_reply(text: &str) -> Canned {
    Canned::json(
        json!({"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
        "model": "my-deployment", "output": [{"id": "msg_1", "type": "message", "role": "assistant",
        "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "parallel_tool_calls": true, "tool_choice": "auto", "tools": [], "error": null,
        "incomplete_details": null,
        "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7,
                  "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}),
    )
}

/// What the REST reference requires of a request: its path, its `api-version`, its
/// credential. The reference's path for `api` (`chat` or `responses`), and `version`
/// (`None` for the v1 API).
fn check(
    request: &Recorded,
    api: &str,
    deployment: &str,
    version: Option<&str>,
    auth: (&str, &str),
) {
    let (path, query) = request.path.split_once('?').unwrap_or((&request.path, ""));
    let expected = match (api, version) {
        ("chat", Some(_)) => format!("/openai/deployments/{deployment}/chat/completions"),
        ("responses", Some(_)) => "/openai/responses".to_owned(),
        (api, None) => format!(
            "/openai/v1/{}",
            if api == "chat" {
                "chat/completions"
            } else {
                "responses"
            }
        ),
        _ => unreachable!(),
    };
    assert_eq!(path, expected, "the reference's path");
    let versions: Vec<&str> = query
        .split('&')
        .filter_map(|p| p.strip_prefix("api-version="))
        .collect();
    match version {
        Some(version) => assert_eq!(versions, [version], "api-version is required, once"),
        None => assert!(versions.is_empty(), "the v1 API takes no api-version"),
    }
    assert_eq!(request.method, "POST");
    let (header, value) = auth;
    assert_eq!(request.headers[header], value);
    let other = if header == "api-key" {
        "authorization"
    } else {
        "api-key"
    };
    assert!(
        request.headers.get(other).is_none(),
        "one credential, not both"
    );
    if api == "responses" || version.is_none() {
        assert_eq!(
            request.body["model"], deployment,
            "the deployment is the model"
        );
    }
}

#[tokio::test]
async fn chat_completions_on_a_deployment_with_an_api_key() {
    let server = Server::start([calls_reply(), chat_reply("5")]).await;
    let model = AzureOpenAi::new(format!("{}/", server.url), "gpt4o-prod").api_key(KEY);
    assert_eq!(model.api_version(), "2024-10-21");
    let toolkit = Toolkit::new().with(toolnexus::Tool::new_sync(
        "add",
        "Add two numbers.",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
        |args, _| toolnexus::ToolResult::ok((args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap()).to_string()),
    ));
    let run = Client::new(model.clone())
        .system("Add.")
        .run("2 + 3?", &toolkit)
        .await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "5");
    for request in server.requests() {
        check(
            &request,
            "chat",
            "gpt4o-prod",
            Some("2024-10-21"),
            ("api-key", KEY),
        );
    }
    harness::validate("openai", &server.bodies());
    assert_eq!(model.describe().provider, Some("azure.ai.openai"));
    assert!(!format!("{model:?}").contains(KEY));
}

#[tokio::test]
async fn the_responses_api_with_an_entra_token_and_chat_on_the_v1_api() {
    let server = Server::start([responses_reply("hi")]).await;
    let model = AzureOpenAi::new(&server.url, "my-deployment")
        .entra_token("entra-token-abcdef")
        .responses()
        .with_settings(
            ModelSettings::new()
                .max_tokens(300)
                .reasoning(Reasoning::effort("low")),
        );
    assert_eq!(model.api_version(), "2025-04-01-preview");
    let reply = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(reply.content.as_deref(), Some("hi"));
    let request = &server.requests()[0];
    check(
        request,
        "responses",
        "my-deployment",
        Some("2025-04-01-preview"),
        ("authorization", "Bearer entra-token-abcdef"),
    );
    assert_eq!(request.body["max_output_tokens"], 300);
    harness::validate("openai-responses", &server.bodies());

    // Azure's v1 API: no api-version, the deployment as `model`.
    let server = Server::start([chat_reply("v1 ok")]).await;
    let model = AzureOpenAi::new(&server.url, "dep-1")
        .api_key(KEY)
        .with_api_version("v1");
    let reply = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(reply.content.as_deref(), Some("v1 ok"));
    check(
        &server.requests()[0],
        "chat",
        "dep-1",
        None,
        ("api-key", KEY),
    );
    harness::validate("openai", &server.bodies());
}

#[tokio::test]
async fn a_refused_key_names_the_variable_and_never_shows_it() {
    let server = Server::start([Canned::status(
        401,
        json!({"error": {"code": "401",
        "message": "Access denied due to invalid subscription key or wrong API endpoint."}}),
    )])
    .await;
    let error = AzureOpenAi::new(&server.url, "dep")
        .api_key(KEY)
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("Azure OpenAI: the API key was refused"),
        "{error}"
    );
    assert!(error.contains("AZURE_OPENAI_API_KEY"), "{error}");
    assert!(!error.contains(KEY), "{error}");
}

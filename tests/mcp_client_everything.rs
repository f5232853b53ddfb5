//! `McpClient` against the protocol's reference server,
//! `@modelcontextprotocol/server-everything` (installed by `.ci/test`), over stdio and
//! over streamable HTTP: every tool it lists is called, including its image, resource,
//! long-running and elicitation tools; and its resources, templates and prompts are
//! listed, read, got, completed and subscribed to. The HTTP server is made to bind 127.0.0.1 only
//! (`tests/mcp_client/loopback.mjs`) and is killed by the test.

#[path = "support/mcp_peer.rs"]
mod mcp_peer;

use std::collections::BTreeSet;
use std::process::Command;
use std::time::Duration;

use mcp_peer::*;
use serde_json::{Value, json};
use toolnexus::mcp::McpClient;
use toolnexus::primitive::{CompletionRequest, PromptContent};
use toolnexus::{Context, Request, ToolResult, Toolkit};

/// The tools registered once the client's elicitation capability is known.
const AFTER_INITIALIZE: &str = "trigger-elicitation-request";

/// The server's tools, once its conditional ones (announced with `list_changed`) are in.
async fn listing(client: &McpClient) -> Toolkit {
    let started = std::time::Instant::now();
    loop {
        let changed = client.changed();
        let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
        if toolkit.get(AFTER_INITIALIZE).is_some() || started.elapsed() > PATIENCE {
            return toolkit;
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), changed).await;
    }
}

/// Arguments for the tools that need some.
fn args_for(name: &str) -> Value {
    match name {
        "echo" => json!({"message": "hello everything"}),
        "get-annotated-message" => json!({"messageType": "success", "includeImage": true}),
        "get-resource-links" => json!({"count": 2}),
        "get-resource-reference" => json!({"resourceType": "Text", "resourceId": 1}),
        "get-structured-content" => json!({"location": "Chicago"}),
        "get-sum" => json!({"a": 2, "b": 3}),
        // A data URI: the tool would otherwise fetch a file from the network.
        "gzip-file-as-resource" => json!({
            "name": "hello.txt.gz",
            "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=",
            "outputType": "resource"
        }),
        "trigger-long-running-operation" => json!({"duration": 1, "steps": 2}),
        "trigger-url-elicitation" => {
            json!({"url": "https://example.com/consent", "message": "Open it"})
        }
        "trigger-sampling-request" | "trigger-sampling-request-async" => json!({"prompt": "hi"}),
        "simulate-research-query" => json!({"topic": "rust"}),
        _ => json!({}),
    }
}

/// What the host answers to the server's elicitations.
fn answer(request: &Request) -> toolnexus::Answer {
    match request.kind.as_str() {
        "authorization" => toolnexus::Answer::accept(&request.id),
        _ => request.answer(json!({"name": "Ada Lovelace", "check": true})),
    }
}

fn check(name: &str, result: &ToolResult) {
    let text = &result.output;
    let meta = result.metadata.clone().unwrap_or_default();
    match name {
        "echo" => assert_eq!(text, "Echo: hello everything"),
        "get-sum" => assert!(text.contains('5'), "{text}"),
        "get-tiny-image" | "get-annotated-message" => {
            let parts = result
                .parts
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: {result:?}"));
            assert_eq!(parts[0].mime_type(), "image/png", "{name}");
        }
        "get-resource-links" => {
            assert_eq!(
                meta["resourceLinks"].as_array().map(Vec::len),
                Some(2),
                "{meta:?}"
            );
            assert!(text.contains("[resource link: "), "{text}");
        }
        "get-resource-reference" => {
            assert!(meta["resources"][0]["uri"].is_string(), "{meta:?}");
            assert!(text.contains("[resource "), "{text}");
        }
        "gzip-file-as-resource" => {
            let resource = &meta["resources"][0];
            assert_eq!(resource["mimeType"], "application/gzip", "{meta:?}");
            assert!(text.contains("bytes of binary data"), "{text}");
        }
        "get-structured-content" => {
            assert!(
                meta["structuredContent"]["temperature"].is_number(),
                "{meta:?}"
            );
        }
        "trigger-long-running-operation" => {
            assert!(text.contains("Long running operation completed"), "{text}");
        }
        "trigger-elicitation-request" => assert!(text.contains("Ada Lovelace"), "{text}"),
        "trigger-url-elicitation" => assert!(text.to_lowercase().contains("accept"), "{text}"),
        _ => {}
    }
}

async fn exercise(client: &McpClient, transport: &str) {
    let toolkit = listing(client).await;
    assert!(toolkit.tools().iter().all(|t| t.source() == "mcp"));
    let names: BTreeSet<String> = toolkit
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    for expected in [
        "echo",
        "get-tiny-image",
        "get-resource-reference",
        "trigger-long-running-operation",
        AFTER_INITIALIZE,
        "trigger-url-elicitation",
    ] {
        assert!(
            names.contains(expected),
            "{transport}: {expected} missing from {names:?}"
        );
    }
    let mut outcomes = Vec::new();
    for name in &names {
        let run = run_answering(&toolkit, name, args_for(name), answer).await;
        let call = run
            .tool_calls
            .first()
            .unwrap_or_else(|| panic!("{transport}: {name} not called"));
        let result = &call.result;
        assert!(
            !result.output.is_empty(),
            "{transport}: {name} gave no text"
        );
        outcomes.push(format!(
            "{name}: {:?} {}",
            call.status,
            result.output.lines().next().unwrap_or("")
        ));
        match name.as_str() {
            // Needs the client to run it as a task, which it does not: a clear error.
            "simulate-research-query" => assert!(result.is_error, "{result:?}"),
            _ => {
                assert!(!result.is_error, "{transport}: {name}: {}", result.output);
                check(name, result);
            }
        }
    }
    eprintln!("{transport}: {outcomes:#?}");
    // An elicitation is a suspension the loop resolves; nothing stays parked.
    assert_eq!(client.waiting_calls(), 0, "{outcomes:#?}");
    // The schemas go through the same profiles as local tools.
    assert!(toolkit.to_openai()[0]["function"]["parameters"].is_object());
    // A URL the server requires first (-32042) is a suspension too; once answered, the
    // call is made again and goes through.
    let gated = run_answering(
        &toolkit,
        "trigger-url-elicitation",
        json!({"url": "https://example.com/pay", "message": "Pay", "errorPath": true}),
        answer,
    )
    .await;
    let call = &gated.tool_calls[0];
    assert_eq!(
        call.request.as_ref().map(|r| r.kind.as_str()),
        Some("authorization")
    );
    assert_eq!(
        call.request.as_ref().and_then(|r| r.url.as_deref()),
        Some("https://modelcontextprotocol.io")
    );
    assert!(!call.result.is_error, "{:?}", call.result);
}

#[tokio::test]
async fn every_tool_of_the_reference_server_over_stdio() {
    let client = McpClient::stdio("node", [everything().as_os_str(), "stdio".as_ref()])
        .quiet()
        .timeout(Duration::from_secs(30))
        .connect()
        .await
        .expect("server-everything starts");
    exercise(&client, "stdio").await;
    // A direct call, outside the loop: the elicitation parks the call.
    let toolkit = listing(&client).await;
    let parked = toolkit
        .execute(AFTER_INITIALIZE, json!({}), Context::default())
        .await;
    let request = parked
        .pending_request()
        .expect("the elicitation is a request");
    assert_eq!(request.kind, "input");
    let schema = &request.data.as_ref().unwrap()["schema"];
    assert_eq!(schema["required"], json!(["name"]), "{schema}");
    assert_eq!(client.waiting_calls(), 1);
    let ctx = Context::new().with_answer(request.decline("declined"));
    let declined = toolkit.execute(AFTER_INITIALIZE, json!({}), ctx).await;
    assert!(
        declined.output.to_lowercase().contains("decline"),
        "{declined:?}"
    );
    assert_eq!(client.waiting_calls(), 0);
}

#[tokio::test]
async fn every_tool_of_the_reference_server_over_streamable_http() {
    let port = free_port();
    let mut command = Command::new("node");
    command
        .arg("--import")
        .arg(root().join("tests/mcp_client/loopback.mjs"))
        .arg(everything())
        .arg("streamableHttp")
        .env("PORT", port.to_string());
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (_server, client) = start_http(command, &url, None).await;
    exercise(&client, "streamable HTTP").await;
}

#[tokio::test]
async fn the_reference_servers_resources_and_prompts_over_stdio() {
    let client = McpClient::stdio("node", [everything().as_os_str(), "stdio".as_ref()])
        .quiet()
        .connect()
        .await
        .expect("server-everything starts");

    let resources = client.resources().await.unwrap();
    let architecture = resources
        .iter()
        .find(|r| r.uri.ends_with("/architecture.md"))
        .unwrap_or_else(|| panic!("no architecture.md in {resources:#?}"));
    assert_eq!(architecture.mime_type.as_deref(), Some("text/markdown"));
    let read = client.read_resource(&architecture.uri).await.unwrap();
    assert!(read[0].as_text().unwrap().contains("Architecture"));
    assert_eq!(read[0].uri(), architecture.uri);

    let templates = client.resource_templates().await.unwrap();
    let names: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert!(
        names.contains(&"demo://resource/dynamic/text/{resourceId}"),
        "{names:?}"
    );
    let text = client
        .read_resource("demo://resource/dynamic/text/7")
        .await
        .unwrap();
    assert!(text[0].as_text().unwrap().contains('7'), "{text:?}");
    let blob = client
        .read_resource("demo://resource/dynamic/blob/7")
        .await
        .unwrap();
    assert!(!blob[0].as_bytes().unwrap().is_empty(), "{blob:?}");
    let refused = client
        .read_resource("demo://resource/dynamic/text/seven")
        .await;
    assert!(refused.is_err(), "{refused:?}");

    let prompts = client.prompts().await.unwrap();
    let args = prompts.iter().find(|p| p.name == "args-prompt").unwrap();
    assert_eq!(args.arguments[0].name, "city");
    assert!(args.arguments[0].required && !args.arguments[1].required);
    let simple = client
        .prompt("simple-prompt", Vec::<(String, String)>::new())
        .await
        .unwrap();
    assert!(simple.messages[0].text().is_some(), "{simple:?}");
    let filled = client
        .prompt("args-prompt", [("city", "Lisbon")])
        .await
        .unwrap();
    assert!(filled.messages[0].text().unwrap().contains("Lisbon"));
    let embedded = client
        .prompt(
            "resource-prompt",
            [("resourceType", "Text"), ("resourceId", "3")],
        )
        .await
        .unwrap();
    assert!(
        embedded
            .messages
            .iter()
            .any(|m| matches!(&m.content, PromptContent::Resource(c) if c.uri().ends_with("/3"))),
        "{embedded:?}"
    );

    let departments = client
        .complete_prompt(
            "completable-prompt",
            &CompletionRequest::new("department", "E"),
        )
        .await
        .unwrap();
    assert_eq!(departments.values, ["Engineering"]);
    let context = [("department".to_owned(), "Sales".to_owned())].into();
    let asked = CompletionRequest::new("name", "").with_context(context);
    let names = client
        .complete_prompt("completable-prompt", &asked)
        .await
        .unwrap();
    assert_eq!(names.values, ["David", "Eve", "Frank"]);

    // Subscribed, with the server's simulated updates turned on: one arrives.
    let mut updates = client.resource_updates();
    client.subscribe(&architecture.uri).await.unwrap();
    let toolkit: Toolkit = client.tools().await.unwrap().into_iter().collect();
    let toggled = toolkit
        .execute("toggle-subscriber-updates", json!({}), Context::default())
        .await;
    assert!(!toggled.is_error, "{toggled:?}");
    let heard = tokio::time::timeout(PATIENCE, updates.next())
        .await
        .unwrap();
    assert_eq!(heard.as_deref(), Some(architecture.uri.as_str()));
    client.unsubscribe(&architecture.uri).await.unwrap();
}

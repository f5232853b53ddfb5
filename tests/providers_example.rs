//! `examples/agent.rs`, run as a user would: scripted when no key is set, an error naming
//! the variable when a provider is asked for without its key, and the whole loop against
//! a local server speaking each provider's API when the key and base URL are set.

#[path = "support/example.rs"]
mod common_example;
#[path = "providers/rules/mod.rs"]
mod rules;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use std::process::{Command, Output};

use serde_json::json;
use server::{Canned, Server};

const KEYS: [&str; 16] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_AD_TOKEN",
];

/// The agent example with `args`, no provider key in its environment, and `env` set.
async fn agent(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut command = Command::new(common_example::example("agent"));
    command.args(args);
    for key in KEYS {
        command.env_remove(key);
    }
    // No AWS files of the machine's, and never the instance metadata service.
    let empty = std::env::temp_dir().join("toolnexus-example-no-aws");
    command
        .env("AWS_CONFIG_FILE", empty.join("config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", empty.join("credentials"))
        .env("AWS_EC2_METADATA_DISABLED", "true");
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || command.output().expect("the example runs"))
        .await
        .unwrap()
}

fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn without_keys_it_runs_the_scripted_model() {
    let output = agent(&[], &[]).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("== model: scripted =="), "{stdout}");
    assert!(
        stdout.contains("add({\"a\": 2, \"b\": 3}) -> ok: 5"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-> error: cannot divide by zero"),
        "{stdout}"
    );
    assert!(
        stdout.contains("screenshot({}) -> ok: image (image/png"),
        "{stdout}"
    );
    assert!(stdout.contains("deployed to staging"), "{stdout}");
}

#[tokio::test]
async fn a_provider_without_its_key_names_the_variable() {
    for (provider, var) in [
        ("openai", "OPENAI_API_KEY"),
        ("openai-responses", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("gemini", "GEMINI_API_KEY"),
    ] {
        let output = agent(&["--provider", provider], &[]).await;
        let (_, stderr) = text(&output);
        assert!(!output.status.success());
        assert!(
            stderr.contains(&format!("the environment variable {var} is not set")),
            "{stderr}"
        );
    }
}

/// `from_env` reads the key and the base URL; the example's loop runs against the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_key_it_talks_to_the_provider() {
    let openai = Server::start([
        Canned::json(json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":20,\"b\":22}"}}]}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 5}})),
        Canned::json(json!({"choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": "It is 42."}}],
            "usage": {"prompt_tokens": 60, "completion_tokens": 4}})),
    ])
    .await;
    let env = [
        ("OPENAI_API_KEY", "sk-example".to_owned()),
        ("OPENAI_BASE_URL", format!("{}/v1", openai.url)),
    ];
    let output = agent(&["--provider", "openai", "What is 20 + 22?"], &env).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("add({\"a\":20,\"b\":22}) -> ok: 42"),
        "{stdout}"
    );
    assert!(stdout.contains("It is 42."), "{stdout}");
    assert!(stdout.contains("119 tokens"), "{stdout}");
    let requests = openai.requests();
    assert_eq!(requests[0].headers["authorization"], "Bearer sk-example");
    assert_eq!(
        requests[0].body["messages"][1]["content"],
        "What is 20 + 22?"
    );

    // Streaming through Anthropic: the text is printed as it arrives.
    let event = |name: &'static str, data: serde_json::Value| (Some(name), data.to_string());
    let anthropic = Server::start([Canned::sse([
        event("message_start", json!({"type": "message_start", "message": {"usage": {"input_tokens": 9, "output_tokens": 1}}})),
        event("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello "}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "there."}})),
        event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}})),
        event("message_stop", json!({"type": "message_stop"})),
    ])])
    .await;
    let env = [
        ("ANTHROPIC_API_KEY", "sk-ant-example".to_owned()),
        ("ANTHROPIC_BASE_URL", anthropic.url.clone()),
    ];
    let output = agent(&["--provider", "anthropic", "--stream", "Say hello."], &env).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Hello there.\n"), "{stdout}");
    assert_eq!(anthropic.requests()[0].body["stream"], true);
}

/// `--reasoning high` on each provider whose reasoning outlives a tool call, against the
/// rules server (which refuses a turn that drops it): the deploy tool's question is
/// answered on the spot, and the next turn carries the reasoning back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_reasoning_each_provider_carries_it_across_the_tool_calls() {
    use rules::{Rules, Step};
    for (provider, stream) in [
        ("openai-responses", false),
        ("anthropic", true),
        ("gemini", false),
    ] {
        let server = Rules::start([
            Step::Calls(vec![
                ("add", json!({"a": 2, "b": 3})),
                ("deploy_service", json!({})),
            ]),
            Step::Text("5, and deployed to staging."),
        ])
        .await;
        let env = match provider {
            "openai-responses" => [
                ("OPENAI_API_KEY", "sk-example".to_owned()),
                ("OPENAI_BASE_URL", format!("{}/v1", server.url)),
            ],
            "anthropic" => [
                ("ANTHROPIC_API_KEY", "sk-ant-example".to_owned()),
                ("ANTHROPIC_BASE_URL", server.url.clone()),
            ],
            _ => [
                ("GEMINI_API_KEY", "example".to_owned()),
                ("GEMINI_BASE_URL", server.url.clone()),
            ],
        };
        let mut args = vec!["--provider", provider, "--reasoning", "high"];
        if stream {
            args.push("--stream");
        }
        args.push("Add 2 and 3, then deploy.");
        let output = agent(&args, &env).await;
        let (stdout, stderr) = text(&output);
        assert!(output.status.success(), "{provider}: {stdout}\n{stderr}");
        assert!(stdout.contains("5, and deployed to staging."), "{stdout}");
        assert!(
            stdout.contains("deploy_service({}) -> ok: deployed to staging"),
            "{stdout}"
        );
        assert!(
            server.errors().is_empty(),
            "{provider}: {:?}",
            server.errors()
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{provider}");
        let carried = match provider {
            "openai-responses" => requests[1]["input"][1]["type"] == "reasoning",
            "anthropic" => requests[1]["messages"][1]["content"][0]["type"] == "thinking",
            _ => requests[1]["contents"][1]["parts"][0]["thoughtSignature"].is_string(),
        };
        assert!(carried, "{provider}: {}", requests[1]);
    }
}

/// Bedrock and Azure: a missing region, credentials or endpoint says what to set; with
/// them, the loop runs against the local rules server (Bedrock, SigV4-signed, its
/// reasoning carried across the calls) and a local Chat Completions server (Azure).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bedrock_and_azure_say_what_to_set_then_run_keyless_locally() {
    use rules::{Rules, Step};
    let output = agent(&["--provider", "bedrock"], &[]).await;
    let (_, stderr) = text(&output);
    assert!(!output.status.success());
    assert!(stderr.contains("no AWS region: set AWS_REGION"), "{stderr}");
    let output = agent(&["--provider", "azure"], &[]).await;
    let (_, stderr) = text(&output);
    assert!(
        stderr.contains("AZURE_OPENAI_ENDPOINT is not set"),
        "{stderr}"
    );

    let server = Rules::start([
        Step::Calls(vec![
            ("add", json!({"a": 2, "b": 3})),
            ("deploy_service", json!({})),
        ]),
        Step::Text("5, and deployed to staging."),
    ])
    .await;
    let region = [
        ("AWS_REGION", "eu-west-1".to_owned()),
        ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.url.clone()),
    ];
    let output = agent(&["--provider", "bedrock"], &region).await;
    let (stdout, stderr) = text(&output);
    assert!(!output.status.success(), "{stdout}");
    assert!(stderr.contains("no AWS credentials were found"), "{stderr}");
    assert!(stderr.contains("AWS_ACCESS_KEY_ID"), "{stderr}");
    assert!(server.requests().is_empty(), "nothing is sent unsigned");

    let mut env = region.to_vec();
    env.push(("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE".to_owned()));
    env.push(("AWS_SECRET_ACCESS_KEY", "example-secret-key".to_owned()));
    let args = [
        "--provider",
        "bedrock",
        "--reasoning",
        "high",
        "--stream",
        "Add 2 and 3, then deploy.",
    ];
    let output = agent(&args, &env).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("5, and deployed to staging."), "{stdout}");
    assert!(server.errors().is_empty(), "{:?}", server.errors());
    let requests = server.requests();
    assert!(
        requests[1]["messages"][1]["content"][0]["reasoningContent"].is_object(),
        "{}",
        requests[1]
    );

    let azure = Server::start([Canned::json(
        json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "Hello from Azure."}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 4}}),
    )])
    .await;
    let env = [
        ("AZURE_OPENAI_ENDPOINT", azure.url.clone()),
        ("AZURE_OPENAI_API_KEY", "azure-example-key".to_owned()),
    ];
    let output = agent(
        &[
            "--provider",
            "azure",
            "--model",
            "my-deployment",
            "Say hello.",
        ],
        &env,
    )
    .await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Hello from Azure."), "{stdout}");
    let request = &azure.requests()[0];
    assert_eq!(
        request.path,
        "/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21"
    );
    assert_eq!(request.headers["api-key"], "azure-example-key");
}

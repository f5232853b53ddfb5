//! `ModelConfig`, the contract's unified client config, judged by the contract's own
//! Python port (toolnexus 0.21.0, installed by .ci/test): the same config and skills
//! folder give the same first request body (headers aside) to a local mock, and the same
//! system prompt byte for byte; the contract's example config builds a working client;
//! a malformed config names the file and the key.

#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use tokio::process::Command;

use serde_json::{Value, json};
use toolnexus::providers::{ModelConfig, Style};
use toolnexus::source::Skills;
use toolnexus::{Message, Toolkit};

use server::{Canned, Server};

const SKILLS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/contract/examples/skills"
);
const PROMPT: &str = "Greet Ada with the hello-world skill.";

fn openai_text(text: &str) -> Canned {
    Canned::json(
        json!({"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}),
    )
}

fn anthropic_text(text: &str) -> Canned {
    Canned::json(
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 3}}),
    )
}

/// The Python port's run of `config`: its system prompt, or `None` when the port is not
/// installed (outside CI).
async fn python_port(config: &Value) -> Option<Value> {
    let python = match std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS") {
        Ok(python) => python,
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "TOOLNEXUS_PYTHON_TOOLNEXUS is not set"
            );
            eprintln!("NOTICE: the Python port is not installed; set TOOLNEXUS_PYTHON_TOOLNEXUS");
            return None;
        }
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/providers/tn_first_request.py"
    );
    let run = Command::new(python)
        .args([script, &config.to_string(), SKILLS, PROMPT])
        .env_remove("OPENROUTER_API_KEY")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), run)
        .await
        .expect("the Python port answers within a minute")
        .expect("the Python port runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Anthropic's Messages API reads `"content": "text"` as one text block; the port sends
/// the short form, the provider the block form.
fn blocks(mut body: Value) -> Value {
    for message in body["messages"].as_array_mut().into_iter().flatten() {
        if let Some(text) = message["content"].as_str().map(str::to_owned) {
            message["content"] = json!([{"type": "text", "text": text}]);
        }
    }
    body
}

async fn same_first_request(style: &str, reply: fn(&str) -> Canned, base_suffix: &str) {
    let skills = Skills::load(SKILLS);
    let toolkit = Toolkit::new().with(skills.tool());
    let server = Server::start([reply("Hello, Ada!"), reply("Hello, Ada!")]).await;
    let config = json!({
        "baseUrl": format!("{}{base_suffix}", server.url),
        "style": style,
        "model": "openai/gpt-4o-mini",
        "apiKey": "sk-config-0123456789",
        "headers": {"X-Title": "toolnexus"},
        "systemPrompt": "You are a friendly greeter.",
        "maxTurns": 4
    });
    let model_config = ModelConfig::from_value(&config).unwrap();
    let client = model_config.client(&skills.skills_prompt()).unwrap();
    let run = client.run(PROMPT, &toolkit).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "Hello, Ada!");
    let system = model_config.system(&skills.skills_prompt()).unwrap();
    assert_eq!(
        run.messages[0],
        Message::system(system.clone()),
        "the client's system prompt"
    );
    let ours = server.requests()[0].clone();
    assert_eq!(ours.headers["x-title"], "toolnexus");
    let Some(port) = python_port(&config).await else {
        return;
    };
    assert_eq!(port["text"], "Hello, Ada!");
    assert_eq!(
        port["system"], system,
        "the same system prompt, byte for byte"
    );
    let theirs = server.requests()[1].clone();
    assert_eq!(theirs.path, ours.path, "{style}: the same endpoint");
    let (ours, theirs) = match style {
        "anthropic" => (blocks(ours.body), blocks(theirs.body)),
        _ => (ours.body, theirs.body),
    };
    assert_eq!(ours, theirs, "{style}: the same first request body");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_style_sends_what_the_python_port_sends() {
    same_first_request("openai", openai_text, "/v1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_style_sends_what_the_python_port_sends() {
    same_first_request("anthropic", anthropic_text, "/v1").await;
}

/// The contract's README example, `{baseUrl, style, model}`, the key from the
/// environment: a working client (the base URL pointed at the mock).
#[tokio::test]
async fn the_contract_example_config_builds_a_working_client() {
    let server = Server::start([openai_text("Refund issued.")]).await;
    let text = format!(
        r#"{{"baseUrl": "{}/api/v1", "style": "openai", "model": "openai/gpt-4o-mini", "apiKey": "sk-or-example"}}"#,
        server.url
    );
    let config = ModelConfig::from_json(&text).unwrap();
    assert_eq!(config.style, Style::OpenAi);
    assert_eq!(config.max_turns, None);
    let run = config
        .client("")
        .unwrap()
        .run("Refund order 1234.", &Toolkit::new())
        .await;
    assert_eq!(run.text, "Refund issued.");
    let request = &server.requests()[0];
    assert_eq!(request.path, "/api/v1/chat/completions");
    assert_eq!(request.headers["authorization"], "Bearer sk-or-example");
    assert!(
        request.body.get("tools").is_none(),
        "no tools, no tools key"
    );
}

#[test]
fn a_malformed_config_names_the_file_and_the_key() {
    let dir = std::env::temp_dir().join(format!("toolnexus-model-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            r#"{"style": "openai", "model": "m", "maxTurns": "ten"}"#,
            "`maxTurns` must be a positive integer",
        ),
        (
            r#"{"style": "cohere", "model": "m"}"#,
            "`style` must be one of",
        ),
        (r#"{"style": "openai"}"#, "`model` is missing"),
        (
            r#"{"style": "openai", "model": "m", "basUrl": "x"}"#,
            "unknown key `basUrl`",
        ),
        (
            r#"{"model": "m", "headers": {"Authorization": 42}}"#,
            "`headers.Authorization` must be a string",
        ),
        (
            r#"{"model": "m", "apiKey": 7}"#,
            "`apiKey` must be a string",
        ),
        ("{not json", "not valid JSON"),
    ];
    for (i, (text, words)) in cases.into_iter().enumerate() {
        let path = dir.join(format!("model-{i}.json"));
        std::fs::write(&path, text).unwrap();
        let error = ModelConfig::from_file(&path).unwrap_err().to_string();
        assert!(error.contains(&path.display().to_string()), "{error}");
        assert!(error.contains(words), "{error}");
    }
    // A header naming an unset variable names the header and the variable, not a value.
    let config = ModelConfig::from_json(
        r#"{"model": "m", "apiKey": "k", "headers": {"Authorization": "Bearer ${TOOLNEXUS_UNSET_TOKEN_VAR}"}}"#,
    )
    .unwrap();
    let error = config.build().err().unwrap().to_string();
    assert!(error.contains("`headers.Authorization`"), "{error}");
    assert!(error.contains("TOOLNEXUS_UNSET_TOKEN_VAR"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Header values expand `${NAME}` (of the variables the app allows) and never show: not
/// in errors, not in `Debug`.
#[tokio::test]
async fn header_values_expand_from_the_environment_and_stay_secret() {
    let server = Server::start([Canned::status(
        401,
        json!({"error": {"message": "bad token"}}),
    )])
    .await;
    let json = json!({
        "baseUrl": server.url, "style": "openai", "model": "m", "apiKey": "sk-key-0123456789",
        "headers": {"X-Home": "${HOME}"}
    });
    // HOME does not start with TOOLNEXUS_: only the app may let a config read it.
    let refused = ModelConfig::from_value(&json)
        .unwrap()
        .build()
        .err()
        .unwrap();
    let refused = refused.to_string();
    assert!(refused.contains("`headers.X-Home`"), "{refused}");
    assert!(refused.contains("HOME"), "{refused}");
    assert!(refused.contains("allow_env"), "{refused}");
    let config = ModelConfig::from_value(&json).unwrap().allow_env(["HOME"]);
    let home = std::env::var("HOME").unwrap();
    // Neither the key nor a header value shows in `Debug`, expanded or not.
    let debug = format!("{config:?}");
    assert!(!debug.contains("sk-key-0123456789"), "{debug}");
    assert!(!debug.contains("${HOME}"), "{debug}");
    assert!(
        debug.contains("X-Home") && debug.contains("[redacted]"),
        "{debug}"
    );
    let model = config.build().unwrap();
    let error = model
        .complete(toolnexus::model::ModelRequest::new(
            &[Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(server.requests()[0].headers["x-home"], home.as_str());
    if home.len() >= 4 {
        assert!(!error.contains(&home), "{error}");
    }
}

/// The contract's client options: `retries` (default 2) and `retryBaseMs` bound the
/// attempts at a failing provider, `timeoutMs` is accepted as the run's deadline; the
/// Python client's names load, as its `create_client` takes them.
#[tokio::test]
async fn retries_retry_base_ms_and_timeout_ms_load_and_apply() {
    let unavailable = || {
        Canned::status(
            503,
            json!({"error": {"message": "busy", "type": "server_error"}}),
        )
    };
    for (retries, attempts) in [(Some(1), 2), (Some(0), 1), (None, 3)] {
        let server =
            Server::start([unavailable(), unavailable(), unavailable(), unavailable()]).await;
        let mut config = json!({
            "baseUrl": format!("{}/v1", server.url), "style": "openai", "model": "m",
            "apiKey": "k", "retryBaseMs": 1, "timeoutMs": 60000
        });
        if let Some(n) = retries {
            config["retries"] = json!(n);
        }
        let config = ModelConfig::from_value(&config).unwrap();
        assert_eq!(
            (config.retries, config.retry_base_ms, config.timeout_ms),
            (retries, Some(1), Some(60000))
        );
        let run = config.client("").unwrap().run("hi", &Toolkit::new()).await;
        assert!(
            !run.is_done(),
            "a provider that never answers fails the run"
        );
        assert_eq!(server.requests().len(), attempts, "retries {retries:?}");
    }
    for (text, words) in [
        (
            r#"{"model": "m", "retries": -1}"#,
            "`retries` must be a whole number",
        ),
        (
            r#"{"model": "m", "timeoutMs": 0}"#,
            "`timeoutMs` must be a positive integer",
        ),
        (
            r#"{"model": "m", "retryBaseMs": "fast"}"#,
            "`retryBaseMs` must be a whole number",
        ),
    ] {
        let error = ModelConfig::from_json(text).unwrap_err().to_string();
        assert!(error.contains(words), "{error}");
    }
}

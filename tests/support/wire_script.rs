//! The scripted answers of the OpenAI-compatible server that the side-by-side tests
//! (tests/wire_*.rs) give both ports: a completion, the `add(2, 3)` call, the answer.
#![allow(dead_code)]

use serde_json::{Value, json};

use crate::server::Canned;

pub(crate) const PROMPT: &str = "What is 2 + 3?";

pub(crate) fn completion(message: Value, finish: &str, usage: (u64, u64)) -> Canned {
    Canned::json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-wire",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1,
                  "total_tokens": usage.0 + usage.1}
    }))
}

/// The model asks for `add(2, 3)`.
pub(crate) fn asks_add() -> Canned {
    completion(
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
            "type": "function", "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"}}]}),
        "tool_calls",
        (20, 7),
    )
}

/// The model answers.
pub(crate) fn answers() -> Canned {
    completion(
        json!({"role": "assistant", "content": "The answer is 5."}),
        "stop",
        (30, 6),
    )
}

/// This crate's client of the scripted server at `base_url`, made as the Python scripts
/// make theirs.
pub(crate) fn client(base_url: &str) -> toolnexus::Client {
    let config = json!({"baseUrl": base_url, "style": "openai", "model": "gpt-wire",
                        "apiKey": "sk-test"});
    toolnexus::providers::ModelConfig::from_json(&config.to_string())
        .unwrap()
        .client("")
        .unwrap()
}

/// Runs the Python port's `script` (a path under `tests/`) with `args`, `stdin` written to
/// it, and reads the one JSON object it prints; `None` when the port is not installed
/// (outside CI). Bounded at a minute.
pub(crate) async fn python_port(script: &str, args: &[&str], stdin: &str) -> Option<Value> {
    use tokio::io::AsyncWriteExt as _;
    let Ok(python) = std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "TOOLNEXUS_PYTHON_TOOLNEXUS is not set"
        );
        eprintln!("NOTICE: the Python port is not installed; set TOOLNEXUS_PYTHON_TOOLNEXUS");
        return None;
    };
    let script = format!("{}/tests/{script}", env!("CARGO_MANIFEST_DIR"));
    let mut child = tokio::process::Command::new(python)
        .arg(script)
        .args(args)
        .env_remove("OPENROUTER_API_KEY")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the Python port starts");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output())
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

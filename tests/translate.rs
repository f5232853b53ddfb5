//! `toolnexus::translate` (the contract's single-turn translation) side by side with the
//! contract's Python port (toolnexus 0.21.0, run as a child process): on the contract's
//! translation fixture and a table of our own, both send their one request to a local
//! server of each style (Anthropic's Messages API, OpenAI's Chat Completions), and the
//! bodies they sent, the results they gave and the hooks that fired are compared. Every
//! body the Rust port sends is also checked against the official SDKs' request types, and
//! the Gemini and Responses providers (which the Python port does not have) are checked
//! on the same inputs in `translate/native.rs`.

#[path = "translate/cases.rs"]
mod cases;
#[path = "translate/differences.rs"]
mod differences;
#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[path = "translate/native.rs"]
mod native;
#[path = "translate/normalize.rs"]
mod normalize;
#[path = "translate/port.rs"]
mod port;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use serde_json::{Value, json};
use toolnexus::translate::TranslateResult;

use port::{Pair, Style, runs, side_by_side};

/// The contract's fixture (`docs/spikes/0003-translation-parity-fixture.json` of the
/// contract's repository, copied to `tests/contract/`): the agreed translation of
/// `cases::fixture_request`.
fn fixture() -> Value {
    let text = include_str!("contract/translation-parity-fixture.json");
    serde_json::from_str(text).unwrap()
}

/// The body parts the fixture pins.
fn pinned(body: &Value) -> Value {
    json!({
        "messages": body["messages"],
        "system": body["system"],
        "tools": body["tools"],
        "toolChoice": body["tool_choice"],
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_contracts_translation_fixture() {
    let fixture = fixture();
    let pairs = side_by_side(&runs(&cases::fixture_cases())).await;
    let agreed = json!({
        "messages": fixture["messages"],
        "system": fixture["system"],
        "tools": fixture["tools"],
        "toolChoice": fixture["toolChoice"],
    });
    for pair in &pairs {
        // The Python port gives the fixture exactly: the input is the one it was made from.
        assert_eq!(pinned(pair.python_body()), agreed, "{}", pair.name);
        // The Rust port gives it up to the forms the Messages API documents as one.
        let as_body = |pinned: &Value| json!({"messages": pinned["messages"], "tool_choice": pinned["toolChoice"]});
        let rust = pinned(&normalize::anthropic(pair.rust_body()));
        assert_eq!(
            normalize::anthropic(&as_body(&rust)),
            normalize::anthropic(&as_body(&agreed)),
            "{}",
            pair.name
        );
        assert_eq!(rust["system"], agreed["system"], "{}", pair.name);
        assert_eq!(rust["tools"], agreed["tools"], "{}", pair.name);
        same_bodies(pair);
    }
    let bodies: Vec<Value> = pairs.iter().map(|p| p.rust_body().clone()).collect();
    harness::validate("anthropic", &bodies);
    let finish = |pair: &Pair| {
        let rust = serde_json::to_value(pair.rust.as_ref().unwrap()).unwrap();
        (
            rust["finishReason"].clone(),
            pair.python["result"]["finishReason"].clone(),
        )
    };
    assert_eq!(
        finish(&pairs[0]),
        (fixture["finishStop"].clone(), fixture["finishStop"].clone())
    );
    assert_eq!(
        finish(&pairs[1]),
        (
            fixture["finishTools"].clone(),
            fixture["finishTools"].clone()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_table_side_by_side_with_the_python_port() {
    let runs = runs(&cases::table());
    assert!(runs.len() >= 30, "{} runs", runs.len());
    let pairs = side_by_side(&runs).await;
    for pair in &pairs {
        same_bodies(pair);
        let rust = pair
            .rust
            .as_ref()
            .unwrap_or_else(|e| panic!("{}: {e}", pair.name));
        same_result(&pair.name, &pair.python, rust);
        assert_eq!(
            pair.python["hooks"],
            json!({"before": 1, "after": 1, "tool": 0}),
            "{}",
            pair.name
        );
        assert_eq!(pair.rust_hooks, [1, 1, 0], "{}", pair.name);
    }
    for style in [Style::Anthropic, Style::OpenAi] {
        let bodies: Vec<Value> = pairs
            .iter()
            .filter(|p| p.style == style)
            .map(|p| p.rust_body().clone())
            .collect();
        harness::validate(style.name(), &bodies);
    }
}

/// Both ports sent the same request: the same path, and bodies equal up to the forms the
/// API documents as the same request.
pub fn same_bodies(pair: &Pair) {
    assert!(
        pair.python.get("error").is_none(),
        "{}: the Python port failed: {}",
        pair.name,
        pair.python
    );
    assert_eq!(pair.sent.len(), 2, "{}: one request each", pair.name);
    assert_eq!(pair.sent[0].path, pair.sent[1].path, "{}", pair.name);
    let normalize = match pair.style {
        Style::Anthropic => normalize::anthropic,
        Style::OpenAi => normalize::openai,
    };
    assert_eq!(
        normalize(pair.rust_body()),
        normalize(pair.python_body()),
        "{}: the Rust body (left) differs from the Python port's (right)",
        pair.name
    );
}

/// Both ports gave the same result: text, calls (arguments the same JSON, and the same
/// text when it is ASCII), finish reason, usage and model.
pub fn same_result(name: &str, python: &Value, rust: &TranslateResult) {
    let python = &python["result"];
    let rust = serde_json::to_value(rust).unwrap();
    for key in ["text", "finishReason", "model"] {
        assert_eq!(rust[key], python[key], "{name}: {key}");
    }
    for key in ["prompt_tokens", "completion_tokens", "total_tokens"] {
        assert_eq!(
            rust["usage"][key], python["usage"][key],
            "{name}: usage.{key}"
        );
    }
    let (rust, python) = (
        rust["toolCalls"].as_array().unwrap(),
        python["toolCalls"].as_array().unwrap(),
    );
    assert_eq!(rust.len(), python.len(), "{name}: tool calls");
    for (r, p) in rust.iter().zip(python) {
        assert_eq!((&r["id"], &r["name"]), (&p["id"], &p["name"]), "{name}");
        let (r, p) = (
            r["arguments"].as_str().unwrap(),
            p["arguments"].as_str().unwrap(),
        );
        let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap();
        assert_eq!(parse(r), parse(p), "{name}: arguments");
        if r.is_ascii() {
            assert_eq!(r, p, "{name}: arguments, byte for byte");
        }
    }
}

//! Where the Rust port translates differently from the Python port, by design: each
//! difference the providers guide lists, run in both ports and pinned, so the guide stays
//! true.

use serde_json::{Value, json};

use crate::cases::{Case, chat, claude};
use crate::port::{Pair, Style, side_by_side};

fn case(name: &'static str, request: Value, style: Style, response: Value) -> (Style, Case) {
    let mut case = Case {
        name,
        request,
        toolkit: None,
        anthropic: None,
        openai: None,
    };
    match style {
        Style::Anthropic => case.anthropic = Some(response),
        Style::OpenAi => case.openai = Some(response),
    }
    (style, case)
}

fn result(pair: &Pair) -> Value {
    serde_json::to_value(pair.rust.as_ref().unwrap()).unwrap()
}

fn messages(body: &Value) -> &Vec<Value> {
    body["messages"].as_array().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_differences_hold() {
    let user = |text: &str| json!({"role": "user", "content": text});
    let call = json!({"id": "z", "type": "function", "function": {"name": "f", "arguments": {"city": "Madurai"}}});
    let chat_call = chat(
        json!({"content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
        "stop",
    );
    let runs = vec![
        // 0. A turn with calls is `tool_calls`, whatever the provider said (§11).
        case(
            "calls with finish_reason stop",
            json!({"messages": [user("go")]}),
            Style::OpenAi,
            chat_call,
        ),
        // 1. A refusal is the text, and `content_filter` (§11).
        case(
            "a refusal",
            json!({"messages": [user("bad")]}),
            Style::OpenAi,
            chat(
                json!({"content": null, "refusal": "I can't help with that."}),
                "stop",
            ),
        ),
        // 2. The request's system prompt replaces the system messages (§11), in every style.
        case(
            "system over system messages",
            json!({"messages": [{"role": "system", "content": "old"}, user("hi")], "system": "new"}),
            Style::OpenAi,
            chat(json!({"content": "ok"}), "stop"),
        ),
        // 3. `developer` is written `system` (the transcript has one role for instructions).
        case(
            "developer",
            json!({"messages": [{"role": "developer", "content": "Rule."}, user("hi")]}),
            Style::OpenAi,
            chat(json!({"content": "ok"}), "stop"),
        ),
        // 4. Arguments given as an object go to OpenAI as JSON text.
        case(
            "arguments as an object",
            json!({"messages": [user("go"), {"role": "assistant", "tool_calls": [call]}, {"role": "tool", "tool_call_id": "z", "content": "done"}]}),
            Style::OpenAi,
            chat(json!({"content": "ok"}), "stop"),
        ),
        // 5. `prompt_tokens` counts the whole prompt, cached tokens included.
        case(
            "cached prompt",
            json!({"messages": [user("hi")]}),
            Style::Anthropic,
            {
                let mut response = claude(json!([{"type": "text", "text": "hi"}]), "end_turn");
                response["usage"] = json!({"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 10, "output_tokens": 8});
                response
            },
        ),
        // 6. A tool without a description is listed with an empty one.
        case(
            "no description",
            json!({"messages": [user("go")], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]}),
            Style::Anthropic,
            claude(json!([{"type": "text", "text": "ok"}]), "end_turn"),
        ),
        // 7. `tool_choice` without tools is left out (OpenAI refuses it there).
        case(
            "tool_choice without tools",
            json!({"messages": [user("hi")], "tool_choice": "auto"}),
            Style::OpenAi,
            chat(json!({"content": "ok"}), "stop"),
        ),
        // 8. An empty user message carries nothing and is left out, in every style.
        case(
            "empty user message",
            json!({"messages": [user("hi"), {"role": "assistant", "content": "yes?"}, user("")]}),
            Style::OpenAi,
            chat(json!({"content": "ok"}), "stop"),
        ),
    ];
    let pairs = side_by_side(&runs).await;
    let python = |pair: &Pair| pair.python["result"].clone();

    assert_eq!(python(&pairs[0])["finishReason"], "stop");
    assert_eq!(result(&pairs[0])["finishReason"], "tool_calls");

    assert_eq!(
        (
            python(&pairs[1])["text"].clone(),
            python(&pairs[1])["finishReason"].clone()
        ),
        (json!(""), json!("stop"))
    );
    assert_eq!(
        (
            result(&pairs[1])["text"].clone(),
            result(&pairs[1])["finishReason"].clone()
        ),
        (json!("I can't help with that."), json!("content_filter"))
    );

    assert_eq!(
        messages(pairs[2].python_body())[0],
        json!({"role": "system", "content": "old"})
    );
    assert_eq!(
        messages(pairs[2].rust_body())[0],
        json!({"role": "system", "content": "new"})
    );
    assert_eq!(messages(pairs[2].rust_body()).len(), 2);

    assert_eq!(messages(pairs[3].python_body())[0]["role"], "developer");
    assert_eq!(messages(pairs[3].rust_body())[0]["role"], "system");

    let arguments =
        |body: &Value| messages(body)[1]["tool_calls"][0]["function"]["arguments"].clone();
    assert_eq!(
        arguments(pairs[4].python_body()),
        json!({"city": "Madurai"})
    );
    assert_eq!(
        arguments(pairs[4].rust_body()),
        json!("{\"city\":\"Madurai\"}")
    );
    let refused = crate::harness::validation_errors("openai", &[pairs[4].python_body().clone()]);
    if let Some(errors) = refused {
        assert!(
            errors.iter().any(|e| e.contains("arguments")),
            "the SDK takes object arguments: {errors:?}"
        );
    }
    crate::harness::validate("openai", &[pairs[4].rust_body().clone()]);

    assert_eq!(python(&pairs[5])["usage"]["prompt_tokens"], 5);
    assert_eq!(result(&pairs[5])["usage"]["prompt_tokens"], 115);
    assert_eq!(result(&pairs[5])["usage"]["cache_read_tokens"], 100);

    assert!(
        pairs[6].python_body()["tools"][0]
            .get("description")
            .is_none()
    );
    assert_eq!(pairs[6].rust_body()["tools"][0]["description"], "");

    assert_eq!(pairs[7].python_body()["tool_choice"], "auto");
    assert!(pairs[7].rust_body().get("tool_choice").is_none());

    assert_eq!(messages(pairs[8].python_body()).len(), 3);
    assert_eq!(messages(pairs[8].rust_body()).len(), 2);

    // Everything else about these requests is the same in both ports.
    for pair in &pairs {
        assert!(
            pair.python.get("error").is_none(),
            "{}: {}",
            pair.name,
            pair.python
        );
        assert_eq!(pair.sent[0].path, pair.sent[1].path, "{}", pair.name);
    }
}

/// Media in a user message: both ports send it in the provider's own form, the same
/// blocks in the same order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn media_in_a_user_message_is_sent_as_the_python_port_sends_it() {
    let png = crate::harness::png().base64().unwrap();
    let request = json!({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "mimeType": "image/png", "data": png}
    ]}]});
    let runs = vec![case(
        "user image",
        request,
        Style::Anthropic,
        claude(json!([{"type": "text", "text": "a dot"}]), "end_turn"),
    )];
    let pairs = side_by_side(&runs).await;
    assert_eq!(pairs[0].sent.len(), 2, "both ports send the request");
    let python = &messages(pairs[0].python_body())[0]["content"];
    assert_eq!(
        python[1]["type"], "image",
        "the Python port sends the image: {python}"
    );
    let rust = &messages(pairs[0].rust_body())[0]["content"];
    assert_eq!(rust, python);
    assert!(pairs[0].rust.is_ok());
}

//! The translation against in-process models: what the transcript, the toolkit and the
//! settings become, the hooks, and the errors. The wire forms are tested against each
//! provider and the contract's Python port in `tests/translate.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use super::{TranslateError, TranslateRequest, translate};
use crate::agent::hooks::{HookFuture, Hooks, ToolDecision, TurnDecision, TurnStart};
use crate::model::message::{Message, ToolCall};
use crate::model::settings::{ModelSettings, ToolChoice};
use crate::model::{FinishReason, Reply, ScriptedModel, Usage};
use crate::tool::def::Tool;
use crate::tool::kit::Toolkit;
use crate::tool::result::ToolResult;

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

fn weather() -> Value {
    json!({"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}
    }})
}

#[test]
fn the_history_becomes_the_transcript() {
    let model = ScriptedModel::new([Reply::text("It is 31C.")]);
    let request = TranslateRequest::new([
        json!({"role": "system", "content": "Be terse."}),
        json!({"role": "user", "content": [{"type": "text", "text": "part one "}, {"type": "text", "text": "part two"}]}),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Chennai\"}"}},
            {"id": "c2", "function": {"name": "get_weather", "arguments": {"city": "Madurai"}}}
        ]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "31C"}),
        json!({"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "33C"}]}),
        json!({"role": "developer", "content": "Use Celsius."}),
        json!({"role": "user", "content": ""}),
        json!({"role": "assistant", "content": ""}),
    ])
    .tools([weather()]);
    let result = block_on(translate(&model, &request)).unwrap();
    assert_eq!(result.text, "It is 31C.");
    assert_eq!(
        model.transcripts()[0],
        [
            Message::system("Be terse."),
            Message::user("part one part two"),
            Message::tool_calls(
                None,
                vec![
                    ToolCall::new("c1", "get_weather", r#"{"city":"Chennai"}"#),
                    ToolCall::new("c2", "get_weather", r#"{"city":"Madurai"}"#),
                ]
            ),
            Message::tool_result("c1", &ToolResult::ok("31C")),
            Message::tool_result("c2", &ToolResult::ok("33C")),
            Message::system("Use Celsius."),
        ]
    );
}

#[test]
fn an_explicit_system_prompt_replaces_the_system_messages() {
    let model = ScriptedModel::new([Reply::text("ok")]);
    let request = TranslateRequest::new([
        json!({"role": "system", "content": "old"}),
        json!({"role": "user", "content": "hi"}),
        json!({"role": "developer", "content": "older"}),
    ])
    .system("new");
    block_on(translate(&model, &request)).unwrap();
    assert_eq!(
        model.transcripts()[0],
        [Message::system("new"), Message::user("hi")]
    );
}

#[test]
fn tool_choice_and_max_tokens_go_over_the_settings() {
    let model = ScriptedModel::new([Reply::text("a"), Reply::text("b"), Reply::text("c")]);
    let base = TranslateRequest::new([json!({"role": "user", "content": "hi"})])
        .tools([weather()])
        .settings(
            ModelSettings::new()
                .temperature(0.5)
                .max_tokens(10)
                .tool_choice(ToolChoice::None),
        );
    let cases = [
        (json!("required"), ToolChoice::Required),
        (json!("any"), ToolChoice::Required),
        (
            json!({"type": "function", "function": {"name": "get_weather"}}),
            ToolChoice::tool("get_weather"),
        ),
    ];
    for (choice, _) in &cases {
        let request = base.clone().tool_choice(choice.clone()).max_tokens(99);
        block_on(translate(&model, &request)).unwrap();
    }
    let asked = model.asked_with();
    for ((_, want), settings) in cases.iter().zip(&asked) {
        assert_eq!(settings.tool_choice.as_ref(), Some(want));
        assert_eq!(settings.max_tokens, Some(99));
        assert_eq!(settings.temperature, Some(0.5));
    }

    // Absent, null and 0 keep the settings.
    let model = ScriptedModel::new([Reply::text("a")]);
    let request = base.clone().tool_choice(Value::Null).max_tokens(0);
    block_on(translate(&model, &request)).unwrap();
    assert_eq!(model.asked_with()[0].tool_choice, Some(ToolChoice::None));
    assert_eq!(model.asked_with()[0].max_tokens, Some(10));
}

#[test]
fn the_toolkit_is_listed_first_and_nothing_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    let danger = Tool::new_sync(
        "danger",
        "must not run",
        json!({"type": "object"}),
        move |_, _| {
            counted.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok("RAN")
        },
    );
    let listed = Arc::new(std::sync::Mutex::new(Vec::<Vec<String>>::new()));
    let seen = listed.clone();
    let model = crate::model::FnModel::new_sync(move |_, toolkit: &Toolkit| {
        let names = toolkit
            .tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect();
        seen.lock().unwrap().push(names);
        Ok(Reply::call("t1", "danger", "{}").with_finish_reason(FinishReason::Stop))
    });
    let request = TranslateRequest::new([json!({"role": "user", "content": "go"})])
        .toolkit(Toolkit::new().with(danger))
        .tools([weather()]);
    for _ in 0..3 {
        let result = block_on(translate(&model, &request)).unwrap();
        assert_eq!(result.tool_calls[0].name, "danger");
        assert_eq!(result.finish_reason, FinishReason::ToolCalls);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0, "translate ran a tool");
    assert_eq!(
        *listed.lock().unwrap(),
        vec![vec!["danger".to_owned(), "get_weather".to_owned()]; 3]
    );
}

#[derive(Default)]
struct Counting {
    before: AtomicUsize,
    after: AtomicUsize,
    tools: AtomicUsize,
}

impl Hooks for Counting {
    fn before_tool<'a>(&'a self, _: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        self.tools.fetch_add(1, Ordering::SeqCst);
        HookFuture::ready(ToolDecision::Allow)
    }
    fn after_tool<'a>(&'a self, _: &'a ToolCall, _: &'a mut ToolResult) -> HookFuture<'a, ()> {
        self.tools.fetch_add(1, Ordering::SeqCst);
        HookFuture::ready(())
    }
    fn before_turn<'a>(&'a self, turn: TurnStart<'a>) -> HookFuture<'a, TurnDecision> {
        assert_eq!((turn.turn, turn.messages.len()), (1, 1));
        self.before.fetch_add(1, Ordering::SeqCst);
        HookFuture::ready(TurnDecision::Continue)
    }
    fn after_turn<'a>(&'a self, turn: u32, reply: &'a Reply) -> HookFuture<'a, ()> {
        assert_eq!((turn, reply.tool_calls.len()), (1, 1));
        self.after.fetch_add(1, Ordering::SeqCst);
        HookFuture::ready(())
    }
}

#[test]
fn the_turn_hooks_fire_once_and_the_tool_hooks_never() {
    let hooks = Arc::new(Counting::default());
    let model = ScriptedModel::new([Reply::call("t1", "get_weather", "{}")]);
    let request = TranslateRequest::new([json!({"role": "user", "content": "go"})])
        .tools([weather()])
        .hooks(hooks.clone());
    block_on(translate(&model, &request)).unwrap();
    assert_eq!(hooks.before.load(Ordering::SeqCst), 1);
    assert_eq!(hooks.after.load(Ordering::SeqCst), 1);
    assert_eq!(hooks.tools.load(Ordering::SeqCst), 0);
}

struct Panics;

impl Hooks for Panics {
    fn before_turn<'a>(&'a self, _: TurnStart<'a>) -> HookFuture<'a, TurnDecision> {
        panic!("boom")
    }
}

#[test]
fn a_panicking_hook_is_an_error_and_nothing_is_sent() {
    let model = ScriptedModel::new([Reply::text("never")]);
    let request = TranslateRequest::new([json!({"role": "user", "content": "go"})]).hooks(Panics);
    let error = block_on(translate(&model, &request)).unwrap_err();
    assert!(matches!(error, TranslateError::Hook(_)), "{error}");
    assert_eq!(model.remaining(), 1);
}

#[test]
fn the_result_has_the_contract_shape() {
    let model = ScriptedModel::new([Reply::call("t1", "get_weather", r#"{"city":"Chennai"}"#)
        .with_content("Checking.")
        .with_usage(Usage::new(10, 5))
        .with_finish_reason(FinishReason::Stop)]);
    let request = TranslateRequest::new([json!({"role": "user", "content": "go"})]);
    let result = block_on(translate(&model, &request)).unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({
            "text": "Checking.",
            "toolCalls": [{"id": "t1", "name": "get_weather", "arguments": "{\"city\":\"Chennai\"}"}],
            "finishReason": "tool_calls",
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            "model": ""
        })
    );
    assert_eq!(
        result.to_openai_message(),
        json!({"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Chennai\"}"}}
        ]})
    );
    let back: super::TranslateResult =
        serde_json::from_value(serde_json::to_value(&result).unwrap()).unwrap();
    assert_eq!(back, result);
}

/// Every bad request is refused before the model is asked, naming the place.
#[test]
fn bad_requests_are_refused_with_their_place() {
    let user = || json!({"role": "user", "content": "hi"});
    let call = |id: Value| json!({"role": "assistant", "tool_calls": [{"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}}]});
    let cases: Vec<(TranslateRequest, &str, &str)> = vec![
        (TranslateRequest::new([]), "messages", "empty"),
        (
            TranslateRequest::new([json!("hi")]),
            "messages[0]",
            "object",
        ),
        (
            TranslateRequest::new([json!({"content": "hi"})]),
            "messages[0]",
            "no `role`",
        ),
        (
            TranslateRequest::new([json!({"role": "robot", "content": "hi"})]),
            "messages[0].role",
            "unknown role `robot`",
        ),
        (
            TranslateRequest::new([json!({"role": "function", "name": "f", "content": "x"})]),
            "messages[0].role",
            "legacy",
        ),
        (
            TranslateRequest::new([json!({"role": "user", "content": 3})]),
            "messages[0].content",
            "string, null or an array",
        ),
        (
            TranslateRequest::new([
                json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}),
            ]),
            "messages[0].content[0]",
            "`image_url` part cannot be carried",
        ),
        (
            TranslateRequest::new([user(), call(json!(""))]),
            "messages[1].tool_calls[0].id",
            "missing",
        ),
        (
            TranslateRequest::new([
                user(),
                json!({"role": "assistant", "tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]}),
            ]),
            "messages[1].tool_calls[0].function.name",
            "missing",
        ),
        (
            TranslateRequest::new([
                user(),
                json!({"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": [1]}}]}),
            ]),
            "messages[1].tool_calls[0].function.arguments",
            "JSON text or an object",
        ),
        (
            TranslateRequest::new([
                user(),
                json!({"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}),
            ]),
            "messages[1].function_call",
            "legacy",
        ),
        (
            TranslateRequest::new([user(), json!({"role": "tool", "content": "x"})]),
            "messages[1].tool_call_id",
            "missing",
        ),
        (
            TranslateRequest::new([
                user(),
                call(json!("a")),
                json!({"role": "tool", "tool_call_id": "b", "content": "x"}),
            ]),
            "messages[2].tool_call_id",
            "`b` answers no call",
        ),
        (
            TranslateRequest::new([
                user(),
                call(json!("a")),
                json!({"role": "tool", "tool_call_id": "a", "content": [{"type": "image", "mimeType": "image/png", "url": "https://x/y.png", "data": "aGVsbG8="}]}),
            ]),
            "messages[2].content[0]",
            "both `data` and `url`",
        ),
        (
            TranslateRequest::new([
                user(),
                call(json!("a")),
                json!({"role": "tool", "tool_call_id": "a", "content": [{"type": "image", "mimeType": "image/png", "data": "not base64!"}]}),
            ]),
            "messages[2].content[0]",
            "not base64",
        ),
        (
            TranslateRequest::new([user()]).tools([json!("f")]),
            "tools[0]",
            "object",
        ),
        (
            TranslateRequest::new([user()]).tools([json!({"type": "web_search"})]),
            "tools[0]",
            "`web_search` tool cannot be carried",
        ),
        (
            TranslateRequest::new([user()])
                .tools([json!({"type": "function", "function": {"description": "d"}})]),
            "tools[0].function.name",
            "missing",
        ),
        (
            TranslateRequest::new([user()])
                .tools([json!({"type": "function", "function": {"name": "a.b"}})]),
            "tools[0].function.name",
            "characters",
        ),
        (
            TranslateRequest::new([user()])
                .tools([json!({"type": "function", "function": {"name": "f", "parameters": "x"}})]),
            "tools[0].function.parameters",
            "schema",
        ),
        (
            TranslateRequest::new([user()]).tools([weather(), weather()]),
            "tools[1]",
            "already listed",
        ),
        (
            TranslateRequest::new([user()])
                .tools([weather()])
                .tool_choice(json!("sometimes")),
            "tool_choice",
            "not a tool choice",
        ),
        (
            TranslateRequest::new([user()])
                .tools([weather()])
                .tool_choice(json!({"type": "function"})),
            "tool_choice",
            "not a tool choice",
        ),
    ];
    for (request, place, words) in cases {
        let model = ScriptedModel::new([Reply::text("never")]);
        let error = block_on(translate(&model, &request)).unwrap_err();
        let TranslateError::Request { at, message } = &error else {
            panic!("{error}")
        };
        assert_eq!(at, place, "{error}");
        assert!(message.contains(words), "{error}");
        assert!(error.to_string().contains("nothing was sent"), "{error}");
        assert_eq!(model.remaining(), 1, "{error}: the model was asked");
    }
}

#[test]
fn a_tool_result_carries_its_media() {
    // The smallest valid GIF.
    let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec();
    let image = crate::tool::content::ContentPart::image_bytes(gif, "image/gif").unwrap();
    let model = ScriptedModel::new([Reply::text("a cat")]);
    let request = TranslateRequest::new([
        json!({"role": "user", "content": "look"}),
        json!({"role": "assistant", "tool_calls": [{"id": "s", "type": "function", "function": {"name": "snap", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "s", "content": [
            {"type": "text", "text": "a picture"},
            {"type": "image", "mimeType": "image/gif", "data": image.base64()}
        ]}),
    ]);
    block_on(translate(&model, &request)).unwrap();
    assert_eq!(
        model.transcripts()[0][2],
        Message::tool_result("s", &ToolResult::ok("a picture").with_parts(vec![image]))
    );
}

#[test]
fn a_user_message_carries_its_media_and_links() {
    let model = ScriptedModel::new([Reply::text("a cat")]);
    let request = TranslateRequest::new([json!({"role": "user", "content": [
        {"type": "text", "text": "What is "},
        {"type": "image", "mimeType": "image/png", "url": "https://example.com/cat.png"},
        {"type": "text", "text": "this?"},
        {"type": "document", "mimeType": "application/pdf", "data": "JVBERi0=", "name": "a.pdf"}
    ]})]);
    block_on(translate(&model, &request)).unwrap();
    let sent = serde_json::to_value(&model.transcripts()[0][0]).unwrap();
    assert_eq!(
        sent,
        json!({"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image", "mimeType": "image/png", "url": "https://example.com/cat.png"},
            {"type": "file", "mimeType": "application/pdf", "data": "JVBERi0=", "name": "a.pdf"}
        ]})
    );
}

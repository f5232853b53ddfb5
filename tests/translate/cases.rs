//! The inputs both ports translate: the contract's fixture and a table of our own, each
//! with the response the local server gives each style.

use serde_json::{Value, json};

/// One translation request, and the provider's answer in each style it runs in (`None`:
/// not compared in that style, see the case's comment).
#[derive(Clone)]
pub struct Case {
    pub name: &'static str,
    /// `{"messages", "tools"?, "tool_choice"?, "system"?, "max_tokens"?}`
    pub request: Value,
    /// Tools declared through a toolkit: `[{"name", "description", "input_schema"}]`.
    pub toolkit: Option<Value>,
    pub anthropic: Option<Value>,
    pub openai: Option<Value>,
}

impl Case {
    fn new(name: &'static str, request: Value) -> Self {
        Case {
            name,
            request,
            toolkit: None,
            anthropic: None,
            openai: None,
        }
    }

    fn claude(mut self, response: Value) -> Self {
        self.anthropic = Some(response);
        self
    }

    fn chat(mut self, response: Value) -> Self {
        self.openai = Some(response);
        self
    }

    fn toolkit(mut self, tools: Value) -> Self {
        self.toolkit = Some(tools);
        self
    }
}

/// A Messages API response.
pub fn claude(content: Value, stop: &str) -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": content, "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 20, "output_tokens": 8}
    })
}

/// A Chat Completions response.
pub fn chat(message: Value, finish: &str) -> Value {
    let mut message = message;
    message["role"] = json!("assistant");
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28}
    })
}

fn claude_text(text: &str) -> Value {
    claude(json!([{"type": "text", "text": text}]), "end_turn")
}

fn chat_text(text: &str) -> Value {
    chat(json!({"content": text}), "stop")
}

fn claude_call(id: &str, name: &str, input: Value) -> Value {
    claude(
        json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
        "tool_use",
    )
}

fn chat_call(id: &str, name: &str, arguments: &str) -> Value {
    chat(
        json!({"content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ]}),
        "tool_calls",
    )
}

fn weather() -> Value {
    json!({"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    }})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

/// The input of the contract's translation fixture
/// (`docs/spikes/0003-translation-parity-fixture.json`, which holds the agreed output):
/// a system message to hoist, a parts array to flatten, an assistant turn with text and
/// two calls (arguments as a string and as an object), two consecutive results to merge,
/// a trailing user turn, a tool to declare and `tool_choice: "required"`.
pub fn fixture_request() -> Value {
    json!({
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": [{"type": "text", "text": "part one "}, {"type": "text", "text": "part two"}]},
            {"role": "assistant", "content": "thinking", "tool_calls": [
                call("c1", "alpha", json!("{\"n\":1}")),
                call("c2", "beta", json!({"n": 2})),
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "ra"},
            {"role": "tool", "tool_call_id": "c2", "content": "rb"},
            user("and now?"),
        ],
        "tools": [{"type": "function", "function": {
            "name": "alpha", "description": "d",
            "parameters": {"type": "object", "properties": {"n": {"type": "number"}}}
        }}],
        "tool_choice": "required"
    })
}

/// The fixture's two finish-reason branches: a length stop, and tool calls winning over
/// what the provider said.
pub fn fixture_cases() -> Vec<Case> {
    vec![
        Case::new("fixture, length stop", fixture_request()).claude(claude(
            json!([{"type": "text", "text": "cut"}]),
            "max_tokens",
        )),
        Case::new("fixture, tool calls win", fixture_request()).claude(claude(
            json!([{"type": "tool_use", "id": "t9", "name": "alpha", "input": {"n": 3}}]),
            "end_turn",
        )),
    ]
}

/// The table of our own. Cases the ports translate differently by design run in one
/// style only; the providers guide lists each difference (and `differences.rs` pins it).
pub fn table() -> Vec<Case> {
    let png = crate::harness::png().base64().unwrap();
    let three = json!({"role": "assistant", "tool_calls": [
        call("a", "f", json!("{}")), call("b", "f", json!("{}")), call("c", "f", json!("{}"))
    ]});
    let multi_turn = json!([
        {"role": "system", "content": "Be terse."},
        user("weather in Chennai?"),
        {"role": "assistant", "content": null, "tool_calls": [call("call_abc", "get_weather", json!("{\"city\":\"Chennai\"}"))]},
        {"role": "tool", "tool_call_id": "call_abc", "content": "31C, clear"},
    ]);
    let mut cases = vec![
        Case::new("plain text", json!({"messages": [user("hello")]}))
            .claude(claude_text("hi there"))
            .chat(chat_text("hi there")),
        Case::new("one call back", json!({"messages": [user("weather in Chennai?")], "tools": [weather()]}))
            .claude(claude_call("toolu_1", "get_weather", json!({"city": "Chennai"})))
            .chat(chat_call("call_1", "get_weather", "{\"city\":\"Chennai\"}")),
        Case::new("multi-turn tool exchange", json!({"messages": multi_turn, "tools": [weather()]}))
            .claude(claude_text("It is 31C in Chennai."))
            .chat(chat_text("It is 31C in Chennai.")),
        Case::new("three consecutive results", json!({"messages": [
            user("do three things"), three,
            {"role": "tool", "tool_call_id": "a", "content": "ra"},
            {"role": "tool", "tool_call_id": "b", "content": "rb"},
            {"role": "tool", "tool_call_id": "c", "content": "rc"},
        ]}))
            .claude(claude_text("done"))
            .chat(chat_text("done")),
        Case::new("parallel calls in order, with text", json!({"messages": [user("go")], "tools": [weather()]}))
            .claude(claude(json!([
                {"type": "text", "text": "calling three"},
                {"type": "tool_use", "id": "t1", "name": "alpha", "input": {"n": 1}},
                {"type": "tool_use", "id": "t2", "name": "beta", "input": {"n": 2}},
                {"type": "tool_use", "id": "t3", "name": "gamma", "input": {"n": 3}},
            ]), "tool_use"))
            .chat(chat(json!({"content": "calling three", "tool_calls": [
                call("t1", "alpha", json!("{\"n\":1}")),
                call("t2", "beta", json!("{\"n\":2}")),
                call("t3", "gamma", json!("{\"n\":3}")),
            ]}), "tool_calls")),
        Case::new("content parts flattened", json!({"messages": [
            {"role": "system", "content": [{"type": "text", "text": "Be "}, {"type": "text", "text": "brief."}]},
            {"role": "user", "content": [{"type": "text", "text": "part one "}, {"type": "text", "text": "part two"}]},
        ]}))
            .claude(claude_text("ok"))
            .chat(chat_text("ok")),
        Case::new("max tokens and a length stop", json!({"messages": [user("write a lot")], "max_tokens": 256}))
            .claude(claude(json!([{"type": "text", "text": "Once upon"}]), "max_tokens"))
            .chat(chat(json!({"content": "Once upon"}), "length")),
        Case::new("system prompt given, none in the messages", json!({"messages": [user("hi")], "system": "You are terse."}))
            .claude(claude_text("hi"))
            .chat(chat_text("hi")),
        Case::new("a toolkit and tools, toolkit first", json!({"messages": [user("go")], "tools": [weather()]}))
            .toolkit(json!([{"name": "server_side_tool", "description": "the gateway's own",
                             "input_schema": {"type": "object", "properties": {"x": {"type": "number"}}}}]))
            .claude(claude_call("tu_9", "server_side_tool", json!({"x": 1})))
            .chat(chat_call("tu_9", "server_side_tool", "{\"x\":1}")),
        Case::new("unicode", json!({"messages": [user("Wetter in Zürich? ☀️ 東京")], "tools": [weather()]}))
            .claude(claude_call("t1", "get_weather", json!({"city": "Zürich"})))
            .chat(chat_call("t1", "get_weather", "{\"city\":\"Zürich\"}")),
        Case::new("an assistant turn of text only", json!({"messages": [user("hi"), {"role": "assistant", "content": "hello"}, user("again")]}))
            .claude(claude_text("hello again"))
            .chat(chat_text("hello again")),
        // Anthropic only: the Python port passes these through to OpenAI verbatim, where
        // the Rust port writes its transcript (see the guide's differences).
        Case::new("system prompt over the system messages", json!({"messages": [
            {"role": "system", "content": "old"}, user("hi"), {"role": "developer", "content": "older"}
        ], "system": "new"}))
            .claude(claude_text("ok")),
        Case::new("developer messages hoisted", json!({"messages": [
            {"role": "developer", "content": "Rule one."}, user("hi"), {"role": "system", "content": "Rule two."}
        ]}))
            .claude(claude_text("ok")),
        Case::new("arguments as an object", json!({"messages": [
            user("go"),
            {"role": "assistant", "tool_calls": [call("z", "f", json!({"city": "Madurai", "days": [1, 2]}))]},
            {"role": "tool", "tool_call_id": "z", "content": "done"},
        ]}))
            .claude(claude_text("ok")),
        Case::new("arguments that are not JSON", json!({"messages": [
            user("go"),
            {"role": "assistant", "tool_calls": [call("z", "f", json!("{not json"))]},
            {"role": "tool", "tool_call_id": "z", "content": "done"},
        ]}))
            .claude(claude_text("ok")),
        Case::new("a result with an image", json!({"messages": [
            user("look"),
            {"role": "assistant", "tool_calls": [call("s", "snap", json!("{}"))]},
            {"role": "tool", "tool_call_id": "s", "content": [
                {"type": "text", "text": "a picture"},
                {"type": "image", "mimeType": "image/png", "data": png}
            ]},
        ]}))
            .claude(claude_text("a dot")),
        Case::new("an empty assistant turn left out", json!({"messages": [
            user("hi"), {"role": "assistant", "content": ""}, user("hello?")
        ]}))
            .claude(claude_text("yes")),
        Case::new("a refusal", json!({"messages": [user("something bad")]}))
            .claude(claude(json!([{"type": "text", "text": "I can't help with that."}]), "refusal")),
        Case::new("a stop sequence", json!({"messages": [user("count")]}))
            .claude(claude(json!([{"type": "text", "text": "1 2"}]), "stop_sequence")),
    ];
    for (choice, name) in [
        (json!("auto"), "tool_choice auto"),
        (json!("required"), "tool_choice required"),
        (json!("none"), "tool_choice none"),
        (
            json!({"type": "function", "function": {"name": "get_weather"}}),
            "tool_choice named",
        ),
    ] {
        let request =
            json!({"messages": [user("go")], "tools": [weather()], "tool_choice": choice});
        cases.push(
            Case::new(name, request)
                .claude(claude_call("t1", "get_weather", json!({"city": "Pune"})))
                .chat(chat_call("t1", "get_weather", "{\"city\":\"Pune\"}")),
        );
    }
    cases
}

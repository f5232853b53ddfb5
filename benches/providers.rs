//! The providers' own cost: building the request body of a 50-tool, 40-message turn and
//! parsing the response, beside `serde_json` alone doing the same on the same bodies (a
//! `Value` of the exact request serialized, the response parsed into a `Value`). See
//! `BENCHMARKS.md`.
//!
//! ```text
//! cargo bench --bench providers -- --warm-up-time 1 --measurement-time 3
//! python3 benches/ratios.py
//! ```
//!
//! - `providers/{openai,openai_responses,anthropic,gemini}/toolnexus`: `request_body(transcript, toolkit, stream)`
//!   (the transcript converted to the provider's shape, the shared tool listing embedded
//!   as JSON text) then the provider's response parsed into a `Reply`.
//! - `providers/{..}/serde_json`: `serde_json::to_vec` of that same request as a `Value`,
//!   then `serde_json::from_slice::<Value>` of the same response.
//! - `providers/{..}/serde_json_shared_tools`: the same, but with the tool list spliced in
//!   as ready JSON text (what toolnexus's shared listing gives), so that only the rest of
//!   the body is serialized: the floor of the transcript's own cost.
//!
//! - `providers/{openai,openai_responses}/body`: the request body alone, Chat Completions
//!   beside Responses, for the same transcript; `openai_responses_reasoning/body` with
//!   each assistant turn carrying its reasoning item (1.5 KB of encrypted content) and
//!   output items, as a reasoning model's run sends them back.
//!
//! The listing is built before measuring (the first turn of a run builds it once; every
//! later turn reuses it), as a run's turns see it.

#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolnexus::model::NativeTurn;
use toolnexus::providers::{Anthropic, Gemini, OpenAi, OpenAiResponses, Wire};
use toolnexus::{Message, Tool, ToolCall, ToolResult, Toolkit};

const TOOLS: usize = 50;

/// 50 tools with a few typed, described properties each.
fn toolkit() -> Toolkit {
    (0..TOOLS)
        .map(|i| {
            let schema = json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": format!("What tool {i} looks for.")},
                    "limit": {"type": "integer", "minimum": 1, "description": "How many results at most."},
                    "filters": {"type": "array", "items": {"type": "string"}, "description": "Tags to keep."},
                    "mode": {"type": "string", "enum": ["fast", "thorough"]},
                },
                "required": ["query"],
                "additionalProperties": false,
            });
            Tool::new_sync(format!("tool_{i}"), format!("Tool number {i}: searches one source."), schema, |_, _| {
                ToolResult::ok("")
            })
        })
        .collect()
}

/// 40 messages: system, user, then 12 rounds of an assistant turn with two calls and
/// their two results (one failing), then an answer and a new user message.
fn transcript() -> Vec<Message> {
    let mut messages = vec![
        Message::system("You are a research assistant. Use the tools; cite what they return."),
        Message::user("Find everything about the 2024 harvest in the northern valleys."),
    ];
    for round in 0..12 {
        let calls = vec![
            ToolCall::new(
                format!("call_{round}_a"),
                format!("tool_{}", round * 2),
                format!(r#"{{"query":"harvest {round}","limit":5}}"#),
            ),
            ToolCall::new(
                format!("call_{round}_b"),
                format!("tool_{}", round * 2 + 1),
                format!(r#"{{"query":"valley {round}","filters":["north","2024"]}}"#),
            ),
        ];
        messages.push(Message::tool_calls(
            Some(format!("Looking at sources {round}.")),
            calls,
        ));
        messages.push(Message::tool_result(
            format!("call_{round}_a"),
            &ToolResult::ok(format!(
                "Round {round}: the harvest was 12% above the ten-year mean; rainfall 640 mm."
            )),
        ));
        messages.push(Message::tool_result(
            format!("call_{round}_b"),
            &ToolResult::error("source unavailable: timeout after 30 s"),
        ));
    }
    messages.push(Message::assistant(
        "The northern valleys had a strong year.",
    ));
    messages.push(Message::user("And the southern ones?"));
    assert_eq!(messages.len(), 40);
    messages
}

/// The transcript as a reasoning model's run holds it: each assistant turn keeps its
/// reasoning item (encrypted) and output items, which the next request sends back.
fn reasoning_transcript() -> Vec<Message> {
    let encrypted = "gAAAAA".to_owned() + &"x".repeat(1_500);
    transcript()
        .into_iter()
        .enumerate()
        .map(|(i, message)| match message {
            Message::Assistant {
                content,
                tool_calls,
                ..
            } if !tool_calls.is_empty() => {
                let mut items = vec![json!({"id": format!("rs_{i}"), "type": "reasoning",
                    "summary": [], "encrypted_content": encrypted})];
                items.extend(tool_calls.iter().enumerate().map(|(j, call)| {
                    json!({"id": format!("fc_{i}_{j}"), "type": "function_call", "call_id": call.id,
                           "name": call.name, "arguments": call.arguments, "status": "completed"})
                }));
                Message::Assistant {
                    content,
                    tool_calls,
                    native: Some(Box::new(NativeTurn::new(
                        "openai.responses",
                        Value::Array(items),
                    ))),
                }
            }
            other => other,
        })
        .collect()
}

fn responses_response() -> Vec<u8> {
    let mut output = vec![
        json!({"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAAAA".to_owned() + &"x".repeat(1_500)}),
        json!({"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "Checking three sources.", "annotations": []}]}),
    ];
    output.extend((0..3).map(|i| {
        json!({"id": format!("fc_{i}"), "type": "function_call", "call_id": format!("call_{i}"),
               "name": format!("tool_{i}"), "arguments": r#"{"query":"south","limit":3}"#, "status": "completed"})
    }));
    json!({"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-test",
           "output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
           "usage": {"input_tokens": 5200, "input_tokens_details": {"cached_tokens": 0},
                     "output_tokens": 80, "output_tokens_details": {"reasoning_tokens": 40}, "total_tokens": 5280}})
    .to_string()
    .into_bytes()
}

fn openai_response() -> Vec<u8> {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null, "message": {
            "role": "assistant", "content": "Checking three sources.", "refusal": null,
            "tool_calls": (0..3).map(|i| json!({"id": format!("call_{i}"), "type": "function",
                "function": {"name": format!("tool_{i}"), "arguments": r#"{"query":"south","limit":3}"#}})).collect::<Vec<_>>()}}],
        "usage": {"prompt_tokens": 5200, "completion_tokens": 80, "total_tokens": 5280}
    })
    .to_string()
    .into_bytes()
}

fn anthropic_response() -> Vec<u8> {
    let mut content = vec![json!({"type": "text", "text": "Checking three sources."})];
    content.extend((0..3).map(|i| {
        json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": format!("tool_{i}"), "input": {"query": "south", "limit": 3}})
    }));
    json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": content,
           "stop_reason": "tool_use", "stop_sequence": null, "usage": {"input_tokens": 5200, "output_tokens": 80}})
    .to_string()
    .into_bytes()
}

fn gemini_response() -> Vec<u8> {
    let mut parts = vec![json!({"text": "Checking three sources."})];
    parts.extend((0..3).map(|i| json!({"functionCall": {"id": format!("g{i}"), "name": format!("tool_{i}"), "args": {"query": "south", "limit": 3}}})));
    json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
           "usageMetadata": {"promptTokenCount": 5200, "candidatesTokenCount": 80, "totalTokenCount": 5280}})
    .to_string()
    .into_bytes()
}

fn providers(c: &mut Criterion) {
    let toolkit = toolkit();
    let transcript = transcript();
    let openai = OpenAi::new("sk-bench", "gpt-test");
    let responses = OpenAiResponses::new("sk-bench", "gpt-test");
    let anthropic = Anthropic::new("sk-bench", "claude-test");
    let gemini = Gemini::new("bench", "gemini-test");
    type Build<'a> = Box<dyn Fn() -> Vec<u8> + 'a>;
    type Parse<'a> = Box<dyn Fn(&[u8]) -> usize + 'a>;
    let cases: Vec<(&str, Build<'_>, Parse<'_>, Vec<u8>)> = vec![
        (
            "openai",
            Box::new(|| openai.request_body(&transcript, &toolkit, false).unwrap()),
            Box::new(|body| openai.parse_response(body).unwrap().tool_calls.len()),
            openai_response(),
        ),
        (
            "openai_responses",
            Box::new(|| {
                responses
                    .request_body(&transcript, &toolkit, false)
                    .unwrap()
            }),
            Box::new(|body| responses.parse_response(body).unwrap().tool_calls.len()),
            responses_response(),
        ),
        (
            "anthropic",
            Box::new(|| {
                anthropic
                    .request_body(&transcript, &toolkit, false)
                    .unwrap()
            }),
            Box::new(|body| anthropic.parse_response(body).unwrap().tool_calls.len()),
            anthropic_response(),
        ),
        (
            "gemini",
            Box::new(|| gemini.request_body(&transcript, &toolkit, false).unwrap()),
            Box::new(|body| gemini.parse_response(body).unwrap().tool_calls.len()),
            gemini_response(),
        ),
    ];
    let mut group = c.benchmark_group("providers");
    for (name, build, parse, response) in &cases {
        // The same request as a `Value`, for serde_json alone; and a check that the parse
        // finds the three calls.
        let request: Value = serde_json::from_slice(&build()).unwrap();
        assert_eq!(parse(response), 3);
        println!(
            "{name}: request {} bytes, response {} bytes",
            build().len(),
            response.len()
        );
        group.bench_function(format!("{name}/toolnexus"), |b| {
            b.iter(|| {
                let body = build();
                let calls = parse(black_box(response));
                black_box((body, calls))
            })
        });
        let mut rest = request.clone();
        let tools = rest.as_object_mut().unwrap().remove("tools").unwrap();
        let tools = serde_json::value::to_raw_value(&tools).unwrap();
        group.bench_function(format!("{name}/serde_json_shared_tools"), |b| {
            b.iter(|| {
                let mut body = serde_json::to_vec(black_box(&rest)).unwrap();
                body.pop();
                body.extend_from_slice(b",\"tools\":");
                body.extend_from_slice(tools.get().as_bytes());
                body.push(b'}');
                let parsed: Value = serde_json::from_slice(black_box(response)).unwrap();
                black_box((body, parsed))
            })
        });
        group.bench_function(format!("{name}/serde_json"), |b| {
            b.iter(|| {
                let body = serde_json::to_vec(black_box(&request)).unwrap();
                let parsed: Value = serde_json::from_slice(black_box(response)).unwrap();
                black_box((body, parsed))
            })
        });
    }
    // The body alone: Chat Completions beside Responses, and Responses sending back a
    // reasoning model's items.
    let reasoning = reasoning_transcript();
    let bodies: [(&str, Build<'_>); 3] = [
        (
            "openai",
            Box::new(|| openai.request_body(&transcript, &toolkit, false).unwrap()),
        ),
        (
            "openai_responses",
            Box::new(|| {
                responses
                    .request_body(&transcript, &toolkit, false)
                    .unwrap()
            }),
        ),
        (
            "openai_responses_reasoning",
            Box::new(|| responses.request_body(&reasoning, &toolkit, false).unwrap()),
        ),
    ];
    for (name, build) in &bodies {
        println!("{name}: body {} bytes", build().len());
        group.bench_function(format!("{name}/body"), |b| b.iter(|| black_box(build())));
    }
    group.finish();
}

criterion_group!(benches, providers);
criterion_main!(benches);

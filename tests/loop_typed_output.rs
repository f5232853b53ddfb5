//! A run's typed output (`RunRequest::typed`): each provider's structured-output request
//! checked by its official SDK's request types (`tests/providers/validate.py`: openai,
//! anthropic, google-genai, pinned in `.ci/test`), invalid output sent back with what is
//! wrong until it validates or the retries run out, tools run before the answer, and a
//! run halted on a suspension resumed to its value.

#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::agent::{OUTPUT_TOOL, OutputMode, StopReason, TypedError};
use toolnexus::providers::{Anthropic, Gemini, OpenAi, OpenAiResponses};
use toolnexus::{
    Client, Context, Message, Model, Reply, RunStatus, ScriptedModel, Suspend, Tool, ToolResult,
    Toolkit,
};

use harness::SECRET;
use server::{Canned, Server};

#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
struct Verdict {
    approve: bool,
    reason: String,
}

const BAD_JSON: &str = "Looks good to me!";
const BAD_FIELD: &str = r#"{"approve": "yes", "reason": "tests pass"}"#;
const GOOD: &str = r#"{"approve": true, "reason": "tests pass"}"#;

fn openai_text(text: &str) -> Canned {
    Canned::json(
        json!({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
                     "message": {"role": "assistant", "content": text, "refusal": null}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}),
    )
}

fn responses_text(text: &str) -> Canned {
    Canned::json(json!({
        "id": "resp_1", "object": "response", "created_at": 1_760_000_000, "status": "completed",
        "model": "gpt-test", "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
        "error": null, "incomplete_details": null,
        "output": [{"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 2}}))
}

fn anthropic_text(text: &str) -> Canned {
    Canned::json(
        json!({"id": "m", "type": "message", "role": "assistant", "model": "c",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )
}

fn gemini_text(text: &str) -> Canned {
    Canned::json(
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1}}),
    )
}

/// Invalid output twice (not JSON, then a field of the wrong type), then valid: the value
/// after two retries, each retry telling the model what was wrong; every request body
/// accepted by the SDK's types and asking for the schema in the provider's own field.
async fn native<M: Model + 'static>(
    kind: &str,
    canned: fn(&str) -> Canned,
    model: impl FnOnce(&str) -> M,
    field: fn(&Value) -> &Value,
) {
    let server = Server::start([canned(BAD_JSON), canned(BAD_FIELD), canned(GOOD)]).await;
    let model = model(&server.url);
    assert!(model.describe().native_output, "{kind}");
    let client = Client::new(model).output_retries(2);
    let typed = client
        .run("Review PR 7", &harness::toolkit(Default::default()))
        .typed::<Verdict>()
        .await
        .unwrap();
    assert_eq!(
        typed.value,
        Some(Verdict {
            approve: true,
            reason: "tests pass".into()
        })
    );
    assert_eq!(typed.run.turns, 3);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    harness::validate(kind, &bodies);
    for body in &bodies {
        let schema = field(body);
        assert_eq!(schema["type"], "object", "{kind}: {body}");
        assert!(
            schema["properties"]["approve"].is_object(),
            "{kind}: {schema}"
        );
    }
    let retried = serde_json::to_string(&bodies[2]).unwrap();
    assert!(retried.contains("not JSON"), "{kind}: {retried}");
    assert!(retried.contains("approve"), "{kind}");
}

#[tokio::test]
async fn openai_chat_completions_response_format() {
    native(
        "openai",
        openai_text,
        |url| OpenAi::new(SECRET, "gpt-4.1-mini").with_base_url(format!("{url}/v1")),
        |body| {
            assert_eq!(body["response_format"]["type"], "json_schema");
            assert_eq!(body["response_format"]["json_schema"]["strict"], true);
            assert_eq!(body["response_format"]["json_schema"]["name"], OUTPUT_TOOL);
            &body["response_format"]["json_schema"]["schema"]
        },
    )
    .await;
}

#[tokio::test]
async fn openai_responses_text_format() {
    native(
        "openai-responses",
        responses_text,
        |url| OpenAiResponses::new(SECRET, "gpt-test").with_base_url(format!("{url}/v1")),
        |body| {
            assert_eq!(body["text"]["format"]["type"], "json_schema");
            assert_eq!(body["text"]["format"]["strict"], true);
            &body["text"]["format"]["schema"]
        },
    )
    .await;
}

#[tokio::test]
async fn anthropic_output_config_format() {
    native(
        "anthropic",
        anthropic_text,
        |url| Anthropic::new(SECRET, "claude-sonnet-4-5").with_base_url(url),
        |body| {
            assert_eq!(body["output_config"]["format"]["type"], "json_schema");
            assert_eq!(
                body["output_config"]["format"]["schema"]["additionalProperties"],
                false
            );
            &body["output_config"]["format"]["schema"]
        },
    )
    .await;
}

#[tokio::test]
async fn gemini_response_schema() {
    native(
        "gemini",
        gemini_text,
        |url| Gemini::new(SECRET, "gemini-2.5-flash").with_base_url(url),
        |body| {
            assert_eq!(
                body["generationConfig"]["responseMimeType"],
                "application/json"
            );
            &body["generationConfig"]["responseSchema"]
        },
    )
    .await;
}

/// Where the model has no structured output: the output tool, after the toolkit's own
/// tools; invalid arguments twice, then valid.
#[tokio::test]
async fn the_output_tool_after_other_tools() {
    let lookup = Tool::new_sync("lookup", "Looks.", json!({"type": "object"}), |_, _| {
        ToolResult::ok("CI is green")
    });
    let model = ScriptedModel::new([
        Reply::call("c1", "lookup", "{}"),
        Reply::call("c2", OUTPUT_TOOL, r#"{"approve": 1}"#),
        Reply::call("c3", OUTPUT_TOOL, BAD_FIELD),
        Reply::call("c4", OUTPUT_TOOL, GOOD),
    ]);
    assert!(!model.describe().native_output);
    let client = Client::new(model).output_retries(2);
    let typed = client
        .run("Review PR 7", &Toolkit::new().with(lookup))
        .typed::<Verdict>()
        .await
        .unwrap();
    assert_eq!(typed.value.unwrap().reason, "tests pass");
    let calls: Vec<&str> = typed
        .run
        .tool_calls
        .iter()
        .map(|c| c.call.name.as_str())
        .collect();
    assert_eq!(calls, ["lookup", OUTPUT_TOOL, OUTPUT_TOOL, OUTPUT_TOOL]);
    assert!(typed.run.tool_calls[2].result.output.contains("approve"));
    assert_eq!(typed.run.text, r#"{"approve":true,"reason":"tests pass"}"#);
}

/// Out of retries: a typed error holding the run and the last output.
#[tokio::test]
async fn retries_run_out_with_the_last_output() {
    let client = Client::new(ScriptedModel::new([
        Reply::call("c1", OUTPUT_TOOL, r#"{"approve": 1}"#),
        Reply::call("c2", OUTPUT_TOOL, BAD_FIELD),
    ]))
    .output_retries(1);
    match client
        .run("Review", &Toolkit::new())
        .typed::<Verdict>()
        .await
    {
        Err(TypedError::InvalidOutput { run, message, .. }) => {
            assert!(message.contains("approve"), "{message}");
            assert!(matches!(
                run.status,
                RunStatus::Incomplete {
                    reason: StopReason::InvalidOutput { retries: 1, .. }
                }
            ));
            assert_eq!(run.tool_calls.len(), 2);
        }
        other => panic!("{other:?}"),
    }
}

/// `OutputMode::Native` reads the model's text answer, with no output tool listed.
#[tokio::test]
async fn native_mode_reads_the_text_answer() {
    let client = Client::new(ScriptedModel::new([Reply::text(format!(
        "```json\n{GOOD}\n```"
    ))]))
    .output_mode(OutputMode::Native);
    let typed = client
        .run("Review", &Toolkit::new())
        .typed::<Verdict>()
        .await
        .unwrap();
    assert!(typed.value.unwrap().approve);
    assert!(typed.run.tool_calls.is_empty());
}

/// A run that halts on a suspension returns the halted run; resuming gives the value.
#[tokio::test]
async fn a_halted_typed_run_resumes_to_its_value() {
    let ask = Tool::new(
        "ask",
        "Asks the reviewer.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            match ctx.answer().and_then(|a| a.text()) {
                Some(said) => ToolResult::ok(format!("reviewer: {said}")),
                None => Suspend::input("Approve?").0.into(),
            }
        },
    );
    let toolkit = Toolkit::new().with(ask);
    let model = ScriptedModel::new([
        Reply::call("c1", "ask", "{}"),
        Reply::call("c2", OUTPUT_TOOL, GOOD),
    ]);
    let client = Client::new(model);
    let typed = client
        .run("Review", &toolkit)
        .typed::<Verdict>()
        .await
        .unwrap();
    assert!(typed.is_pending() && typed.value.is_none());
    let request = typed.run.pending.clone().unwrap();
    let resumed = client
        .resume(typed.run, request.answer("yes"), &toolkit)
        .typed::<Verdict>()
        .await
        .unwrap();
    assert!(resumed.value.unwrap().approve);
    assert!(matches!(
        resumed.run.messages.first(),
        Some(Message::User { .. })
    ));
    assert_eq!(
        resumed.run.tool_calls.last().unwrap().call.name,
        OUTPUT_TOOL
    );
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Tally {
    counts: std::collections::HashMap<String, u32>,
}

/// A schema Anthropic's structured output cannot hold (a map): the run uses the output
/// tool instead, its request still accepted by the SDK's types.
#[tokio::test]
async fn anthropic_falls_back_to_the_output_tool() {
    let call = Canned::json(
        json!({"id": "m", "type": "message", "role": "assistant", "model": "c",
        "content": [{"type": "tool_use", "id": "tu_1", "name": OUTPUT_TOOL,
                     "input": {"counts": {"a": 2}}}],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 1}}),
    );
    let server = Server::start([call]).await;
    let model = Anthropic::new(SECRET, "claude-sonnet-4-5").with_base_url(&server.url);
    let typed = Client::new(model)
        .run("Count", &Toolkit::new())
        .typed::<Tally>()
        .await
        .unwrap();
    assert_eq!(typed.value.unwrap().counts["a"], 2);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1);
    assert!(bodies[0].get("output_config").is_none(), "{}", bodies[0]);
    assert_eq!(bodies[0]["tools"][0]["name"], OUTPUT_TOOL);
    harness::validate("anthropic", &bodies);
}

//! The spans and metrics of runs, model turns and tool calls, collected with the
//! OpenTelemetry SDK's in-memory exporters through `toolnexus::otel::layer`, and checked
//! against the semantic-conventions crate's names.

// The crate marks its GenAI names deprecated since they moved to the GenAI conventions'
// own repository; the names are unchanged, and this is the official crate that has them.
#![allow(deprecated)]

use std::time::Duration;

use opentelemetry::trace::SpanKind;
use opentelemetry_semantic_conventions::attribute::{
    ERROR_TYPE, GEN_AI_AGENT_NAME, GEN_AI_OPERATION_NAME, GEN_AI_PROVIDER_NAME,
    GEN_AI_REQUEST_MAX_TOKENS, GEN_AI_REQUEST_MODEL, GEN_AI_REQUEST_SEED,
    GEN_AI_REQUEST_TEMPERATURE, GEN_AI_RESPONSE_FINISH_REASONS, GEN_AI_TOKEN_TYPE,
    GEN_AI_TOOL_CALL_ARGUMENTS, GEN_AI_TOOL_CALL_ID, GEN_AI_TOOL_CALL_RESULT, GEN_AI_TOOL_NAME,
    GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
    GEN_AI_USAGE_INPUT_TOKENS, GEN_AI_USAGE_OUTPUT_TOKENS, GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
};
use opentelemetry_semantic_conventions::metric::{
    GEN_AI_CLIENT_OPERATION_DURATION, GEN_AI_CLIENT_TOKEN_USAGE,
};
use serde_json::json;
use toolnexus::model::{FinishReason, ModelFuture, ModelInfo, ModelRequest};
use toolnexus::trace::{OUTCOME, REQUEST_ID, REQUEST_KIND, RESUMED_REQUEST_ID};
use toolnexus::{
    Client, Context, Model, ModelSettings, Reply, Request, RunStatus, ScriptedModel, Tool,
    ToolCall, ToolResult, Toolkit, Usage,
};

#[path = "support/otel.rs"]
#[allow(dead_code)]
mod otel;
use otel::{Collector, attr, id, is_error, kind, span, text};

/// Tests that switch content capture (a process-wide setting) run one at a time.
static CAPTURE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A scripted model that says which model and provider it is.
struct Named(ScriptedModel);

impl Model for Named {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        self.0.complete(request)
    }

    fn describe(&self) -> ModelInfo<'_> {
        ModelInfo::default()
            .with_name("test-model")
            .with_provider("openai")
    }
}

fn toolkit() -> Toolkit {
    let add = Tool::new_sync("add", "Adds.", json!({"type": "object"}), |args, _| {
        ToolResult::ok(
            (args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)).to_string(),
        )
    });
    let fail = Tool::new_sync("fail", "Fails.", json!({"type": "object"}), |_, _| {
        ToolResult::error("no such file")
    });
    let boom = Tool::new_sync("boom", "Panics.", json!({"type": "object"}), |_, _| {
        panic!("the tool broke")
    });
    let slow = Tool::new(
        "slow",
        "Sleeps a minute.",
        json!({"type": "object"}),
        |_, _| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            ToolResult::ok("woke up")
        },
    );
    let ask = Tool::new_sync(
        "ask",
        "Asks first.",
        json!({"type": "object"}),
        |_, ctx| match ctx.answer() {
            Some(_) => ToolResult::ok("approved and done"),
            None => ToolResult::pending(Request::approval("May I?").with_id("req-1")),
        },
    );
    Toolkit::new()
        .with(add)
        .with(fail)
        .with(boom)
        .with(slow)
        .with(ask)
}

fn calls(calls: &[(&str, &str)]) -> Reply {
    let calls = calls
        .iter()
        .map(|(id, name)| ToolCall::new(*id, *name, r#"{"a": 2, "b": 3}"#));
    Reply::calls(calls)
        .with_usage(Usage::new(11, 3))
        .with_finish_reason(FinishReason::ToolCalls)
}

#[tokio::test(start_paused = true)]
async fn a_run_is_one_trace_of_agent_chat_and_tool_spans() {
    let _capture = CAPTURE.lock().await;
    let collector = Collector::new();
    let _guard = collector.scoped();

    let model = Named(ScriptedModel::new([
        calls(&[
            ("c1", "add"),
            ("c2", "fail"),
            ("c3", "boom"),
            ("c4", "slow"),
            ("c5", "nope"),
        ]),
        Reply::text("done")
            .with_usage(Usage::new(20, 5))
            .with_finish_reason(FinishReason::Stop),
    ]));
    let client = Client::new(model)
        .agent_name("calculator")
        .tool_timeout(Duration::from_secs(1));
    let run = client.run("go", &toolkit()).await;
    assert!(run.is_done(), "{:?}", run.status);

    let spans = collector.finished();
    let agent = span(&spans, "invoke_agent calculator");
    assert_eq!(text(agent, GEN_AI_OPERATION_NAME), "invoke_agent");
    assert_eq!(text(agent, GEN_AI_AGENT_NAME), "calculator");
    assert_eq!(text(agent, GEN_AI_REQUEST_MODEL), "test-model");
    assert_eq!(text(agent, GEN_AI_PROVIDER_NAME), "openai");
    assert_eq!(text(agent, GEN_AI_USAGE_INPUT_TOKENS), "31");
    assert_eq!(text(agent, GEN_AI_USAGE_OUTPUT_TOKENS), "8");
    assert!(!is_error(agent));
    let trace = agent.span_context.trace_id();

    let chats: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "chat test-model")
        .collect();
    assert_eq!(chats.len(), 2);
    for chat in &chats {
        assert_eq!(chat.parent_span_id, id(agent));
        assert_eq!(chat.span_context.trace_id(), trace);
        assert_eq!(kind(chat), SpanKind::Client);
        assert_eq!(text(chat, GEN_AI_OPERATION_NAME), "chat");
        assert_eq!(text(chat, GEN_AI_REQUEST_MODEL), "test-model");
        assert_eq!(text(chat, GEN_AI_PROVIDER_NAME), "openai");
    }
    assert_eq!(text(chats[0], GEN_AI_USAGE_INPUT_TOKENS), "11");
    assert_eq!(text(chats[0], GEN_AI_USAGE_OUTPUT_TOKENS), "3");
    assert_eq!(text(chats[0], GEN_AI_RESPONSE_FINISH_REASONS), "tool_calls");
    assert_eq!(text(chats[1], GEN_AI_RESPONSE_FINISH_REASONS), "stop");

    let expected = [
        ("add", "c1", "ok", None),
        ("fail", "c2", "error", Some("tool_error")),
        ("boom", "c3", "panicked", Some("panic")),
        ("slow", "c4", "timeout", Some("timeout")),
        ("nope", "c5", "error", Some("tool_error")),
    ];
    for (name, call_id, outcome, error) in expected {
        let tool = span(&spans, &format!("execute_tool {name}"));
        assert_eq!(tool.parent_span_id, id(agent), "{name}");
        assert_eq!(tool.span_context.trace_id(), trace);
        assert_eq!(text(tool, GEN_AI_OPERATION_NAME), "execute_tool");
        assert_eq!(text(tool, GEN_AI_TOOL_NAME), name);
        assert_eq!(text(tool, GEN_AI_TOOL_CALL_ID), call_id);
        assert_eq!(text(tool, OUTCOME), outcome, "{name}");
        assert_eq!(
            attr(tool, ERROR_TYPE).map(|v| v.to_string()).as_deref(),
            error,
            "{name}"
        );
        assert_eq!(is_error(tool), error.is_some(), "{name}");
        // Off by default: arguments and results can hold secrets.
        assert!(attr(tool, GEN_AI_TOOL_CALL_ARGUMENTS).is_none());
        assert!(attr(tool, GEN_AI_TOOL_CALL_RESULT).is_none());
    }
}

#[tokio::test(start_paused = true)]
async fn a_suspension_is_an_event_and_the_resume_names_its_request() {
    let _capture = CAPTURE.lock().await;
    let collector = Collector::new();
    let _guard = collector.scoped();

    let toolkit = toolkit();
    let client = Client::new(ScriptedModel::new([
        calls(&[("c1", "ask")]),
        Reply::text("all done"),
    ]));
    let halted = client.run("go", &toolkit).await;
    assert_eq!(halted.status, RunStatus::Pending);
    let request = halted.pending.clone().expect("the request");

    let spans = collector.finished();
    let first = span(&spans, "invoke_agent");
    assert_eq!(text(first, "toolnexus.run.status"), "pending");
    assert!(!is_error(first), "a suspension is not an error");
    let ask = span(&spans, "execute_tool ask");
    assert_eq!(text(ask, OUTCOME), "pending");
    assert!(attr(ask, ERROR_TYPE).is_none());
    let events: Vec<_> = ask.events.iter().collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].name, "suspended");
    let field = |key: &str| {
        events[0]
            .attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.to_string())
    };
    assert_eq!(field(REQUEST_KIND).as_deref(), Some("approval"));
    assert_eq!(field(REQUEST_ID).as_deref(), Some("req-1"));

    collector.spans.reset();
    let answer = request.answer(json!({"ok": true}));
    let resumed = client
        .resume(halted.messages, answer, &toolkit)
        .await
        .expect("resumed");
    assert!(resumed.is_done(), "{:?}", resumed.status);
    let spans = collector.finished();
    let second = span(&spans, "invoke_agent");
    assert_eq!(text(second, RESUMED_REQUEST_ID), "req-1");
    let rerun = span(&spans, "execute_tool ask");
    assert_eq!(rerun.parent_span_id, id(second));
    assert_eq!(text(rerun, OUTCOME), "ok");
}

#[tokio::test(start_paused = true)]
async fn a_call_cut_off_by_the_run_deadline_is_cancelled_and_the_run_incomplete() {
    let _capture = CAPTURE.lock().await;
    let collector = Collector::new();
    let _guard = collector.scoped();

    let client = Client::new(ScriptedModel::new([calls(&[("c1", "slow")])]))
        .run_timeout(Duration::from_secs(5));
    let run = client.run("go", &toolkit()).await;
    assert!(matches!(run.status, RunStatus::Incomplete { .. }));

    let spans = collector.finished();
    let slow = span(&spans, "execute_tool slow");
    assert_eq!(text(slow, OUTCOME), "cancelled");
    assert_eq!(text(slow, ERROR_TYPE), "cancelled");
    let agent = span(&spans, "invoke_agent");
    assert_eq!(text(agent, ERROR_TYPE), "deadline");
    assert!(is_error(agent));
}

#[tokio::test]
async fn a_direct_execute_is_an_execute_tool_span_and_content_is_opt_in() {
    let _capture = CAPTURE.lock().await;
    let collector = Collector::new();
    let _guard = collector.scoped();
    let toolkit = toolkit();

    toolnexus::trace::capture_content(true);
    let ctx = Context::new().with_call_id("direct-1");
    let result = toolkit.execute("add", json!({"a": 40, "b": 2}), ctx).await;
    toolnexus::trace::capture_content(false);
    assert_eq!(result.output, "42");
    let _ = toolkit
        .execute("add", json!({"secret": "k"}), Context::new())
        .await;

    let spans = collector.finished();
    assert_eq!(spans.len(), 2);
    let (captured, plain) = (&spans[0], &spans[1]);
    assert_eq!(text(captured, GEN_AI_TOOL_CALL_ID), "direct-1");
    assert_eq!(
        text(captured, GEN_AI_TOOL_CALL_ARGUMENTS),
        r#"{"a":40,"b":2}"#
    );
    assert_eq!(text(captured, GEN_AI_TOOL_CALL_RESULT), "42");
    assert!(attr(plain, GEN_AI_TOOL_CALL_ARGUMENTS).is_none());
    assert!(attr(plain, GEN_AI_TOOL_CALL_RESULT).is_none());
    assert!(attr(plain, GEN_AI_TOOL_CALL_ID).is_none());
}

#[tokio::test(start_paused = true)]
async fn cache_and_reasoning_tokens_and_request_settings_are_on_the_spans() {
    let _capture = CAPTURE.lock().await;
    let collector = Collector::new();
    let _guard = collector.scoped();

    let model = Named(ScriptedModel::new([
        calls(&[("c1", "add")])
            .with_usage(Usage::new(100, 20).with_cache(80, 10).with_reasoning(12)),
        Reply::text("done").with_usage(Usage::new(120, 5).with_cache(100, 0)),
    ]));
    let client = Client::new(model).agent_name("cached").settings(
        ModelSettings::new()
            .temperature(0.25)
            .max_tokens(500)
            .seed(9),
    );
    let run = client.run("go", &toolkit()).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(
        run.usage,
        Usage::new(220, 25).with_cache(180, 10).with_reasoning(12)
    );

    let spans = collector.finished();
    let agent = span(&spans, "invoke_agent cached");
    assert_eq!(text(agent, GEN_AI_USAGE_INPUT_TOKENS), "220");
    assert_eq!(text(agent, GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS), "180");
    assert_eq!(text(agent, GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS), "10");
    assert_eq!(text(agent, GEN_AI_USAGE_REASONING_OUTPUT_TOKENS), "12");
    let chats: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "chat test-model")
        .collect();
    assert_eq!(chats.len(), 2);
    assert_eq!(text(chats[0], GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS), "80");
    assert_eq!(
        text(chats[0], GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS),
        "10"
    );
    assert_eq!(text(chats[0], GEN_AI_USAGE_REASONING_OUTPUT_TOKENS), "12");
    // A part the provider did not report is left out, not recorded as 0.
    assert!(attr(chats[1], GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS).is_none());
    for chat in &chats {
        assert_eq!(text(chat, GEN_AI_REQUEST_TEMPERATURE), "0.25");
        assert_eq!(text(chat, GEN_AI_REQUEST_MAX_TOKENS), "500");
        assert_eq!(text(chat, GEN_AI_REQUEST_SEED), "9");
    }
}

#[tokio::test(start_paused = true)]
async fn metrics_count_model_turns_tokens_and_tool_calls() {
    let _capture = CAPTURE.lock().await;
    let collector = Collector::new();
    let _guard = collector.scoped();

    let model = Named(ScriptedModel::new([
        calls(&[("c1", "add"), ("c2", "fail")]),
        Reply::text("done").with_usage(Usage::new(20, 5)),
    ]));
    let run = Client::new(model).run("go", &toolkit()).await;
    assert!(run.is_done());

    let has = |attributes: &[(String, String)], key: &str, value: &str| {
        attributes.iter().any(|(k, v)| k == key && v == value)
    };
    let durations = collector.histogram(GEN_AI_CLIENT_OPERATION_DURATION);
    let chats: u64 = durations
        .iter()
        .filter(|(a, _, _)| has(a, GEN_AI_OPERATION_NAME, "chat"))
        .inspect(|(a, _, _)| assert!(has(a, GEN_AI_REQUEST_MODEL, "test-model"), "{a:?}"))
        .map(|(_, count, _)| count)
        .sum();
    assert_eq!(chats, 2);
    let runs: u64 = durations
        .iter()
        .filter(|(a, _, _)| has(a, GEN_AI_OPERATION_NAME, "invoke_agent"))
        .map(|(_, count, _)| count)
        .sum();
    assert_eq!(runs, 1);

    let tokens = collector.histogram(GEN_AI_CLIENT_TOKEN_USAGE);
    let sum = |kind: &str| -> f64 {
        tokens
            .iter()
            .filter(|(a, _, _)| has(a, GEN_AI_TOKEN_TYPE, kind))
            .map(|(_, _, sum)| sum)
            .sum()
    };
    assert_eq!(sum("input"), 31.0);
    assert_eq!(sum("output"), 8.0);

    let tools = collector.histogram(toolnexus::otel::TOOL_CALL_DURATION);
    let outcome = |name: &str| {
        tools
            .iter()
            .find(|(a, _, _)| has(a, GEN_AI_TOOL_NAME, name))
            .map(|(a, count, _)| {
                (
                    a.iter().find(|(k, _)| k == OUTCOME).map(|(_, v)| v.clone()),
                    *count,
                )
            })
    };
    assert_eq!(outcome("add"), Some((Some("ok".to_owned()), 1)));
    assert_eq!(outcome("fail"), Some((Some("error".to_owned()), 1)));
}

#[tokio::test(start_paused = true)]
async fn an_agent_run_as_a_tool_nests_its_spans_under_the_outer_call() {
    let _capture = CAPTURE.lock().await;
    let collector = Collector::new();
    let _guard = collector.scoped();

    let ops = Client::new(ScriptedModel::new([
        calls(&[("a1", "add")]),
        Reply::text("5"),
    ]))
    .agent_name("ops")
    .as_tool("ops", "Adds.", toolkit());
    let researcher = Client::new(ScriptedModel::new([
        Reply::call("o1", "ops", r#"{"prompt": "add"}"#),
        Reply::text("ops says 5"),
    ]))
    .agent_name("researcher")
    .as_tool("research", "Researches.", Toolkit::new().with(ops));
    let lead = Client::new(ScriptedModel::new([
        Reply::call("r1", "research", r#"{"prompt": "what is 2 + 3?"}"#),
        Reply::text("done"),
    ]))
    .agent_name("lead");
    let run = lead.run("go", &Toolkit::new().with(researcher)).await;
    assert!(run.is_done(), "{:?}", run.status);

    let spans = collector.finished();
    let top = span(&spans, "invoke_agent lead");
    let trace = top.span_context.trace_id();
    // lead > execute_tool research > invoke_agent researcher > execute_tool ops >
    // invoke_agent ops > execute_tool add: one trace, each span the child of the one before.
    let chain = [
        "execute_tool research",
        "invoke_agent researcher",
        "execute_tool ops",
        "invoke_agent ops",
        "execute_tool add",
    ];
    let mut parent = top;
    for name in chain {
        let child = span(&spans, name);
        assert_eq!(child.parent_span_id, id(parent), "{name}");
        assert_eq!(child.span_context.trace_id(), trace, "{name}");
        parent = child;
    }
    assert_eq!(
        text(span(&spans, "invoke_agent ops"), GEN_AI_AGENT_NAME),
        "ops"
    );
    // Each inner model turn is a child of its own agent's span.
    let ops_chats = spans
        .iter()
        .filter(|s| s.parent_span_id == id(span(&spans, "invoke_agent ops")))
        .filter(|s| text(s, GEN_AI_OPERATION_NAME) == "chat")
        .count();
    assert_eq!(ops_chats, 2);
}

//! A resumed run's `invoke_agent` span links to the span of the run that halted: in the
//! same process, from a serialized run read back under another tracer provider, and from
//! the run store's checkpoint. Spans collected with the OpenTelemetry SDK's in-memory
//! exporter through `toolnexus::otel::layer`.

use opentelemetry::trace::SpanContext;
use opentelemetry_sdk::trace::SpanData;
use serde_json::json;
use toolnexus::{
    Client, Reply, Request, RunResult, RunStatus, ScriptedModel, Tool, ToolCall, ToolResult,
    Toolkit,
};

#[path = "support/otel.rs"]
#[allow(dead_code)]
mod otel;
use otel::{Collector, span};

fn toolkit() -> Toolkit {
    let ask = Tool::new_sync(
        "ask",
        "Asks first.",
        json!({"type": "object"}),
        |_, ctx| match ctx.answer() {
            Some(_) => ToolResult::ok("approved and done"),
            None => ToolResult::pending(Request::approval("May I?").with_id("req-1")),
        },
    );
    Toolkit::new().with(ask)
}

fn client() -> Client {
    Client::new(ScriptedModel::new([
        Reply::calls([ToolCall::new("c1", "ask", "{}")]),
        Reply::text("all done"),
    ]))
}

/// The client of the process that resumes: its model has only the answer left to give.
fn resumer() -> Client {
    Client::new(ScriptedModel::new([Reply::text("all done")]))
}

/// Whether `linked` names the span `of` (a link read back from a request is remote).
fn same_span(linked: &SpanContext, of: &SpanContext) -> bool {
    linked.trace_id() == of.trace_id() && linked.span_id() == of.span_id()
}

/// The span contexts `span` links to.
fn links(span: &SpanData) -> Vec<SpanContext> {
    span.links
        .links
        .iter()
        .map(|l| l.span_context.clone())
        .collect()
}

/// Runs until the halt under its own collector; the halted run and its span's context.
async fn halt() -> (RunResult, SpanContext) {
    let collector = Collector::new();
    let _guard = collector.scoped();
    let halted = client().run("go", &toolkit()).await;
    assert_eq!(halted.status, RunStatus::Pending);
    let spans = collector.finished();
    let first = span(&spans, "invoke_agent");
    assert!(links(first).is_empty(), "a fresh run links to nothing");
    (halted, first.span_context.clone())
}

/// Resumes `halted` (read back from JSON) with an accepting answer in a fresh client
/// under a fresh collector, as another process would; the resumed run's span links.
async fn resume_elsewhere(halted: serde_json::Value) -> Vec<SpanContext> {
    let collector = Collector::new();
    let _guard = collector.scoped();
    let halted: RunResult = serde_json::from_value(halted).expect("the run reads back");
    let request = halted.pending.clone().expect("the request");
    let answer = request.answer(json!({"ok": true}));
    let resumed = resumer()
        .resume(halted.messages, answer, &toolkit())
        .await
        .expect("resumed");
    assert!(resumed.is_done(), "{:?}", resumed.status);
    links(span(&collector.finished(), "invoke_agent"))
}

#[tokio::test(start_paused = true)]
async fn an_in_process_resume_links_to_the_run_it_continues() {
    let collector = Collector::new();
    let _guard = collector.scoped();
    let toolkit = toolkit();
    let client = client();
    let halted = client.run("go", &toolkit).await;
    let request = halted.pending.clone().expect("the request");
    let first = span(&collector.finished(), "invoke_agent")
        .span_context
        .clone();

    collector.spans.reset();
    let answer = request.answer(json!({"ok": true}));
    let resumed = client
        .resume(halted.messages, answer, &toolkit)
        .await
        .expect("resumed");
    assert!(resumed.is_done(), "{:?}", resumed.status);
    let spans = collector.finished();
    let second = span(&spans, "invoke_agent");
    let linked = links(second);
    assert_eq!(linked.len(), 1, "{linked:?}");
    assert!(same_span(&linked[0], &first), "{linked:?} is not {first:?}");
    // A link, not a parent: the resume is a trace of its own.
    assert_ne!(second.span_context.trace_id(), first.trace_id());
}

#[tokio::test(start_paused = true)]
async fn a_resume_from_a_serialized_run_links_to_the_run_that_halted() {
    let (halted, first) = halt().await;
    let json = serde_json::to_string(&halted).expect("serialized");
    assert!(
        json.contains(&format!("00-{}-{}-01", first.trace_id(), first.span_id())),
        "the halted run keeps its span's traceparent: {json}"
    );

    // Another tracer provider, as in another process: only the JSON connects the two.
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let linked = resume_elsewhere(value).await;
    assert_eq!(linked.len(), 1, "{linked:?}");
    assert!(same_span(&linked[0], &first), "{linked:?} is not {first:?}");
    assert!(linked[0].is_remote(), "read back from the serialized run");
}

/// Takes the `trace` key out of every object in `value`: a run serialized before it
/// existed.
fn strip_trace(value: &mut serde_json::Value) -> usize {
    match value {
        serde_json::Value::Object(map) => {
            let here = usize::from(map.remove("trace").is_some());
            here + map.values_mut().map(strip_trace).sum::<usize>()
        }
        serde_json::Value::Array(items) => items.iter_mut().map(strip_trace).sum(),
        _ => 0,
    }
}

#[tokio::test(start_paused = true)]
async fn an_old_serialized_run_without_a_trace_context_still_resumes_unlinked() {
    let (halted, _) = halt().await;
    let mut value = serde_json::to_value(&halted).expect("serialized");
    assert!(
        strip_trace(&mut value) >= 2,
        "pending and transcript: {value}"
    );
    let mut bad = value.clone();

    let old: RunResult = serde_json::from_value(value.clone()).expect("an old run loads");
    assert_eq!(old.pending.expect("the request").trace, None);
    assert!(resume_elsewhere(value).await.is_empty());

    // A tampered context is untrusted input: ignored, never a failure.
    let pending = json!({"traceparent": "00-not-a-trace-01", "tracestate": "x"});
    bad["pending"]["trace"] = pending.clone();
    for message in bad["messages"].as_array_mut().expect("messages") {
        if let Some(request) = message.get_mut("pending") {
            request["trace"] = pending.clone();
        }
    }
    assert!(resume_elsewhere(bad).await.is_empty());
}

#[tokio::test]
async fn a_resume_from_the_run_store_links_to_the_run_that_halted() {
    use toolnexus::Answer;
    use toolnexus::store::RunStore;
    let dir = std::env::temp_dir().join(format!("toolnexus-trace-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("runs.db");
    let _ = std::fs::remove_file(&file);
    let path = file.to_str().expect("a UTF-8 path").to_owned();

    let first = {
        let collector = Collector::new();
        let _guard = collector.scoped();
        let store = RunStore::sqlite(&path).await.expect("the store opens");
        let halted = client().store(store).run("go", &toolkit()).await;
        assert!(halted.is_pending(), "{:?}", halted.status);
        span(&collector.finished(), "invoke_agent")
            .span_context
            .clone()
    };

    // The store opened afresh, under another tracer provider: only the checkpoint in
    // the database connects the two runs.
    let collector = Collector::new();
    let _guard = collector.scoped();
    let store = RunStore::sqlite(&path).await.expect("the store reopens");
    let resumed = resumer()
        .store(store)
        .answer(Answer::accept("req-1"), &toolkit())
        .await
        .expect("answered from the store");
    assert!(resumed.is_done(), "{:?}", resumed.status);
    let spans = collector.finished();
    let linked = links(span(&spans, "invoke_agent"));
    assert_eq!(linked.len(), 1, "{linked:?}");
    assert!(same_span(&linked[0], &first), "{linked:?} is not {first:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

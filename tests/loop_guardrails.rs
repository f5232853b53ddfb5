//! Guardrails: a tripped tool guardrail stops the run before the tool runs; an output
//! guardrail that trips on a streamed answer (a real stream, from the OpenAI stand-in of
//! `tests/providers/rules/`) leaves no trace of the text in `Client::stream`, the AI
//! SDK's UI stream or AG-UI's, which show the trip; rewrites; a concurrent input
//! guardrail cancels the turn it beats; a model as the judge.

#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[path = "providers/rules/mod.rs"]
mod rules;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt as _;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use toolnexus::agent::{CallStatus, StopReason};
use toolnexus::agent::{Check, Guardrail, OwnedEvent, Stage};
use toolnexus::model::FnModel;
use toolnexus::providers::OpenAiResponses;
use toolnexus::{
    Client, Event, Message, Reply, RunStatus, ScriptedModel, Tool, ToolCall, ToolResult, Toolkit,
};

use harness::SECRET;
use rules::{Rules, Step};

const SECRET_ANSWER: &str = "The launch code is 0000-1234.";

fn counting_toolkit(runs: Arc<AtomicUsize>) -> Toolkit {
    Toolkit::new().with(Tool::new_sync(
        "deploy",
        "Deploys.",
        json!({"type": "object", "properties": {"env": {"type": "string"}}}),
        move |args, _| {
            runs.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(format!(
                "deployed to {}",
                args["env"].as_str().unwrap_or("?")
            ))
        },
    ))
}

fn no_prod() -> Guardrail {
    Guardrail::tool_call("no-prod", |call: &ToolCall| {
        if call.arguments.contains("prod") {
            Check::trip("production is off limits")
        } else {
            Check::Pass
        }
    })
}

fn no_launch_codes() -> Guardrail {
    Guardrail::output("no-launch-codes", |text: &str| {
        if text.contains("launch code") {
            Check::trip("the answer gives a secret away")
        } else {
            Check::Pass
        }
    })
}

#[tokio::test]
async fn a_tripped_tool_guardrail_stops_the_run_before_the_tool_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new([
        Reply::call("c1", "deploy", r#"{"env":"staging"}"#),
        Reply::call("c2", "deploy", r#"{"env":"prod"}"#).with_call(ToolCall::new(
            "c3",
            "deploy",
            r#"{"env":"qa"}"#,
        )),
        Reply::text("never asked"),
    ]);
    let tripped = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = tripped.clone();
    let client = Client::new(model)
        .guardrail(no_prod())
        .on_event(move |event| {
            if let Event::GuardrailTripped {
                name,
                stage,
                reason,
                ..
            } = event
            {
                seen.lock()
                    .unwrap()
                    .push(format!("{stage} {name}: {reason}"));
            }
        });
    let run = client
        .run(
            "Deploy to staging, then prod.",
            &counting_toolkit(runs.clone()),
        )
        .await;
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Guardrail {
                name: "no-prod".into(),
                stage: Stage::ToolCall,
                reason: "production is off limits".into(),
            }
        }
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "only the staging deploy ran"
    );
    assert_eq!(
        *tripped.lock().unwrap(),
        ["tool_call no-prod: production is off limits"]
    );
    // Neither call of the tripped turn ran; the transcript stays balanced.
    let statuses: Vec<CallStatus> = run.tool_calls.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [CallStatus::Ok, CallStatus::Cancelled, CallStatus::Cancelled]
    );
    let answered = run
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Tool { .. }))
        .count();
    assert_eq!(answered, 3);
    assert_eq!(run.turns, 2, "the model was not asked again");
}

#[tokio::test]
async fn tool_guardrails_rewrite_arguments_and_results() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "deploy", r#"{"env":"PROD"}"#),
        Reply::text("done"),
    ]));
    let client = Client::new(model.clone())
        .guardrail(Guardrail::tool_call("lower", |call: &ToolCall| {
            Check::rewrite(call.arguments.to_lowercase())
        }))
        .guardrail(no_prod())
        .guardrail(Guardrail::tool_result_async(
            "redact",
            |_call: ToolCall, result: ToolResult| async move {
                Check::rewrite(result.output.replace("prod", "[env]"))
            },
        ));
    let run = client.run("Deploy.", &counting_toolkit(runs.clone())).await;
    // The rewrite ran first, so the next guardrail saw "prod" and tripped.
    assert!(
        matches!(&run.status, RunStatus::Incomplete { reason: StopReason::Guardrail { name, .. } } if name == "no-prod"),
        "{:?}",
        run.status
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "deploy", r#"{"env":"STAGING"}"#),
        Reply::text("done"),
    ]));
    let client = Client::new(model.clone())
        .guardrail(Guardrail::tool_call("lower", |call: &ToolCall| {
            Check::rewrite(call.arguments.to_lowercase())
        }))
        .guardrail(Guardrail::tool_result(
            "redact",
            |_, result: &ToolResult| Check::rewrite(result.output.replace("staging", "[env]")),
        ));
    let run = client.run("Deploy.", &counting_toolkit(runs.clone())).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.tool_calls[0].result.output, "deployed to [env]");
    let second = &model.transcripts()[1];
    assert!(
        matches!(second.last(), Some(Message::Tool { content, .. }) if content == "deployed to [env]"),
        "the model read the rewritten result: {second:?}"
    );
}

#[tokio::test]
async fn input_guardrails_rewrite_or_trip_before_the_model_is_asked() {
    let model = Arc::new(ScriptedModel::new([Reply::text("ok")]));
    let client = Client::new(model.clone())
        .guardrail(Guardrail::input("mask", |prompt: &str| {
            Check::rewrite(prompt.replace("4111-1111", "[card]"))
        }))
        .guardrail(Guardrail::input_async(
            "no-passwords",
            |prompt: String| async move {
                match prompt.contains("password") {
                    true => Check::trip("asks for a password"),
                    false => Check::Pass,
                }
            },
        ));
    let run = client.run("Charge 4111-1111.", &Toolkit::new()).await;
    assert!(run.is_done());
    assert!(
        matches!(model.transcripts()[0].last(), Some(Message::User { content }) if content == "Charge [card]."),
        "{:?}",
        model.transcripts()
    );
    let run = client
        .run("What is the admin password?", &Toolkit::new())
        .await;
    assert!(matches!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Guardrail {
                stage: Stage::Input,
                ..
            }
        }
    ));
    assert_eq!(run.turns, 0);
    assert_eq!(model.transcripts().len(), 1, "the model was not asked");
}

#[tokio::test]
async fn a_concurrent_input_guardrail_cancels_the_turn_it_beats() {
    let started = Arc::new(AtomicUsize::new(0));
    let count = started.clone();
    // A model that never answers: only the guardrail's trip can end the turn.
    let stuck = FnModel::new(move |_, _| {
        count.fetch_add(1, Ordering::SeqCst);
        std::future::pending::<Result<Reply, toolnexus::ModelError>>()
    });
    let client = Client::new(stuck).guardrail(
        Guardrail::input_async("slow-check", |prompt: String| async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            match prompt.contains("forbidden") {
                true => Check::trip("forbidden topic"),
                false => Check::Pass,
            }
        })
        .concurrent(),
    );
    let run = tokio::time::timeout(
        Duration::from_secs(30),
        client.run("A forbidden question", &Toolkit::new()),
    )
    .await
    .expect("the trip ended the turn");
    assert!(
        matches!(&run.status, RunStatus::Incomplete { reason: StopReason::Guardrail { reason, .. } } if reason == "forbidden topic"),
        "{:?}",
        run.status
    );
    assert_eq!(started.load(Ordering::SeqCst), 1, "the turn had started");

    // A turn that finishes first waits for the verdict: a trip still stops the run, and
    // its answer is neither the run's text nor in the transcript.
    let client = Client::new(ScriptedModel::new([Reply::text("an answer")])).guardrail(
        Guardrail::input_async("slow-check", |_prompt: String| async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Check::trip("too late, but still no")
        })
        .concurrent(),
    );
    let run = client.run("hi", &Toolkit::new()).await;
    assert!(matches!(run.status, RunStatus::Incomplete { .. }));
    assert_eq!(run.text, "");
    assert!(
        !run.messages
            .iter()
            .any(|m| matches!(m, Message::Assistant { .. }))
    );
}

#[tokio::test]
async fn a_model_judges_as_a_guardrail() {
    let judge = ScriptedModel::new([Reply::text("PASS"), Reply::text("This leaks a secret.")]);
    let client = Client::new(ScriptedModel::new([
        Reply::text("Hello."),
        Reply::text("The secret is 42."),
    ]))
    .guardrail(Guardrail::model(
        "judge",
        Stage::Output,
        judge,
        "Answer PASS if the text keeps secrets, else say why not.",
    ));
    let run = client.run("hi", &Toolkit::new()).await;
    assert_eq!(run.text, "Hello.");
    let run = client.run("and the secret?", &Toolkit::new()).await;
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Guardrail {
                name: "judge".into(),
                stage: Stage::Output,
                reason: "This leaks a secret.".into(),
            }
        }
    );
}

fn streaming_model(url: &str) -> OpenAiResponses {
    OpenAiResponses::new(SECRET, "gpt-5.1").with_base_url(format!("{url}/v1"))
}

#[tokio::test]
async fn an_output_guardrail_trip_on_a_streamed_answer_never_shows_the_text() {
    let server = Rules::start([Step::Text(SECRET_ANSWER)]).await;
    let client = Client::new(streaming_model(&server.url)).guardrail(no_launch_codes());
    let events: Vec<OwnedEvent> = client
        .run("The code?", &Toolkit::new())
        .stream()
        .collect()
        .await;
    assert!(
        server
            .events()
            .iter()
            .any(|e| e.to_string().contains("launch code")),
        "the model did stream the answer"
    );
    let wire = serde_json::to_string(&events).unwrap();
    assert!(!wire.contains("launch code"), "{wire}");
    assert!(!wire.contains("0000-1234"), "{wire}");
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::GuardrailTripped {
                stage: Stage::Output,
                ..
            }
        )),
        "{wire}"
    );
    let Some(Event::RunFinished { run }) = events.last() else {
        panic!("{wire}");
    };
    assert!(matches!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Guardrail { .. }
        }
    ));
    assert_eq!(run.text, "");

    // The same answer with a guardrail that passes it: the text streams, once, whole.
    let server = Rules::start([Step::Text("All clear.")]).await;
    let client = Client::new(streaming_model(&server.url)).guardrail(no_launch_codes());
    let events: Vec<OwnedEvent> = client
        .run("Status?", &Toolkit::new())
        .stream()
        .collect()
        .await;
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta { text, .. } => Some(&**text),
            _ => None,
        })
        .collect();
    assert_eq!(text, "All clear.");
}

/// POSTs `body` to `path` of a router served on 127.0.0.1, and reads the whole response.
async fn post(router: axum::Router, body: serde_json::Value) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let body = body.to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: \
         text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    tokio::time::timeout(
        Duration::from_secs(30),
        stream.read_to_string(&mut response),
    )
    .await
    .expect("the stream ends")
    .unwrap();
    task.abort();
    response
}

#[tokio::test]
async fn the_ui_streams_show_the_trip_and_never_the_text() {
    let server = Rules::start([Step::Text(SECRET_ANSWER)]).await;
    let client = Client::new(streaming_model(&server.url)).guardrail(no_launch_codes());
    let body = json!({"id": "chat-1", "messages": [
        {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "The code?"}]}]});
    let sse = post(toolnexus::ui::ai_sdk(client, Toolkit::new()), body).await;
    assert!(sse.contains("200 OK"), "{sse}");
    assert!(
        !sse.contains("launch code") && !sse.contains("0000-1234"),
        "{sse}"
    );
    assert!(!sse.contains("text-delta"), "{sse}");
    assert!(
        sse.contains(r#""type":"error""#) && sse.contains("no-launch-codes"),
        "{sse}"
    );

    let server = Rules::start([Step::Text(SECRET_ANSWER)]).await;
    let client = Client::new(streaming_model(&server.url)).guardrail(no_launch_codes());
    let body = json!({"threadId": "t1", "runId": "r1", "state": {}, "tools": [], "context": [],
        "forwardedProps": {}, "messages": [{"id": "m1", "role": "user", "content": "The code?"}]});
    let sse = post(toolnexus::ui::ag_ui(client, Toolkit::new()), body).await;
    assert!(sse.contains("200 OK"), "{sse}");
    assert!(
        !sse.contains("launch code") && !sse.contains("0000-1234"),
        "{sse}"
    );
    assert!(!sse.contains("TEXT_MESSAGE_CONTENT"), "{sse}");
    assert!(
        sse.contains("RUN_ERROR") && sse.contains("no-launch-codes"),
        "{sse}"
    );
}

#[path = "support/otel.rs"]
#[allow(dead_code)]
mod otel;

/// A scripted model that names itself.
struct Named(&'static str, ScriptedModel);

impl toolnexus::Model for Named {
    fn complete<'a>(
        &'a self,
        request: toolnexus::model::ModelRequest<'a>,
    ) -> toolnexus::model::ModelFuture<'a> {
        self.1.complete(request)
    }

    fn describe(&self) -> toolnexus::model::ModelInfo<'_> {
        toolnexus::model::ModelInfo::default()
            .with_name(self.0)
            .with_provider("test")
    }
}

#[tokio::test]
async fn guardrails_and_fallback_attempts_are_traced_as_spans() {
    let collector = otel::Collector::new();
    let _guard = collector.scoped();
    let busy = Named(
        "busy",
        ScriptedModel::default().then_fail(
            toolnexus::ModelError::new("slow down")
                .with_kind(toolnexus::model::ModelErrorKind::RateLimited),
        ),
    );
    let spare = Named(
        "spare",
        ScriptedModel::new([Reply::call("c1", "deploy", r#"{"env":"prod"}"#)]),
    );
    let client =
        Client::new(toolnexus::model::FallbackModel::new(busy).then(spare)).guardrail(no_prod());
    let run = client
        .run("Deploy to prod.", &counting_toolkit(Arc::default()))
        .await;
    assert!(matches!(run.status, RunStatus::Incomplete { .. }));
    assert_eq!(run.model.as_deref(), Some("test/spare"));

    let spans = collector.finished();
    let guard = otel::span(&spans, "guardrail no-prod");
    assert_eq!(otel::text(guard, "toolnexus.guardrail.stage"), "tool_call");
    assert_eq!(otel::text(guard, "toolnexus.guardrail.outcome"), "trip");
    let attempts: Vec<_> = spans.iter().filter(|s| s.name == "model_attempt").collect();
    assert_eq!(attempts.len(), 2);
    let failed = attempts
        .iter()
        .find(|s| otel::text(s, "gen_ai.request.model") == "busy")
        .unwrap();
    assert_eq!(otel::text(failed, "error.type"), "rate_limited");
    let chat = otel::span(&spans, "chat busy");
    assert_eq!(otel::text(chat, "gen_ai.response.model"), "test/spare");
    let agent = otel::span(&spans, "invoke_agent");
    assert_eq!(otel::text(agent, "error.type"), "guardrail");
}

#[tokio::test]
async fn a_guardrail_that_panics_trips() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = Client::new(ScriptedModel::new([Reply::call(
        "c1",
        "deploy",
        r#"{"env":"qa"}"#,
    )]))
    .guardrail(Guardrail::tool_call("broken", |_: &ToolCall| -> Check {
        panic!("a bug in the check")
    }));
    let run = client.run("Deploy.", &counting_toolkit(runs.clone())).await;
    assert!(
        matches!(&run.status, RunStatus::Incomplete { reason: StopReason::Guardrail { reason, .. } } if reason == "the guardrail `broken` panicked"),
        "{:?}",
        run.status
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

//! What the three provider suites share: the tools of the full loop, the checks every
//! provider must pass (retries, errors, the loop with suspensions), and the run of the
//! official-SDK validator over the recorded request bodies.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolnexus::agent::CallStatus;
use toolnexus::{
    Answer, Client, ContentPart, Model, Reply, Request, RunResult, RunStatus, Tool, ToolResult,
    Toolkit,
};

use crate::server::{Canned, Server};

/// A key the tests give every model: it must never show in an error or a `Debug`.
pub const SECRET: &str = "sk-test-0123456789-secret";

/// A provider as the tests drive it: how to build the model against a server, and how
/// its API words the responses the tests replay.
pub trait Fake {
    /// `openai`, `anthropic` or `gemini` (the validator's name).
    const NAME: &'static str;
    type Model: Model + Clone + std::fmt::Debug + 'static;

    fn model(&self, url: &str) -> Self::Model;
    /// A turn asking for these calls (id, tool, arguments), in one response.
    fn calls(&self, calls: &[(&str, &str, Value)]) -> Canned;
    /// A final text turn.
    fn text(&self, text: &str) -> Canned;
    /// An error response in the provider's shape.
    fn error(&self, status: u16, code: &str, message: &str) -> Canned;
    /// The header that carries the key, and the value it must hold.
    fn auth(&self) -> (&'static str, String);
    /// The model with this retry policy.
    fn retry(&self, model: Self::Model, retry: toolnexus::providers::Retry) -> Self::Model;
}

/// The image a tool returns in the loop.
pub fn png() -> ContentPart {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/media/fixture.png"
    ))
    .unwrap();
    ContentPart::image_bytes(bytes, "image/png").unwrap()
}

/// A prompt made of parts, in the order the model reads them: an image as bytes, the
/// question, an image by URL, a PDF (named), and a WAV clip.
pub fn prompt_parts() -> Vec<ContentPart> {
    vec![
        png(),
        ContentPart::text("What do these show?"),
        ContentPart::from_url(
            toolnexus::tool::PartKind::Image,
            "https://example.com/cat.png",
        )
        .unwrap(),
        ContentPart::file_bytes(b"%PDF-1.7\n".to_vec(), "application/pdf")
            .unwrap()
            .with_name("report.pdf"),
        ContentPart::audio_bytes(b"RIFF\x24\x00\x00\x00WAVE".to_vec(), "audio/wav").unwrap(),
    ]
}

/// One run whose prompt is [`prompt_parts`], answered with text. Checks that no key of
/// toolnexus's own reaches the wire and that the provider's SDK types accept the body;
/// returns the server, whose one body the caller checks in the provider's terms.
pub async fn image_prompt<F: Fake>(fake: &F) -> Server {
    let server = Server::start([fake.text("A picture, a cat, a report and a sound.")]).await;
    let client = Client::new(fake.model(&server.url));
    let run = client.run(prompt_parts(), &Toolkit::new()).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "A picture, a cat, a report and a sound.");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1);
    assert_no_toolnexus_keys(F::NAME, &bodies[0]);
    validate(F::NAME, &bodies);
    server
}

/// add, fail (an error result), snapshot (an image part), deploy (suspends unless told
/// where), the last counting its runs.
pub fn toolkit(deploys: Arc<AtomicUsize>) -> Toolkit {
    let object = |props: Value| json!({"type": "object", "properties": props});
    Toolkit::new()
        .with(Tool::new_sync(
            "add",
            "Add two numbers.",
            object(json!({"a": {"type": "integer"}, "b": {"type": "integer"}})),
            |args, _| {
                let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                ToolResult::ok(sum.to_string())
            },
        ))
        .with(Tool::new_sync(
            "fail",
            "Always fails.",
            object(json!({})),
            |_, _| ToolResult::error("disk full"),
        ))
        .with(Tool::new_sync(
            "snapshot",
            "Takes a picture.",
            object(json!({})),
            |_, _| ToolResult::ok("a picture").with_parts(vec![png()]),
        ))
        .with(Tool::new_sync(
            "deploy",
            "Deploys; asks where.",
            object(json!({"env": {"type": "string"}})),
            move |args, ctx| {
                deploys.fetch_add(1, Ordering::SeqCst);
                let answered = ctx.answer().and_then(Answer::text).map(str::to_owned);
                match args["env"].as_str().map(str::to_owned).or(answered) {
                    Some(env) => ToolResult::ok(format!("deployed to {env}")),
                    None => ToolResult::pending(Request::input("Which environment?")),
                }
            },
        ))
}

/// The full loop, twice: (1) two turns, four parallel calls (one failing, one with an
/// image, one suspending and resolved by `wait_for`); (2) a run that halts on the
/// suspension, goes through JSON (as a new process would read it) and is resumed.
/// Returns the server, whose recorded bodies the caller checks in the provider's terms.
pub async fn full_loop<F: Fake>(fake: &F) -> Server {
    let deploys = Arc::new(AtomicUsize::new(0));
    let toolkit = toolkit(deploys.clone());
    let server = Server::start([
        fake.calls(&[
            ("call_add", "add", json!({"a": 2, "b": 3})),
            ("call_fail", "fail", json!({})),
            ("call_snap", "snapshot", json!({})),
            ("call_deploy", "deploy", json!({})),
        ]),
        fake.text("All four done."),
    ])
    .await;
    let client = Client::new(fake.model(&server.url))
        .system("You run tools.")
        .wait_for(
            |request: Request| async move { Answer::accept(&request.id).with_data("staging") },
        );
    let run = client.run("Do four things.", &toolkit).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "All four done.");
    assert_eq!(run.turns, 2);
    let statuses: Vec<_> = run
        .tool_calls
        .iter()
        .map(|c| (c.call.name.as_str(), c.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("add", CallStatus::Ok),
            ("fail", CallStatus::Error),
            ("snapshot", CallStatus::Ok),
            ("deploy", CallStatus::Ok),
        ]
    );
    assert_eq!(run.tool_calls[3].result.output, "deployed to staging");
    assert!(
        run.usage.total_tokens() > 0,
        "usage is read: {:?}",
        run.usage
    );

    // Halt, serialize, resume.
    server.push([
        fake.calls(&[("call_deploy_2", "deploy", json!({}))]),
        fake.text("Deployed to production."),
    ]);
    let client = Client::new(fake.model(&server.url)).system("You run tools.");
    let halted = client.run("Deploy it.", &toolkit).await;
    assert_eq!(halted.status, RunStatus::Pending);
    let request = halted
        .pending
        .clone()
        .expect("the run halts on the request");
    let saved = serde_json::to_string(&halted).unwrap();
    let halted: RunResult = serde_json::from_str(&saved).unwrap();
    let resumed = client
        .resume(
            halted.messages,
            Answer::accept(&request.id).with_data("production"),
            &toolkit,
        )
        .await
        .unwrap();
    assert!(resumed.is_done(), "{:?}", resumed.status);
    assert_eq!(resumed.text, "Deployed to production.");
    assert_eq!(
        resumed.tool_calls[0].result.output,
        "deployed to production"
    );
    assert_eq!(server.requests().len(), 4);
    assert_eq!(server.remaining(), 0);

    let (header, value) = fake.auth();
    for request in server.requests() {
        assert_eq!(
            request.headers.get(header).and_then(|v| v.to_str().ok()),
            Some(value.as_str())
        );
    }
    for body in server.bodies() {
        assert_no_toolnexus_keys(F::NAME, &body);
    }
    validate(F::NAME, &server.bodies());
    server
}

/// No key only toolnexus's transcript has reaches `provider`'s wire (`parts` is Gemini's
/// own word, `is_error` Anthropic's).
pub fn assert_no_toolnexus_keys(provider: &str, value: &Value) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                let own = match key.as_str() {
                    "parts" => provider == "gemini",
                    "is_error" => provider == "anthropic",
                    "pending" | "isError" | "metadata" => false,
                    _ => true,
                };
                assert!(own, "toolnexus key `{key}` on the {provider} wire");
                assert_no_toolnexus_keys(provider, value);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| assert_no_toolnexus_keys(provider, v)),
        _ => {}
    }
}

/// A 401 is answered at once, not retried, and the error says what to check without
/// showing the key.
pub async fn refused_key<F: Fake>(fake: &F, var: &str) {
    let server = Server::start([
        fake.error(401, "invalid_api_key", "Incorrect API key provided"),
        fake.text("never reached"),
    ])
    .await;
    let model = fake.model(&server.url);
    let error = model
        .complete(toolnexus::model::ModelRequest::new(
            &[toolnexus::Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(server.requests().len(), 1, "a 401 is not retried");
    assert!(error.contains("API key was refused"), "{error}");
    assert!(error.contains(var), "{error}");
    assert!(error.contains("401"), "{error}");
    assert!(!error.contains(SECRET), "{error}");
    assert!(!format!("{model:?}").contains(SECRET));
}

/// A 429 with `Retry-After: 1`, then a 200: the turn succeeds, after the wait.
pub async fn rate_limited_then_ok<F: Fake>(fake: &F) {
    let server = Server::start([
        fake.error(429, "rate_limit_exceeded", "Rate limit reached")
            .header("retry-after", "1"),
        fake.text("fine"),
    ])
    .await;
    let started = Instant::now();
    let reply = fake
        .model(&server.url)
        .complete(toolnexus::model::ModelRequest::new(
            &[toolnexus::Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(reply.content.as_deref(), Some("fine"));
    assert_eq!(server.requests().len(), 2);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
}

/// Server errors are retried with backoff, then reported with the retry count; a 400 is
/// not retried; a 404 names the model; a context overflow says so.
pub async fn errors_say_what_happened<F: Fake>(fake: &F, model_name: &str) {
    let unavailable = || fake.error(503, "unavailable", "The service is unavailable");
    let server = Server::start([unavailable(), unavailable(), unavailable()]).await;
    let retry = toolnexus::providers::Retry::default()
        .max_retries(2)
        .initial_backoff(Duration::from_millis(5));
    let turn = |server: &Server| {
        let model = fake.model(&server.url);
        async move {
            let model = fake.retry(model, retry);
            model
                .complete(toolnexus::model::ModelRequest::new(
                    &[toolnexus::Message::user("hi")],
                    &Toolkit::new(),
                ))
                .await
                .unwrap_err()
                .to_string()
        }
    };
    let error = turn(&server).await;
    assert_eq!(server.requests().len(), 3);
    assert!(
        error.contains("after 2 retries") && error.contains("503"),
        "{error}"
    );

    let server =
        Server::start([fake.error(404, "model_not_found", "The model does not exist")]).await;
    let error = turn(&server).await;
    assert_eq!(server.requests().len(), 1);
    assert!(
        error.contains(&format!("unknown model `{model_name}`")),
        "{error}"
    );

    let server = Server::start([fake.error(
        400,
        "context_length_exceeded",
        "This model's maximum context length is 128000 tokens",
    )])
    .await;
    let error = turn(&server).await;
    assert_eq!(server.requests().len(), 1, "a 400 is not retried");
    assert!(
        error.contains("too long for the model's context window"),
        "{error}"
    );
}

/// Dropping the turn's future ends it at once: the request is not awaited to its end.
pub async fn dropped_turn_is_cancelled<F: Fake>(fake: &F) {
    let server = Server::start([
        fake.text("too late").delayed(Duration::from_secs(30)),
        fake.text("next"),
    ])
    .await;
    let model = fake.model(&server.url);
    let started = Instant::now();
    let (transcript, toolkit) = ([toolnexus::Message::user("hi")], Toolkit::new());
    let turn = model.complete(toolnexus::model::ModelRequest::new(&transcript, &toolkit));
    assert!(
        tokio::time::timeout(Duration::from_millis(200), turn)
            .await
            .is_err()
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // The model is still usable.
    let reply = model
        .complete(toolnexus::model::ModelRequest::new(
            &[toolnexus::Message::user("hi")],
            &Toolkit::new(),
        ))
        .await
        .unwrap();
    assert_eq!(reply.content.as_deref(), Some("next"));
}

/// A missing key is an error that names `var` (skipped, with a notice, where `var` is
/// set: the agent example's test runs the case there).
pub fn missing_key_names_the_variable<M: std::fmt::Debug>(
    var: &str,
    from_env: impl FnOnce() -> Result<M, toolnexus::ModelError>,
) {
    if std::env::var_os(var).is_some() {
        eprintln!(
            "NOTICE: {var} is set here; the missing-key case is run by the agent example test"
        );
        return;
    }
    let error = from_env().unwrap_err().to_string();
    assert!(error.contains(var), "{error}");
}

/// The model's `Debug` shows neither its key nor a header's value, and names its model.
pub fn debug_hides_the_key<F: Fake>(fake: &F, model_name: &str) {
    let debug = format!("{:?}", fake.model("http://127.0.0.1:9"));
    assert!(!debug.contains(SECRET), "{debug}");
    assert!(
        debug.contains("[redacted]") && debug.contains(model_name),
        "{debug}"
    );
}

/// Stamps the cases every provider passes the same way as tests of the calling file:
/// `provider_suite!(AnthropicFake, "ANTHROPIC_API_KEY", "claude-test")` with the
/// provider's [`Fake`], the variable its key is read from, and the model name the fake
/// builds its model with.
#[macro_export]
macro_rules! provider_suite {
    ($fake:ident, $key_var:literal, $model:literal) => {
        #[tokio::test]
        async fn refused_key_is_not_retried() {
            $crate::harness::refused_key(&$fake, $key_var).await;
        }

        #[tokio::test]
        async fn rate_limit_then_success_after_retry_after() {
            $crate::harness::rate_limited_then_ok(&$fake).await;
        }

        #[tokio::test]
        async fn errors_say_what_happened() {
            $crate::harness::errors_say_what_happened(&$fake, $model).await;
        }

        #[tokio::test]
        async fn dropping_the_turn_cancels_it() {
            $crate::harness::dropped_turn_is_cancelled(&$fake).await;
        }

        #[test]
        fn missing_key_names_the_variable() {
            $crate::harness::missing_key_names_the_variable($key_var, || {
                <<$fake as $crate::harness::Fake>::Model>::from_env($model)
            });
        }

        #[test]
        fn debug_hides_the_key() {
            $crate::harness::debug_hides_the_key(&$fake, $model);
        }
    };
}

/// Streams a turn, collecting its deltas; checks they add up to the reply.
pub async fn stream(
    model: &impl Model,
    toolkit: &Toolkit,
) -> (Reply, Vec<toolnexus::model::Delta>) {
    let deltas = std::sync::Mutex::new(Vec::new());
    let sink = |delta: toolnexus::model::Delta| deltas.lock().unwrap().push(delta);
    let reply = model
        .complete(
            toolnexus::model::ModelRequest::new(&[toolnexus::Message::user("hi")], toolkit)
                .with_on_delta(&sink),
        )
        .await
        .unwrap();
    let deltas = deltas.into_inner().unwrap();
    let text: String = deltas
        .iter()
        .filter_map(|d| match d {
            toolnexus::model::Delta::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reply.content.as_deref().unwrap_or(""), text);
    for (index, call) in reply.tool_calls.iter().enumerate() {
        let arguments: String = deltas
            .iter()
            .filter_map(|d| match d {
                toolnexus::model::Delta::ToolCall {
                    index: i,
                    arguments,
                    ..
                } if *i == index => Some(arguments.as_str()),
                _ => None,
            })
            .collect();
        let expected = if arguments.is_empty() {
            "{}"
        } else {
            &arguments
        };
        assert_eq!(call.arguments, expected, "call {index}'s deltas add up");
    }
    (reply, deltas)
}

/// Runs tests/providers/validate.py over `bodies` with the provider's official SDK types
/// and asserts they are accepted. Skipped with a notice when the SDK is missing, except
/// under CI.
pub fn validate(provider: &str, bodies: &[Value]) {
    if let Some(errors) = validation_errors(provider, bodies) {
        assert!(
            errors.is_empty(),
            "{provider} SDK types refuse the request bodies:\n{}",
            errors.join("\n")
        );
    }
}

/// What the provider's SDK types say is wrong with `bodies`; `None` when the SDK is not
/// installed (outside CI).
pub fn validation_errors(provider: &str, bodies: &[Value]) -> Option<Vec<String>> {
    judge(provider, bodies).map(|(errors, _)| errors)
}

/// Runs the judge of `kind` over `items`: tests/providers/validate.py (the SDKs' types,
/// with `TOOLNEXUS_PYTHON`), or tests/providers/botocore_judge.py for `bedrock*` kinds
/// (botocore, with `TOOLNEXUS_PYTHON_BOTOCORE`). Its errors, and what it parsed; `None`
/// when the judge is not installed (outside CI).
pub fn judge(provider: &str, bodies: &[Value]) -> Option<(Vec<String>, Value)> {
    let (script, var, install) = if provider.starts_with("bedrock") {
        (
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/providers/botocore_judge.py"
            ),
            "TOOLNEXUS_PYTHON_BOTOCORE",
            "pip install botocore",
        )
    } else {
        (
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/providers/validate.py"),
            "TOOLNEXUS_PYTHON",
            "pip install openai anthropic google-genai",
        )
    };
    let file = std::env::temp_dir().join(format!(
        "toolnexus-{provider}-bodies-{}-{}.json",
        std::process::id(),
        fastrand_u64()
    ));
    std::fs::write(&file, Value::Array(bodies.to_vec()).to_string()).unwrap();
    let python = std::env::var(var).unwrap_or_else(|_| "python3".into());
    let output = Command::new(&python)
        .arg(script)
        .arg(provider)
        .arg(&file)
        .output();
    let _ = std::fs::remove_file(&file);
    let unavailable = |why: String| {
        let message = format!(
            "{provider} request bodies not validated: {why}. Run .ci/test (or {install}) \
             and set {var} to that interpreter."
        );
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("NOTICE: {message}");
        None
    };
    let output = match output {
        Ok(output) => output,
        Err(error) => return unavailable(format!("cannot run `{python}`: {error}")),
    };
    if output.status.code() == Some(3) {
        return unavailable(String::from_utf8_lossy(&output.stdout).trim().to_owned());
    }
    assert!(
        output.status.success(),
        "{} failed: {}",
        Path::new(script).display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    println!(
        "validated with {}: {} bodies",
        report["versions"], report["checked"]
    );
    assert_eq!(report["checked"], bodies.len());
    let errors = report["errors"].as_array().unwrap();
    Some((
        errors
            .iter()
            .map(|e| e.as_str().unwrap_or_default().to_owned())
            .collect(),
        report["parsed"].clone(),
    ))
}

fn fastrand_u64() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(Instant::now())
}

//! Running a case in both ports: the contract's Python port as a child process (bounded
//! in time), the Rust port in the test, each against its own local server.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt as _;
use toolnexus::agent::{HookFuture, Hooks, ToolDecision};
use toolnexus::agent::{TurnDecision, TurnStart};
use toolnexus::providers::{Anthropic, OpenAi};
use toolnexus::translate::{TranslateError, TranslateRequest, TranslateResult, translate};
use toolnexus::{Model, Reply, Tool, ToolCall, ToolResult, Toolkit};

use crate::cases::Case;
use crate::server::{Canned, Recorded, Server};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    Anthropic,
    OpenAi,
}

impl Style {
    pub fn name(self) -> &'static str {
        match self {
            Style::Anthropic => "anthropic",
            Style::OpenAi => "openai",
        }
    }

    /// The base URL both ports are given for a server at `url`.
    fn base(self, url: &str) -> String {
        match self {
            Style::Anthropic => url.to_owned(),
            Style::OpenAi => format!("{url}/v1"),
        }
    }

    /// The Rust provider of this style, at `url`. Anthropic's prompt caching is off: the
    /// Python port has none, and its breakpoints are not part of the translation.
    pub fn model(self, url: &str) -> Box<dyn Model> {
        match self {
            Style::Anthropic => Box::new(
                Anthropic::new("k", "m")
                    .with_base_url(self.base(url))
                    .prompt_caching(false)
                    .max_retries(0),
            ),
            Style::OpenAi => Box::new(
                OpenAi::compatible(self.base(url), "m")
                    .api_key("k")
                    .max_retries(0),
            ),
        }
    }

    fn response(self, case: &Case) -> Option<&Value> {
        match self {
            Style::Anthropic => case.anthropic.as_ref(),
            Style::OpenAi => case.openai.as_ref(),
        }
    }
}

/// One case, run by both ports.
pub struct Pair {
    pub name: String,
    pub style: Style,
    /// What the Python port gave: `{"result", "hooks"}` or `{"error"}`.
    pub python: Value,
    pub rust: Result<TranslateResult, TranslateError>,
    /// How often the Rust hooks fired: before the turn, after it, around a tool.
    pub rust_hooks: [usize; 3],
    /// The request each port sent: the Python port's, then the Rust port's.
    pub sent: Vec<Recorded>,
}

impl Pair {
    pub fn python_body(&self) -> &Value {
        &self.sent[0].body
    }

    pub fn rust_body(&self) -> &Value {
        &self.sent[1].body
    }
}

/// Every case in every style it has a response for.
pub fn runs(cases: &[Case]) -> Vec<(Style, Case)> {
    let mut runs = Vec::new();
    for case in cases {
        for style in [Style::Anthropic, Style::OpenAi] {
            if style.response(case).is_some() {
                runs.push((style, case.clone()));
            }
        }
    }
    runs
}

/// Runs each case in the Python port, then in the Rust port, against one server per case
/// that answers both the same.
pub async fn side_by_side(runs: &[(Style, Case)]) -> Vec<Pair> {
    let mut servers = Vec::with_capacity(runs.len());
    for (style, case) in runs {
        let response = style.response(case).expect("a response for the style");
        let canned = Canned::json(response.clone());
        servers.push(Server::start([canned.clone(), canned]).await);
    }
    let inputs: Vec<Value> = runs
        .iter()
        .zip(&servers)
        .map(|((style, case), server)| {
            json!({
                "style": style.name(),
                "url": style.base(&server.url),
                "request": case.request,
                "toolkit": case.toolkit,
            })
        })
        .collect();
    let python = python_port(&inputs).await;
    let mut pairs = Vec::with_capacity(runs.len());
    for (((style, case), server), python) in runs.iter().zip(&servers).zip(python) {
        assert_eq!(
            server.requests().len(),
            1,
            "{}: the Python port made one call: {python}",
            case.name
        );
        let hooks = Arc::new(Counting::default());
        let model = style.model(&server.url);
        let rust = translate(&*model, &request(case).hooks(hooks.clone())).await;
        pairs.push(Pair {
            name: format!("{} ({})", case.name, style.name()),
            style: *style,
            python,
            rust,
            rust_hooks: hooks.counts(),
            sent: server.requests(),
        });
    }
    pairs
}

/// The Rust request of a case.
pub fn request(case: &Case) -> TranslateRequest {
    let fields = &case.request;
    let mut request =
        TranslateRequest::new(fields["messages"].as_array().cloned().unwrap_or_default());
    if let Some(tools) = fields.get("tools").and_then(Value::as_array) {
        request = request.tools(tools.iter().cloned());
    }
    if let Some(choice) = fields.get("tool_choice") {
        request = request.tool_choice(choice.clone());
    }
    if let Some(system) = fields.get("system").and_then(Value::as_str) {
        request = request.system(system);
    }
    if let Some(max_tokens) = fields.get("max_tokens").and_then(Value::as_u64) {
        request = request.max_tokens(max_tokens as u32);
    }
    if let Some(tools) = case.toolkit.as_ref().and_then(Value::as_array) {
        let toolkit = tools.iter().fold(Toolkit::new(), |toolkit, tool| {
            toolkit.with(Tool::new_sync(
                tool["name"].as_str().unwrap(),
                tool["description"].as_str().unwrap(),
                tool["input_schema"].clone(),
                |_, _| ToolResult::error("a declared tool ran"),
            ))
        });
        request = request.toolkit(toolkit);
    }
    request
}

/// Counts the hooks that fire.
#[derive(Default)]
pub struct Counting([AtomicUsize; 3]);

impl Counting {
    pub fn counts(&self) -> [usize; 3] {
        self.0.each_ref().map(|n| n.load(Ordering::SeqCst))
    }

    fn bump(&self, at: usize) {
        self.0[at].fetch_add(1, Ordering::SeqCst);
    }
}

impl Hooks for Counting {
    fn before_turn<'a>(&'a self, _: TurnStart<'a>) -> HookFuture<'a, TurnDecision> {
        self.bump(0);
        HookFuture::ready(TurnDecision::Continue)
    }
    fn after_turn<'a>(&'a self, _: u32, _: &'a Reply) -> HookFuture<'a, ()> {
        self.bump(1);
        HookFuture::ready(())
    }
    fn before_tool<'a>(&'a self, _: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        self.bump(2);
        HookFuture::ready(ToolDecision::Allow)
    }
    fn after_tool<'a>(&'a self, _: &'a ToolCall, _: &'a mut ToolResult) -> HookFuture<'a, ()> {
        self.bump(2);
        HookFuture::ready(())
    }
}

/// The interpreter of the venv that has the Python port (`.ci/test` installs it).
fn python() -> String {
    std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/target/py-venv-toolnexus/bin/python"
        )
        .to_owned()
    })
}

/// Runs `tests/translate/python_port.py` on `cases`, bounded in time: one answer a case.
async fn python_port(cases: &[Value]) -> Vec<Value> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/translate/python_port.py"
    );
    let python = python();
    let mut child = tokio::process::Command::new(&python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start {python} (the venv with toolnexus==0.21.0 that .ci/test installs): {e}")
        });
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(Value::Array(cases.to_vec()).to_string().as_bytes())
        .await
        .expect("the cases");
    drop(stdin);
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the Python port finishes within 60 s")
        .expect("the Python port's output");
    assert!(
        output.status.success(),
        "the Python port failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(answers.len(), cases.len(), "one answer a case");
    answers
}

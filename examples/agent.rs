//! The tool-calling loop against a real model, or a scripted stand-in when no key is set.
//!
//! ```text
//! cargo run --example agent --features providers                       # scripted, or the first key found
//! cargo run --example agent --features providers -- --provider openai  # OPENAI_API_KEY, Chat Completions
//! cargo run --example agent --features providers -- --provider openai-responses --reasoning high
//! cargo run --example agent --features providers -- --provider anthropic --model claude-sonnet-4-5
//! cargo run --example agent --features providers -- --provider gemini --stream
//! cargo run --example agent --features providers -- --provider bedrock   # AWS_REGION + AWS credentials
//! cargo run --example agent --features providers -- --provider azure --model my-deployment
//! cargo run --example agent --features providers -- --provider compatible http://localhost:11434/v1 --model qwen3
//! cargo run --example agent --features providers -- "What is 7 + 8?"  # your own prompt
//! ```
//!
//! Without `--provider`, the first of `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` and
//! `GEMINI_API_KEY` that is set picks the provider; with none set, a `ScriptedModel`
//! plays the turns a real model would, so the example runs on a fresh machine. A
//! suspension (the deploy tool asks where) is answered on the spot with `staging`.
//! `--stream` prints the model's text as it arrives. `--reasoning EFFORT` (`low`, `medium`,
//! `high`) turns reasoning on: OpenAI's reasoning items, Anthropic's thinking blocks and
//! Gemini's thought signatures are then carried from each tool call to the next turn.
//! Each provider's `*_BASE_URL` points it at another server (a proxy, a local one);
//! Bedrock's is `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, Azure's `AZURE_OPENAI_ENDPOINT`
//! (`--reasoning` asks Claude on Bedrock for a 4,096-token thinking budget).

use std::error::Error;

use toolnexus::model::{Delta, ModelFuture, ModelRequest};
use toolnexus::providers::{Anthropic, AzureOpenAi, Bedrock, Gemini, OpenAi, OpenAiResponses};
use toolnexus::{
    Answer, Client, Model, ModelSettings, Reasoning, Reply, ScriptedModel, ToolCall, Toolkit,
};

#[path = "shared/tools.rs"]
mod tools;

const PROMPT: &str = "Add 2 and 3, divide 1 by 0, take a screenshot, then deploy the service.";

/// Prints the text of each turn as it streams in, then hands back the whole turn.
struct Printing<M>(M);

impl<M: Model> Model for Printing<M> {
    // The client's settings go through to the model, as they would without the wrapper.
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        Box::pin(async move {
            let print = |delta: Delta| {
                if let Delta::Text(text) = delta {
                    print!("{text}");
                }
            };
            let reply = self.0.complete(request.with_on_delta(&print)).await;
            println!();
            reply
        })
    }
}

/// The turns a model would take for the default prompt.
fn scripted() -> ScriptedModel {
    ScriptedModel::new([
        Reply::calls([
            ToolCall::new("call_add", "add", r#"{"a": 2, "b": 3}"#),
            ToolCall::new("call_divide", "divide", r#"{"a": 1, "b": 0}"#),
            ToolCall::new("call_screenshot", "screenshot", "{}"),
        ])
        .with_content("Three things at once."),
        Reply::call("call_deploy", "deploy_service", "{}"),
        Reply::text(
            "2 + 3 = 5; 1 / 0 failed (cannot divide by zero); I took a screenshot and deployed to staging.",
        ),
    ])
}

struct Options {
    provider: Option<String>,
    url: Option<String>,
    model: Option<String>,
    stream: bool,
    reasoning: Option<String>,
    prompt: String,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        provider: None,
        url: None,
        model: None,
        stream: false,
        reasoning: None,
        prompt: PROMPT.to_owned(),
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--provider" => {
                let provider = args.next().ok_or("--provider needs a name")?;
                if provider == "compatible" {
                    options.url = Some(args.next().ok_or("--provider compatible needs a URL")?);
                }
                options.provider = Some(provider);
            }
            "--model" => options.model = Some(args.next().ok_or("--model needs a name")?),
            "--stream" => options.stream = true,
            "--reasoning" => {
                options.reasoning = Some(args.next().ok_or("--reasoning needs an effort")?);
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => options.prompt = arg,
        }
    }
    Ok(options)
}

fn model(options: &Options) -> Result<(String, Box<dyn Model>), Box<dyn Error>> {
    let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
    let provider = options.provider.clone().or_else(|| {
        [
            ("OPENAI_API_KEY", "openai"),
            ("ANTHROPIC_API_KEY", "anthropic"),
            ("GEMINI_API_KEY", "gemini"),
        ]
        .into_iter()
        .find(|(var, _)| set(var))
        .map(|(_, provider)| provider.to_owned())
    });
    let name = |default: &str| options.model.clone().unwrap_or_else(|| default.to_owned());
    let thinking = options.reasoning.is_some();
    let settings = match options.reasoning.as_deref() {
        Some(effort) => ModelSettings::new().reasoning(Reasoning::effort(effort)),
        None => ModelSettings::new(),
    };
    let model: Box<dyn Model> = match provider.as_deref() {
        None => return Ok(("scripted".to_owned(), Box::new(scripted()))),
        Some("openai") => {
            let default = if thinking { "o4-mini" } else { "gpt-4.1-mini" };
            Box::new(OpenAi::from_env(name(default))?.with_settings(settings))
        }
        Some("openai-responses") => {
            let default = if thinking { "gpt-5.1" } else { "gpt-4.1-mini" };
            Box::new(OpenAiResponses::from_env(name(default))?.with_settings(settings))
        }
        Some("anthropic") => {
            Box::new(Anthropic::from_env(name("claude-sonnet-4-5"))?.with_settings(settings))
        }
        Some("gemini") => {
            let default = if thinking {
                "gemini-3-pro-preview"
            } else {
                "gemini-2.5-flash"
            };
            Box::new(Gemini::from_env(name(default))?.with_settings(settings))
        }
        Some("bedrock") => {
            // Claude on Bedrock thinks within a token budget, not at an effort.
            let settings = match thinking {
                true => ModelSettings::new().reasoning(Reasoning::budget(4_096)),
                false => ModelSettings::new(),
            };
            let model = Bedrock::from_env(name("us.anthropic.claude-sonnet-4-5-20250929-v1:0"))?;
            Box::new(model.with_settings(settings))
        }
        Some("azure") => {
            Box::new(AzureOpenAi::from_env(name("gpt-4.1-mini"))?.with_settings(settings))
        }
        Some("compatible") => {
            let url = options.url.clone().unwrap_or_default();
            let mut model = OpenAi::compatible(url, name("qwen3"));
            if let Ok(key) = std::env::var("OPENAI_API_KEY") {
                model = model.api_key(key);
            }
            Box::new(model)
        }
        Some(other) => {
            return Err(format!(
                "unknown provider {other}: openai, openai-responses, anthropic, gemini, bedrock, \
                 azure or compatible URL"
            )
            .into());
        }
    };
    let label = provider.unwrap_or_default();
    if options.stream {
        return Ok((label, Box::new(Printing(model))));
    }
    Ok((label, model))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(error) = agent().await {
        eprintln!("agent: {error}");
        std::process::exit(1);
    }
}

async fn agent() -> Result<(), Box<dyn Error>> {
    let options = options()?;
    let (provider, model) = model(&options)?;
    println!("== model: {provider} ==");
    let toolkit = Toolkit::new()
        .with(tools::add::tool())
        .with(tools::divide::tool())
        .with(tools::screenshot::tool())
        .with(tools::deploy::tool());
    let client = Client::new(model)
        .system("You are a careful assistant. Use the tools; run independent calls in parallel.")
        .wait_for(|request| async move {
            println!(
                "-- the deploy tool asks: {} -> answering `staging`",
                request.prompt
            );
            Answer::accept(&request.id).with_data("staging")
        });
    let run = client.run(options.prompt.as_str(), &toolkit).await;
    for call in &run.tool_calls {
        let verdict = if call.result.is_error { "error" } else { "ok" };
        println!(
            "-- turn {} {}({}) -> {verdict}: {}",
            call.turn, call.call.name, call.call.arguments, call.result.output
        );
    }
    println!(
        "== answer ({} turns, {} tokens: {} cached, {} reasoning) ==",
        run.turns,
        run.usage.total_tokens(),
        run.usage.cache_read_tokens,
        run.usage.reasoning_tokens
    );
    println!("{}", run.text);
    if !run.is_done() {
        return Err(format!("the run did not finish: {:?}", run.status).into());
    }
    Ok(())
}

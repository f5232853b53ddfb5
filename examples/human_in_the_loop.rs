//! A deploy tool that stops to ask which environment, run through the tool-calling loop
//! twice: once with a `wait_for` slot that answers on the spot, and once halted and
//! saved: the run halts, its pending state is written to a JSON file, and a resume reads
//! it back and finishes (as a new process would). (For runs kept in a database, see
//! `examples/durable.rs`.)
//!
//! ```text
//! cargo run --example human_in_the_loop                    # answers "staging"
//! cargo run --example human_in_the_loop -- --env production
//! cargo run --example human_in_the_loop -- --stdin         # asks on the terminal, twice
//! ```
//!
//! The model is a stand-in (`FnModel`) that asks for a deploy, then reports the result.

use std::error::Error;
use std::path::{Path, PathBuf};

use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::{
    Answer, Client, Context, Message, Reply, Request, RunResult, Suspend, Toolkit, tool,
};

const ENVIRONMENTS: [&str; 2] = ["staging", "production"];

/// Deploy the service; asks which environment when none is given.
#[tool(name = "deploy_service")]
fn deploy(
    /// `staging` or `production`; asked for when absent.
    env: Option<String>,
    ctx: &Context,
) -> Result<String, toolnexus::tool::Error> {
    let answered = ctx.answer().and_then(Answer::text).map(str::to_owned);
    let Some(env) = env.or(answered) else {
        // Suspends: the run asks, and this call runs again with the answer.
        let ask = Request::input("Which environment should I deploy to?");
        Err(Suspend(ask.with_data(json!({ "choices": ENVIRONMENTS }))))?
    };
    if !ENVIRONMENTS.contains(&env.as_str()) {
        Err(format!(
            "unknown environment `{env}`; expected one of {ENVIRONMENTS:?}"
        ))?;
    }
    Ok(format!("deployed build 42 to {env}"))
}

/// The toolkit: just `deploy_service`.
pub(crate) fn toolkit() -> Toolkit {
    Toolkit::new().with(deploy::tool())
}

/// A stand-in model, stateless so that a resumed run in another process can use it:
/// asks for a deploy, then reports the tool's result.
pub(crate) fn model() -> FnModel {
    FnModel::new_sync(|transcript, _tools| {
        Ok(match transcript.last() {
            Some(Message::Tool { content, .. }) => {
                Reply::text(format!("The deploy tool said: {content}"))
            }
            _ => Reply::call("call_deploy", "deploy_service", "{}"),
        })
    })
}

/// Where the answer to the tool's question comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AnswerSource {
    /// A fixed answer, from `--env NAME` (default `staging`).
    Fixed(String),
    /// A line read from standard input (`--stdin`); an empty line declines.
    Stdin,
}

/// Reads the command line (without the program name).
pub(crate) fn parse_args(args: impl IntoIterator<Item = String>) -> Result<AnswerSource, String> {
    let mut source = AnswerSource::Fixed("staging".to_owned());
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdin" => source = AnswerSource::Stdin,
            "--env" => match args.next() {
                Some(env) => source = AnswerSource::Fixed(env),
                None => return Err("--env needs a value, e.g. --env staging".to_owned()),
            },
            other => match other.strip_prefix("--env=") {
                Some(env) => source = AnswerSource::Fixed(env.to_owned()),
                None => {
                    return Err(format!(
                        "unknown argument `{other}`; use --env NAME or --stdin"
                    ));
                }
            },
        }
    }
    Ok(source)
}

/// Answers `request` from `source`.
pub(crate) async fn answer(source: &AnswerSource, request: Request) -> Answer {
    match source {
        AnswerSource::Fixed(env) => request.answer(env.as_str()),
        AnswerSource::Stdin => {
            println!("? {}", request.prompt);
            let line = tokio::task::spawn_blocking(|| {
                let mut line = String::new();
                std::io::stdin().read_line(&mut line).map(|_| line)
            })
            .await;
            match line {
                Ok(Ok(line)) if !line.trim().is_empty() => request.answer(line.trim()),
                _ => request.decline("no answer given"),
            }
        }
    }
}

/// Path 1: a `wait_for` slot answers while the run waits.
pub(crate) async fn interactive(source: AnswerSource) -> RunResult {
    let client = Client::new(model()).wait_for(move |request| {
        let source = source.clone();
        async move { answer(&source, request).await }
    });
    client.run("Deploy the service.", &toolkit()).await
}

/// Path 2: no `wait_for`, so the run halts; its state goes to `state_file`; a resume
/// reads it back, answers, and finishes. Returns the halted run and the finished one.
pub(crate) async fn saved(
    source: &AnswerSource,
    state_file: &Path,
) -> Result<(RunResult, RunResult), Box<dyn Error>> {
    let halted = Client::new(model())
        .run("Deploy the service.", &toolkit())
        .await;
    std::fs::write(state_file, serde_json::to_string_pretty(&halted)?)?;

    // From here on, only the file is used: this could be another process, days later.
    let saved: RunResult = serde_json::from_str(&std::fs::read_to_string(state_file)?)?;
    let request = saved
        .pending
        .clone()
        .ok_or("the run did not halt on a request")?;
    let answer = answer(source, request).await;
    let finished = Client::new(model())
        .resume(saved, answer, &toolkit())
        .await?;
    Ok((halted, finished))
}

/// Where the durable path keeps its pending state.
pub(crate) fn state_file() -> PathBuf {
    std::env::temp_dir().join("toolnexus-human-in-the-loop.json")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let source = parse_args(std::env::args().skip(1))?;

    println!("== with wait_for ==");
    let run = interactive(source.clone()).await;
    println!("status: {:?}\nanswer: {}", run.status, run.text);

    println!("\n== halt, save, resume ==");
    let path = state_file();
    let (halted, finished) = saved(&source, &path).await?;
    let request = halted.pending.as_ref().map_or("", |r| r.prompt.as_str());
    println!("halted on: {request}");
    println!("state written to {}", path.display());
    println!("status: {:?}\nanswer: {}", finished.status, finished.text);
    Ok(())
}

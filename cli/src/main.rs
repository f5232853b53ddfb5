//! `toolnexus`: the toolnexus contract's command line (§9). It builds a toolkit from an
//! MCP config and skills folders (the built-in tools on, as the contract has them) and
//! either lists its tools or runs an agent over it, on any OpenAI-compatible or
//! Anthropic endpoint.
//!
//! ```text
//! toolnexus tools --config mcp.json --skills ./skills
//! toolnexus run --config mcp.json --skills ./skills --model gpt-4o-mini        # a line in, the answer out
//! toolnexus run --base-url http://127.0.0.1:11434/v1 --model qwen3 --once "What is 2 + 3?"
//! ```

mod terminal;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use toolnexus::providers::{ModelConfig, Style};
use toolnexus::source::McpConfig;
use toolnexus::{Client, RunStatus, Toolkit};

use terminal::Terminal;

/// An agent over MCP servers, skills and the built-in tools, in a terminal.
#[derive(Parser, Debug)]
#[command(name = "toolnexus", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    options: Options,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Runs the agent: each line read is a prompt, each answer is printed; Ctrl-D or
    /// `exit` quits. With a PROMPT (or `--once`), answers it and exits.
    Run {
        /// Answer this one prompt and exit.
        #[arg(long, value_name = "PROMPT", conflicts_with = "prompt")]
        once: Option<String>,
        /// Answer this one prompt and exit (as `--once`).
        prompt: Option<String>,
    },
    /// Lists the resolved tools, one a line: name, source, description (first line).
    Tools,
}

/// What the toolkit and the model are made of.
#[derive(Args, Debug)]
struct Options {
    /// An MCP config file (`mcpServers`, `servers` or `mcp`; `builtins`, `agents`).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A skills folder (repeatable).
    #[arg(long, global = true, value_name = "DIR")]
    skills: Vec<PathBuf>,
    /// The model endpoint's base URL (default: the style's public API).
    #[arg(long, global = true, env = "TOOLNEXUS_BASE_URL", value_name = "URL")]
    base_url: Option<String>,
    /// The endpoint's API style.
    #[arg(long, global = true, value_enum, default_value_t = ApiStyle::Openai)]
    style: ApiStyle,
    /// The model.
    #[arg(long, global = true, env = "TOOLNEXUS_MODEL")]
    model: Option<String>,
    /// The system prompt (the skills catalog is added after it).
    #[arg(long, global = true, value_name = "TEXT")]
    system: Option<String>,
    /// The API key (default: OPENROUTER_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY).
    #[arg(long, global = true, value_name = "KEY", hide_env_values = true)]
    api_key: Option<String>,
    /// Let the built-in tools that run commands or change files (bash, write, edit,
    /// webfetch, apply_patch) act without asking first.
    #[arg(long, global = true)]
    yes: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum ApiStyle {
    /// Chat Completions (OpenAI and every compatible server).
    Openai,
    /// Anthropic's Messages API.
    Anthropic,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("toolnexus: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<ExitCode, String> {
    let options = &cli.options;
    // The model is checked before any MCP server starts.
    let client = match &cli.command {
        Command::Run { .. } => Some(client(options)?),
        Command::Tools => None,
    };
    let toolkit = toolkit(options).await?;
    for (server, status) in toolkit.mcp_status() {
        if status.as_str() == "failed" {
            eprintln!("toolnexus: MCP server `{server}` {status}");
        }
    }
    let code = match (cli.command, client) {
        (Command::Tools, _) => {
            for tool in toolkit.tools() {
                let summary = tool.description().lines().next().unwrap_or_default();
                println!("{}\t{}\t{summary}", tool.name(), tool.source());
            }
            ExitCode::SUCCESS
        }
        (Command::Run { once, prompt }, Some(client)) => {
            let terminal = Terminal::new();
            let client = client.wait_for(terminal.asker());
            match once.or(prompt) {
                Some(prompt) => answer(&client, &prompt, &toolkit).await,
                None => repl(&client, &toolkit, &terminal).await,
            }
        }
        (Command::Run { .. }, None) => ExitCode::FAILURE,
    };
    toolkit.close().await;
    Ok(code)
}

/// The toolkit of `--config` and `--skills`, built-in tools asking before they act
/// unless `--yes`.
async fn toolkit(options: &Options) -> Result<Toolkit, String> {
    let mut builder = Toolkit::builder();
    let mut builtins = toolnexus::builtins::Builtins::all();
    if let Some(path) = &options.config {
        let config = McpConfig::from_file(path).map_err(|e| e.to_string())?;
        builtins = config.builtins().clone();
        builder = builder.mcp_config(config);
    }
    for dir in &options.skills {
        builder = builder.skills_dir(dir);
    }
    Ok(builder
        .builtins(builtins.approval(!options.yes))
        .build()
        .await)
}

/// The client of `--style`, `--model`, `--base-url`, `--api-key` and `--system`.
fn client(options: &Options) -> Result<Client, String> {
    let model = options
        .model
        .clone()
        .ok_or("`toolnexus run` needs a model: --model NAME (or TOOLNEXUS_MODEL)")?;
    let style = match options.style {
        ApiStyle::Openai => Style::OpenAi,
        ApiStyle::Anthropic => Style::Anthropic,
    };
    let mut config = ModelConfig::new(style, model);
    config.base_url = options.base_url.clone();
    config.api_key = options.api_key.clone();
    config.system_prompt = options.system.clone();
    // The toolkit adds its own skills catalog to the system prompt.
    config.client("").map_err(|e| e.to_string())
}

/// Runs one prompt and prints the answer (or why there is none).
async fn answer(client: &Client, prompt: &str, toolkit: &Toolkit) -> ExitCode {
    let run = client.run(prompt, toolkit).await;
    if matches!(run.status, RunStatus::Done) {
        println!("{}", run.text);
        ExitCode::SUCCESS
    } else {
        if !run.text.is_empty() {
            println!("{}", run.text);
        }
        eprintln!("toolnexus: the run did not finish: {:?}", run.status);
        ExitCode::FAILURE
    }
}

/// The interactive loop: a line in, the answer out, until Ctrl-D or `exit`.
async fn repl(client: &Client, toolkit: &Toolkit, terminal: &Terminal) -> ExitCode {
    loop {
        let Some(line) = terminal.read_line("> ").await else {
            println!();
            break;
        };
        let line = line.trim();
        if line == "exit" {
            break;
        }
        if line.is_empty() {
            continue;
        }
        answer(client, line, toolkit).await;
    }
    ExitCode::SUCCESS
}

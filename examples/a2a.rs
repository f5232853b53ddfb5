//! A2A both ways: a `Client` served as an A2A agent, and a remote A2A agent called as a
//! tool. The served agent runs keyless on a scripted model: it deploys what it is asked
//! to with its `deploy` tool, which asks for approval before it runs.
//!
//! ```text
//! cargo run --example a2a --features a2a                               # serve, call it, approve
//! cargo run --example a2a --features a2a -- serve 127.0.0.1:8080       # serve only
//! cargo run --example a2a --features a2a -- serve 127.0.0.1:8080 --store tasks.db
//! cargo run --example a2a --features a2a -- serve 127.0.0.1:8080 --principal-header x-user
//! cargo run --example a2a --features a2a,postgres -- serve 127.0.0.1:8080 --store postgres://…
//! cargo run --example a2a --features a2a -- call http://127.0.0.1:8080/.well-known/agent-card.json "the web app"
//! ```
//!
//! `serve ADDR` prints `listening on http://ADDR/` as its first stdout line (port 0
//! picks a free port; the card is at `/.well-known/agent-card.json`) and stops when its
//! stdin closes. With `--store FILE`, the agent's runs and tasks are kept in that SQLite
//! file (or, built with the `postgres` feature, in the PostgreSQL database of a
//! `postgres://` URL): a task waiting for its approval survives a restart, and several
//! servers on the same database answer for each other's tasks. With `--principal-header
//! NAME`, the caller is the value of that header (the user your authentication proxy
//! puts there): each caller sees only its own tasks and conversations. Without it, callers
//! are anonymous: a task's id and a conversation's contextId, which only their caller is
//! told, are what lets it back in, and `ListTasks` lists one conversation at a time.
//! `--body-timeout MS` bounds the time a request's body may take to arrive (default
//! 30 s). `call CARD TASK` calls
//! the agent's first skill with TASK; when the agent asks (an approval), it prints the
//! question and reads the answer (`yes` / `no`) from stdin, then sends it on the same
//! task. With no arguments it does both, approving.

use std::convert::Infallible;
use std::io::{BufRead as _, Read as _};

use serde_json::json;
use toolnexus::a2a::{A2aAgent, A2aServer};
use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::web::WebGuard;
use toolnexus::{Client, Context, Message, Reply, Toolkit, tool};

/// Deploy a service.
#[tool(approval = "Deploy this service?")]
fn deploy(
    /// What to deploy.
    service: String,
) -> Result<String, Infallible> {
    Ok(format!("deployed {service}"))
}

/// A model that deploys what it is asked to, then says how it went.
fn model() -> FnModel {
    FnModel::new_sync(|transcript, _tools| {
        Ok(match transcript.last() {
            Some(Message::User { content }) => Reply::call(
                format!("call_{}", transcript.len()),
                "deploy",
                json!({ "service": content }).to_string(),
            ),
            Some(Message::Tool {
                content, is_error, ..
            }) if *is_error => Reply::text(format!("Not deployed: {content}")),
            Some(Message::Tool { content, .. }) => Reply::text(format!("Done: {content}.")),
            _ => Reply::text("Nothing to do."),
        })
    })
}

/// How `serve` is configured from its flags.
#[derive(Default)]
struct Options {
    store: Option<String>,
    principal_header: Option<String>,
    body_timeout: Option<std::time::Duration>,
}

impl Options {
    fn parse(flags: &[String]) -> Result<Options, String> {
        let mut options = Options::default();
        let mut flags = flags.iter();
        while let Some(flag) = flags.next() {
            let value = flags
                .next()
                .ok_or_else(|| format!("{flag} needs a value"))?
                .clone();
            match flag.as_str() {
                "--store" => options.store = Some(value),
                "--principal-header" => options.principal_header = Some(value),
                "--body-timeout" => {
                    let ms = value
                        .parse()
                        .map_err(|_| format!("--body-timeout takes milliseconds, not {value}"))?;
                    options.body_timeout = Some(std::time::Duration::from_millis(ms));
                }
                _ => return Err(format!("unknown flag {flag}")),
            }
        }
        Ok(options)
    }
}

/// The served agent: `client` (the model above, with or without a run store) with the
/// `deploy` tool.
fn agent(client: Client, options: &Options) -> A2aServer {
    let toolkit = Toolkit::new().with(deploy::tool());
    let mut server = A2aServer::new(client, toolkit)
        .name("deployer")
        .description("Deploys services, after asking for approval.")
        .skill(
            "deploy",
            "Deploy",
            "Deploys a service; asks for approval first.",
        );
    if let Some(timeout) = options.body_timeout {
        server = server.web_guard(WebGuard::new().body_read_timeout(timeout));
    }
    if let Some(name) = options.principal_header.clone() {
        // Trust this header only behind a proxy that sets it (and removes a client's own).
        server = server.principal(move |head| {
            let value = head.headers.get(name.as_str())?.to_str().ok()?;
            Some(value.to_owned())
        });
    }
    server
}

/// The served client, its runs and tasks kept in the store at `store` when given: a
/// `postgres://` URL, or a SQLite file.
async fn client(store: Option<&str>) -> Result<Client, String> {
    Ok(match store {
        None => Client::new(model()),
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            postgres(url).await?
        }
        Some(path) => {
            let store = RunStore::sqlite(path).await.map_err(|e| e.to_string())?;
            Client::new(model()).store(store)
        }
    })
}

#[cfg(feature = "postgres")]
async fn postgres(url: &str) -> Result<Client, String> {
    let store = toolnexus::store::RunStore::postgres(url)
        .await
        .map_err(|e| e.to_string())?;
    Ok(Client::new(model()).store(store))
}

#[cfg(not(feature = "postgres"))]
async fn postgres(_url: &str) -> Result<Client, String> {
    Err("built without PostgreSQL: add `--features postgres`".to_owned())
}

async fn serve(addr: &str, options: &Options) -> Result<(), String> {
    let served = agent(client(options.store.as_deref()).await?, options)
        .serve(addr)
        .await
        .map_err(|e| e.to_string())?;
    println!("listening on {}", served.url());
    // Stop when stdin closes (the parent process went away, or Ctrl-D).
    tokio::task::spawn_blocking(|| {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
    })
    .await
    .ok();
    served.shutdown().await.map_err(|e| e.to_string())
}

/// Calls the agent's first skill; a question is answered by `answer` (or read from stdin).
async fn call(card: &str, task: &str, answer: Option<&str>) -> Result<String, String> {
    let remote = A2aAgent::connect(card).await.map_err(|e| e.to_string())?;
    let tool = remote
        .tools()
        .into_iter()
        .next()
        .ok_or("the agent has no skills")?;
    println!("calling {} ({})", tool.name(), tool.description());
    let mut result = tool.execute(json!({ "task": task }), Context::new()).await;
    while let Some(request) = result.pending_request() {
        println!("the agent asks: {}", request.prompt);
        let reply = match answer {
            Some(answer) => answer.to_owned(),
            None => {
                let mut line = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .map_err(|e| e.to_string())?;
                line.trim().to_owned()
            }
        };
        let answer = if matches!(reply.as_str(), "no" | "n") {
            request.decline("no")
        } else {
            request.answer(reply)
        };
        let ctx = Context::new().with_answer(answer).with_request(request);
        result = tool.execute(json!({ "task": task }), ctx).await;
    }
    match result.is_error {
        true => Err(result.output),
        false => Ok(result.output),
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["serve", addr, ..] => match Options::parse(&args[2..]) {
            Ok(options) => serve(addr, &options).await,
            Err(error) => Err(error),
        },
        ["call", card, task] => call(card, task, None).await.map(|text| println!("{text}")),
        [] => demo().await,
        _ => Err(
            "usage: a2a [serve ADDR [--store FILE] [--principal-header NAME] \
                  [--body-timeout MS] | call CARD_URL TASK]"
                .to_owned(),
        ),
    };
    if let Err(error) = outcome {
        eprintln!("a2a: {error}");
        std::process::exit(1);
    }
}

/// Serves the agent on a free port and calls it, approving its question.
async fn demo() -> Result<(), String> {
    let served = agent(Client::new(model()), &Options::default())
        .serve("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    println!("serving {}", served.card_url());
    let text = call(&served.card_url(), "the web app", Some("yes")).await?;
    println!("{text}");
    served.shutdown().await.map_err(|e| e.to_string())
}

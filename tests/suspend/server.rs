//! An MCP server whose tools suspend, for the human-in-the-loop tests (`tests/mcp_server_suspend.rs`).
//!
//! ```text
//! cargo run -p toolnexus-suite --example suspend_server                         # stdio
//! cargo run -p toolnexus-suite --example suspend_server -- --http 127.0.0.1:0 [--stateless]
//! ```
//!
//! Tools: `deploy` (asks which environment, a one-field form), `delete_repo` (an approval
//! tool, `#[tool(approval)]`), `connect_account` (asks the user to log in at a URL) and
//! `pick` (asks with a schema of its own: a default, titled and untitled enums, a
//! multi-select), `ship` (asks with a nested object, outside the elicitation subset).
//! Every tool body that runs appends a line to the file named by
//! `SUSPEND_LOG`, so a test can prove a tool did not run. `SUSPEND_KEY` is the
//! `requestState` secret (a random per-process key without it), `SUSPEND_TTL_MS` the
//! state's lifetime, `SUSPEND_STORE` a SQLite file the server keeps its spent states in
//! (shared by the replicas given the same file), `SUSPEND_PRINCIPAL_HEADER` a request
//! header that says who the caller is (as a gateway that authenticated it would), and
//! `SUSPEND_EVENTS` a file the server's log events (warnings and errors, with the span
//! they happened in) are appended to. Over HTTP the first line on stdout is
//! `listening on URL`; closing stdin stops the server.

// `Result<_, Suspend>` is the return form a suspending tool is written in; a `Suspend`
// carries a whole `Request`, which is larger than clippy's default for an error type.
#![allow(clippy::result_large_err)]

use std::io::{Read as _, Write as _};
use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::mcp::{HttpOptions, McpServer, StateKey};
use toolnexus::{Context, Request, Suspend, Toolkit, tool};

/// Appends `line` to the side-effect log.
fn did(line: &str) {
    let Ok(path) = std::env::var("SUSPEND_LOG") else {
        return;
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the side-effect log opens");
    writeln!(file, "{line}").expect("the side-effect log is writable");
}

/// Deploy a service; asks which environment.
#[tool]
fn deploy(service: String, ctx: &Context) -> Result<String, Suspend> {
    match ctx.answer() {
        Some(answer) if answer.ok => {
            let env = answer.text().unwrap_or("?");
            did(&format!("deploy {service} {env}"));
            Ok(format!("deployed {service} to {env}"))
        }
        Some(answer) => Ok(format!(
            "deployment of {service} cancelled ({})",
            answer.reason.as_deref().unwrap_or("no reason")
        )),
        None => Err(Suspend::input(format!("Which environment for {service}?"))),
    }
}

/// Delete a repository, after the user approves.
#[tool(approval)]
fn delete_repo(name: String) -> Result<String, std::convert::Infallible> {
    did(&format!("delete {name}"));
    Ok(format!("deleted {name}"))
}

/// Connect the user's account; asks them to log in first.
#[tool]
fn connect_account(ctx: &Context) -> Result<String, Suspend> {
    match ctx.answer() {
        Some(answer) if answer.ok => {
            did("connect");
            Ok("connected".to_owned())
        }
        Some(_) => Ok("not connected".to_owned()),
        None => Err(Suspend::authorization(
            "https://example.com/login",
            "Log in to connect your account",
        )),
    }
}

/// The schema `pick` asks with.
fn pick_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "size": {"type": "string", "title": "Size", "oneOf": [
                {"const": "s", "title": "Small"},
                {"const": "l", "title": "Large"}
            ]},
            "color": {"type": "string", "enum": ["red", "blue"], "default": "blue"},
            "toppings": {"type": "array", "title": "Toppings", "items": {"type": "string", "enum": ["ham", "olive"]}},
            "count": {"type": "integer", "minimum": 1, "default": 1}
        },
        "required": ["size"]
    })
}

/// Order a pizza; asks with a form of its own.
#[tool]
fn pick(ctx: &Context) -> Result<String, Suspend> {
    match ctx.answer() {
        Some(answer) if answer.ok => {
            let data = answer.data.clone().unwrap_or(Value::Null);
            did(&format!("pick {data}"));
            Ok(data.to_string())
        }
        Some(_) => Ok("no pizza".to_owned()),
        None => Err(Suspend(
            Request::input("Which pizza?").with_data(pick_schema()),
        )),
    }
}

/// Ship a parcel; asks for the address as a nested object, which no elicitation form
/// can show: the server refuses to send it and says why.
#[tool]
fn ship(ctx: &Context) -> Result<String, Suspend> {
    match ctx.answer() {
        Some(_) => {
            did("ship");
            Ok("shipped".to_owned())
        }
        None => Err(Suspend(Request::input("Where to?").with_data(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "address": {"type": "object", "properties": {"city": {"type": "string"}}}
            }
        })))),
    }
}

async fn server() -> McpServer {
    let toolkit: Toolkit = toolnexus::tools![deploy, delete_repo, connect_account, pick, ship]
        .into_iter()
        .collect();
    let mut server = McpServer::new(toolkit).name("suspend-server");
    if let Ok(secret) = std::env::var("SUSPEND_KEY") {
        server = server.state_key(StateKey::new(secret).expect("SUSPEND_KEY is long enough"));
    }
    if let Ok(ms) = std::env::var("SUSPEND_TTL_MS") {
        let ms = ms.parse().expect("SUSPEND_TTL_MS is a number");
        server = server.state_ttl(Duration::from_millis(ms));
    }
    if let Ok(path) = std::env::var("SUSPEND_STORE") {
        let store = toolnexus::store::RunStore::sqlite(&path)
            .await
            .expect("SUSPEND_STORE opens");
        server = server.store(&store);
    }
    if let Ok(header) = std::env::var("SUSPEND_PRINCIPAL_HEADER") {
        server = server.principal(move |parts| {
            let value = parts.headers.get(header.as_str())?;
            value.to_str().ok().map(str::to_owned)
        });
    }
    server
}

/// Appends the server's warnings and errors to the file named by `SUSPEND_EVENTS`: one
/// line per event, `LEVEL [span] field=value…`, as a log collector would see them.
mod events {
    use std::io::Write as _;
    use std::path::PathBuf;

    use tracing::field::{Field, Visit};
    use tracing::{Event, Level, Subscriber};
    use tracing_subscriber::layer::{Context, Layer, SubscriberExt as _};
    use tracing_subscriber::registry::LookupSpan;

    struct ToFile(PathBuf);

    struct Line(String);

    impl Visit for Line {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.push_str(&format!(" {}={value}", field.name()));
        }
    }

    impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for ToFile {
        fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
            if *event.metadata().level() > Level::WARN {
                return;
            }
            let span = ctx.event_span(event).map(|span| span.name()).unwrap_or("-");
            let mut line = Line(format!("{} [{span}]", event.metadata().level()));
            event.record(&mut line);
            if let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.0)
            {
                let _ = writeln!(file, "{}", line.0);
            }
        }
    }

    /// Installs the writer when `SUSPEND_EVENTS` names a file.
    pub(super) fn install() {
        if let Ok(path) = std::env::var("SUSPEND_EVENTS") {
            let subscriber = tracing_subscriber::registry().with(ToFile(path.into()));
            tracing::subscriber::set_global_default(subscriber).expect("one subscriber");
        }
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    events::install();
    let server = server().await;
    let (addr, stateless) = match &args[..] {
        [] => return server.serve_stdio().await,
        [flag, addr] if flag == "--http" => (addr, false),
        [flag, addr, s] if flag == "--http" && s == "--stateless" => (addr, true),
        _ => {
            eprintln!("usage: suspend_server [--http ADDR [--stateless]]");
            std::process::exit(2);
        }
    };
    let mut options = HttpOptions::new();
    if stateless {
        options = options.stateless();
    }
    let http = server.serve_http_with(addr.as_str(), options).await?;
    println!("listening on {}", http.url());
    let _ = std::io::stdout().flush();
    // Until stdin closes (the test drops it, or dies).
    tokio::task::spawn_blocking(|| {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
    })
    .await?;
    http.shutdown().await
}

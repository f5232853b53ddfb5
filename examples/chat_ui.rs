//! A chat page that drives a run: streamed text, tool calls as they run, and an approval
//! card with Approve and Decline, over AG-UI (`toolnexus::ui::ag_ui`). One static HTML
//! page, no build step.
//!
//! ```text
//! cargo run --example chat_ui --features ui                      # http://127.0.0.1:8080/
//! cargo run --example chat_ui --features ui -- 127.0.0.1:0       # any free port
//! cargo run --example chat_ui --features ui -- 127.0.0.1:8080 --db chat.db   # durable
//! ```
//!
//! With `--db PATH` the runs live in a SQLite file: each chat thread is a session of the
//! store, and an approval card still open when the server restarts is answered by the
//! next server on the same file.
//!
//! Prints `listening on http://ADDR/` as its first stdout line and stops when its stdin
//! closes. The page is at `/`, the AG-UI endpoint at `/agui`, the AI SDK's UI message
//! stream (for `useChat`) at `/chat`. Keyless: a scripted model
//! deploys what it is asked to with its `deploy` tool, which asks for approval first.
//!
//! Both endpoints answer only requests to a loopback host name (`127.0.0.1`,
//! `localhost`) from a loopback page or no page, with JSON bodies: another site's page
//! cannot start a run or approve a call. To serve them under another name, build them
//! with `toolnexus::ui::ag_ui_with` and `UiOptions::with_guard`.

use std::convert::Infallible;
use std::io::Read as _;

use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::{Client, Message, Reply, Toolkit, tool};

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

const PAGE: &str = include_str!("chat_ui/index.html");

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = args
        .first()
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let mut client = Client::new(model());
    if let Some(at) = args.iter().position(|a| a == "--db") {
        let path = args
            .get(at + 1)
            .ok_or_else(|| std::io::Error::other("--db needs a path"))?;
        let store = toolnexus::store::SqliteStore::open(path)
            .await
            .map_err(std::io::Error::other)?;
        client = client.with_store(store);
    }
    let toolkit = Toolkit::new().with(deploy::tool());
    let app = axum::Router::new()
        .route(
            "/",
            axum::routing::get(|| async { axum::response::Html(PAGE) }),
        )
        .nest(
            "/agui",
            toolnexus::ui::ag_ui(client.clone(), toolkit.clone()),
        )
        .nest("/chat", toolnexus::ui::ai_sdk(client, toolkit));
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}/", listener.local_addr()?);
    let stdin_closed = async {
        let _ = tokio::task::spawn_blocking(|| std::io::stdin().read_to_end(&mut Vec::new())).await;
    };
    axum::serve(listener, app)
        .with_graceful_shutdown(stdin_closed)
        .await
}

//! A chat page that drives a run: streamed text, tool calls as they run, and an approval
//! card with Approve and Decline, over AG-UI (`toolnexus::ui::ag_ui`). One static HTML
//! page, no build step.
//!
//! ```text
//! cargo run --example chat_ui --features ui                      # http://127.0.0.1:8080/
//! cargo run --example chat_ui --features ui -- 127.0.0.1:0       # any free port
//! cargo run --example chat_ui --features ui -- 127.0.0.1:8080 --db chat.db   # durable
//! cargo run --example chat_ui --features ui,mcp -- 127.0.0.1:8080 \
//!     --mcp http://127.0.0.1:9000/mcp --approve add_line        # an MCP server's tools and views
//! cargo run --example chat_ui --features ui,restate -- 127.0.0.1:8080 \
//!     --restate http://127.0.0.1:8080 --admin http://127.0.0.1:9070   # runs on Restate
//! ```
//!
//! With `--db PATH` the runs live in a SQLite file: each chat thread is a session of the
//! store, and an approval card still open when the server restarts is answered by the
//! next server on the same file, a view's call waiting on one as well.
//!
//! With `--mcp URL` (feature `mcp`, repeatable) the tools of the MCP server at `URL` join
//! the page's own, and the views they ship (MCP Apps, `io.modelcontextprotocol/ui`) show
//! in the chat: each in a sandboxed frame (scripts only, an origin of its own, the
//! Content Security Policy its resource's `_meta.ui.csp` asks for), speaking the MCP Apps
//! host protocol with the page. A view's tool calls go to its own server through
//! `/apps` (`toolnexus::ui::mcp_apps`); the tools named with `--approve NAME` ask the user
//! first, whether the model or a view calls them. A view's message joins the chat as the
//! user's, and a link it opens asks the user before it opens.
//!
//! With `--restate INGRESS` (feature `restate`) the runs are Restate invocations: the
//! example serves its model and tools as the `Agent` object (`toolnexus::restate`) on a
//! free loopback port, registers it with the Restate server whose admin API is at
//! `--admin URL` (default `http://127.0.0.1:9070`), and the page's `/agui` endpoint is
//! `toolnexus::restate::ag_ui` on that server's ingress. An approval card is then a
//! suspended invocation that holds no worker: Approve resolves its awakeable, even after
//! the Restate server restarted.
//!
//! Prints `listening on http://ADDR/` as its first stdout line and stops when its stdin
//! closes. The page is at `/`, the AG-UI endpoint at `/agui`, the AI SDK's UI message
//! stream (for `useChat`) at `/chat`, the views' tool calls at `/apps`. Keyless: a
//! scripted model calls a tool when the prompt is the tool's name and its arguments as a
//! JSON object (`budget {"lines": []}`), and otherwise deploys what it is asked to with
//! its `deploy` tool, which asks for approval first.
//!
//! The endpoints answer only requests to a loopback host name (`127.0.0.1`,
//! `localhost`) from a loopback page or no page, with JSON bodies: another site's page
//! cannot start a run, approve a call or call a view's tool. To serve them under another
//! name, build them with `toolnexus::ui::ag_ui_with` and `UiOptions::guard`.

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

/// A model that calls the tool a prompt names (`NAME {json}`), deploys any other prompt,
/// then says how it went.
fn model() -> FnModel {
    FnModel::new_sync(|transcript, tools| {
        Ok(match transcript.last() {
            Some(Message::User { content }) => {
                let id = format!("call_{}", transcript.len());
                let content = content.text();
                match named_call(&content, tools) {
                    Some((name, arguments)) => Reply::call(id, name, arguments),
                    None => Reply::call(id, "deploy", json!({ "service": content }).to_string()),
                }
            }
            Some(Message::Tool {
                content, is_error, ..
            }) if *is_error => Reply::text(format!("Not deployed: {content}")),
            Some(Message::Tool { content, .. }) => Reply::text(format!("Done: {content}.")),
            _ => Reply::text("Nothing to do."),
        })
    })
}

/// `NAME {json}`, when `NAME` is a tool of `tools` and the rest a JSON object.
fn named_call(prompt: &str, tools: &Toolkit) -> Option<(String, String)> {
    let (name, arguments) = prompt.trim().split_once(' ')?;
    let arguments = arguments.trim();
    let object = serde_json::from_str::<serde_json::Value>(arguments).ok()?;
    (object.is_object() && tools.get(name).is_some())
        .then(|| (name.to_owned(), arguments.to_owned()))
}

/// Serves `client` and `toolkit` as the Restate object `Agent`, registers it with the
/// server of `--admin`, and gives the AG-UI endpoint on the server's `ingress`.
#[cfg(feature = "restate")]
async fn on_restate(
    ingress: &str,
    args: &[String],
    client: &Client,
    toolkit: &Toolkit,
) -> std::io::Result<axum::Router> {
    use toolnexus::restate::{Ingress, RestateAgent, register};
    let admin = values(args, "--admin")
        .first()
        .copied()
        .unwrap_or("http://127.0.0.1:9070");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let uri = format!("http://{}", listener.local_addr()?);
    tokio::spawn(RestateAgent::new(client.clone(), toolkit.clone()).serve_on(listener));
    register(admin, &uri)
        .await
        .map_err(|e| std::io::Error::other(format!("--restate: {e}")))?;
    Ok(toolnexus::restate::ag_ui(Ingress::new(ingress)))
}

/// `--restate` without the feature.
#[cfg(not(feature = "restate"))]
async fn on_restate(
    _: &str,
    _: &[String],
    _: &Client,
    _: &Toolkit,
) -> std::io::Result<axum::Router> {
    Err(std::io::Error::other(
        "--restate needs the example built with the `restate` feature",
    ))
}

const PAGE: &str = include_str!("chat_ui/index.html");

/// The values of every `flag VALUE` in `args`.
fn values<'a>(args: &'a [String], flag: &str) -> Vec<&'a str> {
    args.windows(2)
        .filter(|pair| pair[0] == flag)
        .map(|pair| pair[1].as_str())
        .collect()
}

/// `tool`, asking the user first when `--approve` names it.
#[cfg(feature = "mcp")]
fn gated(tool: toolnexus::Tool, approve: &[&str]) -> toolnexus::Tool {
    if approve.contains(&tool.name()) {
        let prompt = format!("Let `{}` run?", tool.name());
        tool.with_approval_prompt(prompt)
    } else {
        tool
    }
}

/// Connects to the MCP servers of `--mcp`: their tools for the model (beside `toolkit`'s),
/// and, per server, the tools its views may call.
#[cfg(feature = "mcp")]
async fn mcp_servers(
    args: &[String],
    mut toolkit: Toolkit,
) -> std::io::Result<(Toolkit, Vec<(String, Toolkit)>)> {
    let approve = values(args, "--approve");
    let mut views = Vec::new();
    for url in values(args, "--mcp") {
        let client = toolnexus::mcp::McpClient::connect(url)
            .await
            .map_err(|e| std::io::Error::other(format!("--mcp {url}: {e}")))?;
        let failed =
            |e: toolnexus::mcp::McpClientError| std::io::Error::other(format!("--mcp {url}: {e}"));
        for tool in client.tools().await.map_err(failed)? {
            toolkit = toolkit.with(gated(tool, &approve));
        }
        let for_views: Toolkit = client
            .view_tools()
            .await
            .map_err(failed)?
            .into_iter()
            .map(|tool| gated(tool, &approve))
            .collect();
        let name = client
            .server_info()
            .map(|(name, _)| name.to_owned())
            .unwrap_or_else(|| url.to_owned());
        views.push((name, for_views));
    }
    Ok((toolkit, views))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = args
        .first()
        .filter(|first| !first.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let mut client = Client::new(model());
    if let Some(at) = args.iter().position(|a| a == "--db") {
        let path = args
            .get(at + 1)
            .ok_or_else(|| std::io::Error::other("--db needs a path"))?;
        let store = toolnexus::store::RunStore::sqlite(path)
            .await
            .map_err(std::io::Error::other)?;
        client = client.store(store);
    }
    let toolkit = Toolkit::new().with(deploy::tool());
    #[cfg(feature = "mcp")]
    let (toolkit, views) = mcp_servers(&args, toolkit).await?;
    // The views' calls, kept in the run store when there is one (`--db`).
    #[cfg(feature = "mcp")]
    let apps = toolnexus::ui::mcp_apps_durable(&client, views, toolnexus::ui::UiOptions::new());
    #[cfg(not(feature = "mcp"))]
    if !values(&args, "--mcp").is_empty() {
        return Err(std::io::Error::other(
            "--mcp needs the example built with the `mcp` feature",
        ));
    }
    let agui = match values(&args, "--restate").first() {
        None => toolnexus::ui::ag_ui(client.clone(), toolkit.clone()),
        Some(ingress) => on_restate(ingress, &args, &client, &toolkit).await?,
    };
    let app = axum::Router::new()
        .route(
            "/",
            axum::routing::get(|| async { axum::response::Html(PAGE) }),
        )
        .nest("/agui", agui)
        .nest("/chat", toolnexus::ui::ai_sdk(client, toolkit));
    #[cfg(feature = "mcp")]
    let app = app.nest("/apps", apps);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}/", listener.local_addr()?);
    let stdin_closed = async {
        let _ = tokio::task::spawn_blocking(|| std::io::stdin().read_to_end(&mut Vec::new())).await;
    };
    axum::serve(listener, app)
        .with_graceful_shutdown(stdin_closed)
        .await
}

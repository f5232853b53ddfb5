//! The quickstart's tools served over the Model Context Protocol, to any MCP client, with
//! a resource, a resource template and a prompt beside them.
//!
//! ```text
//! cargo run --example mcp_server --features mcp                           # stdio (a client spawns it)
//! cargo run --example mcp_server --features mcp -- --http 127.0.0.1:8080  # streamable HTTP at /mcp
//! cargo run --example mcp_server --features mcp -- --http 0.0.0.0:8080 --allow-host tools.example.com
//! cargo run --example mcp_server --features mcp -- --http 127.0.0.1:8080 --stateless  # for replicas
//! cargo run --example mcp_server --features mcp -- --print-tools          # the tools/list entries, as JSON
//! ```
//!
//! Over HTTP the first line on stdout is `listening on http://ADDR/mcp` (port 0 picks a
//! free port; bound to every interface, the loopback URL is given, and stderr says how to
//! let other hosts in); the server stops cleanly when stdin closes, or on Ctrl-C.
//! `--allow-host NAME` and `--allow-origin ORIGIN` (repeatable) accept those `Host` and
//! `Origin` headers beside the loopback ones; `--stateless` serves without sessions, for
//! replicas behind a load balancer. Over stdio, stdout belongs to the protocol:
//! diagnostics go to stderr.
//!
//! Beside the tools: the resource `docs://readme` (what the server offers), the template
//! `deploy://{env}/status` (one environment's status, as JSON; `env` completes), and the
//! prompt `plan_deploy` (which embeds the readme).

#[path = "shared/tools.rs"]
mod tools;

use std::io::Read as _;

use serde_json::json;
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::primitive::{PromptMessage, ResourceContents, ResourceError};
use toolnexus::{Json, Toolkit, prompt, prompts, resource, resources};

/// Every tool the server exposes: the quickstart's `#[tool]` functions.
fn toolkit() -> Toolkit {
    toolnexus::tools![tools::add, tools::divide, tools::deploy, tools::screenshot]
        .into_iter()
        .collect()
}

/// What the readme says.
const README: &str = "# toolnexus quickstart\n\nTools: `add`, `divide`, `deploy_service` \
                      (asks which environment when none is given) and `screenshot`.\n";

/// What this server offers, in Markdown.
#[resource(uri = "docs://readme", mime_type = "text/markdown")]
fn readme() -> &'static str {
    README
}

/// The deployment status of one environment.
#[resource(uri = "deploy://{env}/status", name = "deploy_status")]
fn deploy_status(
    /// The environment: `staging` or `production`.
    #[complete(values = ["staging", "production"])]
    env: String,
) -> Result<Json<serde_json::Value>, ResourceError> {
    match env.as_str() {
        "staging" | "production" => Ok(Json(
            json!({"env": env, "version": "1.4.2", "healthy": true}),
        )),
        _ => Err(ResourceError::not_found(format!("deploy://{env}/status"))),
    }
}

/// Plan a deployment with this server's tools.
#[prompt(name = "plan_deploy", title = "Plan a deployment")]
fn plan_deploy(
    /// The environment to deploy to.
    #[complete(values = ["staging", "production"])]
    env: String,
    /// What changed since the last deployment.
    changes: Option<String>,
) -> Vec<PromptMessage> {
    let changes = changes.unwrap_or_else(|| "nothing said".to_owned());
    vec![
        PromptMessage::user(
            ResourceContents::text(README)
                .with_uri("docs://readme")
                .with_mime_type("text/markdown"),
        ),
        PromptMessage::user(format!(
            "Plan a deployment to {env} with the tools above. Changes: {changes}."
        )),
    ]
}

const USAGE: &str = "usage: mcp_server [--print-tools | --http ADDR [--stateless] \
                     [--allow-host NAME]... [--allow-origin ORIGIN]...]";

fn usage() -> ! {
    eprintln!("{USAGE}");
    std::process::exit(2);
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = McpServer::new(toolkit())
        .name("toolnexus-quickstart")
        .resources(resources![readme, deploy_status])
        .prompts(prompts![plan_deploy]);
    let mut args = std::env::args().skip(1);
    let Some(first) = args.next() else {
        return server.serve_stdio().await;
    };
    match first.as_str() {
        "--print-tools" if args.len() == 0 => {
            let tools = server.toolkit().to_mcp();
            println!("{}", serde_json::to_string_pretty(&tools)?);
            Ok(())
        }
        "--http" => {
            let addr = args.next().unwrap_or_else(|| usage());
            let mut options = HttpOptions::new();
            let mut hosts = Vec::new();
            while let Some(flag) = args.next() {
                match flag.as_str() {
                    "--stateless" => options = options.stateless(),
                    "--allow-host" => hosts.push(args.next().unwrap_or_else(|| usage())),
                    "--allow-origin" => {
                        let origin = args.next().unwrap_or_else(|| usage());
                        options = options.allowed_origins([origin]);
                    }
                    _ => usage(),
                }
            }
            let allowed_other_hosts = !hosts.is_empty();
            options = options.allowed_hosts(hosts);
            let http = server.serve_http_with(addr.as_str(), options).await?;
            println!("listening on {}", http.url());
            if http.is_on_all_interfaces() && !allowed_other_hosts {
                eprintln!(
                    "mcp_server: listening on every interface, but only loopback Host headers \
                     are accepted: clients on other machines get 403 Forbidden until you name \
                     this machine as they reach it, e.g. --allow-host my-host.example.com"
                );
            }
            // Stop when whoever started us closes our stdin (Ctrl-C ends the process too).
            let handle = http.shutdown_handle();
            std::thread::spawn(move || {
                let _ = std::io::stdin().read_to_end(&mut Vec::new());
                handle.shutdown();
            });
            http.wait().await?;
            eprintln!("mcp_server: shut down");
            Ok(())
        }
        _ => usage(),
    }
}

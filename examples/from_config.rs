//! A toolkit from an MCP config file and a skills folder, as the toolnexus contract builds
//! one: every server of the config (a failed one only gets a status), then the `skill`
//! tool. Lists the servers, the tools and the system-prompt catalog, and loads the first
//! skill the way a model would.
//!
//! ```text
//! cargo run --example from_config --features mcp                       # the contract's examples
//! cargo run --example from_config --features mcp -- mcp.json skills/   # your own
//! ```
//!
//! Without arguments it reads the contract's shared `mcp.json` (server-everything through
//! `npx`, and a disabled remote server) and its `hello-world` skill, from
//! `tests/contract/examples`.

use toolnexus::source::{McpConfig, Skills};
use toolnexus::{Context, Toolkit};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/contract/examples");

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let config = args
        .next()
        .unwrap_or_else(|| format!("{EXAMPLES}/mcp.json"));
    let skills_dir = args.next().unwrap_or_else(|| format!("{EXAMPLES}/skills"));

    let servers = McpConfig::from_file(&config)?.connect().await;
    let skills = Skills::load(&skills_dir);
    let mut toolkit = Toolkit::new();
    toolkit.extend(servers.tools().iter().cloned());
    toolkit.extend([skills.tool()]);

    println!("== MCP servers ({config}) ==");
    for (name, status) in servers.status() {
        println!("{name}: {status}");
    }
    println!("\n== skills ({skills_dir}) ==");
    for skill in skills.skills() {
        println!("{}: {}", skill.name, skill.location.display());
    }
    for skipped in skills.skipped() {
        println!("{skipped}");
    }
    println!("\n== tools ==");
    for tool in toolkit.tools() {
        println!("{} ({})", tool.name(), tool.source());
    }
    println!("\n== system prompt ==\n{}", skills.skills_prompt());
    if let Some(first) = skills.skills().first() {
        let args = serde_json::json!({"name": first.name});
        let loaded = toolkit.execute("skill", args, Context::default()).await;
        println!("\n== skill {} ==\n{}", first.name, loaded.output);
    }
    servers.close().await;
    Ok(())
}

//! Another MCP server's tools next to local `#[tool]` functions, in one toolkit, driven by
//! one (scripted) tool-calling loop.
//!
//! ```text
//! cargo run --example mcp_client --features mcp                 # mounts its own server
//! cargo run --example mcp_client --features mcp -- npx -y @modelcontextprotocol/server-everything
//! ```
//!
//! Without arguments the example starts itself a second time, as a small MCP server over
//! stdio (`--serve`), and mounts that: no other install needed. With a command, it mounts
//! that server's tools instead (prefixed `remote_`) and lists them.

use std::time::Duration;

use toolnexus::mcp::{McpClient, McpServer};
use toolnexus::{Client, Context, Reply, ScriptedModel, Suspend, Toolkit, tool};

/// Convert a temperature from Celsius to Fahrenheit. (Local.)
#[tool]
fn to_fahrenheit(
    /// Degrees Celsius.
    celsius: f64,
) -> Result<f64, std::convert::Infallible> {
    Ok(celsius * 9.0 / 5.0 + 32.0)
}

/// Today's forecast for a city, in degrees Celsius. (Served by the remote process.)
#[tool]
fn forecast(
    /// The city.
    city: String,
) -> Result<String, std::convert::Infallible> {
    let celsius = 12 + city.len() as i64 % 9;
    Ok(format!("{city}: {celsius}°C, light wind"))
}

/// Book a table; asks for how many people when not told. (Served by the remote process.)
#[tool]
async fn book_table(
    /// The restaurant.
    restaurant: String,
    /// How many people.
    people: Option<u32>,
    ctx: &Context,
) -> Result<String, Suspend> {
    let answered = ctx
        .answer()
        .and_then(|a| a.text())
        .and_then(|t| t.parse().ok());
    match people.or(answered) {
        Some(n) => Ok(format!("booked {restaurant} for {n}")),
        None => Err(Suspend::input("For how many people?")),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--serve") {
        // The "remote" side: two #[tool] functions served over stdio.
        let served = Toolkit::new()
            .with(forecast::tool())
            .with(book_table::tool());
        McpServer::new(served)
            .name("weather-and-tables")
            .serve_stdio()
            .await?;
        return Ok(());
    }

    // Mount a server: ourselves in `--serve` mode, or the command given.
    let client = match args.split_first() {
        None => McpClient::spawn(std::env::current_exe()?, ["--serve"]).await?,
        Some((command, rest)) => {
            McpClient::stdio(command, rest)
                .prefix("remote")
                .timeout(Duration::from_secs(30))
                .connect()
                .await?
        }
    };
    let (name, version) = client.server_info().unwrap_or(("?", "?"));
    println!("connected to {name} {version}");

    let mut toolkit = Toolkit::new().with(to_fahrenheit::tool());
    toolkit.extend(client.tools().await?);
    for tool in toolkit.tools() {
        println!(
            "  {:<28} {:<6} {}",
            tool.name(),
            tool.source(),
            tool.description()
        );
    }
    if !args.is_empty() {
        return Ok(());
    }

    // A scripted model: a remote call and a local call in one turn, then a remote call that
    // suspends (answered by `wait_for`), then the final answer.
    let model = ScriptedModel::new([
        Reply::calls([
            toolnexus::ToolCall::new("call_1", "forecast", r#"{"city": "Lisbon"}"#),
            toolnexus::ToolCall::new("call_2", "to_fahrenheit", r#"{"celsius": 18}"#),
        ]),
        Reply::call("call_3", "book_table", r#"{"restaurant": "Ramiro"}"#),
        Reply::text("Lisbon is mild today (64.4°F), and your table at Ramiro is booked."),
    ]);
    let loop_ = Client::new(model).wait_for(|request| async move {
        println!("  host asked: {} -> answering 2", request.prompt);
        request.answer("2")
    });
    let run = loop_
        .run("Weather in Lisbon, and book Ramiro.", &toolkit)
        .await;
    for call in &run.tool_calls {
        let source = toolkit.get(&call.call.name).map_or("?", |t| t.source());
        println!("{:<14} [{source}] {}", call.call.name, call.result.output);
    }
    println!("answer: {}", run.text);
    Ok(())
}

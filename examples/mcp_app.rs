//! An MCP App: a tool that ships its own interactive view. `budget` draws a budget as a
//! bar chart; the chart's form adds a line through `add_line`, a tool only the view calls
//! (`ui_visibility = "app"`, so hosts keep it from the model), and its buttons send the
//! budget to the chat as the user's message and open a page about budgets (the host asks
//! the user first). The view is one HTML page, scripts inline, no build step; it speaks
//! to the host with the MCP Apps SDK's `App`.
//!
//! ```text
//! cargo run --example mcp_app --features mcp                           # stdio
//! cargo run --example mcp_app --features mcp -- --http 127.0.0.1:8080  # streamable HTTP at /mcp
//! ```
//!
//! Over HTTP the first line on stdout is `listening on http://ADDR/mcp`; the server stops
//! when stdin closes. A host that speaks the `io.modelcontextprotocol/ui` extension
//! (Claude, ChatGPT, VS Code, the chat example's page, …) reads `ui://budget/view.html`,
//! renders it in a sandboxed frame, and hands it each `budget` call's arguments and result.
//!
//! The view imports the SDK from `https://unpkg.com` (declared in its CSP's
//! `resourceDomains`); set `MCP_APP_SDK` to another URL of the SDK's `app-with-deps.js`
//! to load it from elsewhere (its origin is declared instead).

use std::io::Read as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolnexus::mcp::McpServer;
use toolnexus::primitive::McpApp;
use toolnexus::{Json, Toolkit, tool};

/// Where the view loads the MCP Apps SDK from, unless `MCP_APP_SDK` says otherwise.
const SDK: &str =
    "https://unpkg.com/@modelcontextprotocol/ext-apps@2.0.4/dist/src/app-with-deps.js";

/// One line of a budget.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
struct Line {
    /// What the money is for.
    name: String,
    /// How much, in euros.
    amount: f64,
}

/// A budget: its lines and their total.
#[derive(Serialize, JsonSchema)]
struct Budget {
    lines: Vec<Line>,
    total: f64,
}

fn budget_of(lines: Vec<Line>) -> Budget {
    let total = lines.iter().map(|l| l.amount).sum();
    Budget { lines, total }
}

/// Show a budget as a bar chart the user can add lines to.
#[tool(ui = "ui://budget/view.html")]
fn budget(
    /// The budget's lines.
    lines: Vec<Line>,
) -> Json<Budget> {
    Json(budget_of(lines))
}

/// Add a line to a budget (the chart's form calls it).
#[tool(ui_visibility = "app")]
fn add_line(
    /// The budget's lines so far.
    lines: Vec<Line>,
    /// What the new line is for.
    name: String,
    /// How much, in euros (not negative).
    amount: f64,
) -> Result<Json<Budget>, String> {
    if !amount.is_finite() || amount < 0.0 {
        return Err(format!(
            "add_line: `amount` must be a sum of money, not {amount}"
        ));
    }
    if name.trim().is_empty() {
        return Err("add_line: `name` is empty: say what the money is for".to_owned());
    }
    let mut lines = lines;
    lines.push(Line { name, amount });
    Ok(Json(budget_of(lines)))
}

/// The view: a chart, a form, and the SDK's `App` in between.
const VIEW: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Budget</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 12px; color: #222; }
  .bar { display: flex; align-items: center; gap: 8px; margin: 4px 0; }
  .bar span { width: 8em; }
  .bar div { background: #3b82f6; height: 18px; border-radius: 3px; }
  #status { color: #b91c1c; min-height: 1.2em; }
  #add { display: flex; gap: 6px; margin-top: 10px; }
</style>
</head>
<body>
<div id="chart"></div>
<p id="total">Waiting for the budget…</p>
<div id="add">
  <input id="name" placeholder="Line">
  <input id="amount" type="number" min="0" step="any" placeholder="Amount">
  <button id="add-line" type="button">Add</button>
</div>
<p>
  <button id="share" type="button">Send to chat</button>
  <button id="help" type="button">Budget help</button>
</p>
<p id="status"></p>
<script type="module">
import { App } from "__SDK__";

const app = new App({ name: "budget-view", version: "1.0.0" });
let lines = [];
let total = 0;

function draw(budget) {
  lines = budget.lines;
  const max = Math.max(1, ...lines.map((l) => l.amount));
  const chart = document.getElementById("chart");
  chart.replaceChildren(...lines.map((l) => {
    const row = document.createElement("div");
    row.className = "bar";
    const label = document.createElement("span");
    label.textContent = `${l.name}: ${l.amount}`;
    const bar = document.createElement("div");
    bar.style.width = `${Math.round((200 * l.amount) / max)}px`;
    row.append(label, bar);
    return row;
  }));
  total = budget.total;
  document.getElementById("total").textContent = `Total: ${budget.total}`;
}

app.ontoolresult = (result) => {
  if (result.structuredContent) draw(result.structuredContent);
};

// A button, not a form: hosts frame views without `allow-forms`.
document.getElementById("add-line").addEventListener("click", async () => {
  const status = document.getElementById("status");
  status.textContent = "";
  try {
    const result = await app.callServerTool({
      name: "add_line",
      arguments: {
        lines,
        name: document.getElementById("name").value,
        amount: Number(document.getElementById("amount").value),
      },
    });
    if (result.isError) {
      status.textContent = result.content?.[0]?.text ?? "add_line failed";
    } else {
      draw(result.structuredContent);
    }
  } catch (error) {
    status.textContent = String(error);
  }
});

// The budget as a chat message from the user, and a page to read, both through the host.
document.getElementById("share").addEventListener("click", async () => {
  const text = `My budget: ${lines.map((l) => `${l.name} ${l.amount}`).join(", ")}; total ${total}.`;
  const result = await app.sendMessage({ role: "user", content: [{ type: "text", text }] });
  if (result.isError) document.getElementById("status").textContent = "The host did not take the message.";
});
document.getElementById("help").addEventListener("click", async () => {
  const result = await app.openLink({ url: "https://en.wikipedia.org/wiki/Budget" });
  if (result.isError) document.getElementById("status").textContent = "The link was not opened.";
});

await app.connect();
</script>
</body>
</html>
"#;

/// The view, loading the SDK from `sdk` and declaring that URL's origin in its CSP.
fn view(sdk: &str) -> McpApp {
    let origin = sdk
        .split_once("://")
        .map(|(scheme, rest)| format!("{scheme}://{}", rest.split('/').next().unwrap_or("")))
        .unwrap_or_default();
    McpApp::new("ui://budget/view.html", VIEW.replace("__SDK__", sdk))
        .with_name("budget_view")
        .with_description("The budget chart, with a form to add a line.")
        .with_resource_domains([origin])
        .with_prefers_border(true)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let sdk = std::env::var("MCP_APP_SDK").unwrap_or_else(|_| SDK.to_owned());
    let resource = view(&sdk)
        .resource()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let tools: Toolkit = toolnexus::tools![budget, add_line].into_iter().collect();
    let server = McpServer::new(tools)
        .name("toolnexus-budget")
        .resources([resource]);
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => server.serve_stdio().await,
        (Some("--http"), Some(addr)) => {
            let http = server.serve_http(addr.as_str()).await?;
            println!("listening on {}", http.url());
            let handle = http.shutdown_handle();
            std::thread::spawn(move || {
                let _ = std::io::stdin().read_to_end(&mut Vec::new());
                handle.shutdown();
            });
            http.wait().await
        }
        _ => {
            eprintln!("usage: mcp_app [--http ADDR]");
            std::process::exit(2);
        }
    }
}

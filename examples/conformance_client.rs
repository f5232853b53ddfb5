//! `McpClient` as the client under test of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`).
//!
//! ```text
//! cargo build --example conformance_client --features mcp-auth
//! npx @modelcontextprotocol/conformance client --scenario auth/metadata-default \
//!     --command "cargo run --example conformance_client --features mcp-auth --"
//! ```
//!
//! The suite starts a scenario's server, then runs this program with the server's URL as
//! its last argument, the scenario's name in `MCP_CONFORMANCE_SCENARIO` and, for the
//! scenarios that need them, credentials in `MCP_CONFORMANCE_CONTEXT` (JSON). The
//! program connects, lists the tools and calls each one, as a host would, and exits 0
//! when that worked. Logins go through [`HeadlessLogin`] (the suite's authorization
//! server approves without a user). With `--suspend`, logins needed during a tool call
//! come back as `"authorization"` suspensions, which the program answers (as a
//! human-in-the-loop host would) by completing the URL and re-running the call.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolnexus::mcp::{AuthorizationHandler, HeadlessLogin, JwtAlgorithm, McpClient, OAuth};
use toolnexus::{Context, Tool, ToolResult};

/// The client ID metadata document URL the suite's scenarios expect (SEP-991).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URI: &str = "http://localhost:3000/callback";

fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|raw| serde_json::from_str(&raw).ok())
        .unwrap_or(Value::Null)
}

fn field(context: &Value, key: &str) -> Result<String, String> {
    context[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("MCP_CONFORMANCE_CONTEXT has no `{key}`"))
}

/// The login a scenario calls for.
fn login(scenario: &str, suspend: bool) -> Result<Option<OAuth>, String> {
    let context = context();
    let oauth = match scenario {
        "auth/client-credentials-basic" => OAuth::client_credentials(
            field(&context, "client_id")?,
            field(&context, "client_secret")?,
        ),
        "auth/client-credentials-jwt" => {
            let name = context["signing_algorithm"].as_str().unwrap_or("ES256");
            let algorithm = JwtAlgorithm::from_name(name)
                .ok_or_else(|| format!("unknown signing algorithm `{name}`"))?;
            OAuth::private_key_jwt(
                field(&context, "client_id")?,
                field(&context, "private_key_pem")?,
                algorithm,
            )
        }
        "auth/cross-app-access-complete-flow" => OAuth::enterprise(
            field(&context, "idp_id_token")?,
            field(&context, "idp_issuer")?,
            field(&context, "idp_token_endpoint")?,
            field(&context, "idp_client_id")?,
            field(&context, "client_id")?,
            field(&context, "client_secret")?,
        ),
        "auth/pre-registration" => OAuth::new(HeadlessLogin)
            .redirect_uri(REDIRECT_URI)
            .preregistered(
                field(&context, "client_id")?,
                Some(field(&context, "client_secret")?),
            ),
        s if s.starts_with("auth/") => OAuth::new(HeadlessLogin)
            .redirect_uri(REDIRECT_URI)
            .client_name("toolnexus-conformance")
            .client_metadata_url(CLIENT_METADATA_URL),
        _ => return Ok(None),
    };
    Ok(Some(if suspend {
        oauth.suspend_mid_run()
    } else {
        oauth
    }))
}

/// Arguments for `tool`: a plain value for each required property.
fn arguments(tool: &Tool) -> Value {
    let schema = tool.input_schema();
    let mut args = Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let value = match schema["properties"][name]["type"].as_str() {
            Some("number" | "integer") => json!(1),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("test"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

/// Calls `tool`, answering its suspensions as a host would: a form with no fields (the
/// client fills in the schema's defaults), a login by completing its URL.
async fn call(tool: &Tool) -> Result<ToolResult, String> {
    let args = arguments(tool);
    let mut result = tool.execute(args.clone(), Context::default()).await;
    for _ in 0..5 {
        let Some(request) = result.pending_request() else {
            return Ok(result);
        };
        println!("{}: suspended on a {} request", tool.name(), request.kind);
        let answer = match (request.kind.as_str(), &request.url) {
            ("authorization", Some(url)) => {
                request.answer(HeadlessLogin.authorize(url.clone()).await?)
            }
            _ => request.answer(json!({})),
        };
        result = tool
            .execute(args.clone(), Context::default().with_answer(answer))
            .await;
    }
    Err(format!("{}: still suspended after 5 answers", tool.name()))
}

async fn run(scenario: &str, url: &str, suspend: bool) -> Result<(), String> {
    let mut builder = McpClient::http(url)
        .connect_timeout(Duration::from_secs(20))
        .timeout(Duration::from_secs(20));
    if let Some(oauth) = login(scenario, suspend)? {
        builder = builder.oauth(oauth);
    }
    let client = builder.connect().await.map_err(|e| e.to_string())?;
    let tools = client.tools().await.map_err(|e| e.to_string())?;
    for tool in &tools {
        let result = call(tool).await?;
        println!("{}: {}", tool.name(), result.output);
        if result.is_error && !scenario.starts_with("auth/scope-retry-limit") {
            client.close().await;
            return Err(format!("{} failed: {}", tool.name(), result.output));
        }
    }
    println!("logins: {}", client.logins());
    client.close().await;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let suspend = args.iter().any(|a| a == "--suspend");
    let (Ok(scenario), Some(url)) = (
        std::env::var("MCP_CONFORMANCE_SCENARIO"),
        args.iter().rfind(|a| !a.starts_with("--")),
    ) else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=NAME conformance_client [--suspend] SERVER_URL");
        return ExitCode::from(2);
    };
    match run(&scenario, url, suspend).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{scenario}: {message}");
            ExitCode::FAILURE
        }
    }
}

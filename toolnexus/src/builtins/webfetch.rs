//! `webfetch`: an HTTP GET through reqwest (rustls, as the providers), the body capped,
//! HTML turned into markdown (htmd) or plain text (html2text); where it may connect is
//! `network`'s.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::env::{Args, Env};
use super::network::{Network, Refused, Resolver};
use crate::tool::result::ToolResult;

/// The default timeout, in seconds.
const DEFAULT_TIMEOUT_S: f64 = 30.0;

/// The HTTP client the tool shares between calls, and the rules it connects by.
pub(super) struct Fetcher {
    client: reqwest::Client,
    network: Arc<Network>,
}

/// The HTTP client the tool shares between calls: names resolved through the network
/// rules' resolver, redirects through their policy, and no proxy from the environment
/// unless every address is allowed (a proxy would resolve the names itself).
pub(super) fn client(network: &Network) -> Result<Fetcher, String> {
    let network = Arc::new(network.clone());
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("toolnexus/", env!("CARGO_PKG_VERSION")))
        .dns_resolver(Resolver(Arc::clone(&network)))
        .redirect(network.redirects());
    if !network.proxies() {
        builder = builder.no_proxy();
    }
    let client = builder
        .build()
        .map_err(|e| format!("could not set up the HTTP client: {e}"))?;
    Ok(Fetcher { client, network })
}

/// An error with its causes, each once; a refusal of the network rules alone, as it
/// is the whole story.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if let Some(refused) = e.downcast_ref::<Refused>() {
            return refused.to_string();
        }
        cause = e.source();
    }
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

pub(super) async fn webfetch(
    env: &Env,
    client: &Result<Fetcher, String>,
    value: Value,
) -> ToolResult {
    let args = Args::new("webfetch", &value);
    let url = match args.required("url") {
        Ok(url) => url,
        Err(error) => return ToolResult::error(error),
    };
    let format = match args.get("format").and_then(Value::as_str) {
        Some("text") => "text",
        Some("html") => "html",
        _ => "markdown",
    };
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return args.fail(format!("{url} is not an http:// or https:// URL"));
    }
    let client = match client {
        Ok(client) => client,
        Err(error) => return args.fail(error),
    };
    let timeout_s = args.number("timeout").unwrap_or(DEFAULT_TIMEOUT_S);
    let timeout = Duration::from_secs_f64(timeout_s.clamp(0.0, 1e9));
    let parsed = match reqwest::Url::parse(url) {
        Ok(parsed) => parsed,
        Err(e) => return args.fail(format!("{url} is not a valid URL: {e}")),
    };
    if let Err(refused) = client.network.check_url(&parsed) {
        return args.fail(refused);
    }
    let fetched =
        tokio::time::timeout(timeout, fetch(&client.client, parsed, env.fetch_limit)).await;
    let (status, html, body, truncated) = match fetched {
        Err(_) => return args.fail(format!("timed out after {timeout_s}s")),
        Ok(Err(error)) => return args.fail(error),
        Ok(Ok(Fetched::Status(status))) => {
            return ToolResult::error(format!("HTTP {status}")).with_metadata("status", status);
        }
        Ok(Ok(Fetched::Body {
            status,
            html,
            body,
            truncated,
        })) => (status, html, body, truncated),
    };
    let text = String::from_utf8_lossy(&body);
    let mut output = match (format, html) {
        ("markdown", true) => match markdown(&text) {
            Ok(markdown) => markdown,
            Err(error) => return args.fail(error),
        },
        ("text", true) => match plain_text(&body) {
            Ok(text) => text,
            Err(error) => return args.fail(error),
        },
        _ => text.into_owned(),
    };
    let mut metadata = Map::new();
    metadata.insert("status".into(), Value::from(status));
    metadata.insert("format".into(), Value::from(format));
    if truncated {
        output.push_str(&format!(
            "\n\n[truncated: the response is longer than {} bytes]",
            env.fetch_limit
        ));
        metadata.insert("truncated".into(), Value::Bool(true));
    }
    let mut result = ToolResult::ok(output);
    result.metadata = Some(metadata);
    result
}

enum Fetched {
    /// A status outside 2xx.
    Status(u16),
    Body {
        status: u16,
        html: bool,
        body: Vec<u8>,
        truncated: bool,
    },
}

async fn fetch(
    client: &reqwest::Client,
    url: reqwest::Url,
    limit: usize,
) -> Result<Fetched, String> {
    let mut response = client.get(url).send().await.map_err(|e| chain(&e))?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Ok(Fetched::Status(status));
    }
    let html = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("text/html") || v.contains("application/xhtml")
        });
    let mut body = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = response.chunk().await.map_err(|e| chain(&e))? {
        let room = limit.saturating_sub(body.len());
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Fetched::Body {
        status,
        html,
        body,
        truncated,
    })
}

/// HTML as markdown, scripts and styles left out.
fn markdown(html: &str) -> Result<String, String> {
    htmd::HtmlToMarkdown::builder()
        .skip_tags(vec!["script", "style", "noscript", "head"])
        .build()
        .convert(html)
        .map(|markdown| markdown.trim().to_owned())
        .map_err(|e| format!("cannot convert the HTML to markdown: {e}"))
}

/// HTML as plain text (no markup, no wrapping).
fn plain_text(html: &[u8]) -> Result<String, String> {
    html2text::config::with_decorator(html2text::render::TrivialDecorator::new())
        .string_from_read(html, usize::MAX / 4)
        .map(|text| text.trim().to_owned())
        .map_err(|e| format!("cannot convert the HTML to text: {e}"))
}

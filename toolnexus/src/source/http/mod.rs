//! [`HttpTool`]: an HTTP endpoint declared as a tool (`source: "http"`).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use reqwest::{Method, Url};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::env;
use template::{Template, Unfilled};

mod redirect;
mod template;
use crate::tool::Tool;
use crate::tool::context::Context;
use crate::tool::handler::Dispatch;
use crate::tool::result::ToolResult;

/// The default bound on one request, body included: 30 seconds.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The most of a response body a result carries.
const BODY_CAP: usize = 8 * 1024 * 1024;

/// How the arguments left after the URL and the query are sent (methods other than `GET`
/// and `HEAD`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum BodyMode {
    /// A JSON object (`Content-Type: application/json` unless a header says otherwise).
    #[default]
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// The argument `body`, as it is (text), or its JSON when it is not a string.
    Raw,
}

/// What a successful call returns as its output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub enum ResultMode {
    /// The body text.
    #[default]
    #[serde(rename = "text")]
    Text,
    /// The body re-serialized as compact JSON when it parses as JSON, else the text.
    #[serde(rename = "json")]
    Json,
    /// The status code, a newline, then the body text.
    #[serde(rename = "status+text")]
    StatusText,
}

/// An HTTP endpoint as a [`Tool`] ([`source`](Tool::source) `"http"`), as the toolnexus
/// contract declares one: a URL template whose `{placeholders}` are filled from the
/// arguments, headers whose `${ENV_VAR}`s are read from the environment at each call, and
/// a JSON schema for the arguments the model gives.
///
/// ```no_run
/// use std::time::Duration;
/// use serde_json::json;
/// use toolnexus::source::HttpTool;
///
/// let weather = HttpTool::new("weather", "https://api.example.com/v1/weather/{city}")
///     .description("Current weather for a city.")
///     .header("Authorization", "Bearer ${WEATHER_TOKEN}") // read at each call, never logged
///     .input_schema(json!({
///         "type": "object",
///         "properties": {"city": {"type": "string"}, "units": {"type": "string"}},
///         "required": ["city"]
///     }))
///     .timeout(Duration::from_secs(10))
///     .build()?;                                          // a URL that cannot parse is refused here
/// # Ok::<(), toolnexus::source::HttpToolError>(())
/// ```
///
/// A call:
/// 1. fills each `{name}` of the URL with the argument `name` (percent-encoded; a
///    missing one is an error result naming it), which is then not sent again. A value
///    for a placeholder in the path that is, or holds, a `.` or `..` segment (also once
///    percent-decoded, in any case: `%2e%2E`) is an error result too, and nothing is
///    sent: the model cannot walk the request to a sibling endpoint with the tool's
///    headers;
/// 2. sends the arguments named by [`query`](HttpTool::query), and for `GET` and `HEAD`
///    all the remaining ones, as the query string (`null`s are left out);
/// 3. sends the rest as the body, in the [`BodyMode`] (JSON by default);
/// 4. gives the body text (see [`ResultMode`]) with `metadata["status"]` for a 2xx answer,
///    and the error result `HTTP <status>: <body>` for any other. A request that fails or
///    takes longer than the [timeout](HttpTool::timeout) is an error result saying so.
///
/// Redirects are followed only within the URL's origin (scheme, host and port), at most
/// five times ([`max_redirects`](HttpTool::max_redirects)); one to another origin, or from
/// `https` to `http`, is an error result saying where it pointed, and the headers are not
/// sent there.
///
/// Header values are never logged: `Debug` shows only their names, and error messages
/// never contain them. The declaration also deserializes from the contract's JSON form
/// (`name`, `description`, `method`, `url`, `headers`, `query`, `body`, `inputSchema`,
/// `timeout` in milliseconds, `resultMode`, and toolnexus's `maxRedirects`).
#[derive(Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HttpTool {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default = "get")]
    method: String,
    url: String,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    query: Vec<String>,
    #[serde(default)]
    body: BodyMode,
    #[serde(default)]
    input_schema: Option<Value>,
    #[serde(default, rename = "timeout")]
    timeout_ms: Option<u64>,
    #[serde(default)]
    result_mode: ResultMode,
    #[serde(default)]
    max_redirects: Option<usize>,
}

fn get() -> String {
    "GET".to_owned()
}

/// Why an [`HttpTool`] declaration was refused: it names the tool and what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("HTTP tool `{tool}`: {message}")]
pub struct HttpToolError {
    /// The tool's name.
    pub tool: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Debug for HttpTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpTool")
            .field("name", &self.name)
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("query", &self.query)
            .field("body", &self.body)
            .field("timeout_ms", &self.timeout_ms)
            .field("result_mode", &self.result_mode)
            .field("max_redirects", &self.max_redirects)
            .finish_non_exhaustive()
    }
}

impl HttpTool {
    /// A `GET` of `url` (a template: `{name}` is filled from the argument `name`).
    pub fn new(name: impl Into<String>, url: impl Into<String>) -> HttpTool {
        HttpTool {
            name: name.into(),
            description: String::new(),
            method: get(),
            url: url.into(),
            headers: BTreeMap::new(),
            query: Vec::new(),
            body: BodyMode::default(),
            input_schema: None,
            timeout_ms: None,
            result_mode: ResultMode::default(),
            max_redirects: None,
        }
    }

    /// What the model reads about the tool.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The HTTP method (`GET` by default; any case).
    #[must_use]
    pub fn method(mut self, method: impl Into<String>) -> Self {
        self.method = method.into();
        self
    }

    /// A header sent with every request; `${NAME}` in the value is the environment
    /// variable `NAME`, read at each call (a variable that is not set makes the call an
    /// error result naming it).
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Arguments sent in the query string whatever the method.
    #[must_use]
    pub fn query<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.query.extend(names.into_iter().map(Into::into));
        self
    }

    /// How the remaining arguments are sent as the body.
    #[must_use]
    pub fn body(mut self, mode: BodyMode) -> Self {
        self.body = mode;
        self
    }

    /// The JSON schema of the arguments. Without one, each `{placeholder}` of the URL is
    /// a required string property.
    #[must_use]
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = Some(schema);
        self
    }

    /// Bounds one request, body included (default 30 seconds).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout_ms = Some(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        self
    }

    /// What a successful call returns (the body text by default).
    #[must_use]
    pub fn result_mode(mut self, mode: ResultMode) -> Self {
        self.result_mode = mode;
        self
    }

    /// Follows at most `limit` redirects (default 5; `0` follows none). Only redirects
    /// within the URL's own origin (scheme, host and port) are followed, whatever the
    /// limit: a redirect to another origin, or from `https` to `http`, is an error result
    /// saying so, and the tool's headers are never sent there.
    #[must_use]
    pub fn max_redirects(mut self, limit: usize) -> Self {
        self.max_redirects = Some(limit);
        self
    }

    /// The tool, once the declaration is checked: the method, the URL template (it must
    /// parse as an `http://` or `https://` URL once its placeholders are filled, with no
    /// stray `{` or `}`), the header names, and the schema (an object schema).
    pub fn build(self) -> Result<Tool, HttpToolError> {
        let refuse = |message: String| HttpToolError {
            tool: self.name.clone(),
            message,
        };
        let method = Method::from_bytes(self.method.to_ascii_uppercase().as_bytes())
            .map_err(|_| refuse(format!("`{}` is not an HTTP method", self.method)))?;
        let template = Template::parse(&self.url).map_err(refuse)?;
        let sample = template
            .fill(&mut |_| Some("x".to_owned()))
            .unwrap_or_default();
        match Url::parse(&sample) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => {}
            Ok(url) => {
                return Err(refuse(format!(
                    "the URL `{}` must be http:// or https:// with a host, not {}:",
                    self.url,
                    url.scheme()
                )));
            }
            Err(error) => {
                return Err(refuse(format!(
                    "the URL `{}` does not parse: {error}",
                    self.url
                )));
            }
        }
        let mut headers = Vec::new();
        for (name, value) in &self.headers {
            let parsed = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| refuse(format!("`{name}` is not a valid HTTP header name")))?;
            headers.push((parsed, value.clone()));
        }
        let schema = match self.input_schema {
            Some(schema) if schema.get("type") == Some(&json!("object")) => schema,
            Some(_) => {
                return Err(refuse(
                    "the input schema must be a JSON object schema (`\"type\": \"object\"`)"
                        .to_owned(),
                ));
            }
            None => template.schema(),
        };
        let redirects = self
            .max_redirects
            .unwrap_or(redirect::DEFAULT_MAX_REDIRECTS);
        let client = reqwest::Client::builder()
            .user_agent(concat!("toolnexus/", env!("CARGO_PKG_VERSION")))
            .redirect(redirect::policy(redirects))
            .build()
            .map_err(|e| refuse(format!("could not set up the HTTP client: {e}")))?;
        let endpoint = Arc::new(Endpoint {
            name: self.name.clone(),
            method,
            template,
            headers,
            query: self.query,
            body: self.body,
            timeout: self
                .timeout_ms
                .map_or(DEFAULT_TIMEOUT, Duration::from_millis),
            result_mode: self.result_mode,
            client,
        });
        let label = self.name.clone();
        Ok(Tool::from_handler(
            self.name,
            self.description,
            schema,
            "http",
            Box::new(move |args, ctx| match args.into_value(&label) {
                Ok(args) => Dispatch::Future(Box::pin(Arc::clone(&endpoint).call(args, ctx))),
                Err(error) => Dispatch::Ready(error.into()),
            }),
        ))
    }
}

/// An argument as text: a string as it is, anything else as its JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A checked declaration, shared by the tool's calls.
struct Endpoint {
    name: String,
    method: Method,
    template: Template,
    headers: Vec<(HeaderName, String)>,
    query: Vec<String>,
    body: BodyMode,
    timeout: Duration,
    result_mode: ResultMode,
    client: reqwest::Client,
}

impl Endpoint {
    fn error(&self, message: impl fmt::Display) -> ToolResult {
        ToolResult::error(format!("HTTP tool `{}`: {message}", self.name))
    }

    async fn call(self: Arc<Self>, args: Value, _ctx: Context) -> ToolResult {
        let mut args = match args {
            Value::Object(map) => map,
            other => return self.error(format!("the arguments must be an object, not {other}")),
        };
        args.retain(|_, v| !v.is_null());
        // `shift_remove`: the query and the body keep the arguments' order.
        let filled = self
            .template
            .fill(&mut |name| args.shift_remove(name).map(|value| text_of(&value)));
        let url = match filled {
            Ok(url) => url,
            Err(Unfilled::Missing(name)) => {
                return self.error(format!(
                    "missing the argument `{name}`, which the URL needs"
                ));
            }
            Err(Unfilled::DotSegment(name)) => {
                return self.error(format!(
                    "the argument `{name}` holds a dot segment (`.` or `..`, also once \
                     percent-decoded), which would move the request off the declared path; \
                     refused"
                ));
            }
        };
        let mut url = match Url::parse(&url) {
            Ok(url) => url,
            Err(error) => return self.error(format!("the URL `{url}` does not parse: {error}")),
        };
        let no_body = matches!(self.method, Method::GET | Method::HEAD);
        let in_query: Vec<String> = args
            .keys()
            .filter(|k| no_body || self.query.contains(k))
            .cloned()
            .collect();
        if !in_query.is_empty() {
            let mut pairs = url.query_pairs_mut();
            for key in in_query {
                if let Some(value) = args.shift_remove(&key) {
                    pairs.append_pair(&key, &text_of(&value));
                }
            }
        }
        let mut request = self.client.request(self.method.clone(), url.clone());
        let mut secrets = Vec::new();
        let mut has_content_type = false;
        for (name, template) in &self.headers {
            let value = match env::expand(template) {
                Ok(value) => value,
                Err(var) => {
                    return self.error(format!(
                        "the header `{name}` uses ${{{var}}}, and the environment variable {var} is not set"
                    ));
                }
            };
            let Ok(mut header) = HeaderValue::from_str(&value) else {
                return self.error(format!(
                    "the header `{name}` is not a valid HTTP header value once its variables are expanded"
                ));
            };
            header.set_sensitive(true);
            has_content_type |= *name == CONTENT_TYPE;
            request = request.header(name.clone(), header);
            secrets.push(value);
        }
        if !no_body && !args.is_empty() {
            let (content_type, body) = match self.body {
                BodyMode::Json => ("application/json", Value::Object(args).to_string()),
                BodyMode::Form => {
                    let mut form = Url::parse("http://form/").expect("a valid URL");
                    form.query_pairs_mut()
                        .extend_pairs(args.iter().map(|(k, v)| (k, text_of(v))));
                    let encoded = form.query().unwrap_or_default().to_owned();
                    ("application/x-www-form-urlencoded", encoded)
                }
                BodyMode::Raw => (
                    "text/plain",
                    args.get("body").map(text_of).unwrap_or_default(),
                ),
            };
            if !has_content_type {
                request = request.header(CONTENT_TYPE, content_type);
            }
            request = request.body(body);
        }
        let what = format!("{} {url}", self.method);
        let exchange = async {
            let response = request.send().await?;
            let status = response.status();
            let body = read_capped(response).await?;
            Ok::<_, reqwest::Error>((status, body))
        };
        let (status, body) = match tokio::time::timeout(self.timeout, exchange).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(error)) => {
                if let Some(refused) = redirect::refusal(&error) {
                    return self.error(format!("{what}: {refused}"));
                }
                let kind = if error.is_connect() {
                    "could not connect"
                } else if error.is_body() || error.is_decode() {
                    "the response body could not be read"
                } else {
                    "the request failed"
                };
                let detail = env::scrub(&error_chain(&error), &secrets);
                return self.error(format!("{what}: {kind}: {detail}"));
            }
            Err(_) => {
                return self.error(format!("{what}: no answer within {:?}", self.timeout));
            }
        };
        let code = status.as_u16();
        if !status.is_success() {
            return ToolResult::error(format!("HTTP {code}: {body}")).with_metadata("status", code);
        }
        let output = match self.result_mode {
            ResultMode::Text => body,
            ResultMode::Json => match serde_json::from_str::<Value>(&body) {
                Ok(value) => value.to_string(),
                Err(_) => body,
            },
            ResultMode::StatusText => format!("{code}\n{body}"),
        };
        ToolResult::ok(output).with_metadata("status", code)
    }
}

/// The body as text (invalid UTF-8 replaced), at most [`BODY_CAP`] bytes of it.
async fn read_capped(mut response: reqwest::Response) -> Result<String, reqwest::Error> {
    let mut bytes = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = response.chunk().await? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > BODY_CAP {
            bytes.truncate(BODY_CAP);
            truncated = true;
            break;
        }
    }
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if truncated {
        text.push_str("\n[the body was cut after 8 MiB]");
    }
    Ok(text)
}

/// An error and its causes, `: `-separated.
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

//! [`ModelConfig`]: the toolnexus contract's unified client config (`baseUrl`, `style`,
//! `model`, `apiKey`, `headers`, `systemPrompt`, `maxTurns`), from JSON or a struct, to
//! a model chosen at run time and the client around it.

mod build;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::agent::client::Client;
use crate::env::Unexpanded;
use crate::model::{Model, ModelError};

/// Which API a [`ModelConfig`] speaks: the contract's `openai` (Chat Completions) and
/// `anthropic` (Messages), and this port's own `gemini`, `responses` (OpenAI's Responses
/// API), `bedrock` (Amazon Bedrock's Converse API) and `azure` (Azure OpenAI).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Style {
    /// `"openai"`: Chat Completions, any OpenAI-compatible server.
    OpenAi,
    /// `"anthropic"`: Anthropic's Messages API.
    Anthropic,
    /// `"gemini"`: Google's Gemini API.
    Gemini,
    /// `"responses"`: OpenAI's Responses API.
    Responses,
    /// `"bedrock"`: Amazon Bedrock's Converse API (feature `bedrock`).
    Bedrock,
    /// `"azure"`: a deployment of an Azure OpenAI resource.
    Azure,
}

impl Style {
    const ALL: [(&'static str, Style); 6] = [
        ("openai", Style::OpenAi),
        ("anthropic", Style::Anthropic),
        ("gemini", Style::Gemini),
        ("responses", Style::Responses),
        ("bedrock", Style::Bedrock),
        ("azure", Style::Azure),
    ];

    /// The style's name in a config.
    pub fn name(self) -> &'static str {
        Style::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("openai", |(n, _)| n)
    }
}

/// The contract's unified client config (SPEC §8): a base URL and a style pick the API,
/// the key comes from the config or the environment, and the client's system prompt is
/// `systemPrompt` joined to the toolkit's skills prompt.
///
/// ```
/// use toolnexus::providers::ModelConfig;
///
/// # fn demo() -> Result<(), toolnexus::ModelError> {
/// let config = ModelConfig::from_json(r#"{
///     "baseUrl": "https://openrouter.ai/api/v1",
///     "style": "openai",
///     "model": "openai/gpt-4o-mini",
///     "apiKey": "sk-or-example",
///     "headers": {"X-Title": "support-bot", "X-Team-Token": "${TOOLNEXUS_TEAM_TOKEN}"},
///     "systemPrompt": "You are a support agent.",
///     "maxTurns": 8
/// }"#)?;
/// assert_eq!(config.model, "openai/gpt-4o-mini");
/// # #[cfg(feature = "openai")] {
/// # unsafe { std::env::set_var("TOOLNEXUS_TEAM_TOKEN", "t-123") };
/// let model = config.build()?;                       // Box<dyn Model>
/// let client = config.client("")?;                   // system prompt, max turns
/// # }
/// // `Debug` shows neither the key nor any header value.
/// assert!(!format!("{config:?}").contains("sk-or-example"));
/// # Ok(()) }
/// ```
///
/// Keys (camelCase, as the contract spells them): `style` (`openai` | `anthropic`, and
/// this port's `gemini`, `responses`, `bedrock`, `azure`; default `openai`), `model`
/// (required; the deployment for `azure`, the model id for `bedrock`), `baseUrl` (default:
/// the provider's API; for `anthropic` a trailing `/v1` is dropped, as the contract's
/// endpoint is `{baseUrl}/messages` with `/v1` added only when missing), `apiKey`,
/// `headers` (values expand `${NAME}` from the environment, see below, and are never
/// printed),
/// `systemPrompt`, `maxTurns` (default 10), the contract's client options `retries`
/// (default 2), `retryBaseMs` (default 500) and `timeoutMs` (the whole run's deadline),
/// and `region` (`bedrock`) and `apiVersion` (`azure`). An unknown key, or a value of the wrong type, is an error naming the file
/// (if any) and the key.
///
/// Without `apiKey` the key comes from the environment as the contract says:
/// `OPENROUTER_API_KEY`, then the style's own variable (`OPENAI_API_KEY`,
/// `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `AZURE_OPENAI_API_KEY`), then the other of
/// OpenAI's and Anthropic's; Bedrock signs with the AWS credential chain instead (an
/// `apiKey` is a Bedrock API key).
///
/// # `${NAME}` in header values, and what is printed
///
/// A header value may name only environment variables whose name starts with
/// [`CONFIG_ENV_PREFIX`] (`TOOLNEXUS_`), and those the app allows with
/// [`ModelConfig::allow_env`]: a config may come from somewhere less trusted than the
/// process (a file a user uploads, a tenant's settings), and `${AWS_SECRET_ACCESS_KEY}`
/// in a header sent to a `baseUrl` it also chose would hand the process's secrets to
/// whoever wrote it. Another name is an error naming the header and the variable, its
/// value unread. `Debug` shows the API key and every header value as `[redacted]`.
///
/// The models it builds send what the contract's clients send: the `openai` style asks
/// `tool_choice: "auto"` when tools are listed, the `anthropic` style sends no cache
/// breakpoints (its prompt caching is off, as the contract's body has none).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct ModelConfig {
    /// The API.
    pub style: Style,
    /// The model (or deployment) name.
    pub model: String,
    /// The base URL the API paths are appended to.
    pub base_url: Option<String>,
    /// The API key; `None` reads the environment.
    pub api_key: Option<String>,
    /// Headers sent with every request, before `${NAME}` expansion.
    pub headers: Vec<(String, String)>,
    /// The system prompt, before the skills prompt is joined to it.
    pub system_prompt: Option<String>,
    /// How many model turns a run may take (default 10).
    pub max_turns: Option<u32>,
    /// Bedrock's region (default: the environment's).
    pub region: Option<String>,
    /// Azure OpenAI's `api-version`.
    pub api_version: Option<String>,
    /// `retries`: how many times a failed request is tried again (default 2).
    pub retries: Option<u32>,
    /// `retryBaseMs`: the wait before the first retry, doubled for each further one
    /// (default 500).
    pub retry_base_ms: Option<u64>,
    /// `timeoutMs`: the whole run's deadline ([`Client::run_timeout`]); none by default.
    pub timeout_ms: Option<u64>,
    /// The file the config was read from, for error messages.
    pub path: Option<PathBuf>,
    /// The environment variables `${NAME}` in header values may name besides those
    /// starting with [`CONFIG_ENV_PREFIX`] (none unless the app adds them with
    /// [`ModelConfig::allow_env`]; never read from the config itself).
    pub allowed_env: Vec<String>,
}

/// The start of the names of the environment variables a [`ModelConfig`]'s header
/// values may always name (`${TOOLNEXUS_…}`); others only when the app allows them
/// ([`ModelConfig::allow_env`]).
pub const CONFIG_ENV_PREFIX: &str = "TOOLNEXUS_";

impl std::fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        /// A secret, shown as such.
        struct Redacted;
        impl std::fmt::Debug for Redacted {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("[redacted]")
            }
        }
        let headers: Vec<(&str, Redacted)> = self
            .headers
            .iter()
            .map(|(name, _)| (name.as_str(), Redacted))
            .collect();
        f.debug_struct("ModelConfig")
            .field("style", &self.style)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| Redacted))
            .field("headers", &headers)
            .field("system_prompt", &self.system_prompt)
            .field("max_turns", &self.max_turns)
            .field("region", &self.region)
            .field("api_version", &self.api_version)
            .field("retries", &self.retries)
            .field("retry_base_ms", &self.retry_base_ms)
            .field("timeout_ms", &self.timeout_ms)
            .field("path", &self.path)
            .field("allowed_env", &self.allowed_env)
            .finish()
    }
}

impl ModelConfig {
    /// A config of `style` for `model`, everything else unset.
    pub fn new(style: Style, model: impl Into<String>) -> Self {
        ModelConfig {
            style,
            model: model.into(),
            base_url: None,
            api_key: None,
            headers: Vec::new(),
            system_prompt: None,
            max_turns: None,
            region: None,
            api_version: None,
            retries: None,
            retry_base_ms: None,
            timeout_ms: None,
            path: None,
            allowed_env: Vec::new(),
        }
    }

    /// Allows `${NAME}` in header values to name each of `names` too, besides the
    /// variables starting with [`CONFIG_ENV_PREFIX`]: the app's own choice, never the config's.
    ///
    /// ```
    /// use toolnexus::providers::ModelConfig;
    ///
    /// # fn demo() -> Result<(), toolnexus::ModelError> {
    /// let config = ModelConfig::from_json(
    ///     r#"{"model": "m", "headers": {"Authorization": "Bearer ${GATEWAY_TOKEN}"}}"#,
    /// )?
    /// .allow_env(["GATEWAY_TOKEN"]);
    /// # let _ = config; Ok(()) }
    /// ```
    #[must_use]
    pub fn allow_env<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_env.extend(names.into_iter().map(Into::into));
        self
    }

    /// Reads a config file (JSON); errors name the file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<ModelConfig, ModelError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            ModelError::with_source(
                format!("model config {}: cannot read it", path.display()),
                e,
            )
        })?;
        let mut config = parse(&text, Some(path))?;
        config.path = Some(path.to_owned());
        Ok(config)
    }

    /// Parses a config from JSON text.
    pub fn from_json(text: &str) -> Result<ModelConfig, ModelError> {
        parse(text, None)
    }

    /// A config from a JSON value.
    pub fn from_value(value: &Value) -> Result<ModelConfig, ModelError> {
        from_object(value, None)
    }

    /// The client's system prompt: `systemPrompt` and `skills_prompt` (the toolkit's
    /// [`Skills::skills_prompt`](crate::source::Skills::skills_prompt), or `""` without
    /// skills), joined by a blank line, the empty ones left out (as the contract's
    /// ports join them); `None` when both are empty.
    pub fn system(&self, skills_prompt: &str) -> Option<String> {
        let parts: Vec<&str> = [self.system_prompt.as_deref().unwrap_or(""), skills_prompt]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    /// The model the config names, behind `Box<dyn Model>`. A missing key, a style whose
    /// cargo feature is off, or a header that names an unset variable is an error
    /// saying what to set.
    pub fn build(&self) -> Result<Box<dyn Model>, ModelError> {
        let headers = self.expanded_headers()?;
        build::build(self, headers)
    }

    /// A [`Client`] over [`ModelConfig::build`]'s model, with [`ModelConfig::system`] as
    /// its system prompt and `maxTurns`.
    pub fn client(&self, skills_prompt: &str) -> Result<Client, ModelError> {
        let mut client = Client::new(self.build()?);
        if let Some(system) = self.system(skills_prompt) {
            client = client.system(system);
        }
        if let Some(ms) = self.timeout_ms {
            client = client.run_timeout(std::time::Duration::from_millis(ms));
        }
        Ok(client.max_turns(self.max_turns.unwrap_or(10)))
    }

    /// The retry policy `retries` and `retryBaseMs` ask for, over the default.
    pub(crate) fn retry(&self) -> crate::providers::Retry {
        let mut retry = crate::providers::Retry::default();
        if let Some(n) = self.retries {
            retry = retry.max_retries(n);
        }
        if let Some(ms) = self.retry_base_ms {
            retry = retry.initial_backoff(std::time::Duration::from_millis(ms));
        }
        retry
    }

    /// Where errors say the config came from.
    pub(crate) fn origin(&self) -> String {
        match &self.path {
            Some(path) => format!("model config {}", path.display()),
            None => "model config".to_owned(),
        }
    }

    /// The headers with `${NAME}` expanded; an unset or disallowed variable names the
    /// header.
    fn expanded_headers(&self) -> Result<Vec<(String, String)>, ModelError> {
        let allowed = |var: &str| {
            var.starts_with(CONFIG_ENV_PREFIX) || self.allowed_env.iter().any(|name| name == var)
        };
        self.headers
            .iter()
            .map(|(name, template)| {
                let value = crate::env::expand_only(template, allowed).map_err(|why| {
                    let origin = self.origin();
                    ModelError::new(match why {
                        Unexpanded::Unset(var) => format!(
                            "{origin}: `headers.{name}` names the environment variable {var}, \
                             which is not set"
                        ),
                        Unexpanded::NotAllowed(var) => format!(
                            "{origin}: `headers.{name}` names the environment variable {var}, \
                             which a model config may not read: only variables starting with \
                             {CONFIG_ENV_PREFIX} expand, and those the app allows \
                             (ModelConfig::allow_env)"
                        ),
                    })
                })?;
                Ok((name.clone(), value))
            })
            .collect()
    }
}

fn parse(text: &str, path: Option<&Path>) -> Result<ModelConfig, ModelError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let origin = path.map_or("model config".to_owned(), |p| {
            format!("model config {}", p.display())
        });
        ModelError::with_source(format!("{origin}: not valid JSON"), e)
    })?;
    from_object(&value, path)
}

const KEYS: [&str; 12] = [
    "style",
    "model",
    "baseUrl",
    "apiKey",
    "headers",
    "systemPrompt",
    "maxTurns",
    "region",
    "apiVersion",
    "retries",
    "retryBaseMs",
    "timeoutMs",
];

fn from_object(value: &Value, path: Option<&Path>) -> Result<ModelConfig, ModelError> {
    let origin = path.map_or("model config".to_owned(), |p| {
        format!("model config {}", p.display())
    });
    let bad = |key: &str, what: &str, got: &Value| {
        let got: String = got.to_string().chars().take(80).collect();
        ModelError::new(format!("{origin}: `{key}` {what} (got {got})"))
    };
    let Some(object) = value.as_object() else {
        return Err(bad("(root)", "must be a JSON object", value));
    };
    if let Some(key) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(ModelError::new(format!(
            "{origin}: unknown key `{key}` (the keys are {})",
            KEYS.join(", ")
        )));
    }
    let text = |key: &str| -> Result<Option<String>, ModelError> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(bad(key, "must be a string", other)),
        }
    };
    let style = match object.get("style") {
        None | Some(Value::Null) => Style::OpenAi,
        Some(Value::String(name)) => Style::ALL
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                bad(
                    "style",
                    "must be one of openai, anthropic, gemini, responses, bedrock, azure",
                    &Value::String(name.clone()),
                )
            })?,
        Some(other) => return Err(bad("style", "must be a string", other)),
    };
    let model = text("model")?
        .filter(|m| !m.trim().is_empty())
        .ok_or_else(|| {
            ModelError::new(format!("{origin}: `model` is missing (the model's name)"))
        })?;
    let max_turns = match object.get("maxTurns") {
        None | Some(Value::Null) => None,
        Some(n) => Some(
            n.as_u64()
                .filter(|&n| n > 0)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad("maxTurns", "must be a positive integer", n))?,
        ),
    };
    let count = |key: &str, zero: bool| -> Result<Option<u64>, ModelError> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(n) => n
                .as_u64()
                .filter(|&n| zero || n > 0)
                .map(Some)
                .ok_or_else(|| {
                    let what = if zero {
                        "a whole number"
                    } else {
                        "a positive integer"
                    };
                    bad(key, &format!("must be {what}"), n)
                }),
        }
    };
    let retries = count("retries", true)?
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        .map(|n| n.min(100));
    let headers = match object.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => headers(map, &origin)?,
        Some(other) => return Err(bad("headers", "must be an object of strings", other)),
    };
    Ok(ModelConfig {
        style,
        model,
        base_url: text("baseUrl")?,
        api_key: text("apiKey")?,
        headers,
        system_prompt: text("systemPrompt")?,
        max_turns,
        region: text("region")?,
        api_version: text("apiVersion")?,
        retries,
        retry_base_ms: count("retryBaseMs", true)?,
        timeout_ms: count("timeoutMs", false)?,
        path: path.map(Path::to_owned),
        allowed_env: Vec::new(),
    })
}

fn headers(map: &Map<String, Value>, origin: &str) -> Result<Vec<(String, String)>, ModelError> {
    map.iter()
        .map(|(name, value)| match value {
            Value::String(v) => Ok((name.clone(), v.clone())),
            // The value is not shown: it may be a secret.
            _ => Err(ModelError::new(format!(
                "{origin}: `headers.{name}` must be a string"
            ))),
        })
        .collect()
}

//! [`ModelConfig::build`]: one provider per style, each behind its cargo feature.

use crate::model::{Model, ModelError};
use crate::providers::config::{ModelConfig, Style};

/// The key the contract reads when `apiKey` is left out: `OPENROUTER_API_KEY`, then the
/// style's own variable, then the other of OpenAI's and Anthropic's.
fn key(config: &ModelConfig, own: &str) -> Result<String, ModelError> {
    if let Some(key) = config.api_key.as_ref().filter(|k| !k.trim().is_empty()) {
        return Ok(key.clone());
    }
    let mut vars = vec!["OPENROUTER_API_KEY", own];
    for other in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"] {
        if !vars.contains(&other) {
            vars.push(other);
        }
    }
    vars.iter()
        .find_map(|var| std::env::var(var).ok().filter(|k| !k.trim().is_empty()))
        .map(|k| k.trim().to_owned())
        .ok_or_else(|| {
            ModelError::new(format!(
                "{}: no API key: set `apiKey`, or one of the environment variables {}",
                config.origin(),
                vars.join(", ")
            ))
        })
}

fn feature_off(config: &ModelConfig, feature: &str) -> ModelError {
    ModelError::new(format!(
        "{}: the style `{}` needs toolnexus's cargo feature `{feature}`",
        config.origin(),
        config.style.name()
    ))
}

/// Adds the expanded headers with the provider's own `header`.
macro_rules! with_headers {
    ($model:expr, $headers:expr, $config:expr) => {{
        let mut model = $model.retry($config.retry());
        for (name, value) in $headers {
            model = model.header(name, value);
        }
        model
    }};
}

pub(crate) fn build(
    config: &ModelConfig,
    headers: Vec<(String, String)>,
) -> Result<Box<dyn Model>, ModelError> {
    let base = config.base_url.as_deref();
    let _ = (&headers, base);
    match config.style {
        #[cfg(feature = "openai")]
        Style::OpenAi => {
            use crate::model::settings::{ModelSettings, ToolChoice};
            let base = base.unwrap_or("https://api.openai.com/v1");
            let model = crate::providers::OpenAi::compatible(base, &config.model)
                .api_key(key(config, "OPENAI_API_KEY")?)
                // The contract's body asks `tool_choice: "auto"` whenever tools are listed.
                .with_settings(ModelSettings::new().tool_choice(ToolChoice::Auto));
            Ok(Box::new(with_headers!(model, headers, config)))
        }
        #[cfg(feature = "openai")]
        Style::Responses => {
            let base = base.unwrap_or("https://api.openai.com/v1");
            let model = crate::providers::OpenAiResponses::compatible(base, &config.model)
                .api_key(key(config, "OPENAI_API_KEY")?);
            Ok(Box::new(with_headers!(model, headers, config)))
        }
        #[cfg(feature = "openai")]
        Style::Azure => {
            let mut model = match base {
                Some(endpoint) => crate::providers::AzureOpenAi::new(endpoint, &config.model),
                None => crate::providers::AzureOpenAi::from_env(&config.model)?,
            };
            if let Some(key) = &config.api_key {
                model = model.api_key(key);
            } else if !model.has_api_key() {
                model = model.api_key(key(config, "AZURE_OPENAI_API_KEY")?);
            }
            if let Some(version) = &config.api_version {
                model = model.with_api_version(version);
            }
            Ok(Box::new(with_headers!(model, headers, config)))
        }
        #[cfg(feature = "anthropic")]
        Style::Anthropic => {
            // The contract posts to `{baseUrl}/messages`, adding `/v1` when it is not
            // there; the provider always adds it.
            let base = base.unwrap_or("https://api.anthropic.com");
            let base = base.trim_end_matches('/');
            let base = base.strip_suffix("/v1").unwrap_or(base);
            let model =
                crate::providers::Anthropic::new(key(config, "ANTHROPIC_API_KEY")?, &config.model)
                    .with_base_url(base)
                    .prompt_caching(false);
            Ok(Box::new(with_headers!(model, headers, config)))
        }
        #[cfg(feature = "gemini")]
        Style::Gemini => {
            let mut model =
                crate::providers::Gemini::new(key(config, "GEMINI_API_KEY")?, &config.model);
            if let Some(base) = base {
                model = model.with_base_url(base);
            }
            Ok(Box::new(with_headers!(model, headers, config)))
        }
        #[cfg(feature = "bedrock")]
        Style::Bedrock => {
            use crate::providers::Bedrock;
            let mut model = match &config.region {
                Some(region) => {
                    let mut model = Bedrock::new(region, &config.model);
                    if let Some(key) =
                        crate::providers::common::http::base_from_env("AWS_BEARER_TOKEN_BEDROCK")
                    {
                        model = model.api_key(key.trim());
                    }
                    model
                }
                None => Bedrock::from_env(&config.model)?,
            };
            if let Some(base) = base {
                model = model.with_base_url(base);
            }
            if let Some(key) = &config.api_key {
                model = model.api_key(key);
            }
            Ok(Box::new(with_headers!(model, headers, config)))
        }
        #[allow(unreachable_patterns)]
        Style::OpenAi | Style::Responses | Style::Azure => Err(feature_off(config, "openai")),
        #[allow(unreachable_patterns)]
        Style::Anthropic => Err(feature_off(config, "anthropic")),
        #[allow(unreachable_patterns)]
        Style::Gemini => Err(feature_off(config, "gemini")),
        #[allow(unreachable_patterns)]
        Style::Bedrock => Err(feature_off(config, "bedrock")),
    }
}

//! Structured output ([`ModelSettings::output`](crate::ModelSettings::output)): the request
//! fields each provider asks for a final answer that follows a JSON schema with, merged
//! into the turn's body.

use serde_json::{Map, Value, json};

use crate::model::ModelError;
use crate::model::settings::OutputFormat;
use crate::providers::common::settings::refuse;
use crate::schema::profile;

/// Which provider's structured output.
// Each provider's feature builds its own variant.
#[cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code)
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Chat Completions' `response_format`.
    OpenAiChat,
    /// The Responses API's `text.format`.
    OpenAiResponses,
    /// Anthropic's `output_config.format`.
    Anthropic,
    /// Gemini's `generationConfig.responseSchema`.
    Gemini,
}

/// The OpenAI schema of `format` and whether it is strict: strict mode when the schema
/// allows it, else the plain profile.
fn openai_schema(provider: &str, format: &OutputFormat) -> Result<(Value, bool), ModelError> {
    if let Ok(schema) = profile::openai_strict(&format.schema) {
        return Ok((schema, true));
    }
    let schema = profile::openai(&format.schema)
        .map_err(|e| refuse(provider, "output", format!("the output schema: {e}")))?;
    Ok((schema, false))
}

/// The fields of a request body that ask `provider` (in `dialect`) for output following
/// `format`; an error when the schema cannot be expressed there.
pub(crate) fn fields(
    provider: &str,
    dialect: Dialect,
    format: &OutputFormat,
) -> Result<Map<String, Value>, ModelError> {
    let name = &format.name;
    let value = match dialect {
        Dialect::OpenAiChat => {
            let (schema, strict) = openai_schema(provider, format)?;
            json!({"response_format": {"type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": strict}}})
        }
        Dialect::OpenAiResponses => {
            let (schema, strict) = openai_schema(provider, format)?;
            json!({"text": {"format": {"type": "json_schema", "name": name,
                "schema": schema, "strict": strict}}})
        }
        Dialect::Anthropic => {
            let schema = profile::anthropic_strict(&format.schema).map_err(|e| {
                refuse(
                    provider,
                    "output",
                    format!(
                        "Anthropic's structured output cannot hold this schema ({e}); use \
                         `OutputMode::Tool`"
                    ),
                )
            })?;
            json!({"output_config": {"format": {"type": "json_schema", "schema": schema}}})
        }
        Dialect::Gemini => {
            let schema = profile::gemini(&format.schema)
                .map_err(|e| refuse(provider, "output", format!("the output schema: {e}")))?;
            json!({"generationConfig": {"responseMimeType": "application/json",
                "responseSchema": schema}})
        }
    };
    match value {
        Value::Object(map) => Ok(map),
        _ => unreachable!("the fields are an object"),
    }
}

//! Provider adapters: each tool in the shape one provider's API expects.
//!
//! Every entry is built once per tool and cached on it (see [`Tool`]); a [`Toolkit`]
//! caches its whole listing too, so repeated listings only copy.
//!
//! [`Toolkit`]: crate::Toolkit

use serde_json::{Value, json};

use crate::tool::Tool;

/// The providers whose tool shapes toolnexus produces. The discriminant is the tool's
/// cache slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Provider {
    OpenAi = 0,
    Anthropic = 1,
    Gemini = 2,
    Mcp = 3,
}

/// One tool in `provider`'s shape, built on first use and cached on the tool.
pub(crate) fn entry(tool: &Tool, provider: Provider) -> &Value {
    tool.form(provider as usize, |tool| build(tool, provider))
}

fn build(tool: &Tool, provider: Provider) -> Value {
    let name = tool.name();
    let description = tool.description();
    let schema = tool.input_schema();
    match provider {
        Provider::OpenAi => json!({
            "type": "function",
            "function": { "name": name, "description": description, "parameters": schema },
        }),
        Provider::Anthropic => {
            json!({ "name": name, "description": description, "input_schema": schema })
        }
        Provider::Gemini => {
            let parameters = gemini_parameters(schema);
            json!({ "name": name, "description": description, "parameters": parameters })
        }
        Provider::Mcp => json!({ "name": name, "description": description, "inputSchema": schema }),
    }
}

/// Gemini's `parameters` field takes a subset of JSON Schema and rejects the rest.
fn gemini_parameters(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| {
                    !matches!(key.as_str(), "additionalProperties" | "$schema" | "title")
                })
                .map(|(key, value)| (key.clone(), gemini_parameters(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(gemini_parameters).collect()),
        other => other.clone(),
    }
}

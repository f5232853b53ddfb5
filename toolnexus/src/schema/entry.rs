//! Provider adapters: each tool in the shape one provider's API expects.
//!
//! The argument schema inside each entry is the tool's canonical schema passed through the
//! provider's profile (see [`crate::schema::profile`]). Profiles and entries are built once per
//! tool and cached on it (see [`Tool`]); a [`Toolkit`] caches its whole listing too, and shares
//! it as a [`Listing`](crate::Listing).
//!
//! [`Toolkit`]: crate::Toolkit

use serde_json::{Value, json};

use crate::schema::profile::{Profile, ProfileError, gemini_lenient};
use crate::tool::Tool;

/// The tool shapes toolnexus produces. The discriminant is the tool's cache slot (see
/// `FORM_SLOTS` in `tool.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Provider {
    OpenAi = 0,
    Anthropic = 1,
    Gemini = 2,
    Mcp = 3,
    OpenAiStrict = 4,
    AnthropicStrict = 5,
}

impl Provider {
    pub(crate) fn of(profile: Profile) -> Provider {
        match profile {
            Profile::OpenAi => Provider::OpenAi,
            Profile::Anthropic => Provider::Anthropic,
            Profile::Gemini => Provider::Gemini,
            Profile::Mcp => Provider::Mcp,
            Profile::OpenAiStrict => Provider::OpenAiStrict,
            Profile::AnthropicStrict => Provider::AnthropicStrict,
        }
    }

    pub(crate) fn profile(self) -> Profile {
        match self {
            Provider::OpenAi => Profile::OpenAi,
            Provider::Anthropic => Profile::Anthropic,
            Provider::Gemini => Profile::Gemini,
            Provider::Mcp => Profile::Mcp,
            Provider::OpenAiStrict => Profile::OpenAiStrict,
            Provider::AnthropicStrict => Profile::AnthropicStrict,
        }
    }
}

/// One tool in `provider`'s shape, built on first use and cached on the tool.
///
/// When the provider's profile cannot express the tool's schema, the entry degrades
/// instead of disappearing: a strict form falls back to the plain one (without
/// `"strict": true`), Gemini cuts the recursion, the others use the schema as given.
/// [`try_entry`] reports the error instead.
pub(crate) fn entry(tool: &Tool, provider: Provider) -> &Value {
    tool.form(provider as usize, |tool| {
        match tool.profile(provider.profile()) {
            Ok(schema) => build(tool, provider, schema.clone()),
            Err(error) => {
                tracing::warn!(tool = %tool.name(), "{error}; listing a degraded form");
                match provider {
                    Provider::OpenAiStrict => entry(tool, Provider::OpenAi).clone(),
                    Provider::AnthropicStrict => entry(tool, Provider::Anthropic).clone(),
                    Provider::Gemini => build(tool, provider, gemini_lenient(tool.input_schema())),
                    _ => build(tool, provider, tool.input_schema().clone()),
                }
            }
        }
    })
}

/// One tool in `provider`'s shape, or why its schema does not fit that provider.
pub(crate) fn try_entry(tool: &Tool, provider: Provider) -> Result<&Value, ProfileError> {
    tool.profile(provider.profile()).map_err(Clone::clone)?;
    Ok(entry(tool, provider))
}

fn build(tool: &Tool, provider: Provider, schema: Value) -> Value {
    let name = tool.name();
    let description = tool.description();
    match provider {
        Provider::OpenAi => json!({
            "type": "function",
            "function": { "name": name, "description": description, "parameters": schema },
        }),
        Provider::OpenAiStrict => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": schema,
                "strict": true,
            },
        }),
        Provider::Anthropic => {
            json!({ "name": name, "description": description, "input_schema": schema })
        }
        Provider::AnthropicStrict => json!({
            "name": name,
            "description": description,
            "input_schema": schema,
            "strict": true,
        }),
        Provider::Gemini => {
            json!({ "name": name, "description": description, "parameters": schema })
        }
        Provider::Mcp => json!({ "name": name, "description": description, "inputSchema": schema }),
    }
}

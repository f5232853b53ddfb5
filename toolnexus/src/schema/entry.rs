//! Entries: each tool in the shape one provider's listing expects, built once per tool and
//! profile and cached on the tool.
//!
//! The argument schema inside each entry is the tool's canonical schema passed through the
//! provider's profile (see [`crate::profile`]). A [`Toolkit`](crate::Toolkit) assembles
//! its listings from these entries and shares each as a [`Listing`](crate::Listing).

use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::schema::profile::{Profile, ProfileError, gemini_lenient};

/// What an entry is built from: a tool's name, description, canonical schema and, if it
/// has one, output schema (listed by MCP only: no other provider takes one).
#[derive(Clone, Copy)]
pub(crate) struct EntrySource<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) input_schema: &'a Value,
    pub(crate) output_schema: Option<&'a Value>,
}

/// One tool in one provider's shape, and why its schema did not fit, if it did not.
pub(crate) struct Entry {
    /// The entry as it is listed.
    pub(crate) value: Value,
    /// Why the profile could not express the schema; the entry is then a degraded form
    /// (see [`Entries::get`]).
    pub(crate) error: Option<ProfileError>,
}

impl Entry {
    /// The profiled argument schema inside the entry.
    pub(crate) fn schema(&self, profile: Profile) -> &Value {
        let key = match profile {
            Profile::OpenAi | Profile::OpenAiStrict => {
                return &self.value["function"]["parameters"];
            }
            Profile::Anthropic | Profile::AnthropicStrict => "input_schema",
            Profile::Gemini => "parameters",
            Profile::Mcp => "inputSchema",
        };
        &self.value[key]
    }
}

/// A tool's entries, one slot per [`Profile`], each built on first use: the one cache of
/// provider forms a tool has.
#[derive(Default)]
pub(crate) struct Entries([OnceLock<Entry>; Profile::ALL.len()]);

impl Entries {
    /// The tool's entry for `profile`.
    ///
    /// When the profile cannot express the tool's schema, the entry degrades instead of
    /// disappearing, and carries the error: a strict form falls back to the plain one
    /// (without `"strict": true`), Gemini cuts the recursion, the others use the schema as
    /// given.
    pub(crate) fn get(&self, profile: Profile, source: EntrySource<'_>) -> &Entry {
        self.0[profile.slot()].get_or_init(|| match profile.apply(source.input_schema) {
            Ok(schema) => Entry {
                value: shape(profile, source, schema),
                error: None,
            },
            Err(error) => {
                let error = error.for_tool(source.name);
                tracing::warn!(tool = %source.name, "{error}; listing a degraded form");
                let value = match profile {
                    Profile::OpenAiStrict => self.get(Profile::OpenAi, source).value.clone(),
                    Profile::AnthropicStrict => self.get(Profile::Anthropic, source).value.clone(),
                    Profile::Gemini => shape(profile, source, gemini_lenient(source.input_schema)),
                    _ => shape(profile, source, source.input_schema.clone()),
                };
                Entry {
                    value,
                    error: Some(error),
                }
            }
        })
    }
}

/// The entry of a tool whose schema, already profiled, is `schema`.
fn shape(profile: Profile, source: EntrySource<'_>, schema: Value) -> Value {
    let EntrySource {
        name,
        description,
        output_schema,
        ..
    } = source;
    match profile {
        Profile::OpenAi => json!({
            "type": "function",
            "function": { "name": name, "description": description, "parameters": schema },
        }),
        Profile::OpenAiStrict => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": schema,
                "strict": true,
            },
        }),
        Profile::Anthropic => {
            json!({ "name": name, "description": description, "input_schema": schema })
        }
        Profile::AnthropicStrict => json!({
            "name": name,
            "description": description,
            "input_schema": schema,
            "strict": true,
        }),
        Profile::Gemini => {
            json!({ "name": name, "description": description, "parameters": schema })
        }
        Profile::Mcp => match output_schema {
            None => json!({ "name": name, "description": description, "inputSchema": schema }),
            Some(output) => json!({
                "name": name,
                "description": description,
                "inputSchema": schema,
                "outputSchema": output,
            }),
        },
    }
}

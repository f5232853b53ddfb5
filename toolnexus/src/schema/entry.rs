//! Entries: each tool in the shape one provider's listing expects, built once per tool and
//! profile and cached on the tool.
//!
//! The argument schema inside each entry is the tool's canonical schema passed through the
//! provider's profile (see [`crate::schema::profile`]). A [`Toolkit`](crate::Toolkit) assembles
//! its listings from these entries and shares each as a [`Listing`](crate::schema::Listing).

use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::schema::profile::{Profile, ProfileError};

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
    /// The entry as it is listed; `None` when the tool is left out of the listing.
    pub(crate) value: Option<Value>,
    /// The profiled argument schema (`null` when the profile refused it).
    schema: Value,
    /// Why the profile could not express the schema (see [`Entries::get`]).
    pub(crate) error: Option<ProfileError>,
    /// The constraints the listed schema does not enforce, each naming the tool.
    pub(crate) gaps: Vec<ProfileError>,
}

impl Entry {
    /// The profiled argument schema.
    pub(crate) fn schema(&self, _profile: Profile) -> &Value {
        &self.schema
    }
}

/// A tool's entries, one slot per [`Profile`], each built on first use: the one cache of
/// provider forms a tool has.
#[derive(Default)]
pub(crate) struct Entries([OnceLock<Entry>; Profile::ALL.len()]);

impl Entries {
    /// The tool's entry for `profile`.
    ///
    /// When the profile cannot express the tool's schema, the entry carries the error
    /// (which [`Toolkit::check`](crate::Toolkit::check) and `try_listing` report) and:
    /// - a strict profile lists the tool in its plain form, without `"strict": true`,
    ///   when the plain profile expresses it: that form is valid for the provider (which
    ///   takes strict and non-strict tools side by side), and the tool stays callable;
    /// - otherwise the tool is left out of that listing, with a `tracing` warning. A
    ///   degraded schema (Gemini's recursion cut to an empty OBJECT, a schema in another
    ///   dialect) is what the provider rejects, and one rejected tool fails the whole
    ///   request: leaving it out keeps every other tool listed, and never shows the model
    ///   a schema that promises what the tool refuses.
    pub(crate) fn get(&self, profile: Profile, source: EntrySource<'_>) -> &Entry {
        self.0[profile.slot()].get_or_init(|| match profile.run(source.input_schema) {
            Ok(profiled) => Entry {
                value: Some(shape(profile, source, &profiled.schema)),
                schema: profiled.schema,
                error: None,
                gaps: profiled
                    .gaps
                    .into_iter()
                    .map(|gap| gap.for_tool(source.name))
                    .collect(),
            },
            Err(error) => {
                let error = error.for_tool(source.name);
                let plain = match profile {
                    Profile::OpenAiStrict => Some(self.get(Profile::OpenAi, source)),
                    Profile::AnthropicStrict => Some(self.get(Profile::Anthropic, source)),
                    _ => None,
                };
                match plain {
                    Some(plain) if plain.error.is_none() => {
                        tracing::warn!(tool = %source.name, "{error}; listing the plain form");
                        Entry {
                            value: plain.value.clone(),
                            schema: Value::Null,
                            error: Some(error),
                            gaps: plain.gaps.clone(),
                        }
                    }
                    _ => {
                        tracing::warn!(tool = %source.name, "{error}; the tool is not listed");
                        Entry {
                            value: None,
                            schema: Value::Null,
                            error: Some(error),
                            gaps: Vec::new(),
                        }
                    }
                }
            }
        })
    }
}

/// The entry of a tool whose schema, already profiled, is `schema`.
fn shape(profile: Profile, source: EntrySource<'_>, schema: &Value) -> Value {
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
        // Gemini rejects an OBJECT without properties: a tool without parameters is
        // declared without `parameters`, as Gemini's own examples do.
        Profile::Gemini
            if schema["properties"]
                .as_object()
                .is_some_and(|p| p.is_empty()) =>
        {
            json!({ "name": name, "description": description })
        }
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

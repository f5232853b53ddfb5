//! A [`Toolkit`]'s provider forms: the checks against a provider's schema profile, and
//! the shared listings (`to_openai`, `to_anthropic`, `to_gemini`, `to_mcp` and the
//! strict forms).

use serde_json::Value;

use crate::schema::listing::Listing;
use crate::schema::profile::{Profile, ProfileError};
use crate::tool::kit::Toolkit;

impl Toolkit {
    /// Checks every tool's schema against one provider profile, so a schema the provider
    /// would reject is found when the toolkit is built rather than at the first request.
    /// Each error is a refusal ([`ProfileError::is_refusal`]) naming the tool, the place
    /// in its schema and the reason: the profile cannot list the tool. The listings never
    /// fail: a strict listing shows such a tool in its plain form (without
    /// `"strict": true`) when that fits, and every other listing leaves it out (see
    /// [`Toolkit::listing`]).
    ///
    /// A tool whose shared state is missing (see [`Toolkit::with_state`]) is reported too,
    /// as a refusal whose path is `/` and whose message names the type and the fix;
    /// [`Toolkit::check_states`] reports those alone.
    ///
    /// A constraint the listed schema does not enforce is not an error: the tool is listed
    /// and works. [`Toolkit::warnings`] names those. A toolkit that passes `check` and has
    /// no warnings for a profile lists every tool, and every argument object its listing
    /// allows (with integers in the range every JSON reader takes exactly, ±(2^53−1)),
    /// the tools accept.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{Tool, ToolResult, Toolkit};
    /// use toolnexus::schema::profile::Profile;
    ///
    /// let labels = json!({"type": "object", "properties": {
    ///     "labels": {"type": "object", "additionalProperties": {"type": "string"}}
    /// }});
    /// let toolkit = Toolkit::new().with(Tool::new_sync("tag", "Tags.", labels, |_, _| ToolResult::ok("")));
    /// let errors = toolkit.check(Profile::OpenAiStrict).unwrap_err();
    /// assert_eq!(errors[0].tool(), Some("tag"));
    /// assert_eq!(errors[0].path(), "/properties/labels/additionalProperties");
    /// assert!(toolkit.check(Profile::Anthropic).is_ok());
    /// ```
    pub fn check(&self, profile: Profile) -> Result<(), Vec<ProfileError>> {
        let mut errors: Vec<ProfileError> = self
            .tools
            .iter()
            .filter_map(|tool| tool.entry(profile).error.clone())
            .collect();
        if let Err(missing) = self.check_states() {
            errors.extend(missing.iter().map(|missing| {
                ProfileError::missing_state(profile, missing.tool(), missing.to_string())
            }));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The constraints `profile`'s listing states without enforcing, one per tool and
    /// place (never a refusal): a bound or a format moved into the description, a tuple's
    /// positions, a root union listed as one object. The tool is listed and works, but
    /// the provider may send arguments it then refuses, with an error naming the field.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{Tool, ToolResult, Toolkit};
    /// use toolnexus::schema::profile::Profile;
    ///
    /// // Anthropic's strict tool use takes no numeric bounds: a `u8` says its range in
    /// // words, which a model reads but the API does not enforce.
    /// let percent = json!({"type": "object", "properties": {
    ///     "percent": {"type": "integer", "minimum": 0, "maximum": 100}
    /// }, "required": ["percent"]});
    /// let toolkit = Toolkit::new().with(Tool::new_sync("dim", "Dims.", percent, |_, _| ToolResult::ok("")));
    /// assert!(toolkit.check(Profile::AnthropicStrict).is_ok());
    /// let warnings = toolkit.warnings(Profile::AnthropicStrict);
    /// assert_eq!(warnings[0].path(), "/properties/percent");
    /// assert!(!warnings[0].is_refusal());
    /// assert!(toolkit.warnings(Profile::Anthropic).is_empty());
    /// ```
    pub fn warnings(&self, profile: Profile) -> Vec<ProfileError> {
        self.tools
            .iter()
            .flat_map(|tool| tool.entry(profile).gaps.iter().cloned())
            .collect()
    }

    /// The tools in `profile`'s provider shape, built once and shared: what
    /// [`Toolkit::to_openai`] (for [`Profile::OpenAi`]) and its siblings return. Cloning
    /// the [`Listing`] is cheap, and its JSON text is serialized once. Registering a tool
    /// builds the listing anew.
    ///
    /// | profile | same value as |
    /// | --- | --- |
    /// | [`Profile::OpenAi`] | [`Toolkit::to_openai`] |
    /// | [`Profile::OpenAiStrict`] | [`Toolkit::to_openai_strict`] |
    /// | [`Profile::Anthropic`] | [`Toolkit::to_anthropic`] |
    /// | [`Profile::AnthropicStrict`] | [`Toolkit::to_anthropic_strict`] |
    /// | [`Profile::Gemini`] | [`Toolkit::to_gemini`] |
    /// | [`Profile::Mcp`] | [`Toolkit::to_mcp`] |
    ///
    /// A tool whose schema the profile cannot express is never listed in a form the
    /// provider would reject (one such tool would fail the whole request): a strict
    /// profile lists its plain form when that fits (see [`Toolkit::to_openai_strict`]),
    /// other profiles leave the tool out, with a `tracing` warning.
    /// [`Toolkit::try_listing`] and [`Toolkit::check`] report it instead.
    pub fn listing(&self, profile: Profile) -> Listing {
        self.listings[profile.slot()]
            .get_or_init(|| {
                let entries = self
                    .tools
                    .iter()
                    .filter_map(|tool| tool.entry(profile).value.clone())
                    .collect();
                Listing::new(match profile {
                    Profile::Gemini => {
                        serde_json::json!([{ "functionDeclarations": Value::Array(entries) }])
                    }
                    _ => Value::Array(entries),
                })
            })
            .clone()
    }

    /// The tools in OpenAI's Responses API shape, `[{"type": "function", "name",
    /// "description", "parameters", "strict"}]`: the entries of [`Profile::OpenAi`] (or of
    /// [`Profile::OpenAiStrict`] when `strict`), flattened, with `strict` always said
    /// (the Responses API makes a function strict when it is left out). Shared and built
    /// once, as [`Toolkit::listing`].
    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub(crate) fn responses_listing(&self, strict: bool) -> Listing {
        self.derived[usize::from(strict)]
            .get_or_init(|| {
                let profile = if strict {
                    Profile::OpenAiStrict
                } else {
                    Profile::OpenAi
                };
                let chat = self.listing(profile);
                let entries = chat.as_array().map(Vec::as_slice).unwrap_or_default();
                let flat = entries
                    .iter()
                    .filter_map(|entry| {
                        let function = entry.get("function")?;
                        let strict = function.get("strict").and_then(Value::as_bool);
                        Some(serde_json::json!({
                            "type": "function",
                            "name": function.get("name")?,
                            "description": function.get("description")?,
                            "parameters": function.get("parameters")?,
                            "strict": strict.unwrap_or(false),
                        }))
                    })
                    .collect();
                Listing::new(Value::Array(flat))
            })
            .clone()
    }

    /// A listing a provider derives from the toolkit (Bedrock's `toolSpec`s), built by
    /// `build` on first use and shared, as [`Toolkit::listing`].
    #[cfg_attr(not(feature = "bedrock"), allow(dead_code))]
    pub(crate) fn derived_listing(&self, build: impl FnOnce(&Toolkit) -> Value) -> Listing {
        self.derived[2]
            .get_or_init(|| Listing::new(build(self)))
            .clone()
    }

    /// [`Toolkit::listing`], or the first tool whose schema `profile` cannot express.
    pub fn try_listing(&self, profile: Profile) -> Result<Listing, ProfileError> {
        for tool in &self.tools {
            if let Some(error) = &tool.entry(profile).error {
                return Err(error.clone());
            }
        }
        Ok(self.listing(profile))
    }

    /// The tools in OpenAI's Chat Completions shape:
    /// `[{"type":"function","function":{"name","description","parameters"}}]`.
    ///
    /// The [`Listing`] is shared (see [`Toolkit::listing`]): it dereferences to the
    /// listing's `Value` and serializes to the same JSON.
    pub fn to_openai(&self) -> Listing {
        self.listing(Profile::OpenAi)
    }

    /// The tools in Anthropic's Messages shape: `[{"name","description","input_schema"}]`.
    /// Shared, as [`Toolkit::to_openai`].
    pub fn to_anthropic(&self) -> Listing {
        self.listing(Profile::Anthropic)
    }

    /// The tools in Gemini's shape:
    /// `[{"functionDeclarations":[{"name","description","parameters"}]}]`. Shared, as
    /// [`Toolkit::to_openai`].
    pub fn to_gemini(&self) -> Listing {
        self.listing(Profile::Gemini)
    }

    /// The tools in OpenAI's Chat Completions shape for strict mode: as
    /// [`Toolkit::to_openai`], with `"strict": true` and the parameters passed through
    /// [`profile::openai_strict`](crate::schema::profile::openai_strict).
    ///
    /// A tool whose schema strict mode cannot express (a map, an untyped value, a root
    /// union, a schema over OpenAI's documented limits) is listed in its plain form,
    /// without `"strict": true`, and a `tracing` warning says why; use
    /// [`Toolkit::try_to_openai_strict`] or [`Toolkit::check`] to get the error instead.
    pub fn to_openai_strict(&self) -> Listing {
        self.listing(Profile::OpenAiStrict)
    }

    /// [`Toolkit::to_openai_strict`], or the first tool whose schema strict mode cannot
    /// express.
    pub fn try_to_openai_strict(&self) -> Result<Listing, ProfileError> {
        self.try_listing(Profile::OpenAiStrict)
    }

    /// The tools in Anthropic's shape for strict tool use: as [`Toolkit::to_anthropic`],
    /// with `"strict": true` and the input schema passed through
    /// [`profile::anthropic_strict`](crate::schema::profile::anthropic_strict). A tool whose schema
    /// does not fit is listed in its plain form, as in [`Toolkit::to_openai_strict`].
    pub fn to_anthropic_strict(&self) -> Listing {
        self.listing(Profile::AnthropicStrict)
    }

    /// [`Toolkit::to_anthropic_strict`], or the first tool whose schema strict tool use
    /// cannot express.
    pub fn try_to_anthropic_strict(&self) -> Result<Listing, ProfileError> {
        self.try_listing(Profile::AnthropicStrict)
    }

    /// [`Toolkit::to_gemini`], or the first tool whose schema Gemini's `parameters` cannot
    /// express (a recursive type, a map, an untyped value). `to_gemini` leaves such a tool
    /// out.
    pub fn try_to_gemini(&self) -> Result<Listing, ProfileError> {
        self.try_listing(Profile::Gemini)
    }

    /// The tools as MCP `tools/list` entries: `[{"name","description","inputSchema"}]`.
    /// Shared, as [`Toolkit::to_openai`].
    pub fn to_mcp(&self) -> Listing {
        self.listing(Profile::Mcp)
    }
}

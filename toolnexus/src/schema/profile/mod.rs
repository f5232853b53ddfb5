//! Provider profiles: the canonical argument schema of a tool, rewritten into the dialect
//! one provider accepts.
//!
//! A tool has one canonical schema (JSON Schema 2020-12, what [`mcp`] returns unchanged).
//! Providers each accept a different subset of JSON Schema and reject the rest, so every
//! adapter passes the canonical schema through a profile first:
//!
//! | profile | used by | what it does |
//! | --- | --- | --- |
//! | [`openai`] | `Toolkit::to_openai` | the root made a plain object (a root union of objects merged, every tag listed) |
//! | [`openai_strict`] | `Toolkit::to_openai_strict` | every object closed, every property required (optional ones of the root nullable), `oneOf` → `anyOf`, `$ref` siblings inlined, `default` removed, unsupported formats and bounds moved into the description; maps, untyped values, root unions and schemas over OpenAI's documented limits are errors |
//! | [`anthropic`] | `Toolkit::to_anthropic` | never a union at the root |
//! | [`anthropic_strict`] | `Toolkit::to_anthropic_strict` | as [`anthropic`], plus: a `$ref` keeps no siblings, `["T","null"]` → `anyOf`, unsupported keywords moved into the description; maps, untyped values, root unions and recursion are errors |
//! | [`gemini`] | `Toolkit::to_gemini` | the `parameters` subset: refs inlined, `title`, `examples`, `additionalProperties: false` dropped, `const` → one-value `enum`, nullable types → `nullable: true`, unknown formats moved into the description; recursion, maps, untyped values and nested objects without properties are errors |
//! | [`mcp`] | `Toolkit::to_mcp` | as is, with `"type": "object"` always at the root |
//!
//! What a profile moves into a description is no longer enforced by the provider: each
//! such place is reported by [`Toolkit::warnings`](crate::Toolkit::warnings) as a
//! [`ProfileError`] that is not a refusal ([`ProfileError::is_refusal`]).
//!
//! Every profile is a pure function, `&Value → Result<Value, ProfileError>`, and every one
//! also turns non-standard number formats (`uint32`, `int64`, `float`, …) into the range
//! they stand for where it is narrower than ±(2^53−1) (or the minimum 0 of an unsigned
//! type), so a hand-written schema gets the same treatment as a generated one.
//! A [`Tool`](crate::Tool) computes each profile once, on first use, and caches it.
//!
//! ```
//! use serde_json::json;
//! use toolnexus::schema::profile::openai_strict;
//!
//! let canonical = json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 0}},
//!     "required": ["city"],
//!     "additionalProperties": false
//! });
//! assert_eq!(
//!     openai_strict(&canonical).unwrap(),
//!     json!({
//!         "type": "object",
//!         "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"], "minimum": 0}},
//!         "required": ["city", "days"],
//!         "additionalProperties": false
//!     })
//! );
//! ```

mod anthropic;
mod gaps;
mod gemini;
mod limits;
mod openai;
mod root;
mod strict;
mod walk;

use std::fmt;

use serde_json::Value;

pub use anthropic::{anthropic, anthropic_strict};
pub(crate) use gaps::{Profiled, not_enforced};
pub use gemini::gemini;
pub use openai::{openai, openai_strict};
pub(crate) use root::{merge_object, plain_object};
pub(crate) use walk::*;

/// The canonical schema (MCP's `inputSchema` takes JSON Schema 2020-12), with the root
/// every MCP client requires: `"type": "object"` always (a root union, e.g. an `#[args]`
/// enum, keeps its `oneOf`/`anyOf` beside it), and a subschema `true` (any value, e.g.
/// `serde_json::Value`) written `{}`, since the TypeScript SDK takes only objects as
/// property schemas. Non-standard integer formats are dropped.
pub fn mcp(schema: &Value) -> Result<Value, ProfileError> {
    let mut out = match schema {
        Value::Object(_) => schema.clone(),
        Value::Bool(true) => serde_json::json!({}),
        _ => {
            return Err(ProfileError::new(
                Profile::Mcp,
                "",
                "the root must be an object schema",
            ));
        }
    };
    fix_integer_formats(&mut out);
    true_as_empty(&mut out);
    if let Value::Object(root) = &mut out {
        match root.get("type") {
            None => {
                root.insert("type".into(), "object".into());
            }
            Some(kind) if kind == "object" => {}
            Some(_) => {
                return Err(ProfileError::new(
                    Profile::Mcp,
                    "/type",
                    "the root must describe an object (the tool's named arguments)",
                ));
            }
        }
        let ordered = type_first(std::mem::take(root));
        *root = ordered;
    }
    Ok(out)
}

/// The providers' schema dialects, one per profile function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// OpenAI function calling, without strict mode ([`openai`]).
    OpenAi,
    /// OpenAI function calling in strict mode ([`openai_strict`]).
    OpenAiStrict,
    /// Anthropic tool use ([`anthropic`]).
    Anthropic,
    /// Anthropic strict tool use ([`anthropic_strict`]).
    AnthropicStrict,
    /// Gemini's `parameters` field ([`gemini`]).
    Gemini,
    /// MCP's `inputSchema` ([`mcp`]).
    Mcp,
}

impl Profile {
    /// Applies the profile and collects what it could not enforce (see [`Profiled`]).
    pub(crate) fn run(self, schema: &Value) -> Result<Profiled, ProfileError> {
        gaps::collect(|| self.apply(schema))
    }

    /// Every profile.
    pub const ALL: [Profile; 6] = [
        Profile::OpenAi,
        Profile::OpenAiStrict,
        Profile::Anthropic,
        Profile::AnthropicStrict,
        Profile::Gemini,
        Profile::Mcp,
    ];

    /// Applies the profile to a canonical schema.
    pub fn apply(self, schema: &Value) -> Result<Value, ProfileError> {
        match self {
            Profile::OpenAi => openai(schema),
            Profile::OpenAiStrict => openai_strict(schema),
            Profile::Anthropic => anthropic(schema),
            Profile::AnthropicStrict => anthropic_strict(schema),
            Profile::Gemini => gemini(schema),
            Profile::Mcp => mcp(schema),
        }
    }

    /// The profile's cache slot on a tool.
    pub(crate) fn slot(self) -> usize {
        self as usize
    }

    /// The profile's name, as its function is named (`"openai_strict"`).
    pub fn name(self) -> &'static str {
        match self {
            Profile::OpenAi => "openai",
            Profile::OpenAiStrict => "openai_strict",
            Profile::Anthropic => "anthropic",
            Profile::AnthropicStrict => "anthropic_strict",
            Profile::Gemini => "gemini",
            Profile::Mcp => "mcp",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A schema a profile cannot express in its provider's dialect: a map in OpenAI strict
/// mode, a recursive type for Gemini, an untyped value in a strict mode, …
///
/// The message says which profile, where in the schema (a JSON pointer) and why, and, once
/// the error is tied to a tool (see [`Toolkit::check`](crate::Toolkit::check)), which tool.
///
/// Two kinds (see [`ProfileError::is_refusal`]): a *refusal*, where the profile cannot
/// list the schema at all, and a constraint the listed schema does *not enforce* (a bound
/// moved into the description, a tuple's positions): the provider may then send arguments
/// the tool refuses, with an error naming the field. [`Toolkit::check`](crate::Toolkit::check)
/// reports refusals, [`Toolkit::warnings`](crate::Toolkit::warnings) the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    profile: Profile,
    refusal: bool,
    /// Not about the schema: the tool cannot run without a state the toolkit lacks.
    missing_state: bool,
    tool: Option<String>,
    path: String,
    message: String,
}

impl ProfileError {
    pub(crate) fn new(profile: Profile, path: &str, message: impl Into<String>) -> Self {
        ProfileError {
            profile,
            refusal: true,
            missing_state: false,
            tool: None,
            path: if path.is_empty() {
                "/".into()
            } else {
                path.into()
            },
            message: message.into(),
        }
    }

    /// The same error, naming the tool whose schema it is.
    #[must_use]
    pub fn for_tool(mut self, tool: &str) -> Self {
        self.tool = Some(tool.to_owned());
        self
    }

    /// A constraint of the schema at `path` that the profile lists but does not enforce.
    pub(crate) fn gap(profile: Profile, path: &str, message: impl Into<String>) -> Self {
        ProfileError {
            refusal: false,
            ..ProfileError::new(profile, path, message)
        }
    }

    /// The tool `tool` cannot run: a shared state it reads is missing (`message` says
    /// which and how to add it). Reported by [`Toolkit::check`](crate::Toolkit::check)
    /// whatever the profile.
    pub(crate) fn missing_state(profile: Profile, tool: &str, message: String) -> Self {
        ProfileError {
            missing_state: true,
            ..ProfileError::new(profile, "/", message).for_tool(tool)
        }
    }

    /// Whether the profile cannot list the schema (`true`), rather than list it without
    /// enforcing one of its constraints (`false`: the tool still checks it, and its error
    /// names the field).
    pub fn is_refusal(&self) -> bool {
        self.refusal
    }

    /// The profile that failed.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The tool whose schema failed, when known.
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// Where in the schema, as a JSON pointer (`/properties/tags`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Why, in words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.missing_state {
            return f.write_str(&self.message);
        }
        match &self.tool {
            Some(tool) => write!(
                f,
                "{} schema of tool `{tool}` at {}: ",
                self.profile, self.path
            )?,
            None => write!(f, "{} schema at {}: ", self.profile, self.path)?,
        }
        if !self.refusal {
            f.write_str("not enforced by the provider (the tool still checks it): ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ProfileError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A documented field whose type is the root type itself: `$ref: "#"` with a sibling.
    /// Every profile must end (not recurse forever) and keep the reference.
    #[test]
    fn a_reference_to_the_root_with_siblings_ends() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "parent": {"$ref": "#", "description": "The parent node."}
        }, "required": ["name"], "additionalProperties": false});
        for profile in Profile::ALL {
            match profile.apply(&schema) {
                Ok(out) => assert!(
                    out.to_string().contains("The parent node."),
                    "{profile:?}: {out}"
                ),
                Err(e) => assert!(!e.to_string().is_empty(), "{profile:?}"),
            }
        }
        let strict = openai_strict(&schema).unwrap();
        assert_eq!(
            strict["properties"]["parent"]["anyOf"][0],
            json!({"$ref": "#"})
        );
    }

    #[test]
    fn integer_formats_are_dropped_everywhere() {
        let mut schema = json!({"type": "object", "properties": {
            "a": {"type": "integer", "format": "uint32"},
            "b": {"type": "integer", "format": "int64", "minimum": -3},
            "c": {"type": "string", "format": "date-time"},
            "d": {"type": "integer", "format": "uint", "minimum": 1}
        }});
        fix_integer_formats(&mut schema);
        assert_eq!(
            schema["properties"],
            json!({
                "a": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                "b": {"type": "integer", "minimum": -3},
                "c": {"type": "string", "format": "date-time"},
                "d": {"type": "integer", "minimum": 1}
            })
        );
    }

    #[test]
    fn a_root_union_of_objects_is_merged() {
        let schema = json!({"oneOf": [
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"type": "object", "properties": {"name": {"type": "string"}, "id": {"type": "integer"}}, "required": ["name", "id"]}
        ]});
        let root = root::object_root(&schema, Profile::Anthropic).unwrap();
        assert_eq!(root["type"], "object");
        assert_eq!(root["required"], json!(["id"]));
        assert_eq!(
            root["properties"],
            json!({"id": {"type": "integer"}, "name": {"type": "string"}})
        );
        assert!(root.get("oneOf").is_none());
        let scalar = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        assert!(root::object_root(&scalar, Profile::Anthropic).is_err());
    }

    #[test]
    fn accepts_null_reads_types_unions_and_enums() {
        assert!(accepts_null(&json!({"type": ["string", "null"]})));
        assert!(accepts_null(
            &json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        ));
        assert!(accepts_null(&json!({"enum": ["a", null]})));
        assert!(accepts_null(&json!({})));
        assert!(!accepts_null(&json!({"type": "integer"})));
    }
}

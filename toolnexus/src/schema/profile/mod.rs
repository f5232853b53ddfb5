//! Provider profiles: the canonical argument schema of a tool, rewritten into the dialect
//! one provider accepts.
//!
//! A tool has one canonical schema (JSON Schema 2020-12, what [`mcp`] returns unchanged).
//! Providers each accept a different subset of JSON Schema and reject the rest, so every
//! adapter passes the canonical schema through a profile first:
//!
//! | profile | used by | what it does |
//! | --- | --- | --- |
//! | [`openai`] | `Toolkit::to_openai` | the root made a plain object |
//! | [`openai_strict`] | `Toolkit::to_openai_strict` | every object closed, every property required (optional ones nullable), `oneOf` → `anyOf`, `$ref` siblings inlined, `default` removed, unsupported formats and bounds moved into the description; maps and untyped values are errors |
//! | [`anthropic`] | `Toolkit::to_anthropic` | never a union at the root |
//! | [`anthropic_strict`] | `Toolkit::to_anthropic_strict` | as [`anthropic`], plus: a `$ref` keeps no siblings, `["T","null"]` → `anyOf`, unsupported keywords moved into the description; maps and untyped values are errors |
//! | [`gemini`] | `Toolkit::to_gemini` | the `parameters` subset: refs inlined (recursion is an error), `title`, `examples`, `additionalProperties` dropped, `const` → one-value `enum`, nullable types → `nullable: true`, unknown formats moved into the description |
//! | [`mcp`] | `Toolkit::to_mcp` | as is |
//!
//! Every profile is a pure function, `&Value → Result<Value, ProfileError>`, and every one
//! also drops non-standard integer formats (`uint32`, `int64`, …), keeping `minimum: 0` for
//! unsigned ones, so a hand-written schema gets the same treatment as a generated one.
//! A [`Tool`](crate::Tool) computes each profile once, on first use, and caches it.
//!
//! ```
//! use serde_json::json;
//! use toolnexus::profile::openai_strict;
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
mod gemini;
mod openai;
mod strict;

use std::fmt;

use serde_json::{Map, Value};

pub use anthropic::{anthropic, anthropic_strict};
pub use gemini::gemini;
pub(crate) use gemini::gemini_lenient;
pub use openai::{openai, openai_strict};

/// The canonical schema, as is (MCP's `inputSchema` takes JSON Schema 2020-12), with only
/// non-standard integer formats dropped.
pub fn mcp(schema: &Value) -> Result<Value, ProfileError> {
    let mut out = schema.clone();
    fix_integer_formats(&mut out);
    Ok(out)
}

/// The providers' schema dialects, one per profile function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    profile: Profile,
    tool: Option<String>,
    path: String,
    message: String,
}

impl ProfileError {
    pub(crate) fn new(profile: Profile, path: &str, message: impl Into<String>) -> Self {
        ProfileError {
            profile,
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
        match &self.tool {
            Some(tool) => write!(
                f,
                "{} schema of tool `{tool}` at {}: {}",
                self.profile, self.path, self.message
            ),
            None => write!(
                f,
                "{} schema at {}: {}",
                self.profile, self.path, self.message
            ),
        }
    }
}

impl std::error::Error for ProfileError {}

// ---------------------------------------------------------------------------------------
// The shared walker pieces.

/// Appends `child` to a JSON pointer, escaping `~` and `/`.
pub(crate) fn join(path: &str, child: &str) -> String {
    format!("{path}/{}", child.replace('~', "~0").replace('/', "~1"))
}

/// The `$defs` name a local reference points to (`#/$defs/Node` → `Node`).
pub(crate) fn def_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
}

/// Rewrites every schema of a `properties` map found at `path` with `walk`, which is given
/// each one's pointer.
pub(crate) fn each_property(
    props: Map<String, Value>,
    path: &str,
    mut walk: impl FnMut(&Value, &str) -> Result<Value, ProfileError>,
) -> Result<Map<String, Value>, ProfileError> {
    let mut done = Map::new();
    for (name, prop) in props {
        done.insert(name.clone(), walk(&prop, &join(path, &name))?);
    }
    Ok(done)
}

/// Rewrites every schema of a list found at `path` (`anyOf`'s variants) with `walk`, which
/// is given each one's pointer.
pub(crate) fn each_variant(
    variants: &[Value],
    path: &str,
    mut walk: impl FnMut(&Value, &str) -> Result<Value, ProfileError>,
) -> Result<Vec<Value>, ProfileError> {
    variants
        .iter()
        .enumerate()
        .map(|(at, variant)| walk(variant, &join(path, &at.to_string())))
        .collect()
}

/// The same keywords with `type` first, as every provider's examples have it.
pub(crate) fn type_first(mut node: Map<String, Value>) -> Map<String, Value> {
    let mut ordered = Map::new();
    if let Some(kind) = node.remove("type") {
        ordered.insert("type".into(), kind);
    }
    ordered.extend(node);
    ordered
}

/// The subschema a local reference (`#/$defs/Name`, `#/definitions/Name`, `#`) points to.
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// Renders keywords moved out of a schema the way the Anthropic SDK does:
/// `{minLength: 1, format: email}`.
pub(crate) fn render_notes(notes: &[(String, Value)]) -> String {
    let body: Vec<String> = notes
        .iter()
        .map(|(key, value)| match value {
            Value::String(text) => format!("{key}: {text}"),
            other => format!("{key}: {other}"),
        })
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// Appends moved-out keywords to `node`'s description, after a blank line.
pub(crate) fn add_notes(node: &mut Map<String, Value>, notes: &[(String, Value)]) {
    if notes.is_empty() {
        return;
    }
    add_description(node, &render_notes(notes));
}

/// Appends a sentence to `node`'s description, after a blank line.
pub(crate) fn add_description(node: &mut Map<String, Value>, text: &str) {
    let description = match node.get("description").and_then(Value::as_str) {
        Some(existing) if !existing.is_empty() => format!("{existing}\n\n{text}"),
        _ => text.to_owned(),
    };
    node.insert("description".into(), description.into());
}

/// The `type` keyword as a list of names (`"string"` → `["string"]`).
pub(crate) fn types_of(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a schema has anything that says what its values are.
pub(crate) fn is_typed(node: &Map<String, Value>) -> bool {
    ["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"]
        .iter()
        .any(|key| node.contains_key(*key))
}

/// Whether `schema` accepts `null` (as far as can be told without resolving references).
pub(crate) fn accepts_null(schema: &Value) -> bool {
    let Value::Object(node) = schema else {
        return schema == &Value::Bool(true);
    };
    if !is_typed(node) {
        return true;
    }
    if types_of(node).contains(&"null") {
        return true;
    }
    if let Some(Value::Array(values)) = node.get("enum")
        && values.contains(&Value::Null)
    {
        return true;
    }
    if node.get("const") == Some(&Value::Null) {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        node.get(*key)
            .and_then(Value::as_array)
            .is_some_and(|variants| variants.iter().any(accepts_null))
    })
}

/// A tuple (`prefixItems`, which OpenAI, Anthropic and Gemini do not take) as a plain
/// array: `items` is the one element schema when all are alike, else their `anyOf`; the
/// length bounds stay, and the positions are said in the description.
pub(crate) fn tuple_to_items(node: &mut Map<String, Value>) {
    if node.contains_key("items") && node.get("items") != Some(&Value::Bool(false)) {
        return;
    }
    let Some(Value::Array(positions)) = node.remove("prefixItems") else {
        return;
    };
    node.remove("items");
    let Some(first) = positions.first() else {
        return;
    };
    if positions.iter().all(|p| p == first) {
        node.insert("items".into(), first.clone());
    } else {
        node.insert(
            "items".into(),
            serde_json::json!({ "anyOf": positions.clone() }),
        );
        let listed: Vec<String> = positions.iter().map(Value::to_string).collect();
        add_description(
            node,
            &format!("Positions, in order: {}.", listed.join(", ")),
        );
    }
}

/// Whether `format` is a non-standard integer format (`int32`, `uint64`, `uint`, …).
fn is_integer_format(format: &str) -> bool {
    let digits = format
        .strip_prefix("uint")
        .or_else(|| format.strip_prefix("int"));
    digits.is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()))
}

/// Drops non-standard integer formats everywhere in `schema`; an unsigned one leaves
/// `minimum: 0` behind when there was no minimum.
pub(crate) fn fix_integer_formats(schema: &mut Value) {
    match schema {
        Value::Object(node) => {
            if let Some(format) = node.get("format").and_then(Value::as_str)
                && is_integer_format(format)
            {
                let unsigned = format.starts_with('u');
                node.remove("format");
                if unsigned && !node.contains_key("minimum") {
                    node.insert("minimum".into(), 0.into());
                }
            }
            for (key, value) in node.iter_mut() {
                if key == "enum" || key == "const" || key == "default" || key == "examples" {
                    continue;
                }
                fix_integer_formats(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(fix_integer_formats),
        _ => {}
    }
}

/// Gives the root the plain-object shape OpenAI, Anthropic and Gemini require: `type:
/// object` with `properties`; a union of objects at the root (which all three reject) is
/// merged into one object whose properties are those of every variant and whose required
/// ones are those every variant requires.
pub(crate) fn object_root(schema: &Value, profile: Profile) -> Result<Value, ProfileError> {
    let mut root = match schema {
        Value::Object(map) => map.clone(),
        Value::Bool(true) => Map::new(),
        _ => {
            return Err(ProfileError::new(
                profile,
                "",
                "the root must be an object schema",
            ));
        }
    };
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(variants)) = root.remove(key) {
            merge_variants(&mut root, &variants, key, schema, profile)?;
        }
    }
    if let Some(Value::Array(parts)) = root.get("allOf").cloned()
        && parts
            .iter()
            .all(|part| variant_object(part, schema).is_some())
    {
        root.remove("allOf");
        for part in &parts {
            let part = variant_object(part, schema).unwrap_or_default();
            merge_object(&mut root, &part, true);
        }
    }
    match types_of(&root).as_slice() {
        [] => {
            root.insert("type".into(), "object".into());
        }
        ["object"] => {}
        _ => {
            return Err(ProfileError::new(
                profile,
                "",
                "the root must describe an object (the tool's named arguments)",
            ));
        }
    }
    if !root.contains_key("properties") {
        root.insert("properties".into(), Value::Object(Map::new()));
    }
    Ok(Value::Object(type_first(root)))
}

/// A union variant as an object schema (following one local `$ref`), or `None`.
fn variant_object(variant: &Value, root: &Value) -> Option<Map<String, Value>> {
    let mut node = variant.as_object()?.clone();
    if let Some(target) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(root, r))
        .and_then(Value::as_object)
    {
        node.remove("$ref");
        for (key, value) in target {
            node.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    let is_object =
        types_of(&node) == ["object"] || (!is_typed(&node) && node.contains_key("properties"));
    is_object.then_some(node)
}

fn merge_variants(
    root: &mut Map<String, Value>,
    variants: &[Value],
    key: &str,
    schema: &Value,
    profile: Profile,
) -> Result<(), ProfileError> {
    let mut objects = Vec::new();
    for (at, variant) in variants.iter().enumerate() {
        match variant_object(variant, schema) {
            Some(object) => objects.push(object),
            None => {
                return Err(ProfileError::new(
                    profile,
                    &join(&join("", key), &at.to_string()),
                    "a union at the root can only be merged when every variant is an object",
                ));
            }
        }
    }
    let mut shapes = Vec::new();
    let mut required: Option<Vec<Value>> = None;
    let mut properties = root
        .remove("properties")
        .and_then(|p| p.as_object().cloned())
        .unwrap_or_default();
    for object in &objects {
        let names: Vec<&str> = object
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let label = object
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("({})", names.join(", ")));
        shapes.push(label);
        if let Some(Value::Object(props)) = object.get("properties") {
            for (name, prop) in props {
                properties
                    .entry(name.clone())
                    .or_insert_with(|| prop.clone());
            }
        }
        let own: Vec<Value> = object
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        required = Some(match required {
            None => own,
            Some(before) => before
                .into_iter()
                .filter(|name| own.contains(name))
                .collect(),
        });
    }
    root.insert("type".into(), "object".into());
    root.insert("properties".into(), Value::Object(properties));
    let mut required = required.unwrap_or_default();
    if let Some(Value::Array(own)) = root.get("required") {
        for name in own {
            if !required.contains(name) {
                required.push(name.clone());
            }
        }
    }
    if required.is_empty() {
        root.remove("required");
    } else {
        root.insert("required".into(), Value::Array(required));
    }
    if objects
        .iter()
        .all(|o| o.get("additionalProperties") == Some(&Value::Bool(false)))
    {
        root.insert("additionalProperties".into(), false.into());
    }
    add_description(
        root,
        &format!("Give the fields of exactly one of: {}.", shapes.join("; ")),
    );
    Ok(())
}

/// Copies `part`'s keywords into `node`; `properties` and `required` are united.
pub(crate) fn merge_object(
    node: &mut Map<String, Value>,
    part: &Map<String, Value>,
    node_wins: bool,
) {
    for (key, value) in part {
        match (key.as_str(), node.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, prop) in theirs {
                    mine.entry(name.clone()).or_insert_with(|| prop.clone());
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            (_, Some(_), _) if node_wins => {}
            _ => {
                node.insert(key.clone(), value.clone());
            }
        }
    }
}

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
                "a": {"type": "integer", "minimum": 0},
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
        let root = object_root(&schema, Profile::Anthropic).unwrap();
        assert_eq!(root["type"], "object");
        assert_eq!(root["required"], json!(["id"]));
        assert_eq!(
            root["properties"],
            json!({"id": {"type": "integer"}, "name": {"type": "string"}})
        );
        assert!(root.get("oneOf").is_none());
        let scalar = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        assert!(object_root(&scalar, Profile::Anthropic).is_err());
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

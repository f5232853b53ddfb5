//! The walker OpenAI strict mode and Anthropic strict tool use share.
//!
//! Both take a closed subset of JSON Schema, and both are reached the same way: the root's
//! `$defs` are rewritten one by one; a `$ref` with sibling keywords is inlined (the siblings
//! winning) or, when recursive, wrapped in a one-variant `anyOf` that carries the siblings;
//! a tuple becomes a plain array; a one-part `allOf` is merged into its schema; `oneOf`
//! becomes `anyOf`; an untyped value is an error; every object is closed with
//! `additionalProperties: false`; keywords the provider does not take move into the
//! description. What differs, each provider states as a [`Dialect`].

use std::marker::PhantomData;

use serde_json::{Map, Value, json};

use super::gaps::moved;
use super::{
    Profile, ProfileError, add_notes, def_name, each_property, each_variant, is_typed, join,
    merge_object, plain_object, resolve, tuple_to_items,
};

/// Said of a schema with nothing that types its values.
pub(super) const UNTYPED: &str = "an untyped value (any JSON, e.g. `serde_json::Value` or `items: {}`) cannot be described in strict mode; give it a concrete type";

/// Said of `additionalProperties` with a schema.
const MAP: &str = "a map (`HashMap`, `BTreeMap`: an object with free-form keys) cannot be described in strict mode; use a struct or a list of key/value pairs";

/// One provider's strict mode: what the shared walker asks of it.
pub(super) trait Dialect: Sized {
    /// The profile its errors name.
    const PROFILE: Profile;
    /// Said of a subschema that is `true` or `false` rather than an object.
    const NOT_AN_OBJECT: &'static str;
    /// Keywords removed before anything reads a schema object (so they never count as
    /// siblings of a `$ref`); `$defs` always is.
    const REMOVED_FIRST: &'static [&'static str];
    /// Whether what cannot become one `anyOf` is refused: an `allOf` of several parts, a
    /// `oneOf` beside an `anyOf`. If not, that `allOf` is kept and that `oneOf` dropped.
    const REFUSES_UNMERGED_UNIONS: bool;

    /// What a schema object describes, as the provider reads its `type`.
    fn shape(node: &Map<String, Value>) -> Shape;

    /// What becomes of one keyword of a schema object of that shape.
    fn keyword(key: &str, value: &Value, shape: &Shape) -> Keyword;

    /// Checks a rewritten schema object as a whole; the error says why it cannot stand.
    fn check(shape: &Shape, out: &Map<String, Value>) -> Result<(), &'static str>;

    /// Finishes a rewritten object schema found at `path` (its `properties` present)
    /// before it is closed with `additionalProperties: false`.
    fn finish_object(_object: &mut Map<String, Value>, _path: &str) {}

    /// Checks the provider's documented limits on the whole rewritten schema.
    fn limits(_schema: &Value) -> Result<(), ProfileError> {
        Ok(())
    }

    /// Rewrites a typed schema object, its references resolved and its unions in place:
    /// keyword by keyword, unless the provider reshapes it first.
    fn typed(
        walk: &mut Walk<'_, Self>,
        node: Map<String, Value>,
        path: &str,
    ) -> Result<Value, ProfileError> {
        Ok(Value::Object(walk.keywords(node, path)?))
    }
}

/// What a schema object describes.
pub(super) struct Shape {
    pub(super) object: bool,
    pub(super) array: bool,
    pub(super) string: bool,
}

/// What becomes of one keyword of a schema object.
pub(super) enum Keyword {
    /// Kept as is.
    Keep,
    /// Kept, the subschemas it holds rewritten in turn (`properties`, `items`, `anyOf`, …).
    Walk,
    /// Left out: an annotation that says nothing to the model, or
    /// `additionalProperties: false`, which every object gets back.
    Drop,
    /// Moved into the description.
    Note,
    /// The schema cannot be described; why.
    Refuse(String),
}

impl Keyword {
    /// Kept when `supported`, else moved into the description.
    pub(super) fn keep_if(supported: bool) -> Keyword {
        if supported {
            Keyword::Keep
        } else {
            Keyword::Note
        }
    }

    /// `additionalProperties`: `false` is dropped (every object gets it back); a schema (a
    /// map's values) is refused.
    pub(super) fn additional_properties(value: &Value) -> Keyword {
        if value == &Value::Bool(false) {
            Keyword::Drop
        } else {
            Keyword::Refuse(MAP.into())
        }
    }
}

/// A bound that only restates the range of a 64-bit integer or an `f32`: reported as not
/// enforced, but not spelled out in the description (a model does not come near it, and
/// nineteen digits on every integer would only cost tokens).
fn restates_a_wide_range(key: &str, value: &Value) -> bool {
    (key == "minimum" || key == "maximum")
        && (value == &json!(i64::MIN)
            || value == &json!(i64::MAX)
            || value == &json!(u64::MAX)
            || value
                .as_f64()
                .is_some_and(|x| x.abs() == f64::from(f32::MAX)))
}

/// Whether an `items` schema accepts anything (`{}`, `true`): the elements are untyped.
pub(super) fn accepts_anything(items: &Value) -> bool {
    matches!(items, Value::Object(m) if m.is_empty()) || items == &Value::Bool(true)
}

/// The string formats both strict modes accept (Anthropic's takes `uri` too).
pub(super) const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Rewrites a canonical schema into `D`'s strict dialect.
pub(super) fn strict<D: Dialect>(schema: &Value) -> Result<Value, ProfileError> {
    let root = plain_object(schema, D::PROFILE)?;
    let mut walk = Walk::<D> {
        root: &root,
        stack: Vec::new(),
        dialect: PhantomData,
    };
    let mut out = walk.node(&root, "")?;
    if let Some(Value::Object(defs)) = root.get("$defs") {
        let mut done = Map::new();
        for (name, def) in defs {
            walk.stack.push(name.clone());
            done.insert(name.clone(), walk.node(def, &join("/$defs", name))?);
            walk.stack.pop();
        }
        if let Value::Object(map) = &mut out {
            map.insert("$defs".into(), Value::Object(done));
        }
    }
    D::limits(&out)?;
    Ok(out)
}

/// One walk over a schema in a dialect `D`.
pub(super) struct Walk<'a, D> {
    root: &'a Value,
    /// The `$defs` being inlined, to tell recursion.
    stack: Vec<String>,
    dialect: PhantomData<D>,
}

impl<D: Dialect> Walk<'_, D> {
    fn error(&self, path: &str, message: impl Into<String>) -> ProfileError {
        ProfileError::new(D::PROFILE, path, message)
    }

    /// Rewrites one subschema found at `path`.
    pub(super) fn node(&mut self, schema: &Value, path: &str) -> Result<Value, ProfileError> {
        let Value::Object(source) = schema else {
            return Err(self.error(path, D::NOT_AN_OBJECT));
        };
        let mut node = source.clone();
        node.remove("$defs");
        for key in D::REMOVED_FIRST {
            node.remove(*key);
        }
        if let Some(reference) = node.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            return self.reference(node, reference, path);
        }
        tuple_to_items(&mut node, D::PROFILE, path);
        if let Some(Value::Array(parts)) = node.get("allOf")
            && let [Value::Object(part)] = parts.as_slice()
        {
            let part = part.clone();
            node.remove("allOf");
            merge_object(&mut node, &part, true);
            return self.node(&Value::Object(node), path);
        }
        self.unions(&mut node, path)?;
        if !is_typed(&node) {
            return Err(self.error(path, UNTYPED));
        }
        D::typed(self, node, path)
    }

    /// A `$ref`: alone, it stays; with siblings, its target is inlined (the siblings
    /// winning), or, when recursive, it is wrapped in a one-variant `anyOf`.
    fn reference(
        &mut self,
        mut node: Map<String, Value>,
        reference: String,
        path: &str,
    ) -> Result<Value, ProfileError> {
        if node.len() == 1 {
            return Ok(Value::Object(node));
        }
        node.remove("$ref");
        let name = def_name(&reference).map(str::to_owned);
        // `#` is the root, which every node is inside: always a recursion (inlining it
        // would never end).
        if reference == "#" || name.as_ref().is_some_and(|n| self.stack.contains(n)) {
            let mut wrapped = self.keywords(node, path)?;
            wrapped.insert("anyOf".into(), json!([{ "$ref": reference }]));
            return Ok(Value::Object(wrapped));
        }
        let Some(Value::Object(target)) = resolve(self.root, &reference) else {
            return Err(self.error(path, format!("`$ref: {reference}` points nowhere")));
        };
        merge_object(&mut node, target, true);
        if let Some(name) = &name {
            self.stack.push(name.clone());
        }
        let out = self.node(&Value::Object(node), path);
        if name.is_some() {
            self.stack.pop();
        }
        out
    }

    /// `oneOf` → `anyOf`; what cannot become one `anyOf` is refused, or kept or dropped,
    /// as the dialect has it.
    fn unions(&self, node: &mut Map<String, Value>, path: &str) -> Result<(), ProfileError> {
        if D::REFUSES_UNMERGED_UNIONS
            && let Some(all_of) = node.remove("allOf")
            && all_of.is_array()
        {
            return Err(self.error(
                &join(path, "allOf"),
                "`allOf` with several parts is not supported in strict mode",
            ));
        }
        if let Some(one_of) = node.remove("oneOf") {
            if !node.contains_key("anyOf") {
                node.insert("anyOf".into(), one_of);
            } else if D::REFUSES_UNMERGED_UNIONS {
                return Err(self.error(
                    path,
                    "`oneOf` beside `anyOf` is not supported in strict mode",
                ));
            }
        }
        Ok(())
    }

    /// Rewrites the keywords of one (already de-referenced) schema object.
    pub(super) fn keywords(
        &mut self,
        node: Map<String, Value>,
        path: &str,
    ) -> Result<Map<String, Value>, ProfileError> {
        let shape = D::shape(&node);
        let mut out = Map::new();
        let mut notes = Vec::new();
        for (key, value) in node {
            let here = join(path, &key);
            match D::keyword(&key, &value, &shape) {
                Keyword::Keep => {
                    out.insert(key, value);
                }
                Keyword::Walk => {
                    if let Some(done) = self.subschemas(&key, value, &here)? {
                        out.insert(key, done);
                    }
                }
                Keyword::Drop => {}
                Keyword::Note => notes.push((key, value)),
                Keyword::Refuse(why) => return Err(self.error(&here, why)),
            }
        }
        if let Err(why) = D::check(&shape, &out) {
            return Err(self.error(path, why));
        }
        if shape.object {
            out.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            D::finish_object(&mut out, path);
            out.insert("additionalProperties".into(), Value::Bool(false));
        }
        moved(D::PROFILE, path, &notes);
        notes.retain(|(key, value)| !restates_a_wide_range(key, value));
        add_notes(&mut out, &notes);
        Ok(out)
    }

    /// Rewrites the subschemas a keyword holds: a map of them (`properties`), one
    /// (`items`), or a list (`anyOf`, `allOf`); `None` when it holds none.
    fn subschemas(
        &mut self,
        key: &str,
        value: Value,
        here: &str,
    ) -> Result<Option<Value>, ProfileError> {
        Ok(match (key, value) {
            ("properties", Value::Object(props)) => {
                Some(Value::Object(each_property(props, here, |prop, at| {
                    self.node(prop, at)
                })?))
            }
            ("properties", _) => None,
            ("items", items) => Some(self.node(&items, here)?),
            (_, Value::Array(variants)) => Some(Value::Array(each_variant(
                &variants,
                here,
                |variant, at| self.node(variant, at),
            )?)),
            _ => None,
        })
    }
}

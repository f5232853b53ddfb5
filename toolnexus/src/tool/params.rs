//! [`Params`]: a `#[tool]` function's parameters read as a tuple, with their names given
//! at run time.
//!
//! A derived argument struct per tool would have its reader (from a `Value`, from text,
//! and both again tracking the field path) compiled once per tool. A tuple of the
//! parameter types, with the names passed in, reads the same object the same way (the
//! keys in their order, an unknown key refused, a repeated key refused, a missing
//! `Option` read as `None`), and its reader is compiled once per list of types, however
//! many tools share it (every tool taking two `i64`s shares one).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

/// How a tool's arguments are read: a [`DeserializeSeed`] for every deserializer, cheap to
/// copy, so that the same reader can be run again to find where an error is.
pub(crate) trait Reader: Copy {
    /// What is read.
    type Output;

    /// Reads one from `deserializer`.
    fn read<'de, D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Output, D::Error>;

    /// Reads one from a value: as [`Reader::read`], with the same result.
    fn read_value(self, value: &Value) -> Result<Self::Output, serde_json::Error> {
        self.read(value)
    }
}

/// Reads a `T` with its own `Deserialize`.
pub(crate) struct Whole<T>(PhantomData<fn() -> T>);

impl<T> Whole<T> {
    pub(crate) fn new() -> Self {
        Whole(PhantomData)
    }
}

impl<T> Clone for Whole<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Whole<T> {}

impl<T: DeserializeOwned> Reader for Whole<T> {
    type Output = T;

    fn read<'de, D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(deserializer)
    }
}

/// Reads a tuple of parameters from an object whose keys are `names`, in the same order.
pub(crate) struct Named<P> {
    names: &'static [&'static str],
    params: PhantomData<fn() -> P>,
}

impl<P> Named<P> {
    pub(crate) fn new(names: &'static [&'static str]) -> Self {
        Named {
            names,
            params: PhantomData,
        }
    }
}

impl<P> Clone for Named<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Named<P> {}

impl<P: Params> Reader for Named<P> {
    type Output = P;

    fn read<'de, D: Deserializer<'de>>(self, deserializer: D) -> Result<P, D::Error> {
        deserializer.deserialize_struct("arguments", self.names, ObjectVisitor::<P>(self))
    }

    /// The object's entries read straight from its map, each with its own type's reader:
    /// the common case, without serde's map access around it. Whatever does not read so
    /// is read again through [`Reader::read`], whose error is the one to report.
    fn read_value(self, value: &Value) -> Result<P, serde_json::Error> {
        let read = match value {
            Value::Object(map) => P::from_map(map, self.names),
            _ => None,
        };
        match read {
            Some(params) => Ok(params),
            None => self.read(value),
        }
    }
}

impl<'de, P: Params> DeserializeSeed<'de> for Named<P> {
    type Value = P;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<P, D::Error> {
        self.read(deserializer)
    }
}

struct ObjectVisitor<P>(Named<P>);

impl<'de, P: Params> Visitor<'de> for ObjectVisitor<P> {
    type Value = P;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object of named arguments")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<P, A::Error> {
        P::visit(map, self.0.names)
    }
}

/// The position of a key among the names, or the unknown-field error, without allocating.
#[derive(Clone, Copy)]
pub(crate) struct Key {
    names: &'static [&'static str],
    /// Where the key is looked for first (see [`position`]).
    next: usize,
}

impl<'de> DeserializeSeed<'de> for Key {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        match position(self.names, self.next, key) {
            Some(at) => Ok(at),
            None => Err(E::unknown_field(key, self.names)),
        }
    }

    fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<usize, E> {
        match self.names.iter().position(|name| name.as_bytes() == key) {
            Some(at) => Ok(at),
            None => Err(E::unknown_field(&String::from_utf8_lossy(key), self.names)),
        }
    }
}

/// The position of `key` among `names`, looked for from `next` on first: arguments mostly
/// come in the order of the parameters.
#[inline]
fn position(names: &[&str], next: usize, key: &str) -> Option<usize> {
    match names.get(next) {
        Some(name) if *name == key => Some(next),
        _ => names.iter().position(|name| *name == key),
    }
}

/// A parameter the object does not have: `None` for an `Option`, else the missing-field
/// error (what serde's derive does).
pub(crate) fn missing<T: DeserializeOwned, E: de::Error>(name: &'static str) -> Result<T, E> {
    T::deserialize(Missing::<E>(name, PhantomData))
}

struct Missing<E>(&'static str, PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// A tuple of a `#[tool]` function's parameter types, read from a JSON object whose keys
/// are the parameter names. Implemented for tuples of up to 12 types.
pub trait Params: Sized {
    /// Reads the tuple from `map`, whose keys must be among `names` (one per element).
    fn visit<'de, A: MapAccess<'de>>(
        map: A,
        names: &'static [&'static str],
    ) -> Result<Self, A::Error>;

    /// Reads the tuple from a JSON object's map; `None` where [`Params::visit`] would fail.
    fn from_map(map: &Map<String, Value>, names: &'static [&'static str]) -> Option<Self>;
}

macro_rules! params {
    ($($t:ident $v:ident $i:tt),*) => {
        impl<$($t: DeserializeOwned),*> Params for ($($t,)*) {
            #[allow(unused_mut, unused_variables, unused_assignments, non_snake_case)]
            fn visit<'de, A: MapAccess<'de>>(
                mut map: A,
                names: &'static [&'static str],
            ) -> Result<Self, A::Error> {
                $(let mut $v: Option<$t> = None;)*
                let mut next = 0;
                while let Some(at) = map.next_key_seed(Key { names, next })? {
                    next = at + 1;
                    match at {
                        $($i => {
                            if $v.is_some() {
                                return Err(de::Error::duplicate_field(names[$i]));
                            }
                            $v = Some(map.next_value()?);
                        })*
                        _ => unreachable!("a key is one of the names"),
                    }
                }
                Ok(($(match $v {
                    Some(value) => value,
                    None => missing(names[$i])?,
                },)*))
            }

            #[allow(unused_mut, unused_variables, unused_assignments, non_snake_case)]
            fn from_map(map: &Map<String, Value>, names: &'static [&'static str]) -> Option<Self> {
                $(let mut $v: Option<$t> = None;)*
                let mut next = 0;
                for (key, value) in map {
                    let at = position(names, next, key)?;
                    next = at + 1;
                    match at {
                        $($i => $v = Some($t::deserialize(value).ok()?),)*
                        _ => return None,
                    }
                }
                Some(($(match $v {
                    Some(value) => value,
                    None => missing::<$t, serde_json::Error>(names[$i]).ok()?,
                },)*))
            }
        }
    };
}

params!();
params!(T0 v0 0);
params!(T0 v0 0, T1 v1 1);
params!(T0 v0 0, T1 v1 1, T2 v2 2);
params!(T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3);
params!(T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3, T4 v4 4);
params!(T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3, T4 v4 4, T5 v5 5);
params!(T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3, T4 v4 4, T5 v5 5, T6 v6 6);
params!(T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3, T4 v4 4, T5 v5 5, T6 v6 6, T7 v7 7);
params!(T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3, T4 v4 4, T5 v5 5, T6 v6 6, T7 v7 7, T8 v8 8);
params!(T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3, T4 v4 4, T5 v5 5, T6 v6 6, T7 v7 7, T8 v8 8, T9 v9 9);
params!(
    T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3, T4 v4 4, T5 v5 5, T6 v6 6, T7 v7 7, T8 v8 8, T9 v9 9,
    T10 v10 10
);
params!(
    T0 v0 0, T1 v1 1, T2 v2 2, T3 v3 3, T4 v4 4, T5 v5 5, T6 v6 6, T7 v7 7, T8 v8 8, T9 v9 9,
    T10 v10 10, T11 v11 11
);

#[cfg(test)]
mod tests {
    use crate::tool::args::Args;

    /// What a derived struct with the same fields reads (the reader `#[tool]` parameters
    /// with attributes keep).
    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Derived {
        r#type: i64,
        name: Option<String>,
        tags: Vec<u8>,
    }

    const NAMES: &[&str] = &["type", "name", "tags"];
    type Tuple = (i64, Option<String>, Vec<u8>);

    #[test]
    fn a_tuple_with_names_reads_as_the_derived_struct_does() {
        let inputs = [
            r#"{"type": 1, "name": "a", "tags": [1, 2]}"#,
            r#"{"tags": [], "type": -3}"#,
            r#"{"type": 1, "name": null, "tags": []}"#,
            r#"{"type": "x", "tags": []}"#,
            r#"{"type": 1, "tags": [300]}"#,
            r#"{"type": 1, "tags": [1, "2"]}"#,
            r#"{"type": 1}"#,
            r#"{"name": "a"}"#,
            r#"{"type": 1, "tags": [], "extra": true}"#,
            r#"{"extra": true, "type": "x"}"#,
            r#"{"type": 1, "type": 2, "tags": []}"#,
            r#"{"type": 1.5, "tags": []}"#,
            r#"{"type": 18446744073709551616, "tags": []}"#,
            r#"{"type": 1, "tags": []"#,
            "[1, null, []]",
            "",
            "null",
            "{}",
        ];
        for input in inputs {
            let derived = Args::Text(input).parse::<Derived>("t");
            let tuple = Args::Text(input).parse_params::<Tuple>("t", NAMES);
            let tuple = tuple.map(|(r#type, name, tags)| Derived { r#type, name, tags });
            assert_eq!(tuple, derived, "text {input}");
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(input) {
                let derived = Args::Value(value.clone()).parse::<Derived>("t");
                let tuple = Args::Value(value).parse_params::<Tuple>("t", NAMES);
                let tuple = tuple.map(|(r#type, name, tags)| Derived { r#type, name, tags });
                assert_eq!(tuple, derived, "value {input}");
            }
        }
    }

    #[test]
    fn errors_name_the_tool_and_the_field() {
        let error = Args::Text(r#"{"type": 1, "tags": [1, "2"]}"#)
            .parse_params::<Tuple>("t", NAMES)
            .unwrap_err();
        assert_eq!(
            error.message(),
            r#"invalid arguments for t: tags[1]: invalid type: string "2", expected u8"#
        );
        let error = Args::Text(r#"{"type": 1, "type": 2, "tags": []}"#)
            .parse_params::<Tuple>("t", NAMES)
            .unwrap_err();
        assert_eq!(
            error.message(),
            "invalid arguments for t: duplicate field `type`"
        );
    }
}

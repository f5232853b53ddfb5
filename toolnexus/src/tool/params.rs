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

/// How a tool's arguments are read: a [`DeserializeSeed`] for every deserializer, cheap to
/// copy, so that the same reader can be run again to find where an error is.
pub(crate) trait Reader: Copy {
    /// What is read.
    type Output;

    /// Reads one from `deserializer`.
    fn read<'de, D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Output, D::Error>;
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
pub(crate) struct Key(pub(crate) &'static [&'static str]);

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
        match self.0.iter().position(|name| *name == key) {
            Some(at) => Ok(at),
            None => Err(E::unknown_field(key, self.0)),
        }
    }

    fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<usize, E> {
        match self.0.iter().position(|name| name.as_bytes() == key) {
            Some(at) => Ok(at),
            None => Err(E::unknown_field(&String::from_utf8_lossy(key), self.0)),
        }
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

/// A tuple of parameter types, read from a map by [`Named`].
pub trait Params: Sized {
    /// Reads the tuple from `map`, whose keys must be among `names` (one per element).
    fn visit<'de, A: MapAccess<'de>>(
        map: A,
        names: &'static [&'static str],
    ) -> Result<Self, A::Error>;
}

macro_rules! params {
    ($($t:ident $v:ident $i:tt),*) => {
        impl<$($t: DeserializeOwned),*> Params for ($($t,)*) {
            #[allow(unused_mut, unused_variables, non_snake_case)]
            fn visit<'de, A: MapAccess<'de>>(
                mut map: A,
                names: &'static [&'static str],
            ) -> Result<Self, A::Error> {
                $(let mut $v: Option<$t> = None;)*
                while let Some(at) = map.next_key_seed(Key(names))? {
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

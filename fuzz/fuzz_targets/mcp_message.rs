//! The MCP JSON-RPC message parser: arbitrary bytes deserialized as the message type the
//! server reads from its transports (`rmcp::model::ClientJsonRpcMessage`).
//!
//! Fails on: any panic, or a message that parses but does not survive a round trip
//! (serialize, parse again, serialize again: the two texts must be equal).
//!
//! Except for input in which an object repeats a key: rmcp reads a known method whose
//! params do not parse (a repeated field is an error) as a custom message, params kept as
//! a JSON value, which keeps the last of the repeated keys; written out, those params may
//! then parse as the known method, which drops unknown fields. JSON leaves the meaning of a
//! repeated key to the reader, and the `args` target makes the same exception.

#![no_main]

use std::collections::HashSet;
use std::fmt;

use libfuzzer_sys::fuzz_target;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toolnexus::mcp::rmcp::model::ClientJsonRpcMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(data) else {
        return;
    };
    let text = serde_json::to_string(&message).expect("a parsed message serializes");
    let again: ClientJsonRpcMessage =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("re-parsing {text} failed: {e}"));
    let text_again = serde_json::to_string(&again).unwrap();
    if serde_json::from_slice::<UniqueKeys>(data).is_ok() {
        assert_eq!(text, text_again, "the round trip is not stable");
    }
});

/// Any JSON value in which no object repeats a key (escaped or not).
struct UniqueKeys;

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeys)
    }
}

impl<'de> Visitor<'de> for UniqueKeys {
    type Value = UniqueKeys;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON without repeated keys")
    }
    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<UniqueKeys>()?.is_some() {}
        Ok(self)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key) {
                return Err(de::Error::custom("repeated key"));
            }
            map.next_value::<UniqueKeys>()?;
        }
        Ok(self)
    }
}

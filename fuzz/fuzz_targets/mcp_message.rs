//! The MCP JSON-RPC message parser: arbitrary bytes deserialized as the message type the
//! server reads from its transports (`rmcp::model::ClientJsonRpcMessage`).
//!
//! Fails on: any panic, or a message that parses but does not survive a round trip
//! (serialize, parse again, serialize again: the two texts must be equal).

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolnexus::mcp::rmcp::model::ClientJsonRpcMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(data) else {
        return;
    };
    let text = serde_json::to_string(&message).expect("a parsed message serializes");
    let again: ClientJsonRpcMessage =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("re-parsing {text} failed: {e}"));
    let text_again = serde_json::to_string(&again).unwrap();
    assert_eq!(text, text_again, "the round trip is not stable");
});

//! Serde wire forms: exact JSON for each type, and round trips back to equal values.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolnexus::{Answer, ContentPart, Request, ToolResult};

const PNG: &[u8] = include_bytes!("../examples/media/fixture.png");

/// Serializes `value`, checks the JSON is exactly `expected`, and reads it back.
fn round_trip<T>(value: &T, expected: Value)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).unwrap();
    let as_value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(as_value, expected, "wire form of {value:?}");
    let back: T = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, value, "round trip of {text}");
}

#[test]
fn tool_result_without_parts_or_metadata_omits_them() {
    let result = ToolResult::ok("done");
    assert_eq!(
        serde_json::to_string(&result).unwrap(),
        r#"{"output":"done","isError":false}"#
    );
    round_trip(&result, json!({"output": "done", "isError": false}));
    round_trip(
        &ToolResult::default(),
        json!({"output": "", "isError": false}),
    );
    round_trip(
        &ToolResult::error("boom"),
        json!({"output": "boom", "isError": true}),
    );
}

#[test]
fn tool_result_missing_keys_read_as_defaults() {
    let result: ToolResult = serde_json::from_str("{}").unwrap();
    assert_eq!(result, ToolResult::default());
}

#[test]
fn tool_result_with_metadata_and_parts() {
    let part = ContentPart::image_bytes(PNG, "image/png").unwrap();
    let result = ToolResult::ok("shot")
        .with_parts([part])
        .with_metadata("count", 2);
    round_trip(
        &result,
        json!({
            "output": "shot",
            "isError": false,
            "parts": [{"type": "image", "mimeType": "image/png", "data": base64(PNG)}],
            "metadata": {"count": 2},
        }),
    );
}

#[test]
fn pending_tool_result_round_trips_and_stays_pending() {
    let request = Request::approval("Delete 3 files?")
        .with_id("r-1")
        .with_data(json!({"files": 3}))
        .with_expires_at("2026-12-01T00:00:00Z");
    let result = ToolResult::pending(request.clone());
    round_trip(
        &result,
        json!({
            "output": "Delete 3 files?",
            "isError": true,
            "metadata": {"pending": {
                "id": "r-1", "kind": "approval", "prompt": "Delete 3 files?",
                "data": {"files": 3}, "expiresAt": "2026-12-01T00:00:00Z"
            }},
        }),
    );
    let back: ToolResult = serde_json::from_value(serde_json::to_value(&result).unwrap()).unwrap();
    assert_eq!(back.pending_request(), Some(request));
}

#[test]
fn request_wire_keys() {
    let minimal = Request::input("Which environment?").with_id("r-2");
    round_trip(
        &minimal,
        json!({"id": "r-2", "kind": "input", "prompt": "Which environment?"}),
    );
    let full = Request::authorization("https://example.com/login", "Log in")
        .with_id("r-3")
        .with_data(json!(["a"]))
        .with_expires_at("2030-01-01T00:00:00Z");
    round_trip(
        &full,
        json!({
            "id": "r-3", "kind": "authorization", "prompt": "Log in",
            "url": "https://example.com/login", "data": ["a"],
            "expiresAt": "2030-01-01T00:00:00Z"
        }),
    );
}

#[test]
fn request_constructors_generate_unique_ids() {
    let a = Request::input("x");
    let b = Request::input("x");
    assert_ne!(a.id, b.id);
    assert_eq!(Request::approval("ok?").kind, "approval");
    assert_eq!(Request::question("why?").kind, "question");
    assert_eq!(Request::new("custom-kind", "p").kind, "custom-kind");
}

#[test]
fn answer_wire_keys() {
    round_trip(&Answer::accept("r-1"), json!({"id": "r-1", "ok": true}));
    round_trip(
        &Answer::accept("r-1").with_data("prod"),
        json!({"id": "r-1", "ok": true, "data": "prod"}),
    );
    round_trip(
        &Answer::decline("r-1", "expired"),
        json!({"id": "r-1", "ok": false, "reason": "expired"}),
    );
    let request = Request::input("?").with_id("r-9");
    assert_eq!(request.answer(1).id, "r-9");
    assert_eq!(request.decline("no"), Answer::decline("r-9", "no"));
}

#[test]
fn content_part_wire_form_is_base64_with_mime_type() {
    let part = ContentPart::image_bytes(PNG, "image/png").unwrap();
    round_trip(
        &part,
        json!({"type": "image", "mimeType": "image/png", "data": base64(PNG)}),
    );
}

#[test]
fn content_part_rejects_bad_wire_data() {
    let not_base64 = json!({"type": "image", "mimeType": "image/png", "data": "***"});
    let err = serde_json::from_value::<ContentPart>(not_base64).unwrap_err();
    assert!(err.to_string().contains("not base64"), "{err}");

    let no_mime = json!({"type": "image", "data": base64(PNG)});
    let err = serde_json::from_value::<ContentPart>(no_mime).unwrap_err();
    assert!(err.to_string().contains("needs a `mimeType`"), "{err}");

    // The declared MIME type is wire data, kept as written: no port sniffs the bytes, so
    // a part reads the same in each.
    let declared = json!({"type": "image", "mimeType": "image/jpeg", "data": base64(PNG)});
    let part = serde_json::from_value::<ContentPart>(declared.clone()).unwrap();
    assert_eq!(part.mime_type(), "image/jpeg");
    assert_eq!(serde_json::to_value(&part).unwrap(), declared);
}

fn base64(bytes: &[u8]) -> String {
    // An independent encoder, so the test does not check the crate against itself.
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

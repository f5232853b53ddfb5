//! The four examples of the `ToolResult` specification, ported to Rust.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::json;
use toolnexus::{ContentPart, Request, ToolResult};

/// 1. Success and failure, with the shorthand constructors.
#[test]
fn example_1_success_and_failure_with_shorthands() {
    let config = HashMap::from([("region", "eu-west-1")]);
    let read_config = |key: &str| match config.get(key) {
        // Recoverable: the model can read this and try another key.
        None => ToolResult::error(format!("No such config key: {key}")),
        Some(v) => ToolResult::ok(*v),
    };

    let found = read_config("region");
    assert_eq!(found.output, "eu-west-1");
    assert!(!found.is_error);

    let missing = read_config("nope");
    assert!(missing.is_error);
    assert_eq!(missing.output, "No such config key: nope");
}

/// 2. Structured output and metadata.
#[test]
fn example_2_structured_output_and_metadata() {
    let search = |q: &str| {
        let hits = [(1, "Getting started"), (2, "Advanced usage")];
        ToolResult {
            // The model reads this. Make it legible, not just valid.
            output: hits
                .iter()
                .map(|(id, title)| format!("#{id} {title}"))
                .collect::<Vec<_>>()
                .join("\n"),
            is_error: false,
            parts: None,
            // Your code reads this. The model never sees it.
            metadata: json!({
                "title": format!("search: {q}"),
                "count": hits.len(),
                "ids": hits.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            })
            .as_object()
            .cloned(),
        }
    };

    let res = search("usage");
    let metadata = res.metadata.as_ref().expect("metadata is set");
    assert_eq!(metadata["count"], 2);
    assert_eq!(metadata["ids"], json!([1, 2]));
    assert_eq!(metadata["title"], "search: usage");
    assert!(res.output.contains("Advanced usage"));
    assert!(!res.is_pending());
}

/// 3. The reserved key: `metadata.pending` is a suspension.
#[test]
fn example_3_the_reserved_pending_key_is_a_suspension() {
    // A suspension is a ToolResult whose metadata carries a Request.
    let req = Request::input("Which environment?").with_id("pnd-1");
    let res = ToolResult::pending(req.clone());
    assert_eq!(res.output, "Which environment?");

    // A parked call is not a success.
    assert!(res.is_error);
    assert!(res.is_pending());

    // Read the request back off the result.
    let got = res.pending_request().expect("a pending request");
    assert_eq!(got.kind, "input");
    assert_eq!(got.prompt, "Which environment?");
    assert_eq!(got.id, "pnd-1");
    assert_eq!(got, req);

    // Built field by field, as the specification writes it, it is the same suspension.
    let by_hand = ToolResult {
        output: req.prompt.clone(),
        is_error: true,
        parts: None,
        metadata:
            json!({"pending": {"id": "pnd-1", "kind": "input", "prompt": "Which environment?"}})
                .as_object()
                .cloned(),
    };
    assert_eq!(by_hand, res);

    // The authorization shape carries a URL instead of expecting typed input.
    let auth_req = Request::authorization("https://example.com/login", "Log in").with_id("pnd-2");
    let auth = ToolResult::pending(auth_req.clone());
    assert!(auth.is_pending());
    assert_eq!(
        auth.metadata.as_ref().unwrap()["pending"]["url"],
        "https://example.com/login"
    );
    assert_eq!(
        auth.pending_request().unwrap().url.as_deref(),
        Some("https://example.com/login")
    );

    // An ordinary result has no suspension.
    assert!(!ToolResult::ok("done").is_pending());
    // Nor does one whose `pending` key does not hold a valid request.
    let bogus = ToolResult::error("x").with_metadata("pending", json!({"kind": "input"}));
    assert!(!bogus.is_pending());
    assert_eq!(bogus.pending_request(), None);
}

fn repo_root() -> PathBuf {
    std::env::var_os("TOOLNEXUS_REPO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// 4. Non-text output: `parts` alongside `output`.
#[test]
fn example_4_parts_beside_output() {
    let fixture = repo_root().join("examples/media/fixture.png");

    let screenshot = || match ContentPart::image(&fixture) {
        // The non-panicking form inside a tool: an unreadable file is an outcome the model
        // can recover from, not a crash that ends the run.
        Err(e) => ToolResult::error(format!("screenshot: {e}")),
        Ok(part) => ToolResult::ok(part.summary()).with_parts([part]),
    };

    let res = screenshot();
    assert!(!res.is_error, "{}", res.output);
    // output is never empty just because the payload is binary.
    assert_eq!(res.output, "image (image/png, 82 bytes)");
    let parts = res.parts.as_ref().unwrap();
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].mime_type(), "image/png");

    // parts cannot collide with a suspension: is_pending looks at metadata only.
    assert!(!res.is_pending());
    assert_eq!(res.metadata, None);
}

//! Content parts on the wire, side by side with the toolnexus Python port (0.21.0, with
//! `TOOLNEXUS_PYTHON_TOOLNEXUS`; tests/wire_parts/port.py): a `ToolResult` and a
//! transcript with every kind of part (text, an image by bytes and by URL, a named file
//! by bytes and by URL, audio as bytes and from a `data:` URL), written by the Python
//! port, load here and serialize back equal as canonical JSON; and what this crate
//! writes, the Python port loads and writes back equal.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use toolnexus::tool::PartKind;
use toolnexus::{ContentPart, Message, ToolCall, ToolResult};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn port(args: &[&str], stdin: Option<&Value>) -> Value {
    let python = std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS").unwrap_or_else(|_| {
        panic!(
            "TOOLNEXUS_PYTHON_TOOLNEXUS is not set: this test compares with the toolnexus Python \
             port (pip toolnexus==0.21.0) and does not skip. Run it through .ci/test"
        )
    });
    let mut child = Command::new(python)
        .arg(root().join("tests/wire_parts/port.py"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the Python port starts");
    let mut input = child.stdin.take().unwrap();
    if let Some(doc) = stdin {
        input.write_all(doc.to_string().as_bytes()).unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "port.py {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("port.py prints JSON")
}

/// Canonical JSON: object keys sorted at every depth, no spaces (what port.py prints).
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let sorted: std::collections::BTreeMap<&String, String> =
                map.iter().map(|(k, v)| (k, canonical(v))).collect();
            let fields: Vec<String> = sorted
                .into_iter()
                .map(|(k, v)| format!("{}:{v}", Value::String(k.clone())))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The document loaded into this crate's types and written back.
fn through_rust(doc: &Value) -> Value {
    let result: ToolResult = serde_json::from_value(doc["toolResult"].clone())
        .unwrap_or_else(|e| panic!("the Python ToolResult loads: {e}"));
    let transcript: Vec<Message> = serde_json::from_value(doc["transcript"].clone())
        .unwrap_or_else(|e| panic!("the Python transcript loads: {e}"));
    json!({"toolResult": result, "transcript": transcript})
}

#[test]
fn what_python_writes_loads_here_and_writes_back_equal() {
    let png = root().join("examples/media/fixture.png");
    let python = port(&["write", png.to_str().unwrap()], None);
    let parts = python["toolResult"]["parts"].as_array().unwrap();
    let kinds: Vec<&str> = parts.iter().map(|p| p["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["text", "image", "image", "file", "file", "audio", "audio"]
    );

    let back = through_rust(&python);
    assert_eq!(canonical(&back), canonical(&python));

    // And the types hold what the wire said.
    let result: ToolResult = serde_json::from_value(python["toolResult"].clone()).unwrap();
    let parts = result.parts.unwrap();
    assert_eq!(parts[0].as_text(), Some("Here is what the camera saw."));
    assert_eq!(parts[1].name(), Some("fixture.png"));
    assert_eq!(parts[1].data(), Some(&std::fs::read(&png).unwrap()[..]));
    assert_eq!(parts[2].url(), Some("https://example.com/cat.png"));
    assert_eq!(
        (parts[4].kind(), parts[4].name()),
        (PartKind::File, Some("paper.pdf"))
    );
    assert_eq!(parts[6].data(), Some(&b"ID3\x04\x00"[..]));
    let transcript: Vec<Message> = serde_json::from_value(python["transcript"].clone()).unwrap();
    match &transcript[1] {
        Message::User { content } => {
            assert_eq!(content.parts().len(), 3);
            assert_eq!(content.first_text(), Some("What is this?"));
        }
        other => panic!("a user message with parts, not {other:?}"),
    }
}

#[test]
fn what_this_crate_writes_python_loads_and_writes_back_equal() {
    let png = root().join("examples/media/fixture.png");
    let every = vec![
        ContentPart::text("Here is what the camera saw."),
        ContentPart::image(&png).unwrap(),
        ContentPart::from_url(PartKind::Image, "https://example.com/cat.png").unwrap(),
        ContentPart::file_bytes(b"%PDF-1.7\n".to_vec(), "application/pdf")
            .unwrap()
            .with_name("report.pdf"),
        ContentPart::from_url(PartKind::File, "https://example.com/paper.pdf")
            .unwrap()
            .with_name("paper.pdf"),
        ContentPart::audio_bytes(b"RIFF\x24\x00\x00\x00WAVE".to_vec(), "audio/wav").unwrap(),
        ContentPart::from_url(PartKind::Audio, "data:audio/mpeg;base64,SUQzBAA=").unwrap(),
    ];
    let result = ToolResult::ok("a picture, a report and a sound")
        .with_metadata("title", "snapshot")
        .with_parts(every.clone());
    let call = ToolCall::new("call_1", "snapshot", "{}");
    let transcript = vec![
        Message::system("You look at things."),
        Message::user(vec![
            every[1].clone(),
            every[2].clone(),
            ContentPart::text("What is this?"),
        ]),
        Message::tool_calls(None, vec![call.clone()]),
        Message::tool_result(&call.id, &result),
        Message::assistant("A cat, a report and a sound."),
        Message::user("Thanks."),
    ];
    let ours = json!({"toolResult": result, "transcript": transcript});
    let python = port(&["read"], Some(&ours));
    assert_eq!(canonical(&python), canonical(&ours));

    // The two ports write the same document from the same parts (the tool message here
    // comes from `Message::tool_result`, which does not know the tool's name; the loop's
    // does, as Python's `_tool_message` does).
    let written = port(&["write", png.to_str().unwrap()], None);
    assert_eq!(
        canonical(&written["toolResult"]),
        canonical(&ours["toolResult"])
    );
    let mut theirs = written["transcript"].clone();
    theirs[3].as_object_mut().unwrap().remove("name");
    assert_eq!(canonical(&theirs), canonical(&ours["transcript"]));
}

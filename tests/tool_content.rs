//! `ContentPart`: MIME types from the contract's extension table, the flat wire form with
//! text, URL and named parts, the earlier `document` spelling, and errors that name the
//! path and the cause.

use std::path::PathBuf;

use serde_json::json;
use toolnexus::ContentPart;
use toolnexus::tool::{MEDIA_TYPES, PartBody, PartKind};

const PNG: &[u8] = include_bytes!("../examples/media/fixture.png");

#[test]
fn the_mime_type_comes_from_the_extension_table_for_every_row() {
    let dir = tempdir("table");
    for (ext, mime, kind) in MEDIA_TYPES {
        let path = dir.join(format!("sample.{}", ext.to_uppercase()));
        std::fs::write(&path, b"any bytes at all").unwrap();
        let part = ContentPart::from_path(*kind, &path).unwrap();
        assert_eq!((part.kind(), part.mime_type()), (*kind, *mime), "{ext}");
        assert_eq!(
            part.name(),
            Some(&*format!("sample.{}", ext.to_uppercase()))
        );
        assert_eq!(part.data(), Some(&b"any bytes at all"[..]));
    }
}

#[test]
fn the_bytes_are_never_sniffed() {
    let dir = tempdir("sniff");
    // PNG bytes under a .gif name are a GIF by the table; no other port would say PNG.
    let misnamed = dir.join("photo.gif");
    std::fs::write(&misnamed, PNG).unwrap();
    assert_eq!(
        ContentPart::image(&misnamed).unwrap().mime_type(),
        "image/gif"
    );
    // Bytes in memory are of the MIME type they are given.
    let part = ContentPart::image_bytes(PNG.to_vec(), "image/png").unwrap();
    assert_eq!(
        part.summary(),
        format!("image (image/png, {} bytes)", PNG.len())
    );
}

#[test]
fn path_constructors_read_files_and_keep_the_file_name() {
    let dir = tempdir("paths");
    let pdf = dir.join("report.pdf");
    std::fs::write(&pdf, b"%PDF-1.7\n").unwrap();
    let part = ContentPart::file(&pdf).unwrap();
    assert_eq!(part.summary(), "file (application/pdf, 9 bytes)");
    assert_eq!(
        serde_json::to_value(&part).unwrap(),
        json!({"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjcK", "name": "report.pdf"})
    );
    let wav = dir.join("clip.wav");
    std::fs::write(&wav, b"RIFF").unwrap();
    assert_eq!(ContentPart::audio(&wav).unwrap().mime_type(), "audio/wav");
}

#[test]
fn an_unknown_extension_names_the_path_and_the_table() {
    let dir = tempdir("unknown");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "hello").unwrap();
    let err = ContentPart::image(&notes).unwrap_err();
    assert_eq!(err.path(), Some(notes.as_path()));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: unknown file extension \".txt\" (give the MIME type explicitly, or use one of \
             the media table's: png, jpg, jpeg, gif, webp, pdf, mp3, wav)",
            notes.display()
        )
    );
    let bare = dir.join("README");
    std::fs::write(&bare, "hello").unwrap();
    let err = ContentPart::file(&bare).unwrap_err();
    assert!(err.to_string().contains("no file extension"), "{err}");
}

#[test]
fn a_missing_file_names_the_path_and_the_cause() {
    let missing = tempdir("missing").join("gone.png");
    let err = ContentPart::image(&missing).unwrap_err();
    assert_eq!(err.path(), Some(missing.as_path()));
    let message = err.to_string();
    assert!(
        message.starts_with(&missing.display().to_string()),
        "{message}"
    );
    assert!(message.contains("cannot read the image file"), "{message}");
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn empty_content_and_a_missing_mime_type_are_refused() {
    let dir = tempdir("empty");
    let empty = dir.join("empty.png");
    std::fs::write(&empty, b"").unwrap();
    let err = ContentPart::image(&empty).unwrap_err();
    assert!(err.to_string().contains("this one is empty"), "{err}");
    let err = ContentPart::audio_bytes(b"ID3".to_vec(), "").unwrap_err();
    assert_eq!(err.to_string(), "an audio part needs a MIME type");
    let err = ContentPart::from_bytes(PartKind::Text, "text/plain", b"hi".to_vec()).unwrap_err();
    assert!(err.to_string().contains("ContentPart::text"), "{err}");
}

#[test]
fn url_parts_take_their_mime_type_from_the_table_or_explicitly() {
    let part = ContentPart::from_url(PartKind::Image, "https://example.com/a/cat.JPG").unwrap();
    assert_eq!(part.mime_type(), "image/jpeg");
    assert_eq!(part.body(), PartBody::Url("https://example.com/a/cat.JPG"));
    assert_eq!((part.data(), part.base64()), (None, None));
    assert_eq!(part.summary(), "image (image/jpeg, 0 bytes)");
    let err = ContentPart::from_url(PartKind::File, "https://example.com/paper").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("https://example.com/paper: no file extension"),
        "{err}"
    );
    let part = ContentPart::from_url_with_mime(
        PartKind::File,
        "https://example.com/paper",
        "application/pdf",
    )
    .unwrap()
    .with_name("paper.pdf");
    assert_eq!(
        serde_json::to_value(&part).unwrap(),
        json!({"type": "file", "mimeType": "application/pdf", "url": "https://example.com/paper", "name": "paper.pdf"})
    );
    let err = ContentPart::from_url(PartKind::Image, "file:///etc/passwd.png").unwrap_err();
    assert!(
        err.to_string()
            .contains("must be https:, http: or a data: URL"),
        "{err}"
    );
}

#[test]
fn a_data_url_becomes_bytes() {
    let part = ContentPart::from_url(PartKind::Image, "data:image/gif;base64,R0lGODlh").unwrap();
    assert_eq!(
        (part.mime_type(), part.data()),
        ("image/gif", Some(&b"GIF89a"[..]))
    );
    assert_eq!(part.url(), None);
    for (url, why) in [
        ("data:image/gif,GIF89a", "only base64 data: URLs"),
        ("data:;base64,R0lGODlh", "names no MIME type"),
        ("data:image/gif;base64,@@@", "not base64"),
    ] {
        let err = ContentPart::from_url(PartKind::Image, url).unwrap_err();
        assert!(err.to_string().contains(why), "{url}: {err}");
    }
}

#[test]
fn the_wire_form_is_the_contracts_and_reads_back() {
    let parts = [
        ContentPart::text("Look:"),
        ContentPart::image_bytes(b"GIF89a".to_vec(), "image/gif").unwrap(),
        ContentPart::from_url(PartKind::Audio, "https://example.com/a.mp3").unwrap(),
    ];
    let wire = serde_json::to_value(&parts).unwrap();
    assert_eq!(
        wire,
        json!([
            {"type": "text", "text": "Look:"},
            {"type": "image", "mimeType": "image/gif", "data": "R0lGODlh"},
            {"type": "audio", "mimeType": "audio/mpeg", "url": "https://example.com/a.mp3"}
        ])
    );
    let back: Vec<ContentPart> = serde_json::from_value(wire).unwrap();
    assert_eq!(back, parts);
}

#[test]
fn a_document_written_by_earlier_builds_loads_as_a_file() {
    let part: ContentPart = serde_json::from_value(
        json!({"type": "document", "mimeType": "application/pdf", "data": "JVBERi0xLjcK"}),
    )
    .unwrap();
    assert_eq!(part.kind(), PartKind::File);
    assert_eq!(serde_json::to_value(&part).unwrap()["type"], "file");
    let kind: PartKind = serde_json::from_value(json!("document")).unwrap();
    assert_eq!(kind, PartKind::File);
}

#[test]
fn parts_that_break_the_contract_are_refused_saying_why() {
    let cases = [
        (
            json!({"type": "video", "mimeType": "video/mp4", "data": "AA=="}),
            "unknown content part type \"video\"",
        ),
        (json!({"type": "text"}), "needs `text`"),
        (
            json!({"type": "image", "data": "AA=="}),
            "needs a `mimeType`",
        ),
        (
            json!({"type": "image", "mimeType": "image/png"}),
            "neither `data` nor `url`",
        ),
        (
            json!({"type": "image", "mimeType": "image/png", "data": "AA==", "url": "https://x/y.png"}),
            "both `data` and `url`",
        ),
        (
            json!({"type": "file", "mimeType": "application/pdf", "data": "%%%"}),
            "not base64",
        ),
    ];
    for (wire, why) in cases {
        let err = serde_json::from_value::<ContentPart>(wire.clone()).unwrap_err();
        assert!(err.to_string().contains(why), "{wire}: {err}");
    }
}

#[test]
fn the_error_is_a_std_error_usable_with_question_mark() {
    fn load(path: &str) -> Result<ContentPart, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ContentPart::image(path)?)
    }
    assert!(load("/nope.png").is_err());
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolnexus-content-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

//! `ContentPart`: MIME sniffing, kind checks, and errors that name the path and the cause.

use std::path::PathBuf;

use toolnexus::ContentPart;
use toolnexus::tool::PartKind;

const PNG: &[u8] = include_bytes!("../examples/media/fixture.png");

fn pad(header: &[u8]) -> Vec<u8> {
    let mut bytes = header.to_vec();
    bytes.resize(64, 0);
    bytes
}

fn riff(form: &[u8; 4]) -> Vec<u8> {
    let mut bytes = b"RIFF\x24\x00\x00\x00".to_vec();
    bytes.extend_from_slice(form);
    bytes.extend_from_slice(if form == b"WEBP" { b"VP8 " } else { b"fmt " });
    pad(&bytes)
}

#[test]
fn sniffs_every_supported_format_from_the_bytes() {
    let cases: Vec<(PartKind, Vec<u8>, &str)> = vec![
        (PartKind::Image, PNG.to_vec(), "image/png"),
        (
            PartKind::Image,
            pad(b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00"),
            "image/jpeg",
        ),
        (PartKind::Image, pad(b"GIF89a\x01\x00\x01\x00"), "image/gif"),
        (PartKind::Image, riff(b"WEBP"), "image/webp"),
        (PartKind::Document, pad(b"%PDF-1.7\n"), "application/pdf"),
        (PartKind::Audio, riff(b"WAVE"), "audio/wav"),
        (
            PartKind::Audio,
            pad(b"ID3\x04\x00\x00\x00\x00\x00\x00"),
            "audio/mpeg",
        ),
        (PartKind::Audio, pad(b"\xFF\xFB\x90\x44"), "audio/mpeg"),
        (PartKind::Audio, pad(b"OggS\x00\x02"), "audio/ogg"),
        (PartKind::Audio, pad(b"fLaC\x00\x00\x00\x22"), "audio/flac"),
    ];
    for (kind, bytes, mime) in cases {
        let part =
            ContentPart::from_bytes(kind, bytes.clone()).unwrap_or_else(|e| panic!("{mime}: {e}"));
        assert_eq!(part.mime_type(), mime);
        assert_eq!(part.kind(), kind);
        assert_eq!(part.data(), &bytes[..]);
        assert_eq!(
            part.summary(),
            format!("{kind} ({mime}, {} bytes)", bytes.len())
        );
    }
}

#[test]
fn the_mime_type_comes_from_the_bytes_not_the_extension() {
    let dir = tempdir("ext");
    let misnamed = dir.join("photo.jpg");
    std::fs::write(&misnamed, PNG).unwrap();
    let part = ContentPart::image(&misnamed).unwrap();
    assert_eq!(part.mime_type(), "image/png");
}

#[test]
fn path_constructors_read_files() {
    let dir = tempdir("read");
    let pdf = dir.join("doc.pdf");
    std::fs::write(&pdf, pad(b"%PDF-1.4\n")).unwrap();
    assert_eq!(
        ContentPart::pdf(&pdf).unwrap().summary(),
        "document (application/pdf, 64 bytes)"
    );
    let wav = dir.join("clip.wav");
    std::fs::write(&wav, riff(b"WAVE")).unwrap();
    assert_eq!(ContentPart::audio(&wav).unwrap().mime_type(), "audio/wav");
}

#[test]
fn a_text_file_is_not_an_image_and_the_error_names_the_path() {
    let dir = tempdir("text");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "just some words\n").unwrap();
    let err = ContentPart::image(&notes).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{} is not an image (unrecognised content)", notes.display())
    );
    assert_eq!(err.path(), Some(notes.as_path()));
}

#[test]
fn a_file_of_another_kind_says_what_was_detected() {
    let dir = tempdir("kind");
    let png = dir.join("shot.png");
    std::fs::write(&png, PNG).unwrap();
    let err = ContentPart::audio(&png).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} is not an audio clip (detected image/png)",
            png.display()
        )
    );
    let err = ContentPart::pdf(&png).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("is not a PDF document (detected image/png)"),
        "{err}"
    );
}

#[test]
fn a_missing_file_names_the_path_and_the_cause() {
    let missing = PathBuf::from("/definitely/not/here.png");
    let err = ContentPart::image(&missing).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("cannot read image from /definitely/not/here.png: "),
        "{text}"
    );
    assert!(text.contains("No such file"), "{text}");
    let source = std::error::Error::source(&err).expect("the io error is the source");
    assert!(source.to_string().contains("No such file"));
}

#[test]
fn a_directory_is_unreadable_not_a_panic() {
    let dir = tempdir("dir");
    let err = ContentPart::image(&dir).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("cannot read image from {}", dir.display()))
    );
}

#[test]
fn an_empty_file_is_rejected() {
    let dir = tempdir("empty");
    let empty = dir.join("empty.png");
    std::fs::write(&empty, b"").unwrap();
    let err = ContentPart::image(&empty).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{} is not an image (it is empty)", empty.display())
    );
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

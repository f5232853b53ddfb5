//! [`ContentPart`]: non-text tool output (an image, a PDF document, an audio clip).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What kind of payload a [`ContentPart`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PartKind {
    /// A raster image (PNG, JPEG, GIF, WebP, …).
    Image,
    /// A PDF document.
    Document,
    /// An audio clip (WAV, MP3, OGG, FLAC, …).
    Audio,
}

impl PartKind {
    /// The lowercase name used on the wire and in [`ContentPart::summary`].
    pub fn as_str(self) -> &'static str {
        match self {
            PartKind::Image => "image",
            PartKind::Document => "document",
            PartKind::Audio => "audio",
        }
    }

    fn accepts(self, mime: &str) -> bool {
        match self {
            PartKind::Image => mime.starts_with("image/"),
            PartKind::Document => mime == "application/pdf",
            PartKind::Audio => mime.starts_with("audio/"),
        }
    }

    fn article(self) -> &'static str {
        match self {
            PartKind::Image => "an image",
            PartKind::Document => "a PDF document",
            PartKind::Audio => "an audio clip",
        }
    }
}

impl fmt::Display for PartKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Non-text output carried in [`ToolResult::parts`](crate::ToolResult::parts) beside the
/// text `output`.
///
/// The MIME type is sniffed from the bytes, never trusted from a file extension, and the
/// constructors check that the content is of the kind asked for: a text file passed to
/// [`ContentPart::image`] is an [`Err`], not a mislabeled part. The bytes are shared, so
/// cloning a part is cheap.
///
/// Wire form: `{"type": "image" | "document" | "audio", "mimeType": …, "data": <base64>}`.
///
/// ```
/// use toolnexus::ContentPart;
///
/// // The smallest valid GIF.
/// let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";
/// let part = ContentPart::image_bytes(gif.to_vec()).unwrap();
/// assert_eq!(part.mime_type(), "image/gif");
/// assert_eq!(part.summary(), "image (image/gif, 14 bytes)");
///
/// let err = ContentPart::image_bytes(b"hello".to_vec()).unwrap_err();
/// assert_eq!(err.to_string(), "content is not an image (unrecognised content)");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ContentPart {
    kind: PartKind,
    mime_type: &'static str,
    data: Arc<[u8]>,
}

impl ContentPart {
    /// Reads an image file (PNG, JPEG, GIF, WebP, BMP, TIFF, …).
    pub fn image(path: impl AsRef<Path>) -> Result<Self, ContentError> {
        Self::from_path(PartKind::Image, path.as_ref())
    }

    /// Reads a PDF file.
    pub fn pdf(path: impl AsRef<Path>) -> Result<Self, ContentError> {
        Self::from_path(PartKind::Document, path.as_ref())
    }

    /// Reads an audio file (WAV, MP3, OGG, FLAC, …).
    pub fn audio(path: impl AsRef<Path>) -> Result<Self, ContentError> {
        Self::from_path(PartKind::Audio, path.as_ref())
    }

    /// An image from bytes already in memory.
    pub fn image_bytes(data: impl Into<Vec<u8>>) -> Result<Self, ContentError> {
        Self::from_bytes(PartKind::Image, data.into())
    }

    /// A PDF document from bytes already in memory.
    pub fn pdf_bytes(data: impl Into<Vec<u8>>) -> Result<Self, ContentError> {
        Self::from_bytes(PartKind::Document, data.into())
    }

    /// An audio clip from bytes already in memory.
    pub fn audio_bytes(data: impl Into<Vec<u8>>) -> Result<Self, ContentError> {
        Self::from_bytes(PartKind::Audio, data.into())
    }

    /// A part of the given kind from bytes, checked against that kind.
    pub fn from_bytes(kind: PartKind, data: Vec<u8>) -> Result<Self, ContentError> {
        Self::checked(kind, data, None)
    }

    /// A part of the given kind read from a file, checked against that kind.
    pub fn from_path(kind: PartKind, path: &Path) -> Result<Self, ContentError> {
        let data = std::fs::read(path).map_err(|source| ContentError {
            path: Some(path.to_path_buf()),
            cause: Cause::Io { kind, source },
        })?;
        Self::checked(kind, data, Some(path))
    }

    fn checked(kind: PartKind, data: Vec<u8>, path: Option<&Path>) -> Result<Self, ContentError> {
        match sniff(&data) {
            Some(mime) if kind.accepts(mime) => Ok(ContentPart {
                kind,
                mime_type: mime,
                data: data.into(),
            }),
            found => Err(ContentError {
                path: path.map(Path::to_path_buf),
                cause: Cause::WrongKind {
                    expected: kind,
                    found,
                    empty: data.is_empty(),
                },
            }),
        }
    }

    /// What kind of payload this is.
    pub fn kind(&self) -> PartKind {
        self.kind
    }

    /// The MIME type, sniffed from the bytes (e.g. `"image/png"`).
    pub fn mime_type(&self) -> &str {
        self.mime_type
    }

    /// The raw bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The bytes, base64-encoded (standard alphabet, padded), as providers expect them.
    pub fn base64(&self) -> String {
        BASE64.encode(&self.data)
    }

    /// A one-line description, e.g. `"image (image/png, 82 bytes)"`: a good `output` for
    /// a result whose payload is this part.
    pub fn summary(&self) -> String {
        format!(
            "{} ({}, {} bytes)",
            self.kind,
            self.mime_type,
            self.data.len()
        )
    }
}

impl fmt::Debug for ContentPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContentPart")
            .field("kind", &self.kind)
            .field("mime_type", &self.mime_type)
            .field("len", &self.data.len())
            .finish()
    }
}

/// Sniffs the MIME type from the leading bytes, normalised to the names providers accept
/// (`audio/wav`, not `audio/x-wav`).
fn sniff(data: &[u8]) -> Option<&'static str> {
    let mime = infer::get(data)?.mime_type();
    Some(match mime {
        "audio/x-wav" => "audio/wav",
        "audio/x-flac" => "audio/flac",
        "audio/x-aiff" => "audio/aiff",
        other => other,
    })
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire<'a> {
    #[serde(rename = "type")]
    kind: PartKind,
    #[serde(borrow)]
    mime_type: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    data: std::borrow::Cow<'a, str>,
}

impl Serialize for ContentPart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Wire {
            kind: self.kind,
            mime_type: self.mime_type.into(),
            data: self.base64().into(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ContentPart {
    /// Decodes the base64 data and sniffs it again: a part whose bytes do not match its
    /// declared `type` is rejected rather than trusted.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = Wire::deserialize(deserializer)?;
        let data = BASE64
            .decode(wire.data.as_bytes())
            .map_err(|e| D::Error::custom(format_args!("content part data is not base64: {e}")))?;
        let part = ContentPart::from_bytes(wire.kind, data).map_err(D::Error::custom)?;
        if part.mime_type != wire.mime_type {
            return Err(D::Error::custom(format_args!(
                "content part declares {} but its bytes are {}",
                wire.mime_type, part.mime_type
            )));
        }
        Ok(part)
    }
}

/// Why a [`ContentPart`] could not be made: the file could not be read, or its content is
/// not of the kind asked for. The message names the path when there is one.
#[derive(Debug)]
pub struct ContentError {
    path: Option<PathBuf>,
    cause: Cause,
}

#[derive(Debug)]
enum Cause {
    Io {
        kind: PartKind,
        source: std::io::Error,
    },
    WrongKind {
        expected: PartKind,
        found: Option<&'static str>,
        empty: bool,
    },
}

impl ContentError {
    /// The file that was read, when the part came from a path.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subject = match &self.path {
            Some(path) => path.display().to_string(),
            None => "content".to_owned(),
        };
        match &self.cause {
            Cause::Io { kind, source } => {
                write!(f, "cannot read {kind} from {subject}: {source}")
            }
            Cause::WrongKind {
                expected,
                found,
                empty,
            } => {
                write!(f, "{subject} is not {} (", expected.article())?;
                match (found, empty) {
                    (_, true) => f.write_str("it is empty)"),
                    (Some(mime), _) => write!(f, "detected {mime})"),
                    (None, _) => f.write_str("unrecognised content)"),
                }
            }
        }
    }
}

impl std::error::Error for ContentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.cause {
            Cause::Io { source, .. } => Some(source),
            Cause::WrongKind { .. } => None,
        }
    }
}

//! [`ContentPart`]: one part of a prompt or of a tool's output (text, an image, a file, an
//! audio clip), in the contract's flat shape.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What kind of payload a [`ContentPart`] holds: the contract's closed set of part types.
///
/// On the wire it is the part's `type`: `"text"`, `"image"`, `"file"` or `"audio"`.
/// `"document"`, written by earlier builds of this crate for a PDF, still loads, as
/// [`PartKind::File`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PartKind {
    /// Plain text.
    Text,
    /// A raster image (PNG, JPEG, GIF, WebP, …).
    Image,
    /// A file, such as a PDF document.
    #[serde(alias = "document")]
    File,
    /// An audio clip (MP3, WAV, …).
    Audio,
}

impl PartKind {
    /// The lowercase name used on the wire and in [`ContentPart::summary`].
    pub fn as_str(self) -> &'static str {
        match self {
            PartKind::Text => "text",
            PartKind::Image => "image",
            PartKind::File => "file",
            PartKind::Audio => "audio",
        }
    }
}

impl PartKind {
    fn article(self) -> &'static str {
        match self {
            PartKind::Text => "a text",
            PartKind::Image => "an image",
            PartKind::File => "a file",
            PartKind::Audio => "an audio",
        }
    }
}

impl fmt::Display for PartKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The contract's fixed media extension table: `(extension, MIME type, part kind)`.
///
/// Every port derives a part's MIME type from this table and nothing else: no sniffing of
/// the bytes, no platform MIME database (those differ between machines, and a part must
/// read the same in every port).
pub const MEDIA_TYPES: &[(&str, &str, PartKind)] = &[
    ("png", "image/png", PartKind::Image),
    ("jpg", "image/jpeg", PartKind::Image),
    ("jpeg", "image/jpeg", PartKind::Image),
    ("gif", "image/gif", PartKind::Image),
    ("webp", "image/webp", PartKind::Image),
    ("pdf", "application/pdf", PartKind::File),
    ("mp3", "audio/mpeg", PartKind::Audio),
    ("wav", "audio/wav", PartKind::Audio),
];

/// The MIME type and part kind [`MEDIA_TYPES`] gives an extension (case-insensitive,
/// without the dot), or `None` when the table has no row for it.
pub fn media_type(extension: &str) -> Option<(&'static str, PartKind)> {
    MEDIA_TYPES
        .iter()
        .find(|(ext, ..)| ext.eq_ignore_ascii_case(extension))
        .map(|&(_, mime, kind)| (mime, kind))
}

/// What a [`ContentPart`] carries: text, bytes, or the URL the bytes live at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartBody<'a> {
    /// A text part's text.
    Text(&'a str),
    /// The payload's bytes.
    Data(&'a [u8]),
    /// Where the payload lives (`http:` or `https:`); the provider fetches it.
    Url(&'a str),
}

#[derive(Clone, PartialEq, Eq)]
enum Body {
    Text(String),
    Data(Arc<[u8]>),
    Url(String),
}

/// One content part: in a user's prompt ([`UserContent`](crate::UserContent)) or in
/// [`ToolResult::parts`](crate::ToolResult::parts) beside the text `output`.
///
/// A part is text, or a payload of a [`PartKind`] with a MIME type and exactly one of its
/// bytes or a URL, and an optional file name. It never holds a path: the path constructors
/// read the file at once, so a stored transcript replays anywhere. MIME types come from
/// the fixed [`MEDIA_TYPES`] extension table (or are given explicitly), never from the
/// bytes. The bytes are shared, so cloning a part is cheap.
///
/// Wire form, the contract's: `{"type": "text", "text": …}` or
/// `{"type": "image" | "file" | "audio", "mimeType": …, "data": <base64> | "url": …,
/// "name"?: …}`.
///
/// ```
/// use toolnexus::ContentPart;
/// use toolnexus::tool::PartKind;
///
/// let part = ContentPart::image_bytes(b"GIF89a".to_vec(), "image/gif").unwrap();
/// assert_eq!(part.summary(), "image (image/gif, 6 bytes)");
/// let json = serde_json::to_value(&part).unwrap();
/// assert_eq!(json, serde_json::json!({"type": "image", "mimeType": "image/gif", "data": "R0lGODlh"}));
///
/// let linked = ContentPart::from_url(PartKind::Image, "https://example.com/cat.png").unwrap();
/// assert_eq!((linked.mime_type(), linked.url()), ("image/png", Some("https://example.com/cat.png")));
///
/// let err = ContentPart::from_url(PartKind::File, "https://example.com/notes.txt").unwrap_err();
/// assert_eq!(err.to_string(), "https://example.com/notes.txt: unknown file extension \".txt\" (give the MIME type explicitly, or use one of the media table's: png, jpg, jpeg, gif, webp, pdf, mp3, wav)");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ContentPart {
    kind: PartKind,
    mime_type: String,
    body: Body,
    name: Option<String>,
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart {
            kind: PartKind::Text,
            mime_type: String::new(),
            body: Body::Text(text.into()),
            name: None,
        }
    }

    /// Reads an image file; its MIME type comes from its extension ([`MEDIA_TYPES`]) and
    /// its name from its file name.
    pub fn image(path: impl AsRef<Path>) -> Result<Self, ContentError> {
        Self::from_path(PartKind::Image, path.as_ref())
    }

    /// Reads a file (a PDF, …); its MIME type comes from its extension ([`MEDIA_TYPES`])
    /// and its name from its file name.
    pub fn file(path: impl AsRef<Path>) -> Result<Self, ContentError> {
        Self::from_path(PartKind::File, path.as_ref())
    }

    /// Reads an audio file; its MIME type comes from its extension ([`MEDIA_TYPES`]) and
    /// its name from its file name.
    pub fn audio(path: impl AsRef<Path>) -> Result<Self, ContentError> {
        Self::from_path(PartKind::Audio, path.as_ref())
    }

    /// An image from bytes already in memory, of the given MIME type.
    pub fn image_bytes(
        data: impl Into<Vec<u8>>,
        mime_type: impl Into<String>,
    ) -> Result<Self, ContentError> {
        Self::from_bytes(PartKind::Image, mime_type, data)
    }

    /// A file from bytes already in memory, of the given MIME type.
    pub fn file_bytes(
        data: impl Into<Vec<u8>>,
        mime_type: impl Into<String>,
    ) -> Result<Self, ContentError> {
        Self::from_bytes(PartKind::File, mime_type, data)
    }

    /// An audio clip from bytes already in memory, of the given MIME type.
    pub fn audio_bytes(
        data: impl Into<Vec<u8>>,
        mime_type: impl Into<String>,
    ) -> Result<Self, ContentError> {
        Self::from_bytes(PartKind::Audio, mime_type, data)
    }

    /// A part of the given kind from bytes. Fails for [`PartKind::Text`] (use
    /// [`ContentPart::text`]), an empty MIME type or no bytes.
    pub fn from_bytes(
        kind: PartKind,
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Result<Self, ContentError> {
        let data = data.into();
        Self::media(kind, mime_type.into(), Body::Data(data.into()), None)
    }

    /// A part of the given kind read from a file: the MIME type from the extension
    /// ([`MEDIA_TYPES`]), the name from the file name.
    pub fn from_path(kind: PartKind, path: &Path) -> Result<Self, ContentError> {
        let fail = |cause| ContentError {
            subject: Some(path.display().to_string()),
            cause,
        };
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let (mime, _) = media_type(ext).ok_or_else(|| fail(Cause::Extension(ext.to_owned())))?;
        let data = std::fs::read(path).map_err(|source| fail(Cause::Io { kind, source }))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        Self::media(kind, mime.to_owned(), Body::Data(data.into()), name).map_err(|e| fail(e.cause))
    }

    /// A part of the given kind from a URL: an `http:`/`https:` URL stays a URL (the
    /// provider fetches it), its MIME type from the extension ([`MEDIA_TYPES`]); a base64
    /// `data:` URL is decoded into bytes of the MIME type it names.
    pub fn from_url(kind: PartKind, url: &str) -> Result<Self, ContentError> {
        let fail = |cause| ContentError {
            subject: Some(url.to_owned()),
            cause,
        };
        if let Some(rest) = url.strip_prefix("data:") {
            let (head, payload) = rest.split_once(',').unwrap_or((rest, ""));
            let mime = head.split(';').next().unwrap_or("");
            if payload.is_empty() || !head.contains(";base64") {
                return Err(fail(Cause::DataUrl("only base64 data: URLs are supported")));
            }
            if mime.is_empty() {
                return Err(fail(Cause::DataUrl("the data: URL names no MIME type")));
            }
            let data = BASE64
                .decode(payload)
                .map_err(|_| fail(Cause::DataUrl("the data: URL's payload is not base64")))?;
            return Self::from_bytes(kind, mime, data).map_err(|e| fail(e.cause));
        }
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(fail(Cause::NotAUrl));
        }
        let ext = Path::new(url).extension().and_then(|e| e.to_str());
        let ext = ext.unwrap_or("");
        let (mime, _) = media_type(ext).ok_or_else(|| fail(Cause::Extension(ext.to_owned())))?;
        Self::from_url_with_mime(kind, url, mime)
    }

    /// A part of the given kind linked at an `http:`/`https:` URL, of an explicit MIME
    /// type (for a URL whose extension is not in [`MEDIA_TYPES`]).
    pub fn from_url_with_mime(
        kind: PartKind,
        url: &str,
        mime_type: impl Into<String>,
    ) -> Result<Self, ContentError> {
        let fail = |cause| ContentError {
            subject: Some(url.to_owned()),
            cause,
        };
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(fail(Cause::NotAUrl));
        }
        Self::media(kind, mime_type.into(), Body::Url(url.to_owned()), None)
            .map_err(|e| fail(e.cause))
    }

    fn media(
        kind: PartKind,
        mime_type: String,
        body: Body,
        name: Option<String>,
    ) -> Result<Self, ContentError> {
        let cause = match &body {
            _ if kind == PartKind::Text => Some(Cause::TextKind),
            _ if mime_type.is_empty() => Some(Cause::NoMimeType(kind)),
            Body::Data(data) if data.is_empty() => Some(Cause::Empty(kind)),
            Body::Url(url) if url.is_empty() => Some(Cause::Empty(kind)),
            _ => None,
        };
        match cause {
            Some(cause) => Err(ContentError {
                subject: None,
                cause,
            }),
            None => Ok(ContentPart {
                kind,
                mime_type,
                body,
                name,
            }),
        }
    }

    /// The same part under another MIME type: for a URL or a file whose extension is not
    /// in [`MEDIA_TYPES`]. A text part keeps none.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        if self.kind != PartKind::Text {
            self.mime_type = mime_type.into();
        }
        self
    }

    /// The same part with a file name (`name` on the wire; a provider that names files
    /// uses it). A text part keeps none.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        if self.kind != PartKind::Text {
            self.name = Some(name.into()).filter(|n| !n.is_empty());
        }
        self
    }

    /// What kind of payload this is.
    pub fn kind(&self) -> PartKind {
        self.kind
    }

    /// The MIME type (e.g. `"image/png"`); `"text/plain"` for a text part.
    pub fn mime_type(&self) -> &str {
        match self.kind {
            PartKind::Text => "text/plain",
            _ => &self.mime_type,
        }
    }

    /// What the part carries: its text, its bytes or its URL.
    pub fn body(&self) -> PartBody<'_> {
        match &self.body {
            Body::Text(text) => PartBody::Text(text),
            Body::Data(data) => PartBody::Data(data),
            Body::Url(url) => PartBody::Url(url),
        }
    }

    /// A text part's text.
    pub fn as_text(&self) -> Option<&str> {
        match &self.body {
            Body::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The raw bytes, when the part carries them (not a URL or text part).
    pub fn data(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Data(data) => Some(data),
            _ => None,
        }
    }

    /// The URL, when the part links its payload instead of carrying it.
    pub fn url(&self) -> Option<&str> {
        match &self.body {
            Body::Url(url) => Some(url),
            _ => None,
        }
    }

    /// The file name, if one was given or the part was read from a file.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The bytes, base64-encoded (standard alphabet, padded), as providers expect them;
    /// `None` for a URL or text part.
    pub fn base64(&self) -> Option<String> {
        self.data().map(|data| BASE64.encode(data))
    }

    /// The payload's size in bytes: `0` for a URL, the UTF-8 length for text.
    pub fn byte_len(&self) -> usize {
        match &self.body {
            Body::Text(text) => text.len(),
            Body::Data(data) => data.len(),
            Body::Url(_) => 0,
        }
    }

    /// The contract's one-line description, `"<type> (<mimeType>, <bytes> bytes)"`, e.g.
    /// `"image (image/png, 82 bytes)"` (a URL part counts `0` bytes). The payload itself
    /// is never in it, so it is safe for logs and a good `output` for a result whose
    /// payload is this part.
    pub fn summary(&self) -> String {
        format!(
            "{} ({}, {} bytes)",
            self.kind,
            self.mime_type(),
            self.byte_len()
        )
    }
}

impl From<&str> for ContentPart {
    fn from(text: &str) -> Self {
        ContentPart::text(text)
    }
}

impl From<String> for ContentPart {
    fn from(text: String) -> Self {
        ContentPart::text(text)
    }
}

impl fmt::Debug for ContentPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("ContentPart");
        out.field("kind", &self.kind);
        match &self.body {
            Body::Text(text) => out.field("text", text),
            Body::Data(data) => out
                .field("mime_type", &self.mime_type)
                .field("len", &data.len()),
            Body::Url(url) => out.field("mime_type", &self.mime_type).field("url", url),
        };
        out.field("name", &self.name).finish()
    }
}

/// The wire form, field for field and in the contract's order.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire<'a> {
    #[serde(rename = "type")]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    mime_type: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    data: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    url: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    name: Option<std::borrow::Cow<'a, str>>,
}

impl Serialize for ContentPart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut wire = Wire {
            kind: self.kind.as_str().into(),
            text: None,
            mime_type: None,
            data: None,
            url: None,
            name: None,
        };
        match &self.body {
            Body::Text(text) => wire.text = Some(text.as_str().into()),
            Body::Data(data) => wire.data = Some(BASE64.encode(data).into()),
            Body::Url(url) => wire.url = Some(url.as_str().into()),
        }
        if self.kind != PartKind::Text {
            wire.mime_type = Some(self.mime_type.as_str().into());
            wire.name = self.name.as_deref().map(Into::into);
        }
        wire.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ContentPart {
    /// Checks the contract's rules: a text part has `text`; any other part has a
    /// `mimeType` and exactly one of `data` (standard base64) and `url`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = Wire::deserialize(deserializer)?;
        let kind = match &*wire.kind {
            "text" => PartKind::Text,
            "image" => PartKind::Image,
            "file" | "document" => PartKind::File,
            "audio" => PartKind::Audio,
            other => {
                return Err(D::Error::custom(format_args!(
                    "unknown content part type \"{other}\" (expected text, image, file or audio)"
                )));
            }
        };
        if kind == PartKind::Text {
            let text = wire
                .text
                .ok_or_else(|| D::Error::custom("a text content part needs `text`"))?;
            return Ok(ContentPart::text(text));
        }
        let mime = wire.mime_type.filter(|m| !m.is_empty()).ok_or_else(|| {
            D::Error::custom(format_args!("a {kind} content part needs a `mimeType`"))
        })?;
        let data = wire.data.filter(|d| !d.is_empty());
        let url = wire.url.filter(|u| !u.is_empty());
        let body = match (data, url) {
            (Some(data), None) => Body::Data(
                BASE64
                    .decode(data.as_bytes())
                    .map_err(|e| {
                        D::Error::custom(format_args!(
                            "the {kind} content part's `data` is not base64: {e}"
                        ))
                    })?
                    .into(),
            ),
            (None, Some(url)) => Body::Url(url.into_owned()),
            (Some(_), Some(_)) => {
                return Err(D::Error::custom(format_args!(
                    "a {kind} content part carries both `data` and `url`: exactly one is allowed"
                )));
            }
            (None, None) => {
                return Err(D::Error::custom(format_args!(
                    "a {kind} content part carries neither `data` nor `url`: exactly one is required"
                )));
            }
        };
        let name = wire.name.map(|n| n.into_owned()).filter(|n| !n.is_empty());
        ContentPart::media(kind, mime.into_owned(), body, name).map_err(D::Error::custom)
    }
}

/// Why a [`ContentPart`] could not be made: the file could not be read, its extension is
/// not in [`MEDIA_TYPES`], it is empty, or a URL is not one a part can carry. The message
/// names the path or URL when there is one.
#[derive(Debug)]
pub struct ContentError {
    subject: Option<String>,
    cause: Cause,
}

#[derive(Debug)]
enum Cause {
    Io {
        kind: PartKind,
        source: std::io::Error,
    },
    Extension(String),
    NoMimeType(PartKind),
    Empty(PartKind),
    TextKind,
    DataUrl(&'static str),
    NotAUrl,
}

impl ContentError {
    /// The file that was read, when the part came from a path.
    pub fn path(&self) -> Option<&Path> {
        match self.cause {
            Cause::NotAUrl | Cause::DataUrl(_) => None,
            _ => self.subject.as_deref().map(Path::new),
        }
    }
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(subject) = &self.subject {
            write!(f, "{subject}: ")?;
        }
        match &self.cause {
            Cause::Io { kind, source } => write!(f, "cannot read the {kind} file: {source}"),
            Cause::Extension(ext) => {
                match ext.as_str() {
                    "" => f.write_str("no file extension")?,
                    ext => write!(f, "unknown file extension \".{ext}\"")?,
                }
                let known: Vec<&str> = MEDIA_TYPES.iter().map(|(ext, ..)| *ext).collect();
                write!(
                    f,
                    " (give the MIME type explicitly, or use one of the media table's: {})",
                    known.join(", ")
                )
            }
            Cause::NoMimeType(kind) => write!(f, "{} part needs a MIME type", kind.article()),
            Cause::Empty(kind) => {
                write!(
                    f,
                    "{} part needs content, and this one is empty",
                    kind.article()
                )
            }
            Cause::TextKind => f.write_str("a text part is made with `ContentPart::text`"),
            Cause::DataUrl(why) => f.write_str(why),
            Cause::NotAUrl => f.write_str("a part's URL must be https:, http: or a data: URL"),
        }
    }
}

impl std::error::Error for ContentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.cause {
            Cause::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

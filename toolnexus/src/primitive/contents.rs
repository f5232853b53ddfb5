//! [`ResourceContents`]: what reading a resource gives, text or bytes, with a MIME type.

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::tool::content::{ContentPart, PartBody};

/// The contents of a resource: text or bytes, the URI they were read from, and a MIME
/// type.
///
/// A resource function returns them (or something that becomes them, see
/// [`IntoResourceContents`](crate::primitive::IntoResourceContents)); `McpClient` gives them back for
/// another server's resources. Contents made without a URI get the URI that was read, and
/// contents without a MIME type get the resource's (`text/plain` for text when it has
/// none, and the type the bytes show for bytes, else `application/octet-stream`).
///
/// Wire form, as MCP has it: `{"uri", "mimeType"?, "text"}` or `{"uri", "mimeType"?,
/// "blob": <base64>}`.
///
/// ```
/// use toolnexus::primitive::ResourceContents;
///
/// let text = ResourceContents::text("# Readme").with_mime_type("text/markdown");
/// assert_eq!(text.as_text(), Some("# Readme"));
/// let bytes = ResourceContents::blob(vec![0x89, b'P', b'N', b'G']).with_uri("img://logo");
/// assert_eq!(bytes.as_bytes(), Some(&[0x89, b'P', b'N', b'G'][..]));
/// assert_eq!(
///     serde_json::to_value(&bytes).unwrap(),
///     serde_json::json!({"uri": "img://logo", "blob": "iVBORw=="})
/// );
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ResourceContents {
    uri: String,
    mime_type: Option<String>,
    body: Body,
    /// The contents' `_meta` object (an MCP Apps view's `ui` settings, say).
    meta: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Clone, PartialEq, Eq)]
enum Body {
    Text(String),
    Blob(Arc<[u8]>),
}

impl ResourceContents {
    /// Text contents (a MIME type of `text/plain` unless one is given).
    pub fn text(text: impl Into<String>) -> Self {
        ResourceContents {
            uri: String::new(),
            mime_type: None,
            body: Body::Text(text.into()),
            meta: None,
        }
    }

    /// Binary contents, sent base64-encoded.
    pub fn blob(bytes: impl Into<Vec<u8>>) -> Self {
        ResourceContents {
            uri: String::new(),
            mime_type: None,
            body: Body::Blob(bytes.into().into()),
            meta: None,
        }
    }

    /// The same contents, read from `uri`.
    #[must_use]
    pub fn with_uri(mut self, uri: impl Into<String>) -> Self {
        self.uri = uri.into();
        self
    }

    /// The same contents, of MIME type `mime_type`.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The same contents with a `_meta` object (MCP's `_meta` of resource contents: an
    /// MCP Apps view puts its `ui` settings there, see [`McpApp`](crate::primitive::McpApp)).
    #[must_use]
    pub fn with_meta(mut self, meta: serde_json::Map<String, serde_json::Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The contents' `_meta` object, if they have one.
    pub fn meta(&self) -> Option<&serde_json::Map<String, serde_json::Value>> {
        self.meta.as_ref()
    }

    /// The URI the contents were read from (empty until a read fills it in).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The MIME type, if one was given.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// The text, for text contents.
    pub fn as_text(&self) -> Option<&str> {
        match &self.body {
            Body::Text(text) => Some(text),
            Body::Blob(_) => None,
        }
    }

    /// The bytes, for binary contents.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Text(_) => None,
            Body::Blob(bytes) => Some(bytes),
        }
    }

    /// Whether these are text contents.
    pub fn is_text(&self) -> bool {
        matches!(self.body, Body::Text(_))
    }

    /// The bytes of binary contents, base64-encoded (as MCP carries them).
    pub fn base64(&self) -> Option<String> {
        self.as_bytes().map(|bytes| BASE64.encode(bytes))
    }

    /// Fills in what a read knows and the function did not say: the URI read, and the
    /// resource's MIME type (`text/plain` for text when there is none).
    pub(crate) fn complete(mut self, uri: &str, mime_type: Option<&str>) -> Self {
        if self.uri.is_empty() {
            uri.clone_into(&mut self.uri);
        }
        if self.mime_type.is_none() {
            self.mime_type = match (mime_type, &self.body) {
                (Some(mime), _) => Some(mime.to_owned()),
                (None, Body::Text(_)) => Some("text/plain".to_owned()),
                // Bytes that say what they are (an image, a PDF…), else bytes.
                (None, Body::Blob(bytes)) => Some(
                    infer::get(bytes)
                        .map_or("application/octet-stream", |kind| kind.mime_type())
                        .to_owned(),
                ),
            };
        }
        self
    }
}

impl From<ContentPart> for ResourceContents {
    /// An image, a file or an audio clip, as binary contents of its MIME type; a text
    /// part as text contents, and a part linked by URL as text contents holding the URL.
    fn from(part: ContentPart) -> Self {
        let mime = part.mime_type().to_owned();
        match part.body() {
            PartBody::Data(data) => ResourceContents::blob(data.to_vec()),
            PartBody::Text(text) => ResourceContents::text(text),
            PartBody::Url(url) => ResourceContents::text(url),
        }
        .with_mime_type(if part.url().is_some() {
            "text/uri-list".to_owned()
        } else {
            mime
        })
    }
}

impl fmt::Debug for ResourceContents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("ResourceContents");
        out.field("uri", &self.uri)
            .field("mime_type", &self.mime_type);
        match &self.body {
            Body::Text(text) => out.field("text", text),
            Body::Blob(bytes) => out.field("blob_len", &bytes.len()),
        };
        out.finish()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire<'a> {
    #[serde(borrow)]
    uri: std::borrow::Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none", borrow)]
    mime_type: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none", borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blob: Option<String>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<serde_json::Map<String, serde_json::Value>>,
}

impl Serialize for ResourceContents {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Wire {
            uri: self.uri.as_str().into(),
            mime_type: self.mime_type.as_deref().map(Into::into),
            text: self.as_text().map(Into::into),
            blob: self.base64(),
            meta: self.meta.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ResourceContents {
    /// Either `text` or `blob` (base64) must be there, not both.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = Wire::deserialize(deserializer)?;
        let body = match (wire.text, wire.blob) {
            (Some(text), None) => Body::Text(text.into_owned()),
            (None, Some(blob)) => Body::Blob(
                BASE64
                    .decode(blob.trim())
                    .map_err(|e| {
                        D::Error::custom(format_args!("resource blob is not base64: {e}"))
                    })?
                    .into(),
            ),
            (Some(_), Some(_)) => {
                return Err(D::Error::custom(
                    "resource contents have both `text` and `blob`",
                ));
            }
            (None, None) => {
                return Err(D::Error::custom(
                    "resource contents have neither `text` nor `blob`",
                ));
            }
        };
        Ok(ResourceContents {
            uri: wire.uri.into_owned(),
            mime_type: wire.mime_type.map(std::borrow::Cow::into_owned),
            body,
            meta: wire.meta,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_wire_form_is_mcps_both_ways() {
        let text = ResourceContents::text("hi").complete("test://a", None);
        assert_eq!(
            serde_json::to_value(&text).unwrap(),
            json!({"uri": "test://a", "mimeType": "text/plain", "text": "hi"})
        );
        let blob: ResourceContents = serde_json::from_value(
            json!({"uri": "b://x", "mimeType": "image/png", "blob": "AAE="}),
        )
        .unwrap();
        assert_eq!(blob.as_bytes(), Some(&[0u8, 1][..]));
        assert_eq!(blob.mime_type(), Some("image/png"));
        let neither = serde_json::from_value::<ResourceContents>(json!({"uri": "x://"}));
        assert!(neither.unwrap_err().to_string().contains("neither"));
        let bad = serde_json::from_value::<ResourceContents>(json!({"uri": "x://", "blob": "%%"}));
        assert!(bad.unwrap_err().to_string().contains("not base64"));
    }

    #[test]
    fn a_read_fills_in_the_uri_and_mime_type_the_function_left_out() {
        let given = ResourceContents::text("x")
            .with_uri("a://given")
            .with_mime_type("text/csv");
        let filled = given.clone().complete("a://read", Some("text/markdown"));
        assert_eq!(filled, given);
        let blob = ResourceContents::blob(vec![1]).complete("a://read", None);
        assert_eq!(
            (blob.uri(), blob.mime_type()),
            ("a://read", Some("application/octet-stream"))
        );
        let pdf = ResourceContents::blob(b"%PDF-1.4\n".to_vec()).complete("a://read", None);
        assert_eq!(pdf.mime_type(), Some("application/pdf"));
    }
}

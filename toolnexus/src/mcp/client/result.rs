//! A `tools/call` result as a [`ToolResult`], read from its JSON wire form so that every
//! content type, known or not, is accounted for.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::mcp::PENDING_META_KEY;
use crate::tool::content::{ContentPart, PartKind};
use crate::tool::request::Request;
use crate::tool::result::ToolResult;

/// Maps a `tools/call` result (its JSON form) to a [`ToolResult`]:
///
/// - text items become `output`, one per line;
/// - image and audio items become `parts`; an embedded resource whose blob is a PDF, an
///   image or an audio clip becomes a part too (so a toolnexus server's PDF comes back as
///   one);
/// - other embedded resources and resource links are described in `output` and kept, as
///   sent, in `metadata["resources"]` / `metadata["resourceLinks"]`;
/// - `structuredContent` is kept in `metadata["structuredContent"]` (and is the output
///   when there is no text);
/// - `isError` becomes `is_error`; `_meta` is kept in `metadata["_meta"]`;
/// - a `_meta["toolnexus/pending"]` request (a toolnexus server's suspension) makes the
///   result pending again.
///
/// When only parts came back, `output` is their summaries, so the model never reads an
/// empty result for an image.
pub(super) fn tool_result(wire: &Value) -> ToolResult {
    let meta = wire.get("_meta").and_then(Value::as_object);
    if let Some(request) = meta
        .and_then(|m| m.get(PENDING_META_KEY))
        .and_then(|r| serde_json::from_value::<Request>(r.clone()).ok())
    {
        return ToolResult::pending(request);
    }
    let mut text: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut parts: Vec<ContentPart> = Vec::new();
    let mut metadata = Map::new();
    let mut resources = Vec::new();
    let mut links = Vec::new();
    let mut unknown = Vec::new();
    let items = wire.get("content").and_then(Value::as_array);
    for item in items.into_iter().flatten() {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "text" => text.push(str_of(item, "text").to_owned()),
            "image" | "audio" => {
                let part_kind = if kind == "image" {
                    PartKind::Image
                } else {
                    PartKind::Audio
                };
                let mime = str_of(item, "mimeType");
                match decode_part(part_kind, mime, str_of(item, "data")) {
                    Ok(part) => parts.push(part),
                    Err(why) => notes.push(format!("[{kind} ({mime}) not readable: {why}]")),
                }
            }
            "resource" => {
                let resource = item.get("resource").cloned().unwrap_or(Value::Null);
                match media_part(&resource) {
                    Some(part) => parts.push(part),
                    None => {
                        notes.push(describe_resource(&resource));
                        resources.push(resource);
                    }
                }
            }
            "resource_link" => {
                notes.push(describe_link(item));
                links.push(item.clone());
            }
            other => {
                notes.push(format!("[content of type `{other}`, kept in metadata]"));
                unknown.push(item.clone());
            }
        }
    }
    let structured = wire.get("structuredContent");
    let mut lines = text;
    if lines.is_empty()
        && let Some(value) = structured
    {
        lines.push(value.to_string());
    }
    lines.extend(notes);
    if lines.is_empty() {
        lines.extend(parts.iter().map(ContentPart::summary));
    }
    if let Some(value) = structured {
        metadata.insert("structuredContent".to_owned(), value.clone());
    }
    if !resources.is_empty() {
        metadata.insert("resources".to_owned(), Value::Array(resources));
    }
    if !links.is_empty() {
        metadata.insert("resourceLinks".to_owned(), Value::Array(links));
    }
    if !unknown.is_empty() {
        metadata.insert("content".to_owned(), Value::Array(unknown));
    }
    if let Some(meta) = meta {
        metadata.insert("_meta".to_owned(), Value::Object(meta.clone()));
    }
    ToolResult {
        output: lines.join("\n"),
        is_error: wire
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        parts: (!parts.is_empty()).then_some(parts),
        metadata: (!metadata.is_empty()).then_some(metadata),
    }
}

fn str_of<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or("")
}

fn decode_part(kind: PartKind, mime: &str, data: &str) -> Result<ContentPart, String> {
    let bytes = STANDARD
        .decode(data.trim())
        .map_err(|e| format!("its data is not base64 ({e})"))?;
    ContentPart::from_bytes(kind, mime, bytes).map_err(|e| e.to_string())
}

/// An embedded blob that is a PDF, an image or an audio clip, as a part.
fn media_part(resource: &Value) -> Option<ContentPart> {
    let blob = resource.get("blob")?.as_str()?;
    let mime = str_of(resource, "mimeType");
    let kind = if mime == "application/pdf" {
        PartKind::File
    } else if mime.starts_with("image/") {
        PartKind::Image
    } else if mime.starts_with("audio/") {
        PartKind::Audio
    } else {
        return None;
    };
    decode_part(kind, mime, blob).ok()
}

fn describe_resource(resource: &Value) -> String {
    let uri = str_of(resource, "uri");
    let mime = resource.get("mimeType").and_then(Value::as_str);
    let label = match mime {
        Some(mime) => format!("resource {uri} ({mime})"),
        None => format!("resource {uri}"),
    };
    if let Some(text) = resource.get("text").and_then(Value::as_str) {
        format!("[{label}]\n{text}")
    } else if let Some(blob) = resource.get("blob").and_then(Value::as_str) {
        // Base64: four characters for three bytes.
        let bytes = blob.trim_end_matches('=').len() * 3 / 4;
        format!("[{label}: {bytes} bytes of binary data, kept in metadata]")
    } else {
        format!("[{label}]")
    }
}

fn describe_link(link: &Value) -> String {
    let uri = str_of(link, "uri");
    let name = link
        .get("title")
        .or_else(|| link.get("name"))
        .and_then(Value::as_str)
        .unwrap_or(uri);
    let mut line = format!("[resource link: {name} <{uri}>");
    if let Some(mime) = link.get("mimeType").and_then(Value::as_str) {
        line.push_str(&format!(" ({mime})"));
    }
    if let Some(description) = link.get("description").and_then(Value::as_str) {
        line.push_str(&format!(": {description}"));
    }
    line.push(']');
    line
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PNG: &[u8] = &[
        0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, b'I', b'H', b'D', b'R',
    ];

    #[test]
    fn text_images_resources_and_links() {
        let wire = json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": STANDARD.encode(PNG), "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b", "description": "the b file"},
                {"type": "hologram", "data": 1}
            ],
            "structuredContent": {"n": 1},
            "isError": true,
            "_meta": {"k": "v"}
        });
        let result = tool_result(&wire);
        assert!(result.is_error);
        assert_eq!(
            result.output,
            "hello\n[resource file:///a.txt (text/plain)]\nA\n[resource link: b <file:///b>: the b file]\n[content of type `hologram`, kept in metadata]"
        );
        assert_eq!(result.parts.as_ref().map(Vec::len), Some(1));
        let metadata = result.metadata.unwrap();
        assert_eq!(metadata["structuredContent"], json!({"n": 1}));
        assert_eq!(metadata["resources"][0]["uri"], "file:///a.txt");
        assert_eq!(metadata["resourceLinks"][0]["uri"], "file:///b");
        assert_eq!(metadata["content"][0]["type"], "hologram");
        assert_eq!(metadata["_meta"], json!({"k": "v"}));
    }

    #[test]
    fn parts_alone_are_summarized_and_structured_content_alone_is_the_output() {
        let image = json!({"content": [{"type": "image", "data": STANDARD.encode(PNG), "mimeType": "image/png"}]});
        assert_eq!(tool_result(&image).output, "image (image/png, 16 bytes)");
        let structured = json!({"content": [], "structuredContent": {"sum": 3}});
        assert_eq!(tool_result(&structured).output, r#"{"sum":3}"#);
        let bad = json!({"content": [{"type": "image", "data": "%%%", "mimeType": "image/png"}]});
        assert!(
            tool_result(&bad)
                .output
                .starts_with("[image (image/png) not readable:")
        );
    }

    #[test]
    fn a_pending_meta_is_a_suspension_again() {
        let request = Request::input("Which environment?").with_id("r-1");
        let wire = json!({
            "content": [{"type": "text", "text": "Which environment?"}],
            "isError": true,
            "_meta": {PENDING_META_KEY: request}
        });
        let result = tool_result(&wire);
        assert!(result.is_pending());
        assert_eq!(result.pending_request(), Some(request));
    }
}

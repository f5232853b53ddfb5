//! toolnexus values in MCP's shapes: a [`Tool`] as a `tools/list` entry, a [`ToolResult`]
//! as a `tools/call` result.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, MetaObject, ResourceContents};
use serde_json::{Map, Value};

use crate::tool::Tool;
use crate::tool::content::{ContentPart, PartBody, PartKind};
use crate::tool::result::{PENDING_KEY, STRUCTURED_KEY, ToolResult};

/// The `_meta` key under which a suspended call's [`Request`](crate::Request) travels.
pub const PENDING_META_KEY: &str = "toolnexus/pending";

/// A tool as an MCP `tools/list` entry: its entry of
/// [`Toolkit::listing`](crate::Toolkit::listing)`(Profile::Mcp)`, exactly as in
/// [`Toolkit::to_mcp`](crate::Toolkit::to_mcp): the name verbatim, the description, the
/// input schema in MCP's profile (a hand-written schema's `"format": "uint32"`, say, is
/// listed as `to_mcp` lists it) and, for a tool that has one, the output schema
/// ([`Tool::output_schema`]). Beside that entry, a tool with an MCP Apps view or
/// visibility ([`Tool::ui`]) carries them in `_meta` (which `to_mcp` leaves out).
///
/// The schema is the tool's [`mcp`](crate::schema::profile::mcp) profile (`"type": "object"` at
/// the root, which MCP clients require); a tool whose schema has no MCP form is listed as
/// accepting any object.
pub fn mcp_tool(tool: &Tool) -> rmcp::model::Tool {
    let mut listed = mcp_entry(tool);
    // An MCP Apps view and visibility (see `Tool::with_ui`), in `_meta`.
    if let Some(ui) = tool.ui() {
        let mut meta = listed.meta.take().map(|m| m.0).unwrap_or_default();
        meta.extend(ui.meta());
        listed.meta = Some(MetaObject(meta));
    }
    listed
}

fn mcp_entry(tool: &Tool) -> rmcp::model::Tool {
    let entry = tool
        .entry(crate::schema::profile::Profile::Mcp)
        .value
        .clone();
    match entry.map(serde_json::from_value::<rmcp::model::Tool>) {
        Some(Ok(listed)) => listed,
        Some(Err(error)) => {
            tracing::debug!(tool = tool.name(), %error, "MCP entry not in rmcp's shape");
            raw_tool(tool)
        }
        None => raw_tool(tool),
    }
}

/// The entry built field by field: the MCP profile's schema, or any object when the tool
/// has no MCP form.
fn raw_tool(tool: &Tool) -> rmcp::model::Tool {
    let schema = match tool.profile(crate::schema::profile::Profile::Mcp) {
        Ok(Value::Object(map)) => map.clone(),
        _ => {
            let mut any = Map::new();
            any.insert("type".to_owned(), Value::from("object"));
            any
        }
    };
    let mut listed = rmcp::model::Tool::new(
        tool.name().to_owned(),
        tool.description().to_owned(),
        Arc::new(schema),
    );
    // An output schema is always an object schema (see `Tool::with_output_schema`).
    if let Some(Value::Object(output)) = tool.output_schema() {
        listed.output_schema = Some(Arc::new(output.clone()));
    }
    listed
}

/// A [`ToolResult`] as an MCP `tools/call` result, for the tool named `tool`.
///
/// - `output` becomes the first content item, a text item (always present, so a client
///   that reads only text sees what the model would);
/// - each part follows: an image as an `image` item, audio as an `audio` item, a PDF as an
///   embedded `resource` (a blob with URI `toolnexus://TOOL/parts/N` and its MIME type),
///   each carrying its base64 data;
/// - a successful result's structured value ([`ToolResult::structured`], an object) becomes
///   `structuredContent`, beside the text (which a `Json<T>` return sets to the same
///   value's JSON text); errors and suspensions carry none, and a structured value that is
///   not an object (possible only from a tool without an output schema) is not sent;
/// - `is_error` becomes `isError`;
/// - a pending result (a suspension) is an error result whose text is the request's prompt,
///   followed by the request's URL as a second text item when it has one; the request
///   itself travels in `_meta["toolnexus/pending"]` for hosts that can resolve it (without
///   the state of a halted agent run as a tool, which is not the client's to read).
///
/// `metadata` other than `pending` and `structured` is bookkeeping for the host and is not
/// sent.
pub fn call_tool_result(tool: &str, mut result: ToolResult) -> CallToolResult {
    if let Some(request) = result.pending_request() {
        let mut content = vec![ContentBlock::text(request.prompt.clone())];
        if let Some(url) = &request.url {
            content.push(ContentBlock::text(url.clone()));
        }
        // The request travels as the tool wrote it into `metadata.pending`, not serialized
        // a second time, unless it carries a halted agent's state, which stays here.
        let pending = match result
            .metadata
            .as_mut()
            .and_then(|metadata| metadata.remove(PENDING_KEY))
        {
            _ if request.carries_agent_state() => request.shown().to_value(),
            Some(pending) => pending,
            None => Value::Null,
        };
        let mut meta = Map::new();
        meta.insert(PENDING_META_KEY.to_owned(), pending);
        let mut mapped = CallToolResult::error(content);
        mapped.meta = Some(MetaObject(meta));
        return mapped;
    }
    let structured = match &mut result.metadata {
        Some(metadata) if !result.is_error => {
            metadata.remove(STRUCTURED_KEY).filter(Value::is_object)
        }
        _ => None,
    };
    let mut content = Vec::with_capacity(1 + result.parts.as_ref().map_or(0, Vec::len));
    content.push(ContentBlock::text(result.output));
    for (index, part) in result.parts.iter().flatten().enumerate() {
        content.push(part_block(tool, index, part));
    }
    if result.is_error {
        CallToolResult::error(content)
    } else {
        let mut mapped = CallToolResult::success(content);
        mapped.structured_content = structured;
        mapped
    }
}

fn part_block(tool: &str, index: usize, part: &ContentPart) -> ContentBlock {
    mcp_block(part, || format!("toolnexus://{tool}/parts/{index}"))
}

/// A part as MCP content: text as `text`, an image or audio clip as `image` / `audio`,
/// a file as an embedded blob resource under `uri`, and a part linked by URL as a
/// `resource_link` to that URL (MCP has no inline form for a link).
pub(crate) fn mcp_block(part: &ContentPart, uri: impl FnOnce() -> String) -> ContentBlock {
    let mime = part.mime_type();
    match (part.kind(), part.body()) {
        (_, PartBody::Text(text)) => ContentBlock::text(text),
        (_, PartBody::Url(url)) => {
            let name = part.name().unwrap_or(url);
            ContentBlock::resource_link(rmcp::model::Resource::new(url, name).with_mime_type(mime))
        }
        (PartKind::Image, _) => ContentBlock::image(part.base64().unwrap_or_default(), mime),
        (PartKind::Audio, _) => ContentBlock::audio(part.base64().unwrap_or_default(), mime),
        _ => ContentBlock::resource(
            ResourceContents::blob(part.base64().unwrap_or_default(), uri()).with_mime_type(mime),
        ),
    }
}

//! `read`, `write` and `edit`.

use std::path::Path;

use serde_json::Value;

use super::env::{Args, Env, int, os_error, universal_newlines};
use super::fs::Target;
use crate::tool::content::{ContentPart, PartKind, media_type};
use crate::tool::result::ToolResult;

/// The media files `read` returns as a content part: those of the contract's extension
/// table, with its MIME type and part kind.
fn media_kind(path: &Path) -> Option<(&'static str, PartKind)> {
    media_type(path.extension()?.to_str()?)
}

/// A file's text, as the tools read it: UTF-8, with universal newlines, at most the
/// read limit. A file that is not UTF-8, or that holds a NUL byte, is binary and refused.
pub(super) fn read_text(env: &Env, path: &Target, given: &str) -> Result<String, String> {
    decode(env.load(path, given)?, given)
}

/// Bytes read as the tools read text: UTF-8 without NUL bytes, universal newlines.
pub(super) fn decode(bytes: Vec<u8>, given: &str) -> Result<String, String> {
    let text = String::from_utf8(bytes).map_err(|_| format!("{given} is not valid UTF-8 text"))?;
    if text.contains('\0') {
        return Err(format!(
            "{given} is a binary file (it contains NUL bytes), not text"
        ));
    }
    Ok(universal_newlines(text))
}

pub(super) fn read(env: &Env, value: &Value) -> ToolResult {
    let args = Args::new("read", value);
    let given = match args.required("path") {
        Ok(given) => given,
        Err(error) => return ToolResult::error(error),
    };
    let path = match env.resolve(given) {
        Ok(path) => path,
        Err(error) => return args.fail(error),
    };
    if let Some((mime, kind)) = media_kind(&path.shown) {
        let bytes = match env.load(&path, given) {
            Ok(bytes) => bytes,
            Err(error) => return args.fail(error),
        };
        let size = bytes.len();
        let name = path
            .shown
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        return match ContentPart::from_bytes(kind, mime, bytes) {
            Ok(part) => ToolResult::ok(format!("{given} ({mime}, {size} bytes)"))
                .with_parts([part.with_name(name.unwrap_or_default())]),
            Err(error) => args.fail(format!("{given}: {error}")),
        };
    }
    let content = match read_text(env, &path, given) {
        Ok(content) => content,
        Err(error) => return args.fail(error),
    };
    if args.get("offset").is_none() && args.get("limit").is_none() {
        return ToolResult::ok(content);
    }
    let lines: Vec<&str> = content.split('\n').collect();
    let offset = args.number("offset").map_or(1, |o| int(o).max(1));
    let start = usize::try_from(offset - 1).unwrap_or(usize::MAX);
    let limit = match args.number("limit") {
        Some(limit) => usize::try_from(int(limit).max(0)).unwrap_or(usize::MAX),
        None => lines.len().saturating_sub(start),
    };
    let end = start.saturating_add(limit).min(lines.len());
    let window = if start < end {
        &lines[start..end]
    } else {
        &[][..]
    };
    ToolResult::ok(window.join("\n"))
}

pub(super) fn write(env: &Env, value: &Value) -> ToolResult {
    let args = Args::new("write", value);
    let (given, content) = match (args.required("path"), args.text("content")) {
        (Ok(given), Ok(content)) => (given, content),
        (Err(error), _) | (_, Err(error)) => return ToolResult::error(error),
    };
    let path = match env.resolve(given) {
        Ok(path) => path,
        Err(error) => return args.fail(error),
    };
    if let Some(parent) = path.parent()
        && let Err(e) = parent.create_dir_all()
    {
        return args.fail(os_error(&e, &parent.shown));
    }
    if let Err(e) = path.write(content.as_bytes()) {
        return args.fail(os_error(&e, &path.shown));
    }
    let bytes = content.len();
    ToolResult::ok(format!("Wrote {bytes} bytes to {given}")).with_metadata("bytes", bytes)
}

pub(super) fn edit(env: &Env, value: &Value) -> ToolResult {
    let args = Args::new("edit", value);
    let given = match args.required("path") {
        Ok(given) => given,
        Err(error) => return ToolResult::error(error),
    };
    let old = match args.get("oldString") {
        Some(Value::String(old)) if !old.is_empty() => old.as_str(),
        _ => return args.fail("oldString is required"),
    };
    let new = match args.text("newString") {
        Ok(new) => new,
        Err(error) => return ToolResult::error(error),
    };
    let path = match env.resolve(given) {
        Ok(path) => path,
        Err(error) => return args.fail(error),
    };
    let content = match read_text(env, &path, given) {
        Ok(content) => content,
        Err(error) => return args.fail(error),
    };
    let count = content.matches(old).count();
    if count == 0 {
        return args.fail(format!("oldString not found in {given}"));
    }
    let replace_all = args.get("replaceAll") == Some(&Value::Bool(true));
    let (next, n) = if replace_all {
        (content.replace(old, new), count)
    } else if count > 1 {
        return args.fail(format!(
            "oldString is not unique in {given} ({count} occurrences); use replaceAll"
        ));
    } else {
        (content.replacen(old, new, 1), 1)
    };
    if let Err(e) = path.write(next.as_bytes()) {
        return args.fail(os_error(&e, &path.shown));
    }
    let plural = if n == 1 { "" } else { "s" };
    ToolResult::ok(format!("Edited {given} ({n} replacement{plural})"))
        .with_metadata("replacements", n)
}

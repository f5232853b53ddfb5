//! The URL template of an [`HttpTool`](super::HttpTool): `{name}` placeholders, filled
//! from the arguments, each value percent-encoded, and refused when it would climb the
//! URL's path.

use serde_json::{Map, Value, json};

/// A URL with `{name}` placeholders.
#[derive(Debug)]
pub(super) struct Template(Vec<Piece>);

#[derive(Debug)]
enum Piece {
    Text(String),
    /// A placeholder's name, and whether it stands in the path (before any `?` or `#`).
    Placeholder(String, bool),
}

/// Why a URL could not be filled.
pub(super) enum Unfilled {
    /// No argument for this placeholder.
    Missing(String),
    /// The value of this path placeholder is, or holds, a dot segment.
    DotSegment(String),
}

impl Template {
    pub(super) fn parse(url: &str) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut rest = url;
        let mut in_path = true;
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err(format!("the URL `{url}` has a `}}` without its `{{`"));
            }
            let close = rest[open..]
                .find('}')
                .map(|c| open + c)
                .ok_or_else(|| format!("the URL `{url}` has a `{{` without its `}}`"))?;
            let name = &rest[open + 1..close];
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return Err(format!(
                    "the URL `{url}` has the placeholder `{{{name}}}`; a placeholder is a name of letters, digits and `_`"
                ));
            }
            let text = &rest[..open];
            in_path &= !text.contains(['?', '#']);
            pieces.push(Piece::Text(text.to_owned()));
            pieces.push(Piece::Placeholder(name.to_owned(), in_path));
            rest = &rest[close + 1..];
        }
        pieces.push(Piece::Text(rest.to_owned()));
        Ok(Template(pieces))
    }

    fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Piece::Placeholder(name, _) => Some(name.as_str()),
            Piece::Text(_) => None,
        })
    }

    /// The URL with each placeholder's value percent-encoded. A value that is missing
    /// (`value` gives `None`), or that would move a path placeholder off its segment, stops
    /// the filling.
    pub(super) fn fill(
        &self,
        value: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Result<String, Unfilled> {
        let mut out = String::new();
        for piece in &self.0 {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Placeholder(name, in_path) => match value(name) {
                    Some(v) if *in_path && climbs(&v) => {
                        return Err(Unfilled::DotSegment(name.clone()));
                    }
                    Some(v) => encode_component(&v, &mut out),
                    None => return Err(Unfilled::Missing(name.clone())),
                },
            }
        }
        Ok(out)
    }

    pub(super) fn schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for name in self.placeholders() {
            properties.insert(name.to_owned(), json!({"type": "string"}));
            required.push(Value::String(name.to_owned()));
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false
        })
    }
}

/// Whether `value` has a `.` or `..` segment (split at `/` and `\`), as it is or once
/// percent-decoded, as many times as it still decodes (`%252e` is `%2e`, which is `.`): a
/// server that decodes a path before resolving it would climb out of the declared
/// endpoint with it. Each decoding shortens the text, so the loop ends.
fn climbs(value: &str) -> bool {
    let mut text = std::borrow::Cow::Borrowed(value);
    loop {
        if text.split(['/', '\\']).any(|s| s == "." || s == "..") {
            return true;
        }
        let decoded = percent_encoding::percent_decode_str(&text).decode_utf8_lossy();
        if decoded == text {
            return false;
        }
        text = std::borrow::Cow::Owned(decoded.into_owned());
    }
}

/// Percent-encodes as JavaScript's `encodeURIComponent`: all but letters, digits and
/// `-_.!~*'()`.
fn encode_component(text: &str, out: &mut String) {
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments_are_found_however_they_are_encoded() {
        for value in [
            ".",
            "..",
            "%2e",
            "%2E%2e",
            ".%2E",
            "%252e%252E",
            "%25252e",
            "a/..",
            "..\\b",
            "a%2F..%2Fb",
        ] {
            assert!(climbs(value), "{value}");
        }
        for value in [
            "",
            "...",
            "a.b",
            ".a",
            "a.",
            "%2e%2e%2e",
            "%zz",
            "%",
            "v1.2",
        ] {
            assert!(!climbs(value), "{value}");
        }
    }

    #[test]
    fn only_placeholders_in_the_path_are_checked() {
        let template = Template::parse("http://h/a/{p}/b?q={q}#{f}").unwrap();
        let filled = template.fill(&mut |name| Some(if name == "p" { "x" } else { ".." }.into()));
        assert_eq!(filled.ok().as_deref(), Some("http://h/a/x/b?q=..#.."));
        let refused = template.fill(&mut |_| Some("..".into()));
        assert!(matches!(refused, Err(Unfilled::DotSegment(name)) if name == "p"));
    }
}

//! URI templates of RFC 6570 level 1 (`users://{id}/profile`): parsed once, matched
//! against the URIs clients read, and expanded with values.
//!
//! Level 1 is simple string expansion: `{name}` stands for one value, percent-encoded
//! except for the unreserved characters (`A-Z a-z 0-9 - . _ ~`), so a value never holds a
//! `/`, `?` or `#` of its own. Two variables must be separated by a literal, so that a URI
//! matches one way only.

use std::fmt;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

/// Everything but the unreserved characters of RFC 3986 is encoded in a value.
const RESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A URI template, or a fixed URI (a template without variables).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

#[derive(Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// Why a URI or URI template cannot be a resource's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid resource URI `{template}`: {reason}")]
pub struct TemplateError {
    template: String,
    reason: String,
}

impl TemplateError {
    fn new(template: &str, reason: impl Into<String>) -> Self {
        TemplateError {
            template: template.to_owned(),
            reason: reason.into(),
        }
    }
}

impl UriTemplate {
    /// Parses `text`: a URI with a scheme (`scheme:…`), with `{name}` variables (letters,
    /// digits and `_`), each used once, no two side by side.
    pub(crate) fn parse(text: &str) -> Result<UriTemplate, TemplateError> {
        let scheme = text.split(':').next().unwrap_or_default();
        let scheme_ok = text.contains(':')
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if !scheme_ok {
            return Err(TemplateError::new(
                text,
                "a resource URI starts with a scheme, e.g. `docs://readme` or `file:///notes.txt`",
            ));
        }
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find(['{', '}']) {
            if rest.as_bytes()[open] == b'}' {
                return Err(TemplateError::new(text, "a `}` closes no `{`"));
            }
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            } else if matches!(parts.last(), Some(Part::Variable(_))) {
                return Err(TemplateError::new(
                    text,
                    "two variables side by side cannot be told apart; put a literal between them",
                ));
            }
            let after = &rest[open + 1..];
            let close = after
                .find('}')
                .ok_or_else(|| TemplateError::new(text, "a `{` is never closed"))?;
            let name = &after[..close];
            check_variable(text, name)?;
            if parts
                .iter()
                .any(|p| matches!(p, Part::Variable(v) if v == name))
            {
                return Err(TemplateError::new(
                    text,
                    format!("the variable `{name}` appears twice"),
                ));
            }
            parts.push(Part::Variable(name.to_owned()));
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate {
            text: text.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether this has variables (a template), or is a fixed URI.
    pub(crate) fn is_template(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Variable(_)))
    }

    /// The variables' names, in order.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Variable(name) => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The value of each variable when `uri` is an expansion of this template (decoded;
    /// none empty, none holding a `/`, `?` or `#`); `None` when it is not.
    ///
    /// A decoded value is refused too when it holds a `/` or `\` (encoded as `%2F`, `%5C`)
    /// or a NUL, or is `.` or `..`: a value is one path segment at most, so a function
    /// that builds a file path from it cannot be led out of its directory.
    pub(crate) fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut values = Vec::new();
        let mut at = 0;
        for (index, part) in self.parts.iter().enumerate() {
            let rest = &uri[at..];
            match part {
                Part::Literal(literal) => {
                    rest.starts_with(literal.as_str()).then_some(())?;
                    at += literal.len();
                }
                Part::Variable(name) => {
                    let end = match self.parts.get(index + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let raw = &rest[..end];
                    if raw.is_empty() || raw.contains(['/', '?', '#']) {
                        return None;
                    }
                    let value = percent_decode_str(raw).decode_utf8().ok()?;
                    if value.contains(['/', '\\', '\0']) || value == "." || value == ".." {
                        return None;
                    }
                    values.push((name.clone(), value.into_owned()));
                    at += end;
                }
            }
        }
        (at == uri.len()).then_some(values)
    }

    /// The URI with each variable replaced by its value in `values` (percent-encoded), or
    /// the name of the first variable that has none.
    pub(crate) fn expand<'a>(
        &self,
        values: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<String, String> {
        let mut uri = String::with_capacity(self.text.len());
        for part in &self.parts {
            match part {
                Part::Literal(literal) => uri.push_str(literal),
                Part::Variable(name) => {
                    let value = values(name).ok_or_else(|| name.clone())?;
                    uri.extend(utf8_percent_encode(value, RESERVED));
                }
            }
        }
        Ok(uri)
    }
}

fn check_variable(text: &str, name: &str) -> Result<(), TemplateError> {
    if name.is_empty() {
        return Err(TemplateError::new(text, "`{}` names no variable"));
    }
    if let Some(operator) = name.chars().next().filter(|c| "+#./;?&=,!@|".contains(*c)) {
        return Err(TemplateError::new(
            text,
            format!(
                "`{{{name}}}` uses the operator `{operator}` of a higher level of RFC 6570; \
                 only simple variables (`{{name}}`, level 1) are supported"
            ),
        ));
    }
    if name.contains([',', '*', ':']) {
        return Err(TemplateError::new(
            text,
            format!(
                "`{{{name}}}` uses lists or modifiers of a higher level of RFC 6570; only \
                 simple variables (`{{name}}`, level 1) are supported"
            ),
        ));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(TemplateError::new(
            text,
            format!("`{{{name}}}`: a variable name has only letters, digits and `_`"),
        ));
    }
    Ok(())
}

impl fmt::Debug for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn variables_match_between_literals_and_are_decoded() {
        let template = UriTemplate::parse("test://template/{id}/data").unwrap();
        assert!(template.is_template());
        assert_eq!(
            template.matches("test://template/123/data"),
            Some(pairs(&[("id", "123")]))
        );
        assert_eq!(
            template.matches("test://template/a%20b/data"),
            Some(pairs(&[("id", "a b")]))
        );
        assert_eq!(template.matches("test://template//data"), None);
        assert_eq!(template.matches("test://template/1/2/data"), None);
        assert_eq!(template.matches("test://template/1/data/more"), None);
        for escaping in ["..", ".", "%2E%2E", "a%2Fb", "%2F", "a%5Cb", "a%00"] {
            let uri = format!("test://template/{escaping}/data");
            assert_eq!(template.matches(&uri), None, "{uri}");
        }
        assert_eq!(
            template.matches("test://template/v1.2/data"),
            Some(pairs(&[("id", "v1.2")]))
        );
        let two = UriTemplate::parse("repo://{owner}/{name}").unwrap();
        assert_eq!(
            two.matches("repo://rust-lang/rust"),
            Some(pairs(&[("owner", "rust-lang"), ("name", "rust")]))
        );
        assert_eq!(two.matches("repo://rust-lang/"), None);
        assert_eq!(two.matches("repo://a/b?x"), None);
        let fixed = UriTemplate::parse("docs://readme").unwrap();
        assert!(!fixed.is_template());
        assert_eq!(fixed.matches("docs://readme"), Some(Vec::new()));
        assert_eq!(fixed.matches("docs://readme2"), None);
    }

    #[test]
    fn expansion_encodes_what_is_reserved() {
        let template = UriTemplate::parse("notes://{title}.md").unwrap();
        let uri = template.expand(|_| Some("a/b c.d")).unwrap();
        assert_eq!(uri, "notes://a%2Fb%20c.d.md");
        assert_eq!(template.expand(|_| None), Err("title".to_owned()));
    }

    #[test]
    fn only_level_one_templates_with_a_scheme_are_accepted() {
        for (bad, says) in [
            ("readme", "starts with a scheme"),
            ("x://{a}{b}", "side by side"),
            ("x://{a", "never closed"),
            ("x://a}", "closes no"),
            ("x://{+path}", "operator `+`"),
            ("x://{a,b}", "lists or modifiers"),
            ("x://{a*}", "lists or modifiers"),
            ("x://{a:3}", "lists or modifiers"),
            ("x://{a}/{a}", "appears twice"),
            ("x://{}", "names no variable"),
            ("x://{a-b}", "letters, digits"),
        ] {
            let error = UriTemplate::parse(bad).unwrap_err().to_string();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }
}

//! `${NAME}` in header values, expanded from the environment. The expanded values are
//! secrets (tokens): they are never logged, and messages that might echo them are scrubbed.
//!
//! Which variables a value may name is the caller's to say: [`expand`] reads any (the
//! MCP and A2A config files and HTTP tools, which the app itself writes), [`expand_only`]
//! only those a predicate allows (a model config, which may come from elsewhere: see
//! `providers/config/`).

/// Why a `${NAME}` was not expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unexpanded {
    /// The variable is not set.
    Unset(String),
    /// The variable may not be read from here.
    NotAllowed(String),
}

/// `text` with every `${NAME}` (`NAME` of ASCII letters, digits and `_`) replaced by the
/// environment variable `NAME`. Anything else, a lone `$` or `${` included, stays as it is.
///
/// A variable that is not set is an error naming it: sending `Bearer ` with an empty token
/// would only trade a clear message for a confusing `401` from the server.
#[cfg_attr(
    not(any(feature = "mcp", feature = "http-tools", feature = "a2a")),
    allow(dead_code)
)]
pub(crate) fn expand(text: &str) -> Result<String, String> {
    expand_only(text, |_| true).map_err(|why| match why {
        Unexpanded::Unset(name) | Unexpanded::NotAllowed(name) => name,
    })
}

/// As [`expand`], reading only the variables `allowed` accepts: another one is an error
/// naming it, and its value is never read.
pub(crate) fn expand_only(
    text: &str,
    allowed: impl Fn(&str) -> bool,
) -> Result<String, Unexpanded> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_len > 0 && after[name_len..].starts_with('}') {
            let name = &after[..name_len];
            if !allowed(name) {
                return Err(Unexpanded::NotAllowed(name.to_owned()));
            }
            match std::env::var(name) {
                Ok(value) => out.push_str(&value),
                Err(_) => return Err(Unexpanded::Unset(name.to_owned())),
            }
            rest = &after[name_len + 1..];
        } else {
            out.push_str("${");
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Removes the secret values in `secrets` from `text` (a message that may echo one).
#[cfg_attr(not(any(feature = "mcp", feature = "http-tools")), allow(dead_code))]
pub(crate) fn scrub(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_owned();
    for secret in secrets {
        if secret.len() >= 4 {
            text = text.replace(secret.as_str(), "[redacted]");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_set_variables_and_keeps_other_text() {
        // PATH is set wherever tests run.
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand("a ${PATH} b").unwrap(), format!("a {path} b"));
        assert_eq!(expand("$ ${ } ${a-b} ${").unwrap(), "$ ${ } ${a-b} ${");
        assert_eq!(expand("no variables").unwrap(), "no variables");
    }

    #[test]
    fn an_unset_variable_is_named() {
        assert_eq!(
            expand("Bearer ${TOOLNEXUS_SURELY_UNSET_VARIABLE}").unwrap_err(),
            "TOOLNEXUS_SURELY_UNSET_VARIABLE"
        );
    }

    #[test]
    fn only_allowed_variables_are_read() {
        let path = std::env::var("PATH").unwrap();
        let only_path = |name: &str| name == "PATH";
        assert_eq!(expand_only("${PATH}", only_path).unwrap(), path);
        assert_eq!(
            expand_only("a ${PATH} ${HOME}", only_path).unwrap_err(),
            Unexpanded::NotAllowed("HOME".to_owned())
        );
        assert_eq!(
            expand_only("${TOOLNEXUS_SURELY_UNSET_VARIABLE}", |_| true).unwrap_err(),
            Unexpanded::Unset("TOOLNEXUS_SURELY_UNSET_VARIABLE".to_owned())
        );
        // Text that names no variable needs no permission.
        assert_eq!(expand_only("$ ${ } x", |_| false).unwrap(), "$ ${ } x");
    }

    #[test]
    fn scrub_hides_secrets() {
        let secrets = vec!["s3cr3t-token".to_owned(), "ab".to_owned()];
        assert_eq!(
            scrub("refused s3cr3t-token at ab", &secrets),
            "refused [redacted] at ab"
        );
    }
}

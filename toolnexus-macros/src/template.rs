//! The URI template of `#[resource(uri = "…")]`, checked at compile time by the rules
//! `toolnexus` reads it with at run time (RFC 6570 level 1): a scheme, `{name}` variables
//! of letters, digits and `_`, each once, no two side by side.

/// The template's variables, in order, or what is wrong with it.
pub(crate) fn variables(text: &str) -> Result<Vec<String>, String> {
    let scheme = text.split(':').next().unwrap_or_default();
    let scheme_ok = text.contains(':')
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Err(
            "a resource URI starts with a scheme, e.g. `docs://readme` or `file:///notes.txt`"
                .to_owned(),
        );
    }
    let mut names: Vec<String> = Vec::new();
    let mut rest = text;
    let mut last_was_variable = false;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err("a `}` closes no `{`".to_owned());
        }
        if open == 0 && last_was_variable {
            return Err(
                "two variables side by side cannot be told apart; put a literal between them"
                    .to_owned(),
            );
        }
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or("a `{` is never closed")?;
        let name = &after[..close];
        check(name)?;
        if names.iter().any(|n| n == name) {
            return Err(format!("the variable `{name}` appears twice"));
        }
        names.push(name.to_owned());
        last_was_variable = true;
        rest = &after[close + 1..];
        if !rest.is_empty() && !rest.starts_with('{') {
            last_was_variable = false;
        }
    }
    Ok(names)
}

fn check(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("`{}` names no variable".to_owned());
    }
    if let Some(operator) = name.chars().next().filter(|c| "+#./;?&=,!@|".contains(*c)) {
        return Err(format!(
            "`{{{name}}}` uses the operator `{operator}` of a higher level of RFC 6570; only \
             simple variables (`{{name}}`, level 1) are supported"
        ));
    }
    if name.contains([',', '*', ':']) {
        return Err(format!(
            "`{{{name}}}` uses lists or modifiers of a higher level of RFC 6570; only simple \
             variables (`{{name}}`, level 1) are supported"
        ));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "`{{{name}}}`: a variable name has only letters, digits and `_`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::variables;

    #[test]
    fn the_rules_are_the_runtime_ones() {
        assert_eq!(variables("test://template/{id}/data").unwrap(), ["id"]);
        assert_eq!(
            variables("repo://{owner}/{name}").unwrap(),
            ["owner", "name"]
        );
        assert!(variables("docs://readme").unwrap().is_empty());
        for bad in [
            "readme",
            "x://{a}{b}",
            "x://{a",
            "x://a}",
            "x://{+p}",
            "x://{a,b}",
            "x://{a}/{a}",
            "x://{}",
            "x://{a-b}",
        ] {
            assert!(variables(bad).is_err(), "{bad}");
        }
    }
}

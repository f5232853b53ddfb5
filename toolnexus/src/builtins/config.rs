//! A config's `builtins` section read into [`Builtins`].

use serde_json::{Map, Value};

use super::Builtins;
use crate::tool::args::kind_of;

/// A `builtins` section that could not be read: which key, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("`{key}` {message}")]
pub struct BuiltinsConfigError {
    /// The key that is wrong (`builtins`, `builtins.tools.bash`, …).
    pub key: String,
    /// What is wrong, and what was expected.
    pub message: String,
}

fn wrong(key: &str, expected: &str, value: &Value) -> BuiltinsConfigError {
    BuiltinsConfigError {
        key: key.to_owned(),
        message: format!("must be {expected}, not {}", kind_of(value)),
    }
}

fn boolean(map: &Map<String, Value>, keys: &[&str]) -> Result<Option<bool>, BuiltinsConfigError> {
    for key in keys {
        match map.get(*key) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => return Ok(Some(*b)),
            Some(other) => return Err(wrong(&format!("builtins.{key}"), "a boolean", other)),
        }
    }
    Ok(None)
}

pub(super) fn parse(section: &Value) -> Result<Builtins, BuiltinsConfigError> {
    let map = match section {
        Value::Null | Value::Bool(true) => return Ok(Builtins::all()),
        Value::Bool(false) => return Ok(Builtins::none()),
        Value::Object(map) => map,
        other => return Err(wrong("builtins", "a boolean or an object", other)),
    };
    let mut builtins = Builtins::all();
    let disabled = boolean(map, &["disabled"])?;
    let enabled = boolean(map, &["enabled"])?;
    if disabled == Some(true) || enabled == Some(false) {
        builtins.enabled = false;
    }
    match map.get("tools") {
        None | Some(Value::Null) => {}
        Some(Value::Object(tools)) => {
            for (name, on) in tools {
                match on {
                    Value::Bool(on) => builtins = builtins.tool(name, *on),
                    other => {
                        return Err(wrong(&format!("builtins.tools.{name}"), "a boolean", other));
                    }
                }
            }
        }
        Some(other) => {
            return Err(wrong(
                "builtins.tools",
                "an object of booleans by tool name",
                other,
            ));
        }
    }
    for key in ["baseDir", "base_dir"] {
        match map.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(dir)) if dir.is_empty() => {}
            Some(Value::String(dir)) => {
                builtins.base_dir = Some(dir.into());
                break;
            }
            Some(other) => return Err(wrong(&format!("builtins.{key}"), "a string", other)),
        }
    }
    if boolean(map, &["confineToBaseDir", "confine_to_base_dir"])? == Some(true) {
        if builtins.base_dir.is_none() {
            return Err(BuiltinsConfigError {
                key: "builtins.confineToBaseDir".to_owned(),
                message: "is set but `baseDir` is empty".to_owned(),
            });
        }
        builtins.confine = true;
    }
    if let Some(approval) = boolean(map, &["approval"])? {
        builtins.approval = approval;
    }
    match map.get("shell") {
        None | Some(Value::Null) => {}
        Some(Value::Array(argv)) if !argv.is_empty() => {
            let mut shell = Vec::with_capacity(argv.len());
            for part in argv {
                match part {
                    Value::String(part) => shell.push(part.clone()),
                    other => return Err(wrong("builtins.shell", "an array of strings", other)),
                }
            }
            builtins.shell = Some(shell);
        }
        Some(other) => {
            return Err(wrong(
                "builtins.shell",
                "a non-empty array of strings",
                other,
            ));
        }
    }
    Ok(builtins)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_contracts_toggles() {
        assert_eq!(parse(&json!(false)).unwrap().names(), Vec::<&str>::new());
        assert_eq!(parse(&json!(true)).unwrap().names().len(), 10);
        assert!(
            !parse(&json!({"disabled": true, "enabled": true}))
                .unwrap()
                .is_enabled()
        );
        assert!(!parse(&json!({"enabled": false})).unwrap().is_enabled());
        assert!(parse(&json!({"disabled": false})).unwrap().is_enabled());
        // Whole-source off short-circuits the map.
        let off = parse(&json!({"enabled": false, "tools": {"bash": true}})).unwrap();
        assert!(off.names().is_empty());
        let some =
            parse(&json!({"tools": {"bash": false, "write": false, "nope": false, "read": true}}))
                .unwrap();
        assert_eq!(
            some.names(),
            [
                "read",
                "edit",
                "grep",
                "glob",
                "webfetch",
                "question",
                "apply_patch",
                "todowrite"
            ]
        );
    }

    #[test]
    fn wrong_types_name_the_key() {
        let error = parse(&json!({"tools": {"bash": "no"}})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`builtins.tools.bash` must be a boolean, not a string"
        );
        assert_eq!(parse(&json!("off")).unwrap_err().key, "builtins");
        assert_eq!(
            parse(&json!({"tools": []})).unwrap_err().key,
            "builtins.tools"
        );
        assert!(parse(&json!({"confineToBaseDir": true})).is_err());
    }
}

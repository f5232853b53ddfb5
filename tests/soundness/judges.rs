//! The judges the soundness test asks: scripts run with the tools `.ci/test` installs,
//! and the JSON Schema reading of a listed schema.

use std::process::Command;

use serde_json::{Map, Value, json};
use toolnexus::schema::profile::Profile;

/// The folder of the judge scripts.
pub(crate) fn dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/soundness").to_owned()
}

/// Runs a judge; `None` (after a notice) when it is not installed, outside CI.
pub(crate) fn judge(program: &str, args: &[String], input: &Value) -> Option<Value> {
    let path = std::env::temp_dir().join(format!(
        "toolnexus-soundness-{}-{}.json",
        std::process::id(),
        args[0].rsplit('/').next().unwrap_or("x")
    ));
    std::fs::write(&path, input.to_string()).unwrap();
    // The input file goes right after the script, before its other arguments.
    let output = Command::new(program)
        .arg(&args[0])
        .arg(&path)
        .args(&args[1..])
        .output();
    let _ = std::fs::remove_file(&path);
    let unavailable = |why: String| {
        let message = format!("soundness judge not run: {why}; run .ci/test to install it");
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("NOTICE: {message}");
        None
    };
    let output = match output {
        Ok(output) => output,
        Err(error) => return unavailable(format!("cannot run `{program}`: {error}")),
    };
    if output.status.code() == Some(3) {
        return unavailable(String::from_utf8_lossy(&output.stdout).trim().to_owned());
    }
    assert!(
        output.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).expect("the judge prints JSON"))
}

/// Runs a Python judge script of `tests/soundness` with the interpreter of
/// `$TOOLNEXUS_PYTHON` (else `python3`).
pub(crate) fn python(script: &str, extra: &[&str], input: &Value) -> Option<Value> {
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut args = vec![format!("{}/{script}", dir())];
    args.extend(extra.iter().map(|s| s.to_string()));
    judge(&python, &args, input)
}

/// A listed schema as JSON Schema 2020-12: Gemini's `nullable` becomes a `null` type, and
/// its OBJECTs are closed (Gemini fills only the declared properties).
pub(crate) fn as_json_schema(profile: Profile, schema: &Value) -> Value {
    if profile != Profile::Gemini {
        return schema.clone();
    }
    fn convert(schema: &Value) -> Value {
        let Value::Object(node) = schema else {
            return schema.clone();
        };
        let mut out = Map::new();
        for (key, value) in node {
            let value = match key.as_str() {
                "properties" => Value::Object(
                    value
                        .as_object()
                        .unwrap()
                        .iter()
                        .map(|(k, v)| (k.clone(), convert(v)))
                        .collect(),
                ),
                "items" => convert(value),
                "anyOf" => Value::Array(value.as_array().unwrap().iter().map(convert).collect()),
                "nullable" => continue,
                _ => value.clone(),
            };
            out.insert(key.clone(), value);
        }
        if out.get("type") == Some(&json!("object")) {
            out.insert("additionalProperties".into(), false.into());
        }
        if node.get("nullable") == Some(&json!(true)) {
            if let Some(Value::String(kind)) = out.get("type").cloned() {
                out.insert("type".into(), json!([kind, "null"]));
            }
            if let Some(Value::Array(values)) = out.get_mut("enum") {
                values.push(Value::Null);
            }
        }
        Value::Object(out)
    }
    convert(schema)
}

/// Whether `value` is valid against `schema` (its `$defs` those of `root`).
pub(crate) fn valid(schema: &Value, root: &Value, value: &Value) -> bool {
    let mut schema = schema.clone();
    if let (Value::Object(node), Some(defs)) = (&mut schema, root.get("$defs")) {
        node.insert("$defs".into(), defs.clone());
    }
    jsonschema::draft202012::new(&schema)
        .map(|v| v.is_valid(value))
        .unwrap_or(false)
}

/// Arguments as a strict model writes them for the listed `schema`: an absent property
/// that may be `null` is `null`; a property the closed object does not list (and the tool
/// ignores) is left out.
pub(crate) fn normalize(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    let Value::Object(node) = schema else { return };
    if depth > 64 {
        return;
    }
    if let Some(reference) = node.get("$ref").and_then(Value::as_str)
        && let Some(target) = root.pointer(reference.trim_start_matches('#'))
    {
        return normalize(value, &target.clone(), root, depth + 1);
    }
    if let Some(Value::Array(variants)) = node.get("anyOf") {
        for variant in variants {
            let mut candidate = value.clone();
            normalize(&mut candidate, variant, root, depth + 1);
            if valid(variant, root, &candidate) {
                *value = candidate;
                return;
            }
        }
        return;
    }
    if let (Value::Object(map), Some(Value::Object(props))) = (&mut *value, node.get("properties"))
    {
        if node.get("additionalProperties") == Some(&json!(false)) {
            map.retain(|name, _| props.contains_key(name));
        }
        for (name, prop) in props {
            match map.get_mut(name) {
                Some(inner) => normalize(inner, prop, root, depth + 1),
                None if valid(prop, root, &Value::Null) => {
                    map.insert(name.clone(), Value::Null);
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(schema)) = (&mut *value, node.get("items")) {
        for item in items {
            normalize(item, schema, root, depth + 1);
        }
    }
}

//! Soundness of the listed schemas, for every profile, over a corpus of hard shapes
//! (`profiles/corpus.rs` and `soundness/hard.rs`):
//!
//! 1. every argument object generated from a listed schema (by hypothesis-jsonschema, a
//!    generator run on JSON Schema itself) is accepted by the tool, by value and as text
//!    alike, unless `Toolkit::check` reports a constraint of that tool the profile does
//!    not enforce;
//! 2. every argument object the tool accepts (generated from its canonical schema and
//!    accepted) validates against each profile's listed schema, unless `check` reports a
//!    gap for that tool and profile. Strict forms are read as a strict model writes them:
//!    an absent optional property is given as `null`; properties the tool ignores (of a
//!    struct without `deny_unknown_fields`) are left out where the profile closes objects;
//! 3. the official MCP TypeScript SDK parses the whole `tools/list`, ajv compiles every
//!    listed schema, and google-genai's `FunctionDeclaration` takes every Gemini one.
//!
//! The judges are installed by `.ci/test` (`TOOLNEXUS_PYTHON`, `TOOLNEXUS_NODE_MODULES`);
//! without them the tests say so and pass, except under CI (`CI` set), where they fail.
//! `TOOLNEXUS_SOUNDNESS_EXAMPLES` (default 8) sets the examples per schema, and
//! `TOOLNEXUS_SOUNDNESS_RANDOM=1` seeds the generator randomly (the longer run).

#[path = "profiles/corpus.rs"]
#[allow(dead_code)]
mod corpus;
#[path = "soundness/hard.rs"]
mod hard;

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::{Map, Value, json};
use toolnexus::profile::Profile;
use toolnexus::{Context, Tool, Toolkit};

fn tools() -> Vec<Tool> {
    corpus::corpus()
        .into_iter()
        .map(|c| c.tool)
        .chain(hard::hard())
        .collect()
}

fn dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/soundness").to_owned()
}

/// Runs a judge; `None` (after a notice) when it is not installed, outside CI.
fn judge(program: &str, args: &[String], input: &Value) -> Option<Value> {
    let path = std::env::temp_dir().join(format!(
        "toolnexus-soundness-{}-{}.json",
        std::process::id(),
        args[0].rsplit('/').next().unwrap_or("x")
    ));
    std::fs::write(&path, input.to_string()).unwrap();
    let mut command = Command::new(program);
    command.args(args).arg(&path);
    let output = command.output();
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

fn python(script: &str, extra: &[&str], input: &Value) -> Option<Value> {
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut args = vec![format!("{}/{script}", dir())];
    args.extend(extra.iter().map(|s| s.to_string()));
    // The input file goes last: move the script's extra arguments after it.
    let (script_path, rest) = args.split_first().unwrap();
    let path = std::env::temp_dir().join(format!(
        "toolnexus-soundness-{}-{script}.json",
        std::process::id()
    ));
    std::fs::write(&path, input.to_string()).unwrap();
    let output = Command::new(&python)
        .arg(script_path)
        .arg(&path)
        .args(rest)
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
        Err(error) => return unavailable(format!("cannot run `{python}`: {error}")),
    };
    if output.status.code() == Some(3) {
        return unavailable(String::from_utf8_lossy(&output.stdout).trim().to_owned());
    }
    assert!(
        output.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).expect("the judge prints JSON"))
}

/// A listed schema as JSON Schema 2020-12: Gemini's `nullable` becomes a `null` type, and
/// its OBJECTs are closed (Gemini fills only the declared properties).
fn as_json_schema(profile: Profile, schema: &Value) -> Value {
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
fn valid(schema: &Value, root: &Value, value: &Value) -> bool {
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
fn normalize(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
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

fn examples_per_schema() -> String {
    std::env::var("TOOLNEXUS_SOUNDNESS_EXAMPLES").unwrap_or_else(|_| "8".into())
}

#[test]
fn generated_arguments_are_accepted_and_accepted_arguments_validate() {
    let toolkit: Toolkit = tools().into_iter().collect();
    let mut schemas = Map::new();
    for profile in Profile::ALL {
        for tool in toolkit.tools() {
            if let Ok(schema) = tool.profile(profile) {
                schemas.insert(
                    format!("{profile}/{}", tool.name()),
                    as_json_schema(profile, schema),
                );
            }
        }
    }
    let Some(generated) = python(
        "generate.py",
        &[&examples_per_schema()],
        &Value::Object(schemas.clone()),
    ) else {
        return;
    };
    let gaps: std::collections::HashMap<(Profile, String), Vec<String>> = Profile::ALL
        .iter()
        .flat_map(|&profile| {
            toolkit
                .check(profile)
                .err()
                .unwrap_or_default()
                .into_iter()
                .filter(|e| !e.is_refusal())
                .map(move |e| ((profile, e.tool().unwrap().to_owned()), e.to_string()))
        })
        .fold(std::collections::HashMap::new(), |mut map, (key, text)| {
            map.entry(key).or_insert_with(Vec::new).push(text);
            map
        });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut broken = Vec::new();
    let (mut tried, mut excused) = (0, 0);
    let mut accepted: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (key, report) in generated.as_object().unwrap() {
        let (profile_name, tool) = key.split_once('/').unwrap();
        let profile = *Profile::ALL
            .iter()
            .find(|p| p.name() == profile_name)
            .unwrap();
        let Some(examples) = report["examples"].as_array() else {
            broken.push(format!(
                "{key}: the generator could not take the schema: {}",
                report["error"]
            ));
            continue;
        };
        assert!(!examples.is_empty(), "{key}: no examples");
        let gap = gaps.contains_key(&(profile, tool.to_owned()));
        for args in examples {
            tried += 1;
            let by_value =
                runtime.block_on(toolkit.execute(tool, args.clone(), Context::default()));
            let by_text =
                runtime.block_on(toolkit.execute_json(tool, &args.to_string(), Context::default()));
            if by_value != by_text {
                broken.push(format!(
                    "{key}: {args}: value and text disagree: {by_value:?} / {by_text:?}"
                ));
            }
            if by_value.is_error {
                if gap {
                    excused += 1;
                } else {
                    broken.push(format!(
                        "{key}: {args} fits the schema but: {}",
                        by_value.output
                    ));
                }
            } else if profile == Profile::Mcp {
                accepted
                    .entry(tool.to_owned())
                    .or_default()
                    .push(args.clone());
            }
        }
    }
    // Direction 2: what the tool accepted validates against every listed schema.
    for (tool, examples) in &accepted {
        let listed = toolkit.get(tool).unwrap();
        for profile in Profile::ALL {
            let Ok(schema) = listed.profile(profile) else {
                continue;
            };
            if gaps.contains_key(&(profile, tool.clone())) {
                continue;
            }
            let schema = as_json_schema(profile, schema);
            for args in examples {
                let mut args = args.clone();
                normalize(&mut args, &schema, &schema, 0);
                if !valid(&schema, &schema, &args) {
                    broken.push(format!(
                        "{profile}/{tool}: the tool accepts {args}, the schema does not"
                    ));
                }
            }
        }
    }
    println!("{tried} generated calls, {excused} refused where check reports a gap");
    assert!(tried > 500, "only {tried} calls");
    assert!(
        broken.is_empty(),
        "{} problems:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn the_mcp_sdk_parses_the_listing_and_ajv_compiles_every_schema() {
    let Some(modules) = std::env::var_os("TOOLNEXUS_NODE_MODULES") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "TOOLNEXUS_NODE_MODULES is not set"
        );
        eprintln!("NOTICE: TOOLNEXUS_NODE_MODULES not set; run .ci/test");
        return;
    };
    let _ = modules;
    let toolkit: Toolkit = tools().into_iter().collect();
    let mut schemas = Map::new();
    for profile in Profile::ALL {
        for tool in toolkit.tools() {
            if let Ok(schema) = tool.profile(profile) {
                schemas.insert(
                    format!("{profile}/{}", tool.name()),
                    json!({"schema": schema, "gemini": profile == Profile::Gemini}),
                );
            }
        }
    }
    let input = json!({"mcp": toolkit.to_mcp().value(), "schemas": schemas});
    let Some(report) = judge("node", &[format!("{}/check_listings.mjs", dir())], &input) else {
        return;
    };
    assert_eq!(
        report["mcp"], "ok",
        "the MCP SDK rejects tools/list: {}",
        report["mcp"]
    );
    let broken: Vec<String> = report["schemas"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| *v != "ok")
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    assert_eq!(report["schemas"].as_object().unwrap().len(), schemas.len());
    assert!(broken.is_empty(), "ajv:\n{}", broken.join("\n"));
}

#[test]
fn google_genai_validates_every_gemini_declaration() {
    let toolkit: Toolkit = tools().into_iter().collect();
    let listing = toolkit.to_gemini();
    let declarations = listing[0]["functionDeclarations"].clone();
    let Some(report) = python("check_gemini.py", &[], &declarations) else {
        return;
    };
    let listed = declarations.as_array().unwrap().len();
    assert_eq!(report.as_object().unwrap().len(), listed);
    let broken: Vec<String> = report
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| *v != "ok")
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    assert!(broken.is_empty(), "google-genai:\n{}", broken.join("\n"));
    // Every tool Gemini can take is listed; the others are refused by check.
    let refused = toolkit.check(Profile::Gemini).err().unwrap_or_default();
    let refused = refused.iter().filter(|e| e.is_refusal()).count();
    assert_eq!(listed + refused, toolkit.len());
}

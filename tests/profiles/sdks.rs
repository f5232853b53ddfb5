//! Compares toolnexus's strict profiles with the providers' own Python SDK conversions
//! (`compare_sdks.py`), reporting every difference; the deliberate ones are listed, with
//! the reason, in `deliberate_differences.txt`.
//!
//! The Python interpreter is `$TOOLNEXUS_PYTHON`, else `python3`; `.ci/run` installs the
//! SDKs into a virtual environment and points `TOOLNEXUS_PYTHON` at it. Without the SDKs
//! the comparison is skipped with a notice, except under CI (`CI` set), where it fails.

use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value};
use toolnexus::schema::profile::Profile;

use crate::corpus::Case;

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/profiles/compare_sdks.py"
);
const DELIBERATE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/profiles/deliberate_differences.txt"
);

/// One difference between toolnexus and an SDK.
struct Difference {
    sdk: &'static str,
    tool: String,
    pointer: String,
    detail: String,
}

/// One line of `deliberate_differences.txt`: `SDK TOOL POINTER | reason`.
struct Deliberate {
    sdk: String,
    tool: String,
    pointer: String,
    reason: String,
    used: bool,
}

pub(crate) fn compare(cases: &[Case]) {
    let canonical: Map<String, Value> = cases
        .iter()
        .map(|c| (c.tool.name().to_owned(), c.tool.input_schema().clone()))
        .collect();
    let input = std::env::temp_dir().join(format!("toolnexus-corpus-{}.json", std::process::id()));
    std::fs::write(&input, Value::Object(canonical).to_string()).expect("temp file");
    let python = std::env::var("TOOLNEXUS_PYTHON").unwrap_or_else(|_| "python3".into());
    let output = Command::new(&python).arg(SCRIPT).arg(&input).output();
    let _ = std::fs::remove_file(&input);
    let unavailable = |why: String| {
        let message = format!(
            "provider SDK comparison not run: {why}. Install them with `pip install openai anthropic` \
             (or run .ci/run) and set TOOLNEXUS_PYTHON to that interpreter."
        );
        if std::env::var_os("CI").is_some() {
            panic!("{message}");
        }
        eprintln!("NOTICE: {message}");
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
        "{} failed: {}",
        Path::new(SCRIPT).display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("the script prints JSON");
    println!("SDK versions: {}", report["versions"]);
    for (sdk, why) in report["absent"].as_object().into_iter().flatten() {
        println!("NOTICE: {sdk} not compared: {why}");
    }

    let mut differences = Vec::new();
    for case in cases {
        let name = case.tool.name();
        let results = &report["results"][name];
        for (sdk, profile) in [
            ("openai", Profile::OpenAiStrict),
            ("anthropic", Profile::AnthropicStrict),
        ] {
            let Some(theirs) = results.get(sdk) else {
                continue;
            };
            let ours = case.tool.profile(profile);
            let mut push = |pointer: String, detail: String| {
                differences.push(Difference {
                    sdk,
                    tool: name.to_owned(),
                    pointer,
                    detail,
                })
            };
            match (ours, theirs.get("ok"), theirs.get("error")) {
                (Ok(ours), Some(theirs), _) => diff(ours, theirs, "", &mut push),
                (Err(error), Some(_), _) => push(
                    String::new(),
                    format!("toolnexus refuses ({error}); the SDK converts"),
                ),
                (Ok(_), None, Some(error)) => push(
                    String::new(),
                    format!("the SDK raises {error}; toolnexus converts"),
                ),
                (Err(_), None, _) => {}
                (Ok(_), None, None) => panic!("no result for {name} / {sdk}"),
            }
        }
    }

    let mut deliberate = read_deliberate();
    let mut unexplained = Vec::new();
    for difference in &differences {
        let entry = deliberate.iter_mut().find(|d| {
            d.sdk == difference.sdk
                && (d.tool == "*" || d.tool == difference.tool)
                && pointer_matches(&d.pointer, &difference.pointer)
        });
        let line = format!(
            "{} {} {}: {}",
            difference.sdk,
            difference.tool,
            if difference.pointer.is_empty() {
                "/"
            } else {
                &difference.pointer
            },
            difference.detail
        );
        match entry {
            Some(entry) => {
                entry.used = true;
                println!("deliberate: {line}\n    because {}", entry.reason);
            }
            None => unexplained.push(line),
        }
    }
    let stale: Vec<String> = deliberate
        .iter()
        .filter(|d| !d.used)
        .map(|d| format!("{} {} {} | {}", d.sdk, d.tool, d.pointer, d.reason))
        .collect();
    println!(
        "{} differences, {} unexplained",
        differences.len(),
        unexplained.len()
    );
    assert!(
        unexplained.is_empty(),
        "differences with the provider SDKs not listed in deliberate_differences.txt:\n{}",
        unexplained.join("\n")
    );
    assert!(
        stale.is_empty(),
        "entries of deliberate_differences.txt that no longer match a difference:\n{}",
        stale.join("\n")
    );
}

/// Reports each place where `ours` and `theirs` differ, as deep as both are alike.
fn diff(ours: &Value, theirs: &Value, pointer: &str, push: &mut dyn FnMut(String, String)) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let here = format!("{pointer}/{key}");
                match b.get(key) {
                    Some(other) => diff(value, other, &here, push),
                    None => push(here, format!("only toolnexus has {value}")),
                }
            }
            for (key, value) in b {
                if !a.contains_key(key) {
                    push(
                        format!("{pointer}/{key}"),
                        format!("only the SDK has {value}"),
                    );
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (at, (x, y)) in a.iter().zip(b).enumerate() {
                diff(x, y, &format!("{pointer}/{at}"), push);
            }
        }
        _ if ours == theirs => {}
        _ => push(
            pointer.to_owned(),
            format!("toolnexus {ours}, the SDK {theirs}"),
        ),
    }
}

/// `*` matches one pointer segment, `**` any number (none included).
fn pointer_matches(pattern: &str, pointer: &str) -> bool {
    fn go(pattern: &[&str], pointer: &[&str]) -> bool {
        match (pattern.first(), pointer.first()) {
            (None, None) => true,
            (Some(&"**"), _) => {
                go(&pattern[1..], pointer) || (!pointer.is_empty() && go(pattern, &pointer[1..]))
            }
            (Some(p), Some(s)) if *p == "*" || p == s => go(&pattern[1..], &pointer[1..]),
            _ => false,
        }
    }
    let split = |s: &str| -> Vec<String> {
        s.split('/')
            .filter(|x| !x.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let pattern = split(pattern);
    let pointer = split(pointer);
    let pattern: Vec<&str> = pattern.iter().map(String::as_str).collect();
    let pointer: Vec<&str> = pointer.iter().map(String::as_str).collect();
    go(&pattern, &pointer)
}

fn read_deliberate() -> Vec<Deliberate> {
    let text = std::fs::read_to_string(DELIBERATE).expect("deliberate_differences.txt");
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (left, reason) = line
                .split_once('|')
                .unwrap_or_else(|| panic!("`SDK TOOL POINTER | reason` expected: {line}"));
            let fields: Vec<&str> = left.split_whitespace().collect();
            let [sdk, tool, pointer] = fields.as_slice() else {
                panic!("`SDK TOOL POINTER | reason` expected: {line}");
            };
            Deliberate {
                sdk: (*sdk).to_owned(),
                tool: (*tool).to_owned(),
                pointer: (*pointer).to_owned(),
                reason: reason.trim().to_owned(),
                used: false,
            }
        })
        .collect()
}

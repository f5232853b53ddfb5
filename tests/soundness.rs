//! Soundness of the listed schemas, for every profile, over a corpus of hard shapes
//! (`profiles/corpus.rs` and `soundness/hard.rs`):
//!
//! 1. every argument object generated from a listed schema (by hypothesis-jsonschema, a
//!    generator run on JSON Schema itself) is accepted by the tool, by value and as text
//!    alike, unless `Toolkit::warnings` reports a constraint of that tool the profile does
//!    not enforce, or the object holds an integer beyond ±(2^53−1) that the tool refuses
//!    as out of its type's range (see below);
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
#[path = "soundness/judges.rs"]
mod judges;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use toolnexus::schema::profile::Profile;
use toolnexus::{Context, Tool, Toolkit};

use judges::{as_json_schema, dir, judge, normalize, python, valid};

fn tools() -> Vec<Tool> {
    corpus::corpus()
        .into_iter()
        .map(|c| c.tool)
        .chain(hard::hard())
        .collect()
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
    let started = std::time::Instant::now();
    let Some(generated) = python(
        "generate.py",
        &[&examples_per_schema()],
        &Value::Object(schemas.clone()),
    ) else {
        return;
    };
    println!("generated in {:?}", started.elapsed());
    let started = std::time::Instant::now();
    let gaps: std::collections::HashMap<(Profile, String), Vec<String>> = Profile::ALL
        .iter()
        .flat_map(|&profile| {
            toolkit
                .warnings(profile)
                .into_iter()
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
    let (mut tried, mut excused, mut unsafe_integers) = (0, 0, 0);
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
            // Both succeed or both fail, with the same error (a success echoes the parsed
            // arguments, and a `HashMap`'s order differs from one parse to the next).
            if by_value.is_error != by_text.is_error
                || (by_value.is_error && by_value.output != by_text.output)
            {
                broken.push(format!(
                    "{key}: {args}: value and text disagree: {by_value:?} / {by_text:?}"
                ));
            }
            if by_value.is_error {
                if gap {
                    excused += 1;
                } else if beyond_json_safe(args) && out_of_type(&by_value.output) {
                    unsafe_integers += 1;
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
    println!(
        "{tried} generated calls, {excused} refused where warnings report a gap, \
         {unsafe_integers} refused for an integer beyond ±(2^53−1), checked in {:?}",
        started.elapsed()
    );
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

/// The largest integer every JSON reader takes exactly (JavaScript's `Number.MAX_SAFE_INTEGER`;
/// RFC 7493, I-JSON, asks for no more).
const SAFE: f64 = 9_007_199_254_740_991.0;

/// Whether `args` holds an integer-valued number beyond ±(2^53−1).
///
/// Why such a value may be refused although the listing allows it: a 64-bit integer's
/// listing states no bounds (it would be ±9223372036854775807, which JavaScript readers,
/// and so most MCP hosts, round to 9223372036854776000, a bound that promises values the
/// tool refuses; and a model never comes near it). The listing says "integer"; the Rust
/// type takes what fits it, and refuses the rest with an error naming the field. Every
/// integer a JSON reader takes exactly is within every listed range.
fn beyond_json_safe(args: &Value) -> bool {
    match args {
        Value::Number(n) => n
            .as_f64()
            .is_some_and(|x| x.fract() == 0.0 && x.abs() > SAFE),
        Value::Array(items) => items.iter().any(beyond_json_safe),
        Value::Object(map) => map.values().any(beyond_json_safe),
        _ => false,
    }
}

/// Whether a refusal is the one an integer outside its Rust type gets.
fn out_of_type(error: &str) -> bool {
    [
        "expected i",
        "expected u",
        "expected usize",
        "expected isize",
    ]
    .iter()
    .any(|words| error.contains(words))
}

/// `check` names the tool, the profile and the place of every refusal, and `warnings`
/// every constraint a profile lists without enforcing, with the provider's reason.
#[test]
fn check_reports_refusals_and_unenforced_constraints_per_tool_and_field() {
    let toolkit: Toolkit = tools().into_iter().collect();
    let find = |profile: Profile, tool: &str, refusal: bool| -> Vec<String> {
        let reported = match refusal {
            true => toolkit.check(profile).err().unwrap_or_default(),
            false => toolkit.warnings(profile),
        };
        reported
            .into_iter()
            .filter(|e| e.tool() == Some(tool) && e.is_refusal() == refusal)
            .map(|e| format!("{} | {}", e.path(), e))
            .collect()
    };
    let has = |found: &[String], path: &str, words: &str| {
        assert!(
            found
                .iter()
                .any(|e| e.starts_with(&format!("{path} |")) && e.contains(words)),
            "expected `{words}` at {path} in {found:#?}"
        );
    };
    use Profile::*;
    // Root unions: strict refuses; the plain profiles list every tag, and say the merge
    // is not enforced.
    for tool in [
        "root_external",
        "root_internal",
        "root_adjacent",
        "root_untagged",
    ] {
        let union = if tool == "root_untagged" {
            "/anyOf"
        } else {
            "/oneOf"
        };
        has(&find(OpenAiStrict, tool, true), union, "union at the root");
        has(
            &find(AnthropicStrict, tool, true),
            union,
            "union at the root",
        );
        has(&find(OpenAi, tool, false), "/", "union of");
        assert!(find(Mcp, tool, false).is_empty() && find(Mcp, tool, true).is_empty());
    }
    let internal = toolkit.get("root_internal").unwrap();
    let tag = &internal.profile(OpenAi).unwrap()["properties"]["action"];
    assert_eq!(tag["enum"], json!(["Create", "Delete", "Purge"]), "{tag}");
    let mcp = internal.profile(Mcp).unwrap();
    assert_eq!(mcp["type"], "object");
    assert!(mcp.get("oneOf").is_some());
    // The strict listing falls back to the plain form, without `strict`.
    let listing = toolkit.to_openai_strict();
    let entry = listing
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["function"]["name"] == "root_internal")
        .unwrap();
    assert!(entry["function"].get("strict").is_none());
    // Provider limits.
    has(
        &find(OpenAiStrict, "huge_enum", true),
        "/properties/sku/enum",
        "15000",
    );
    has(
        &find(OpenAiStrict, "deep", true),
        "/properties/top/properties/inner/properties/inner/properties/inner/properties/inner/properties/inner/properties/inner/properties/inner/properties/inner/properties/inner",
        "at most 10",
    );
    has(
        &find(AnthropicStrict, "recursive_enum", true),
        "/properties/expr/anyOf/1/properties/Neg",
        "recursive",
    );
    // Gemini.
    has(
        &find(Gemini, "maps", true),
        "/properties/scores/additionalProperties",
        "map",
    );
    has(
        &find(Gemini, "untyped_value", true),
        "/properties/payload",
        "untyped",
    );
    has(
        &find(Gemini, "recursive_enum", true),
        "/properties/expr/anyOf/1/properties/Neg/anyOf/1/properties/Neg",
        "recursive",
    );
    let unit = toolkit.get("unit_struct").unwrap().profile(Gemini).unwrap();
    assert_eq!(unit["properties"]["marker"]["type"], "null");
    // Positions and bounds the strict forms cannot state.
    has(
        &find(OpenAiStrict, "tuples", false),
        "/properties/triple",
        "positions",
    );
    has(
        &find(Gemini, "tuples", false),
        "/properties/triple",
        "positions",
    );
    has(
        &find(OpenAiStrict, "tuples", false),
        "/properties/letter",
        "maxLength",
    );
    has(
        &find(AnthropicStrict, "tuples", false),
        "/properties/rgba",
        "maxItems",
    );
    has(
        &find(AnthropicStrict, "widths", false),
        "/properties/g",
        "maximum: 255",
    );
    assert!(find(OpenAiStrict, "widths", false).is_empty());
    has(
        &find(OpenAiStrict, "nested_defaults", false),
        "/properties/settings/properties/retries",
        "required in strict mode",
    );
    // Null reads as the default at the root only, so below it the strict schema does not
    // allow null.
    let strict = toolkit
        .get("nested_defaults")
        .unwrap()
        .profile(OpenAiStrict)
        .unwrap();
    assert_eq!(
        strict["properties"]["settings"]["properties"]["retries"]["type"],
        "integer"
    );
    // A refused tool never breaks the listing of the others: every listing has every tool
    // its profile (or, for a strict one, the plain profile) can list, and only those.
    for profile in Profile::ALL {
        let listing = toolkit.listing(profile);
        let entries = match profile {
            Gemini => listing[0]["functionDeclarations"].as_array().unwrap().len(),
            _ => listing.as_array().unwrap().len(),
        };
        let plain = match profile {
            OpenAiStrict => Some(OpenAi),
            AnthropicStrict => Some(Anthropic),
            _ => None,
        };
        let listable = toolkit
            .tools()
            .iter()
            .filter(|t| t.profile(profile).is_ok() || plain.is_some_and(|p| t.profile(p).is_ok()))
            .count();
        assert_eq!(entries, listable, "{profile}");
        assert!(entries > toolkit.len() / 2, "{profile}: {entries} listed");
    }
    // MCP and the plain profiles express everything the corpus has (bar root unions).
    for tool in toolkit.tools() {
        let name = tool.name();
        if !name.starts_with("root_") {
            assert!(
                find(OpenAi, name, false).is_empty(),
                "{name}: {:?}",
                find(OpenAi, name, false)
            );
        }
        assert!(find(Mcp, name, false).is_empty(), "{name}");
    }
}

/// Error texts name the field, also inside a flattened struct and an internally tagged
/// enum, and the text and value paths give the same answer at the edges of the number
/// types.
#[tokio::test]
async fn errors_name_the_field_and_both_paths_agree_at_the_edges() {
    let toolkit: Toolkit = tools().into_iter().collect();
    let both = |name: &'static str, args: Value| {
        let toolkit = &toolkit;
        async move {
            let by_value = toolkit
                .execute(name, args.clone(), Context::default())
                .await;
            let by_text = toolkit
                .execute_json(name, &args.to_string(), Context::default())
                .await;
            assert_eq!(by_value, by_text, "{name} {args}");
            by_value
        }
    };
    let flattened = both("flatten", json!({"query": "q", "page": 1, "per_page": 300})).await;
    assert!(flattened.is_error);
    assert!(
        flattened.output.contains("per_page"),
        "{}",
        flattened.output
    );
    let tagged = both(
        "tagged_enum",
        json!({"event": {"kind": "click", "x": "left", "y": 2}}),
    )
    .await;
    assert!(tagged.output.contains("event.x"), "{}", tagged.output);
    let internal = both("root_internal", json!({"action": "Delete", "id": -1})).await;
    assert!(internal.output.contains("id"), "{}", internal.output);
    let overflow = both("primf32", json!({"value": 3.5e38})).await;
    assert!(overflow.is_error);
    assert!(overflow.output.contains("value"), "{}", overflow.output);
    let fits = both("primf32", json!({"value": 3.4e38})).await;
    assert!(!fits.is_error, "{}", fits.output);
    let big = both("widths", json!({"a": 0, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0, "g": 0, "h": 0, "i": 0, "j": 0, "k": u64::MAX, "l": 0, "m": 0.5, "n": 0.5})).await;
    assert!(!big.is_error, "{}", big.output);
}

//! Provider profiles over a corpus of tool signatures, checked by independent validators:
//! the JSON Schema 2020-12 meta-schema (`jsonschema`), a walker per provider's documented
//! rules (`profiles/rules.rs`), and, where the provider's own SDK ships a conversion, that
//! SDK's output (`profiles/compare_sdks.py`, differences explained in
//! `profiles/deliberate_differences.txt`).

#[path = "profiles/corpus.rs"]
mod corpus;
#[path = "profiles/rules.rs"]
mod rules;
#[path = "profiles/sdks.rs"]
mod sdks;

use serde_json::{Value, json};
use toolnexus::schema::profile::{self, Profile};
use toolnexus::tool::Rejection;
use toolnexus::{Context, Tool, ToolResult, Toolkit};

use corpus::corpus;

#[test]
fn the_corpus_is_large_enough_and_names_are_unique() {
    let cases = corpus();
    assert!(cases.len() >= 30, "{} tools", cases.len());
    let toolkit: Toolkit = cases.iter().map(|c| c.tool.clone()).collect();
    assert_eq!(toolkit.len(), cases.len(), "{:?}", toolkit.rejected());
}

#[test]
fn every_profile_refuses_exactly_what_it_should() {
    let mut wrong = Vec::new();
    for case in corpus() {
        for profile in Profile::ALL {
            let result = case.tool.profile(profile);
            let expected_refusal = case.refused_by.contains(&profile);
            match result {
                Ok(_) if expected_refusal => wrong.push(format!(
                    "{} / {profile}: accepted, expected a refusal",
                    case.tool.name()
                )),
                Err(error) if !expected_refusal => {
                    wrong.push(format!("{} / {profile}: {error}", case.tool.name()))
                }
                Err(error) => {
                    // A refusal names the tool, the profile and the place.
                    let text = error.to_string();
                    assert!(text.contains(case.tool.name()), "{text}");
                    assert!(text.contains(profile.name()), "{text}");
                    assert!(error.path().starts_with('/'), "{text}");
                }
                Ok(_) => {}
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every schema toolnexus produces, canonical and profiled, is a valid JSON Schema 2020-12
/// document whose references resolve.
#[test]
fn every_schema_validates_against_the_2020_12_meta_schema() {
    let mut broken = Vec::new();
    for case in corpus() {
        let canonical = case.tool.input_schema();
        let mut outputs = vec![("canonical", canonical.clone())];
        for profile in Profile::ALL {
            if let Ok(schema) = case.tool.profile(profile) {
                outputs.push((profile.name(), schema.clone()));
            }
        }
        for (label, schema) in outputs {
            if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
                broken.push(format!("{} / {label}: {error}", case.tool.name()));
            }
            if let Err(error) = jsonschema::draft202012::new(&schema) {
                broken.push(format!(
                    "{} / {label}: does not compile: {error}",
                    case.tool.name()
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The canonical schema accepts the sample call (with strict-mode `null`s dropped where it
/// does not take them, as `Tool::call` does), and the strict OpenAI schema accepts it as is.
#[test]
fn sample_calls_fit_the_schemas() {
    let mut broken = Vec::new();
    for case in corpus() {
        if let Ok(strict) = case.tool.profile(Profile::OpenAiStrict) {
            let validator = jsonschema::draft202012::new(strict).expect("compiles");
            for error in validator.iter_errors(&case.sample) {
                broken.push(format!("{} / openai_strict: {error}", case.tool.name()));
            }
        }
        let canonical = case.tool.input_schema();
        let mut sample = case.sample.clone();
        if let (Some(args), Some(props)) =
            (sample.as_object_mut(), canonical["properties"].as_object())
        {
            args.retain(|name, value| {
                !(value.is_null() && props.get(name).is_some_and(|p| !accepts_null_shallow(p)))
            });
        }
        let validator = jsonschema::draft202012::new(canonical).expect("compiles");
        for error in validator.iter_errors(&sample) {
            broken.push(format!("{} / canonical: {error}", case.tool.name()));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

fn accepts_null_shallow(schema: &Value) -> bool {
    jsonschema::draft202012::new(schema).is_ok_and(|v| v.is_valid(&Value::Null))
}

#[test]
fn openai_strict_output_satisfies_the_strict_rules() {
    let mut broken = Vec::new();
    for case in corpus() {
        if let Ok(schema) = case.tool.profile(Profile::OpenAiStrict) {
            for rule in rules::openai_strict(schema) {
                broken.push(format!("{}: {rule}", case.tool.name()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn anthropic_outputs_satisfy_anthropic_rules() {
    let mut broken = Vec::new();
    for case in corpus() {
        if let Ok(schema) = case.tool.profile(Profile::Anthropic) {
            for rule in rules::anthropic(schema) {
                broken.push(format!("{} / anthropic: {rule}", case.tool.name()));
            }
        }
        if let Ok(schema) = case.tool.profile(Profile::AnthropicStrict) {
            for rule in rules::anthropic_strict(schema) {
                broken.push(format!("{} / anthropic_strict: {rule}", case.tool.name()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn gemini_output_uses_only_the_parameters_subset() {
    let mut broken = Vec::new();
    for case in corpus() {
        if let Ok(schema) = case.tool.profile(Profile::Gemini) {
            for rule in rules::gemini(schema) {
                broken.push(format!("{}: {rule}", case.tool.name()));
            }
        }
    }
    // What `to_gemini` lists obeys the subset too (a declaration without parameters
    // takes none).
    let toolkit: Toolkit = corpus().into_iter().map(|c| c.tool).collect();
    for declaration in toolkit.to_gemini()[0]["functionDeclarations"]
        .as_array()
        .unwrap()
    {
        let Some(parameters) = declaration.get("parameters") else {
            continue;
        };
        for rule in rules::gemini(parameters) {
            broken.push(format!("{} (listed): {rule}", declaration["name"]));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn no_nonstandard_integer_formats_anywhere_and_unsigned_keeps_minimum_zero() {
    let mut broken = Vec::new();
    for case in corpus() {
        let name = case.tool.name();
        let mut outputs = vec![("canonical", case.tool.input_schema().clone())];
        for profile in Profile::ALL {
            if let Ok(schema) = case.tool.profile(profile) {
                outputs.push((profile.name(), schema.clone()));
            }
        }
        for (label, schema) in &outputs {
            for rule in rules::no_nonstandard_formats(schema) {
                broken.push(format!("{name} / {label}: {rule}"));
            }
            if name.starts_with("primu") {
                let value = &schema["properties"]["value"];
                let says_minimum_zero = value["minimum"] == 0
                    || value["description"]
                        .as_str()
                        .is_some_and(|d| d.contains("minimum: 0"));
                if !says_minimum_zero {
                    broken.push(format!("{name} / {label}: no `minimum: 0` in {value}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Every profile gives a tool without parameters an empty object; Gemini's listing leaves
/// `parameters` out (Gemini rejects an OBJECT without properties).
#[test]
fn a_tool_without_parameters_is_an_empty_object_everywhere() {
    let tool = corpus()
        .into_iter()
        .find(|c| c.tool.name() == "no_params")
        .unwrap()
        .tool;
    for profile in Profile::ALL {
        let schema = tool.profile(profile).unwrap();
        assert_eq!(schema["type"], "object", "{profile}");
        assert_eq!(schema["properties"], json!({}), "{profile}");
    }
    let toolkit = Toolkit::new().with(tool);
    assert_eq!(
        toolkit.to_openai_strict()[0]["function"]["parameters"]["required"],
        json!([])
    );
    assert_eq!(
        toolkit.to_gemini()[0]["functionDeclarations"][0],
        json!({"name": "no_params", "description": "Takes nothing."})
    );
}

/// A strict-mode model sends `null` for every optional field: it reads as `None`, and as
/// the default for a `#[serde(default)]` field.
#[tokio::test]
async fn strict_mode_nulls_are_read_as_none_or_the_default() {
    let cases = corpus();
    let toolkit: Toolkit = cases.iter().map(|c| c.tool.clone()).collect();
    for case in &cases {
        let text = case.sample.to_string();
        let result = toolkit
            .execute_json(case.tool.name(), &text, Context::default())
            .await;
        assert!(!result.is_error, "{}: {}", case.tool.name(), result.output);
        let by_value = toolkit
            .execute(case.tool.name(), case.sample.clone(), Context::default())
            .await;
        assert_eq!(by_value, result, "{}", case.tool.name());
    }
    let optionals = toolkit
        .execute_json(
            "optionals",
            r#"{"city": null, "days": 3, "tags": null, "ratio": null}"#,
            Context::default(),
        )
        .await;
    assert_eq!(
        optionals,
        ToolResult::ok("Optionals { city: None, days: Some(3), tags: None, ratio: None }")
    );
    let defaults = toolkit
        .execute_json(
            "defaults",
            r#"{"query": "q", "page_size": null, "include_archived": null, "tags": null}"#,
            Context::default(),
        )
        .await;
    assert_eq!(
        defaults,
        ToolResult::ok(
            "Defaults { query: \"q\", page_size: 20, include_archived: false, tags: [] }"
        )
    );
    // A null where the field is required and not nullable is still an error naming it.
    let wrong = toolkit
        .execute_json("defaults", r#"{"query": null}"#, Context::default())
        .await;
    assert!(wrong.is_error);
    assert!(wrong.output.contains("query"), "{}", wrong.output);
}

#[test]
fn strict_listings_mark_strict_and_fall_back_for_what_strict_cannot_express() {
    let cases = corpus();
    let toolkit: Toolkit = cases.iter().map(|c| c.tool.clone()).collect();
    let openai = toolkit.to_openai_strict();
    let anthropic = toolkit.to_anthropic_strict();
    for (at, case) in cases.iter().enumerate() {
        let refused = case.refused_by.contains(&Profile::OpenAiStrict);
        let function = &openai[at]["function"];
        assert_eq!(function["name"], case.tool.name());
        assert_eq!(
            function.get("strict").is_some(),
            !refused,
            "{}",
            case.tool.name()
        );
        if !refused {
            assert_eq!(function["strict"], true);
            assert_eq!(
                &function["parameters"],
                case.tool.profile(Profile::OpenAiStrict).unwrap()
            );
        } else {
            assert_eq!(
                &function["parameters"],
                case.tool.profile(Profile::OpenAi).unwrap()
            );
        }
        let refused = case.refused_by.contains(&Profile::AnthropicStrict);
        assert_eq!(
            anthropic[at].get("strict").is_some(),
            !refused,
            "{}",
            case.tool.name()
        );
    }
    let error = toolkit.try_to_openai_strict().unwrap_err();
    assert_eq!(error.tool(), Some("hash_map"));
    assert!(error.message().contains("map"), "{error}");
    let errors = toolkit.check(Profile::OpenAiStrict).unwrap_err();
    let names: Vec<_> = errors
        .iter()
        .filter(|e| e.is_refusal())
        .filter_map(|e| e.tool())
        .collect();
    assert_eq!(names, ["hash_map", "btree_map", "untyped", "untyped_items"]);
    let gemini = toolkit.try_to_gemini().unwrap_err();
    assert_eq!(gemini.tool(), Some("hash_map"));
    assert!(gemini.message().contains("map"), "{gemini}");
    // A tool Gemini cannot take is left out of its listing; the others stay.
    let gemini_listing = toolkit.to_gemini();
    let declared: Vec<&str> = gemini_listing[0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    for case in &cases {
        let refused = case.refused_by.contains(&Profile::Gemini);
        assert_eq!(
            declared.contains(&case.tool.name()),
            !refused,
            "{}",
            case.tool.name()
        );
    }
    assert!(toolkit.check(Profile::Mcp).is_ok());
    assert!(toolkit.check(Profile::OpenAi).is_ok());
    assert!(toolkit.check(Profile::Anthropic).is_ok());
}

#[test]
fn profiles_are_computed_once_per_tool() {
    let tool = corpus().remove(0).tool;
    let first = tool.profile(Profile::OpenAiStrict).unwrap() as *const Value;
    let again = tool.profile(Profile::OpenAiStrict).unwrap() as *const Value;
    assert_eq!(first, again, "the second call returns the cached schema");
    // The public functions and the cached forms agree.
    assert_eq!(
        tool.profile(Profile::OpenAiStrict).unwrap(),
        &profile::openai_strict(tool.input_schema()).unwrap()
    );
}

#[test]
fn registration_refuses_names_the_providers_reject() {
    let make = |name: &str| {
        Tool::new_sync(name, "", json!({"type": "object"}), |_, _| {
            ToolResult::ok("")
        })
    };
    let mut toolkit = Toolkit::new();
    toolkit.register(make(&"a".repeat(64))).unwrap();
    let long = toolkit.register(make(&"b".repeat(65))).unwrap_err();
    assert_eq!(long.reason(), &Rejection::InvalidName);
    assert!(long.to_string().contains("1 to 64 characters"), "{long}");
    let empty = toolkit.register(make("")).unwrap_err();
    assert_eq!(empty.reason(), &Rejection::InvalidName);
    assert_eq!(toolkit.len(), 1);
    assert_eq!(toolkit.rejected().len(), 2);
    let clash = toolkit.register(make(&"a".repeat(64))).unwrap_err();
    assert!(matches!(clash.reason(), Rejection::Duplicate { .. }));
}

/// The before/after example of the README, pinned.
#[test]
fn readme_before_and_after() {
    let canonical = corpus()
        .into_iter()
        .find(|c| c.tool.name() == "optionals")
        .unwrap()
        .tool;
    let strict = canonical.profile(Profile::OpenAiStrict).unwrap();
    assert_eq!(
        strict,
        &json!({
            "type": "object",
            "properties": {
                "city": {"type": ["string", "null"], "description": "A city, if known."},
                "days": {"type": ["integer", "null"], "minimum": 0, "maximum": 4294967295u32},
                "tags": {"type": ["array", "null"], "items": {"type": "string"}},
                "ratio": {"type": ["number", "null"]}
            },
            "required": ["city", "days", "tags", "ratio"],
            "additionalProperties": false
        })
    );
}

#[test]
fn provider_sdks_agree_except_where_deliberate() {
    sdks::compare(&corpus());
}

/// Integers list their bounds only where a reader takes them exactly and they say
/// something; Anthropic's strict tool use, which takes no bounds, lists them in words and
/// `check` stays `Ok`: the unenforced bound is a warning.
#[test]
fn integer_bounds_are_listed_only_where_they_say_something_and_strict_gaps_are_warnings() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Widths {
        big: i64,
        count: u64,
        level: u8,
        offset: i32,
    }
    let schema = toolnexus::__private::schema_for::<Widths>();
    let props = &schema["properties"];
    assert_eq!(props["big"], json!({"type": "integer"}));
    assert_eq!(props["count"], json!({"type": "integer", "minimum": 0}));
    assert_eq!(
        props["level"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        props["offset"],
        json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX})
    );
    let tool = Tool::new_sync("widths", "Widths.", schema, |_, _| ToolResult::ok(""));
    let toolkit = Toolkit::new().with(tool);
    for profile in Profile::ALL {
        assert!(toolkit.check(profile).is_ok(), "{profile:?}");
    }
    let warnings = toolkit.warnings(Profile::AnthropicStrict);
    let paths: Vec<&str> = warnings.iter().map(|w| w.path()).collect();
    assert_eq!(
        paths,
        [
            "/properties/count",
            "/properties/level",
            "/properties/offset"
        ]
    );
    assert!(warnings.iter().all(|w| !w.is_refusal()));
    let strict = toolkit.to_anthropic_strict();
    assert_eq!(strict[0]["strict"], true);
    assert!(
        strict[0]["input_schema"]["properties"]["level"]["description"]
            .as_str()
            .unwrap()
            .contains("255"),
        "{}",
        strict[0]
    );
    // A value past the Rust type is refused with an error naming the field.
    /// Doubles a number.
    #[toolnexus::tool]
    fn double(n: i64) -> Result<i64, String> {
        n.checked_mul(2).ok_or_else(|| "too big".to_owned())
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let refused = rt.block_on(
        double::tool().execute_json(r#"{"n": 10000000000000000000}"#, Context::default()),
    );
    assert!(refused.is_error);
    assert!(refused.output.contains("n:"), "{}", refused.output);
    assert!(refused.output.contains("i64"), "{}", refused.output);
}

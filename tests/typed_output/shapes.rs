//! Output shapes that are not argument shapes: non-object roots of every kind, each a tool
//! returning `Json<T>` (tests/loop_typed_output.rs checks them with ajv, beside the corpus).

use std::collections::{BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use toolnexus::{Json, Tool};
use toolnexus::tool::IntoToolResult;

use super::{Category, Hit};

/// A root-shape case: a tool returning `Json(make())`, with `Json<T>`'s output schema.
fn typed<T: Serialize + JsonSchema + 'static>(
    name: &str,
    make: impl Fn() -> T + Send + Sync + 'static,
) -> Tool {
    let schema = <Json<T> as IntoToolResult>::output_schema().unwrap();
    Tool::new_sync(name, "", json!({"type": "object"}), move |_, _| {
        Json(make()).into_tool_result()
    })
    .with_output_schema(schema)
}

/// An event, tagged by `kind`: every variant is an object, so it is not wrapped.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Event {
    Click { x: i32, y: i32 },
    Key { code: String },
}

#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum IdOrName {
    Id(u64),
    Name(String),
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Level {
    Low,
    High,
}

#[derive(Serialize, JsonSchema)]
struct Page {
    #[serde(flatten)]
    hit: Hit,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related: Vec<u32>,
    #[serde(rename = "nextCursor")]
    next: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct Wrapper(Vec<Hit>);

/// Output shapes that are not argument shapes: non-object roots of every kind.
pub(crate) fn root_shapes() -> Vec<Tool> {
    let hit = || Hit {
        id: 7,
        title: "t".to_owned(),
    };
    vec![
        typed("root_vec", move || vec![hit(), hit()]),
        typed("root_u32", || 42u32),
        typed("root_i64", || -9i64),
        typed("root_f64", || 0.25f64),
        typed("root_f32", || 1.1f32),
        typed("root_string", || "text".to_owned()),
        typed("root_bool", || true),
        typed("root_unit", || ()),
        typed("root_option_some", move || Some(hit())),
        typed("root_option_none", || None::<Hit>),
        typed("root_map", || HashMap::from([("a".to_owned(), 1u32)])),
        typed("root_set", || {
            BTreeSet::from(["b".to_owned(), "a".to_owned()])
        }),
        typed("root_tuple", || (1i32, "one".to_owned())),
        typed("root_array", || [1u8, 2, 3]),
        typed("root_value", || json!({"anything": [1, "two", null]})),
        typed("root_value_scalar", || json!(5)),
        typed("root_tagged_enum", || Event::Click { x: 1, y: 2 }),
        typed("root_tagged_enum_other", || Event::Key {
            code: "K".to_owned(),
        }),
        typed("root_untagged_enum", || IdOrName::Name("ada".to_owned())),
        typed("root_untagged_enum_id", || IdOrName::Id(3)),
        typed("root_unit_enum", || Level::High),
        typed("root_unit_enum_vec", || vec![Level::Low, Level::High]),
        typed("root_flatten", move || Page {
            hit: hit(),
            related: vec![],
            next: None,
        }),
        typed("root_flatten_full", move || Page {
            hit: hit(),
            related: vec![1],
            next: Some("c".to_owned()),
        }),
        typed("root_newtype", move || Wrapper(vec![hit()])),
        typed("root_boxed", move || Box::new(hit())),
        typed("root_recursive", || Category {
            name: "a".to_owned(),
            children: vec![Category {
                name: "b".to_owned(),
                children: vec![],
            }],
        }),
        typed("root_recursive_vec", || {
            vec![Category {
                name: "a".to_owned(),
                children: vec![],
            }]
        }),
        typed("root_nested_options", || Some(Some(3u8))),
    ]
}

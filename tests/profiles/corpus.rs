//! The corpus: tool signatures covering what Rust argument types put in a schema, each an
//! argument struct whose schema comes from the same generator `#[tool]` uses
//! (`toolnexus::__private::schema_for`), with one sample call as a strict-mode model sends
//! it (`null` for every optional field) and the profiles it is expected to fail.
//!
//! Each entry is also a typed-output tool: the same type read from the sample and
//! returned as `Json<T>`, so the corpus covers output schemas too (tests/loop_typed_output.rs).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Debug;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolnexus::dispatch::Dispatch;
use toolnexus::schema::profile::Profile;
use toolnexus::tool::IntoToolResult;
use toolnexus::{Json, Tool, ToolResult};

/// One corpus entry.
pub(crate) struct Case {
    pub(crate) tool: Tool,
    /// Arguments as a strict-mode model sends them.
    pub(crate) sample: Value,
    /// The profiles expected to refuse this tool's schema.
    pub(crate) refused_by: Vec<Profile>,
    /// The same type as a typed output: reads its arguments into `T` and returns
    /// `Json(t)`, with `Json<T>`'s output schema, as a `#[tool]` function returning it
    /// would. Read by tests/loop_typed_output.rs only.
    #[allow(dead_code)]
    pub(crate) output: Tool,
}

/// A tool whose handler reads its arguments into `T` and echoes them (`{:?}`), as a
/// `#[tool]` function's generated handler would.
pub(crate) fn tool_of<T: DeserializeOwned + JsonSchema + Debug + 'static>(
    name: &str,
    description: &str,
) -> Tool {
    let label = name.to_owned();
    Tool::from_handler(
        name,
        description,
        toolnexus::__private::schema_for::<T>(),
        "native",
        Box::new(move |args, _ctx| {
            Dispatch::Ready(match args.parse::<T>(&label) {
                Ok(parsed) => ToolResult::ok(format!("{parsed:?}")),
                Err(error) => error.into(),
            })
        }),
    )
}

/// A tool whose handler reads its arguments into `T` and returns them as `Json<T>`, its
/// output schema `Json<T>`'s (what `#[tool]` gives a function returning it).
pub(crate) fn output_tool_of<T: DeserializeOwned + Serialize + JsonSchema + 'static>(
    name: &str,
    description: &str,
) -> Tool {
    let label = name.to_owned();
    let tool = Tool::from_handler(
        name,
        description,
        toolnexus::__private::schema_for::<T>(),
        "native",
        Box::new(move |args, _ctx| {
            Dispatch::Ready(match args.parse::<T>(&label) {
                Ok(parsed) => Json(parsed).into_tool_result(),
                Err(error) => error.into(),
            })
        }),
    );
    let schema = <Json<T> as IntoToolResult>::output_schema().expect("Json<T> has a schema");
    tool.with_output_schema(schema)
}

fn case<T: DeserializeOwned + Serialize + JsonSchema + Debug + 'static>(
    name: &str,
    description: &str,
    sample: Value,
    refused_by: &[Profile],
) -> Case {
    Case {
        tool: tool_of::<T>(name, description),
        sample,
        refused_by: refused_by.to_vec(),
        output: output_tool_of::<T>(name, description),
    }
}

// --- primitives ------------------------------------------------------------------------

macro_rules! primitive {
    ($($name:ident: $ty:ty = $sample:expr;)*) => {
        $(
            #[derive(Debug, Deserialize, Serialize, JsonSchema)]
            #[allow(dead_code)]
            pub(crate) struct $name {
                /// The value.
                value: $ty,
            }
        )*
        fn primitives() -> Vec<Case> {
            vec![$(case::<$name>(
                &stringify!($name).to_lowercase(),
                concat!("Takes one ", stringify!($ty), "."),
                json!({"value": $sample}),
                &[],
            )),*]
        }
    };
}

primitive! {
    PrimBool: bool = true;
    PrimI8: i8 = -8;
    PrimI16: i16 = -16;
    PrimI32: i32 = -32;
    PrimI64: i64 = -64;
    PrimU8: u8 = 8;
    PrimU16: u16 = 16;
    PrimU32: u32 = 32;
    PrimU64: u64 = 64;
    PrimUsize: usize = 7;
    PrimF32: f32 = 1.5;
    PrimF64: f64 = 2.5;
    PrimChar: char = "c";
    PrimString: String = "text";
}

// --- the rest ----------------------------------------------------------------------------

/// No parameters at all.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) struct NoParams {}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Optionals {
    /// A city, if known.
    pub(crate) city: Option<String>,
    pub(crate) days: Option<u32>,
    pub(crate) tags: Option<Vec<String>>,
    pub(crate) ratio: Option<f64>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Lists {
    /// Labels to attach.
    tags: Vec<String>,
    matrix: Vec<Vec<i32>>,
    unique: BTreeSet<u16>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct WithHashMap {
    /// Free-form labels.
    labels: HashMap<String, String>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct WithBTreeMap {
    counts: BTreeMap<String, u32>,
    note: Option<String>,
}

/// A postal address.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Address {
    /// Street and number.
    street: String,
    city: String,
    /// Postal code, when the country has them.
    zip: Option<String>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Shipping {
    /// Where to ship the parcel.
    to: Address,
    /// Where the invoice goes; the shipping address when absent.
    billing: Option<Address>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Customer {
    name: String,
    address: Address,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Order {
    /// Who orders.
    customer: Customer,
    lines: Vec<OrderLine>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct OrderLine {
    sku: String,
    quantity: u16,
}

/// How to sort.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SortOrder {
    /// Smallest first.
    Ascending,
    /// Largest first.
    Descending,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub(crate) enum Plain {
    Red,
    Green,
    Blue,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct UnitEnums {
    /// The sort order.
    order: SortOrder,
    colour: Plain,
    maybe_order: Option<SortOrder>,
}

/// A shape to draw.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) enum Shape {
    /// A circle around the origin.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// An axis-aligned rectangle.
    Rect { width: f64, height: f64 },
    /// A single point.
    Point,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct DataEnum {
    /// What to draw.
    shape: Shape,
}

/// An event, tagged by `kind`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
pub(crate) enum Event {
    /// A click at a position.
    Click { x: i32, y: i32 },
    /// A key press.
    Key { code: String },
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct TaggedEnum {
    event: Event,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
#[allow(dead_code)]
pub(crate) enum Adjacent {
    Text(String),
    Number(i64),
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct AdjacentEnum {
    item: Adjacent,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub(crate) enum IdOrName {
    Id(u64),
    Name(String),
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct UntaggedEnum {
    /// A user, by id or by name.
    user: IdOrName,
}

/// A tree of values.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Tree {
    value: i32,
    /// The subtrees.
    children: Vec<Tree>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Recursive {
    /// The tree to sum.
    tree: Tree,
}

/// A singly linked list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Node {
    value: String,
    /// The rest of the list.
    next: Option<Box<Node>>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct LinkedList {
    head: Node,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub(crate) struct Renamed {
    /// The user's id.
    #[serde(rename = "userID")]
    user_id: u64,
    display_name: String,
    is_admin: Option<bool>,
}

fn default_page_size() -> u16 {
    20
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Defaults {
    /// What to search for.
    query: String,
    /// Results per page.
    #[serde(default = "default_page_size")]
    page_size: u16,
    #[serde(default)]
    include_archived: bool,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Constrained {
    /// Who to write to.
    #[schemars(email)]
    to: String,
    #[schemars(url)]
    link: Option<String>,
    #[schemars(length(min = 1, max = 80))]
    subject: String,
    #[schemars(range(min = 1, max = 10))]
    priority: u8,
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    slug: String,
    #[schemars(length(min = 1, max = 3))]
    cc: Vec<String>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Untyped {
    /// Any JSON value.
    payload: serde_json::Value,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct UntypedItems {
    rows: Vec<serde_json::Value>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Tuple {
    /// A point as `[x, y]`.
    point: (i32, i32),
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[allow(dead_code)]
pub(crate) struct Mixed {
    /// The order, nested several levels deep.
    order: Option<Order>,
    sort: Vec<SortOrder>,
    shape: Option<Shape>,
    unsigned: Vec<u64>,
}

/// Every corpus entry.
pub(crate) fn corpus() -> Vec<Case> {
    use Profile::{AnthropicStrict as AS, Gemini as G, OpenAiStrict as OS};
    let mut cases = primitives();
    cases.extend([
        case::<NoParams>("no_params", "Takes nothing.", json!({}), &[]),
        case::<Optionals>(
            "optionals",
            "Every field optional.",
            json!({"city": null, "days": null, "tags": null, "ratio": null}),
            &[],
        ),
        case::<Lists>(
            "lists",
            "Vectors and sets.",
            json!({"tags": ["a"], "matrix": [[1, 2]], "unique": [1, 2]}),
            &[],
        ),
        case::<WithHashMap>(
            "hash_map",
            "A HashMap argument.",
            json!({"labels": {"k": "v"}}),
            &[OS, AS, G],
        ),
        case::<WithBTreeMap>(
            "btree_map",
            "A BTreeMap argument.",
            json!({"counts": {"a": 1}, "note": null}),
            &[OS, AS, G],
        ),
        case::<Shipping>(
            "nested_struct",
            "Documented struct fields.",
            json!({"to": {"street": "1 Main St", "city": "Springfield", "zip": null}, "billing": null}),
            &[],
        ),
        case::<Order>(
            "deeply_nested",
            "Structs in structs in lists.",
            json!({
                "customer": {"name": "Ada", "address": {"street": "s", "city": "c", "zip": "1"}},
                "lines": [{"sku": "x", "quantity": 2}]
            }),
            &[],
        ),
        case::<UnitEnums>(
            "unit_enums",
            "Unit enums, documented and not.",
            json!({"order": "ascending", "colour": "Red", "maybe_order": null}),
            &[],
        ),
        case::<DataEnum>(
            "data_enum",
            "A data-carrying enum.",
            json!({"shape": {"Circle": {"radius": 2.0}}}),
            &[],
        ),
        case::<TaggedEnum>(
            "tagged_enum",
            "An internally tagged enum.",
            json!({"event": {"kind": "click", "x": 1, "y": 2}}),
            &[],
        ),
        case::<AdjacentEnum>(
            "adjacent_enum",
            "An adjacently tagged enum.",
            json!({"item": {"t": "Text", "c": "hello"}}),
            &[],
        ),
        case::<UntaggedEnum>(
            "untagged_enum",
            "An untagged enum.",
            json!({"user": 42}),
            &[],
        ),
        case::<Recursive>(
            "recursive_tree",
            "A recursive type.",
            json!({"tree": {"value": 1, "children": [{"value": 2, "children": []}]}}),
            &[G, AS],
        ),
        case::<LinkedList>(
            "linked_list",
            "A recursive optional type.",
            json!({"head": {"value": "a", "next": {"value": "b", "next": null}}}),
            &[G, AS],
        ),
        case::<Renamed>(
            "renamed",
            "Renamed fields.",
            json!({"userID": 7, "displayName": "Ada", "isAdmin": null}),
            &[],
        ),
        case::<Defaults>(
            "defaults",
            "Fields with defaults.",
            json!({"query": "q", "page_size": null, "include_archived": null, "tags": null}),
            &[],
        ),
        case::<Constrained>(
            "constrained",
            "Formats and bounds.",
            json!({"to": "a@b.c", "link": null, "subject": "s", "priority": 3, "slug": "abc", "cc": ["x"]}),
            &[],
        ),
        case::<Untyped>(
            "untyped",
            "A serde_json::Value argument.",
            json!({"payload": {"any": [1]}}),
            &[OS, AS, G],
        ),
        case::<UntypedItems>(
            "untyped_items",
            "A list of untyped values.",
            json!({"rows": [1, "a"]}),
            &[OS, AS, G],
        ),
        case::<Tuple>("tuple", "A tuple argument.", json!({"point": [1, 2]}), &[]),
        case::<Mixed>(
            "mixed",
            "A bit of everything.",
            json!({"order": null, "sort": ["descending"], "shape": "Point", "unsigned": [1]}),
            &[],
        ),
    ]);
    cases
}

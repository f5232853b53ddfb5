//! Tools with state: `#[toolset]` methods bound to a shared value, and `State<T>`
//! parameters injected from the toolkit.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt::Display;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::schema::profile::Profile;
use toolnexus::tool::StateType;
use toolnexus::{Context, Json, State, Tool, ToolResult, Toolkit, Toolset, tool, toolset};

// ---- a toolset over a shared store ------------------------------------------------

/// A key-value store shared by its tools.
#[derive(Default)]
struct Store {
    entries: Arc<Mutex<HashMap<String, i64>>>,
}

#[toolset]
impl Store {
    /// Add `by` to the counter under `key`; returns the new value.
    #[tool]
    fn bump(
        &self,
        /// The counter's key.
        key: String,
        /// How much to add.
        by: i64,
    ) -> Result<i64, Infallible> {
        let mut entries = self.entries.lock().unwrap();
        let value = entries.entry(key).or_default();
        *value += by;
        Ok(*value)
    }

    /// Read the counter under `key`.
    #[tool(name = "read_counter", description = "Read one counter.")]
    async fn read(&self, key: String, ctx: &Context) -> Result<String, String> {
        tokio::task::yield_now().await;
        let entries = self.entries.lock().unwrap();
        match entries.get(&key) {
            Some(v) => Ok(format!("{v} ({})", ctx.call_id().unwrap_or("-"))),
            None => Err(format!("no counter `{key}`")),
        }
    }

    /// Every counter, as JSON.
    #[tool]
    fn dump(&self) -> Result<Json<HashMap<String, i64>>, Infallible> {
        Ok(Json(self.entries.lock().unwrap().clone()))
    }

    /// Forget every counter.
    #[tool]
    fn clear(&self) {
        self.entries.lock().unwrap().clear();
    }

    /// The store's version (an associated function: no `self`).
    #[tool]
    fn version() -> Result<&'static str, Infallible> {
        Ok("store-1")
    }

    /// Not a tool: an ordinary method beside them.
    fn total(&self) -> i64 {
        self.entries.lock().unwrap().values().sum()
    }
}

async fn run(toolkit: &Toolkit, name: &str, args: Value) -> ToolResult {
    toolkit.execute(name, args, Context::default()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tools_share_one_store_concurrently() {
    let store = Arc::new(Store::default());
    let toolkit = Toolkit::new().with_toolset(Arc::clone(&store));
    let names: Vec<&str> = toolkit.tools().iter().map(Tool::name).collect();
    assert_eq!(
        names,
        ["bump", "read_counter", "dump", "clear", "version"],
        "every #[tool] method, in the block's order; `total` is no tool"
    );

    let toolkit = Arc::new(toolkit);
    let mut tasks = Vec::new();
    for i in 0..100 {
        let toolkit = Arc::clone(&toolkit);
        tasks.push(tokio::spawn(async move {
            let key = if i % 2 == 0 { "even" } else { "odd" };
            let bumped = run(&toolkit, "bump", json!({"key": key, "by": 1})).await;
            assert!(!bumped.is_error, "{bumped:?}");
            let read = toolkit
                .execute(
                    "read_counter",
                    json!({"key": key}),
                    Context::default().with_call_id(format!("c{i}")),
                )
                .await;
            assert!(read.output.ends_with(&format!("(c{i})")), "{read:?}");
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let store_entries = store.entries.lock().unwrap().clone();
    assert_eq!(
        store_entries,
        HashMap::from([("even".into(), 50), ("odd".into(), 50)])
    );
    assert_eq!(store.total(), 100);

    let dump: Value = serde_json::from_str(&run(&toolkit, "dump", json!({})).await.output).unwrap();
    assert_eq!(dump, json!({"even": 50, "odd": 50}));
    assert_eq!(
        run(&toolkit, "version", json!({})).await,
        ToolResult::ok("store-1")
    );
    assert_eq!(
        run(&toolkit, "read_counter", json!({"key": "none"})).await,
        ToolResult::error("no counter `none`")
    );
    assert_eq!(
        run(&toolkit, "clear", json!({})).await,
        ToolResult::default()
    );
    assert_eq!(store.total(), 0);
}

#[test]
fn methods_stay_ordinary_methods() {
    let store = Store::default();
    assert_eq!(store.bump("a".into(), 2).unwrap(), 2);
    assert_eq!(store.bump("a".into(), 3).unwrap(), 5);
    store.clear();
    assert_eq!(store.total(), 0);
    assert_eq!(Store::version().unwrap(), "store-1");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    store.bump("b".into(), 1).unwrap();
    assert_eq!(
        rt.block_on(store.read("b".into(), &Context::default()))
            .unwrap(),
        "1 (-)"
    );
}

#[test]
fn toolset_tools_have_schemas_docs_and_overrides() {
    let tools = <Store as Toolset>::tools(Arc::new(Store::default()));
    let bump = &tools[0];
    assert_eq!(bump.source(), "native");
    assert_eq!(
        bump.description(),
        "Add `by` to the counter under `key`; returns the new value."
    );
    assert_eq!(
        bump.input_schema(),
        &json!({
            "type": "object",
            "properties": {
                "key": {"type": "string", "description": "The counter's key."},
                "by": {
                    "type": "integer",
                    "description": "How much to add."
                },
            },
            "required": ["key", "by"],
            "additionalProperties": false,
        })
    );
    assert_eq!(tools[1].description(), "Read one counter.");
    assert_eq!(tools[1].input_schema()["required"], json!(["key"]));
    // Taking the value itself (not an `Arc`) works too.
    assert_eq!(Toolkit::new().with_toolset(Store::default()).len(), 5);
}

#[test]
fn toolset_methods_are_not_registered_automatically() {
    let registered = Toolkit::registered();
    for name in ["bump", "read_counter", "dump", "clear", "version", "page"] {
        assert!(registered.get(name).is_none(), "{name} needs a value");
    }
    assert!(registered.get("greet_with_states").is_some());
}

// ---- a generic toolset ------------------------------------------------------------

trait Source: Send + Sync + 'static {
    fn fetch(&self, id: u32) -> Option<String>;
}

struct Fixed(Vec<&'static str>);

impl Source for Fixed {
    fn fetch(&self, id: u32) -> Option<String> {
        self.0.get(id as usize).map(|s| (*s).to_owned())
    }
}

struct Reader<S> {
    source: S,
    prefix: &'static str,
}

#[toolset]
impl<S: Source> Reader<S> {
    /// Read one page.
    #[tool]
    async fn page(
        &self,
        /** The page number. */
        id: u32,
    ) -> Result<String, String> {
        self.source
            .fetch(id)
            .map(|text| format!("{}{text}", self.prefix))
            .ok_or_else(|| format!("no page {id}"))
    }
}

#[tokio::test]
async fn generic_toolset() {
    let reader = Reader {
        source: Fixed(vec!["zero", "one"]),
        prefix: "> ",
    };
    let toolkit = Toolkit::new().with_toolset(reader);
    assert_eq!(
        run(&toolkit, "page", json!({"id": 1})).await,
        ToolResult::ok("> one")
    );
    assert_eq!(
        run(&toolkit, "page", json!({"id": 7})).await,
        ToolResult::error("no page 7")
    );
    let bad = run(&toolkit, "page", json!({"id": "x"})).await;
    assert!(
        bad.is_error && bad.output.contains("page") && bad.output.contains("id"),
        "{bad:?}"
    );
}

// ---- State<T> ------------------------------------------------------------------------

struct Greeting(String);

/// Greet someone, counting the greetings.
#[tool]
fn greet_with_states(
    greeting: State<Greeting>,
    count: State<AtomicU64>,
    /// Who to greet.
    name: String,
) -> Result<String, Infallible> {
    let n = count.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(format!("{} {name} (#{n})", greeting.0))
}

/// Look a word up in the shared dictionary.
#[tool]
async fn lookup(
    dictionary: State<HashMap<String, String>>,
    word: String,
) -> Result<String, String> {
    dictionary
        .get(&word)
        .cloned()
        .ok_or_else(|| format!("unknown word {word}"))
}

fn dictionary() -> HashMap<String, String> {
    HashMap::from([("tool".into(), "a means to an end".into())])
}

#[tokio::test]
async fn state_parameters_with_two_states() {
    let count = Arc::new(AtomicU64::new(0));
    let toolkit = Toolkit::new()
        .with_state(Greeting("hello".into()))
        .with_state(AtomicU64::new(0))
        .with_state(dictionary())
        .with(greet_with_states::tool())
        .with(lookup::tool());
    assert!(toolkit.check_states().is_ok());
    // States are never part of the schema.
    let schema = greet_with_states::tool().input_schema().clone();
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(schema["properties"].as_object().unwrap().len(), 1);
    assert_eq!(
        run(&toolkit, "greet_with_states", json!({"name": "Ada"})).await,
        ToolResult::ok("hello Ada (#1)")
    );
    assert_eq!(
        run(&toolkit, "greet_with_states", json!({"name": "Bob"})).await,
        ToolResult::ok("hello Bob (#2)"),
        "one shared counter, not a copy per call"
    );
    assert_eq!(
        run(&toolkit, "lookup", json!({"word": "tool"}))
            .await
            .output,
        "a means to an end"
    );

    // A state given in the context overrides the toolkit's of the same type.
    let ctx = Context::default().with_state(Greeting("hi".into()));
    let result = toolkit
        .execute("greet_with_states", json!({"name": "Cy"}), ctx)
        .await;
    assert_eq!(result, ToolResult::ok("hi Cy (#3)"));

    // The function is still a function: `State::new` builds the parameter by hand.
    let direct = greet_with_states(
        State::new(Greeting("hey".into())),
        State::from_arc(Arc::clone(&count)),
        "Di".into(),
    );
    assert_eq!(direct.unwrap(), "hey Di (#1)");
}

fn assert_names_fix(text: &impl Display, tool: &str, ty: &str) {
    let text = text.to_string();
    assert!(text.contains(&format!("`{tool}`")), "{text}");
    assert!(text.contains(ty), "{text}");
    assert!(text.contains("Toolkit::with_state"), "{text}");
}

#[tokio::test]
async fn missing_state_is_an_error_result_and_reported_by_check() {
    let toolkit = Toolkit::new()
        .with_state(Greeting("hello".into()))
        .with(greet_with_states::tool())
        .with(lookup::tool());
    let missing = toolkit.check_states().unwrap_err();
    let listed: Vec<(&str, &str)> = missing
        .iter()
        .map(|m| (m.tool(), m.state_type().name()))
        .collect();
    assert_eq!(
        listed,
        [
            ("greet_with_states", "core::sync::atomic::AtomicU64"),
            ("lookup", std::any::type_name::<HashMap<String, String>>()),
        ]
    );
    assert_names_fix(&missing[0], "greet_with_states", "AtomicU64");
    // `Toolkit::check` reports them too, for any profile, before any call.
    let checked = toolkit.check(Profile::Mcp).unwrap_err();
    let checked: Vec<(Option<&str>, String)> =
        checked.iter().map(|e| (e.tool(), e.to_string())).collect();
    assert_eq!(
        checked,
        missing
            .iter()
            .map(|m| (Some(m.tool()), m.to_string()))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        missing[0].to_string(),
        "the tool `greet_with_states` needs a state of type `core::sync::atomic::AtomicU64`, \
         and none was provided: add one with `Toolkit::with_state(value)` where \
         `value: core::sync::atomic::AtomicU64` (or `Context::with_state` when calling the \
         tool without a toolkit)"
    );

    let result = run(&toolkit, "greet_with_states", json!({"name": "Ada"})).await;
    assert!(result.is_error);
    assert_eq!(result.output, missing[0].to_string());
    let result = lookup::tool()
        .execute(json!({"word": "x"}), Context::default())
        .await;
    assert!(result.is_error);
    assert_names_fix(&result.output, "lookup", "HashMap");

    assert_eq!(
        greet_with_states::tool().required_states(),
        [StateType::of::<Greeting>(), StateType::of::<AtomicU64>()]
    );
}

#[tokio::test]
async fn hand_written_tools_read_state_from_the_context() {
    let tool = Tool::new_sync(
        "prefix",
        "Prefixes.",
        json!({"type": "object"}),
        |args, ctx| match ctx.state::<Greeting>() {
            Some(g) => ToolResult::ok(format!("{} {}", g.0, args["x"].as_str().unwrap_or(""))),
            None => ToolResult::error("no greeting"),
        },
    )
    .with_required_state::<Greeting>();
    let bare = Toolkit::new().with(tool.clone());
    assert_eq!(bare.check_states().unwrap_err()[0].tool(), "prefix");
    let toolkit = bare.clone().with_state(Greeting("yo".into()));
    assert!(toolkit.check_states().is_ok());
    assert_eq!(
        run(&toolkit, "prefix", json!({"x": "z"})).await,
        ToolResult::ok("yo z")
    );
    assert_eq!(
        run(&bare, "prefix", json!({})).await,
        ToolResult::error("no greeting")
    );
}

// ---- every adapter lists them ---------------------------------------------------------

fn full_toolkit() -> Toolkit {
    Toolkit::new()
        .with_state(Greeting("hello".into()))
        .with_state(AtomicU64::new(0))
        .with_state(dictionary())
        .with_toolset(Store::default())
        .with_toolset(Reader {
            source: Fixed(vec!["zero"]),
            prefix: "",
        })
        .with(greet_with_states::tool())
        .with(lookup::tool())
}

const ALL: [&str; 8] = [
    "bump",
    "read_counter",
    "dump",
    "clear",
    "version",
    "page",
    "greet_with_states",
    "lookup",
];

#[test]
fn every_adapter_lists_stateful_tools() {
    let toolkit = full_toolkit();
    let names = |list: &Value, key: &[&str]| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|e| {
                key.iter()
                    .fold(e, |v, k| &v[*k])
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(names(&toolkit.to_openai(), &["function", "name"]), ALL);
    assert_eq!(names(&toolkit.to_anthropic(), &["name"]), ALL);
    assert_eq!(
        names(&toolkit.to_gemini()[0]["functionDeclarations"], &["name"]),
        ALL
    );
    assert_eq!(names(&toolkit.to_mcp(), &["name"]), ALL);
    for profile in [
        Profile::OpenAi,
        Profile::Anthropic,
        Profile::Gemini,
        Profile::Mcp,
    ] {
        assert!(toolkit.check(profile).is_ok(), "{profile:?}");
    }
    let lookup = &toolkit.to_anthropic()[7];
    assert_eq!(lookup["input_schema"]["required"], json!(["word"]));
}

// ---- served over MCP -------------------------------------------------------------------

#[tokio::test]
async fn served_over_mcp() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(theirs);
    let server = tokio::spawn(toolnexus::mcp::McpServer::new(full_toolkit()).serve_io(read, write));
    let (read, mut write) = tokio::io::split(ours);
    let mut lines = BufReader::new(read).lines();
    let mut exchange = async |id: u64, method: &str, params: Value| -> Value {
        let mut msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        if id > 0 {
            msg["id"] = json!(id);
        }
        write
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .unwrap();
        if id == 0 {
            return Value::Null;
        }
        loop {
            let line = tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
                .await
                .expect("the server answers")
                .unwrap()
                .expect("the server keeps the connection open");
            let msg: Value = serde_json::from_str(&line).unwrap();
            if msg["id"] == id {
                return msg;
            }
        }
    };
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}});
    exchange(1, "initialize", init).await;
    exchange(0, "notifications/initialized", json!({})).await;

    let listed = exchange(2, "tools/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ALL);

    let call = |name: &str, args: Value| json!({"name": name, "arguments": args});
    let bumped = exchange(3, "tools/call", call("bump", json!({"key": "k", "by": 4}))).await;
    assert_eq!(bumped["result"]["content"][0]["text"], "4", "{bumped}");
    let read = exchange(4, "tools/call", call("read_counter", json!({"key": "k"}))).await;
    assert_eq!(read["result"]["isError"], false, "{read}");
    let greeted = exchange(
        5,
        "tools/call",
        call("greet_with_states", json!({"name": "Ada"})),
    )
    .await;
    assert_eq!(
        greeted["result"]["content"][0]["text"], "hello Ada (#1)",
        "{greeted}"
    );
    let page = exchange(6, "tools/call", call("page", json!({"id": 0}))).await;
    assert_eq!(page["result"]["content"][0]["text"], "zero", "{page}");

    drop((write, lines));
    let stopped = tokio::time::timeout(std::time::Duration::from_secs(10), server).await;
    assert!(stopped.is_ok(), "the server stops when the client hangs up");
}

#[tokio::test]
async fn a_toolset_method_returning_json_has_an_output_schema_and_structured_results() {
    let store = Arc::new(Store::default());
    let toolkit = Toolkit::new().with_toolset(Arc::clone(&store));
    let dump = toolkit.get("dump").unwrap();
    let schema = dump
        .output_schema()
        .expect("Json<T> gives an output schema");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"]["type"], "integer");
    assert_eq!(toolkit.get("bump").unwrap().output_schema(), None);
    assert_eq!(toolkit.get("clear").unwrap().output_schema(), None);

    run(&toolkit, "bump", json!({"key": "a", "by": 2})).await;
    let result = run(&toolkit, "dump", json!({})).await;
    assert_eq!(result.structured(), Some(&json!({"a": 2})));
    let listed = toolkit.to_mcp();
    let entry = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "dump")
        .unwrap();
    assert_eq!(&entry["outputSchema"], schema);
}

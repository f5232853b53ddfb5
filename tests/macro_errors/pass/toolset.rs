// `#[toolset]`: sync and async `&self` methods, `Context` and `State<T>` parameters,
// associated functions, generic blocks, keys, `crate = …`, and the methods stay methods.
use std::sync::Arc;

use toolnexus::{tool, toolset, Context, State, ToolResult, Toolkit, Toolset};

struct Prefix(&'static str);

struct Service<D> {
    db: D,
}

trait Db: Send + Sync + 'static {
    fn get(&self, id: u64) -> Option<String>;
}

struct Memory;

impl Db for Memory {
    fn get(&self, id: u64) -> Option<String> {
        (id == 1).then(|| "one".to_owned())
    }
}

#[toolset]
impl<D: Db> Service<D> {
    /// Look a row up.
    #[tool]
    async fn lookup(&self, /** The row id. */ id: u64, ctx: &Context) -> Result<String, String> {
        let _ = ctx.call_id();
        self.db.get(id).ok_or_else(|| format!("no row {id}"))
    }

    /// Look a row up, prefixed.
    #[tool(name = "lookup_prefixed", description = "Prefixed lookup.")]
    fn prefixed(&self, prefix: State<Prefix>, id: u64) -> Result<String, String> {
        self.db.get(id).map(|v| format!("{}{v}", prefix.0)).ok_or_else(|| "none".to_owned())
    }

    /// The service's name.
    #[tool]
    fn kind() -> Result<&'static str, String> {
        Ok("service")
    }

    /// A plain helper, not a tool.
    fn helper(&self) -> bool {
        true
    }
}

mod reexport {
    pub use toolnexus as tn;
}

struct Other;

#[toolset(crate = "reexport::tn")]
impl Other {
    /// Ping.
    #[reexport::tn::tool]
    fn ping(&self) -> Result<&'static str, String> {
        Ok("pong")
    }
}

fn main() {
    let service = Arc::new(Service { db: Memory });
    let tools = <Service<Memory> as Toolset>::tools(Arc::clone(&service));
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["lookup", "lookup_prefixed", "kind"]);
    assert!(service.helper());
    assert_eq!(Service::<Memory>::kind(), Ok("service"));

    let toolkit = Toolkit::new()
        .with_state(Prefix("> "))
        .with_toolset(service)
        .with_toolset(Other);
    assert!(toolkit.check_states().is_ok());
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let run = |name, args| rt.block_on(toolkit.execute(name, args, Context::default()));
    assert_eq!(run("lookup", serde_json::json!({"id": 1})), ToolResult::ok("one"));
    assert_eq!(run("lookup_prefixed", serde_json::json!({"id": 1})), ToolResult::ok("> one"));
    assert_eq!(run("ping", serde_json::json!({})), ToolResult::ok("pong"));
}

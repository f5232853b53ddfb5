// `()` and `Result<(), E>` are accepted: an empty success.
use toolnexus::{tool, Context, ToolResult};

/// Log a line.
#[tool]
fn log(line: String) {
    let _ = line;
}

/// Log a line, spelled out.
#[tool]
async fn log_unit(line: String) -> () {
    let _ = line;
}

/// Store a line; may fail.
#[tool]
fn store(line: String) -> Result<(), String> {
    if line.is_empty() { Err("empty line".into()) } else { Ok(()) }
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let run = |tool: toolnexus::Tool, args| rt.block_on(tool.execute(args, Context::default()));
    assert_eq!(run(log::tool(), serde_json::json!({"line": "x"})), ToolResult::default());
    assert_eq!(run(log_unit::tool(), serde_json::json!({"line": "x"})), ToolResult::default());
    assert_eq!(run(store::tool(), serde_json::json!({"line": "x"})), ToolResult::default());
    assert_eq!(run(store::tool(), serde_json::json!({"line": ""})), ToolResult::error("empty line"));
    log("still a function".into());
}

/// `Self` inside a block nested in a free tool belongs to that block.
#[tool]
fn nested_impl(n: u32) -> Result<u32, String> {
    struct Twice(u32);
    impl Twice {
        fn new(n: u32) -> Self {
            Twice(n * 2)
        }
    }
    Ok(Twice::new(n).0)
}

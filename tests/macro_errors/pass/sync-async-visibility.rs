// Sync and async functions, every visibility, nested modules and a function defined
// inside another function's body all become tools, and stay ordinary functions.
use toolnexus::{tool, tools, Context, ToolResult, Toolkit};

/// Private and synchronous.
#[tool]
fn private_sync(x: i64) -> Result<i64, String> {
    Ok(x + 1)
}

/// Public and asynchronous.
#[tool]
pub async fn public_async(x: i64) -> Result<i64, String> {
    Ok(x * 2)
}

pub(crate) mod outer {
    pub mod inner {
        /// Crate-visible, two modules deep.
        #[toolnexus::tool]
        pub(crate) fn nested(text: String) -> Result<String, String> {
            Ok(text.to_uppercase())
        }

        /// Visible to the parent module only.
        #[toolnexus::tool]
        pub(super) async fn parent_only() -> Result<&'static str, String> {
            Ok("parent")
        }
    }

    pub(crate) fn parent_only_tool() -> toolnexus::Tool {
        inner::parent_only::tool()
    }
}

fn main() {
    /// Defined inside `main`.
    #[tool]
    fn local(n: u8) -> Result<u8, String> {
        Ok(n)
    }

    // Still ordinary functions.
    assert_eq!(private_sync(1), Ok(2));
    assert_eq!(outer::inner::nested("a".into()), Ok("A".into()));
    assert_eq!(local(3), Ok(3));

    let toolkit: Toolkit = tools![private_sync, public_async, outer::inner::nested, local]
        .into_iter()
        .chain([outer::parent_only_tool()])
        .collect();
    assert_eq!(toolkit.len(), 5);

    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let run = |name: &str, args: &str| rt.block_on(toolkit.execute_json(name, args, Context::default()));
    assert_eq!(run("private_sync", r#"{"x": 1}"#), ToolResult::ok("2"));
    assert_eq!(run("public_async", r#"{"x": 21}"#), ToolResult::ok("42"));
    assert_eq!(run("nested", r#"{"text": "hi"}"#), ToolResult::ok("HI"));
    assert_eq!(run("parent_only", "{}"), ToolResult::ok("parent"));
    assert_eq!(run("local", r#"{"n": 9}"#), ToolResult::ok("9"));

    // Every one of them is also collected by the registry.
    let registered = Toolkit::registered();
    for name in ["private_sync", "public_async", "nested", "parent_only", "local"] {
        assert!(registered.get(name).is_some(), "{name} is not registered");
    }
}

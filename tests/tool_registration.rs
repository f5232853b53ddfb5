//! Registration that does not surprise: the same tool wins a name clash in `tools![]` and in
//! `Toolkit::registered()`, the clash can be an error, and a tool is callable by the name
//! it was given.

use std::convert::Infallible;

use serde_json::json;
use toolnexus::tool::Rejection;
use toolnexus::{Context, Tool, ToolResult, Toolkit, tool, tools};

mod alpha {
    /// Lookup, from alpha.
    #[toolnexus::tool(name = "lookup")]
    pub fn lookup() -> Result<&'static str, std::convert::Infallible> {
        Ok("alpha")
    }
}

mod beta {
    /// Lookup, from beta.
    #[toolnexus::tool(name = "lookup")]
    pub fn lookup() -> Result<&'static str, std::convert::Infallible> {
        Ok("beta")
    }
}

/// Unrelated.
#[tool]
fn ping() -> Result<&'static str, Infallible> {
    Ok("pong")
}

async fn run(toolkit: &Toolkit, name: &str) -> ToolResult {
    toolkit.execute(name, json!({}), Context::default()).await
}

#[tokio::test]
async fn tools_and_registered_agree_on_the_winner() {
    let listed: Toolkit = tools![alpha::lookup, beta::lookup, ping]
        .into_iter()
        .collect();
    let registered = Toolkit::registered();
    assert_eq!(run(&listed, "lookup").await, ToolResult::ok("alpha"));
    assert_eq!(run(&registered, "lookup").await, ToolResult::ok("alpha"));
    for toolkit in [&listed, &registered] {
        let rejected = toolkit.rejected();
        assert_eq!(rejected.len(), 1);
        assert_eq!(rejected[0].name(), "lookup");
        assert!(matches!(rejected[0].reason(), Rejection::Duplicate { .. }));
        assert_eq!(rejected[0].refused().description(), "Lookup, from beta.");
    }
}

#[test]
fn a_clash_can_be_an_error() {
    let clashes = Toolkit::try_registered().unwrap_err();
    assert_eq!(clashes.len(), 1);
    assert_eq!(
        clashes[0].to_string(),
        "duplicate tool name `lookup`: the native tool registered first is kept, the native one is ignored"
    );
    let clashes = Toolkit::try_from_tools(tools![beta::lookup, alpha::lookup]).unwrap_err();
    assert_eq!(clashes[0].refused().description(), "Lookup, from alpha.");
    assert_eq!(
        Toolkit::try_from_tools(tools![alpha::lookup, ping])
            .unwrap()
            .len(),
        2
    );

    let mut toolkit = Toolkit::new().with(ping::tool());
    let err = toolkit.register(ping::tool()).unwrap_err();
    assert_eq!(err.name(), "ping");
}

#[tokio::test]
async fn a_tool_is_callable_by_the_name_it_was_given() {
    let deploy = Tool::new_sync(
        "run.deploy",
        "Deploy.",
        json!({"type": "object"}),
        |_, _| ToolResult::ok("deployed"),
    );
    let toolkit = Toolkit::new().with(deploy);
    assert_eq!(toolkit.to_openai()[0]["function"]["name"], "run_deploy");
    assert_eq!(
        run(&toolkit, "run.deploy").await,
        ToolResult::ok("deployed")
    );
    assert_eq!(
        run(&toolkit, "run_deploy").await,
        ToolResult::ok("deployed")
    );
    assert!(toolkit.get("run.deploy").is_some());
    assert_eq!(
        run(&toolkit, "run deploy!").await,
        ToolResult::error("Unknown tool: run deploy!"),
        "another name stays unknown"
    );
}

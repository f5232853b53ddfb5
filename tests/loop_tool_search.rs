//! Tool search in the loop (`Client::tool_search`, `toolnexus::search`): what each turn
//! lists, that found tools join the listing and unlisted ones still run, that a halted
//! and resumed run keeps what it found, and the same over `McpClient` tools from two
//! servers (this crate's `mcp_server` example over stdio, and a server written with the
//! official Python SDK). Servers bind nothing but stdio and are killed with their client.

#[path = "support/mcp_peer.rs"]
mod mcp_peer;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::json;
use toolnexus::mcp::McpClient;
use toolnexus::model::{ModelFuture, ModelRequest};
use toolnexus::search::{SEARCH_TOOL, ToolIndex, ToolSearch};
use toolnexus::{
    Answer, Client, Model, Reply, Request, RunResult, RunStatus, ScriptedModel, Tool, ToolResult,
    Toolkit,
};

/// A scripted model that records the names of the tools listed on each turn.
struct Recording {
    script: ScriptedModel,
    listed: Arc<Mutex<Vec<Vec<String>>>>,
}

impl Recording {
    fn new(replies: impl IntoIterator<Item = Reply>) -> (Recording, Arc<Mutex<Vec<Vec<String>>>>) {
        let listed = Arc::new(Mutex::new(Vec::new()));
        let model = Recording {
            script: ScriptedModel::new(replies),
            listed: Arc::clone(&listed),
        };
        (model, listed)
    }
}

impl Model for Recording {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        let names = request
            .toolkit
            .tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect();
        self.listed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(names);
        self.script.complete(request)
    }
}

fn listed(log: &Mutex<Vec<Vec<String>>>) -> Vec<Vec<String>> {
    log.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

fn tool(name: &str, description: &str, output: &'static str) -> Tool {
    Tool::new_sync(name, description, json!({"type": "object"}), move |_, _| {
        ToolResult::ok(output)
    })
}

/// 200 filler tools about unrelated things, then the few a shop needs.
fn shop() -> Toolkit {
    let topics = [
        "satellite",
        "glacier",
        "violin",
        "tax",
        "orbit",
        "fossil",
        "tide",
        "pixel",
    ];
    let mut toolkit: Toolkit = (0..200)
        .map(|i| {
            let topic = topics[i % topics.len()];
            tool(
                &format!("{topic}_tool_{i}"),
                &format!("Measures the {topic} number {i}."),
                "filler",
            )
        })
        .collect();
    toolkit.extend([
        tool("get_time", "The current time.", "12:00"),
        tool("refund_order", "Refund a customer's order.", "refunded"),
        tool("track_parcel", "Where a shipped parcel is now.", "in Oslo"),
        Tool::new_sync(
            "approve_refund",
            "Ask a manager to approve a large refund.",
            json!({"type": "object"}),
            |_, ctx| match ctx.answer() {
                Some(answer) if answer.ok => ToolResult::ok("approved"),
                _ => ToolResult::pending(Request::approval("Approve the refund?").with_id("r-1")),
            },
        ),
    ]);
    toolkit
}

fn search(id: &str, query: &str) -> Reply {
    Reply::call(id, SEARCH_TOOL, json!({"query": query}).to_string())
}

#[tokio::test]
async fn each_turn_lists_search_the_visible_tools_and_what_was_found() {
    let toolkit = shop();
    let (model, log) = Recording::new([
        search("s1", "refund an order"),
        Reply::call("c1", "refund_order", "{}"),
        Reply::text("Refunded."),
    ]);
    let client =
        Client::new(model).tool_search(ToolSearch::above(30).visible(["get_time"]).results(3));
    let run = client.run("Refund order 42", &toolkit).await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.text, "Refunded.");

    let found = &run.tool_calls[0].result.output;
    // Two tools share a word with the query; the 200 others are not shown.
    assert!(found.starts_with("2 tools found"), "{found}");
    assert!(
        found.contains("\n- refund_order: Refund a customer's order."),
        "{found}"
    );
    assert_eq!(run.tool_calls[1].result.output, "refunded");

    let listed = listed(&log);
    assert_eq!(listed.len(), 3);
    assert_eq!(listed[0], [SEARCH_TOOL, "get_time"]);
    // What the search found is listed from the next turn on, best first.
    assert_eq!(
        listed[1],
        [SEARCH_TOOL, "get_time", "refund_order", "approve_refund"]
    );
    assert_eq!(listed[2], listed[1]);
}

#[tokio::test]
async fn a_toolkit_tool_that_is_not_listed_still_runs_and_then_is_listed() {
    let toolkit = shop();
    let (model, log) = Recording::new([
        Reply::call("c1", "track_parcel", "{}"),
        Reply::call("c2", "no_such_tool", "{}"),
        Reply::text("It is in Oslo."),
    ]);
    let client = Client::new(model).tool_search(ToolSearch::new());
    let run = client.run("Where is my parcel?", &toolkit).await;
    assert_eq!(run.tool_calls[0].result.output, "in Oslo");
    assert_eq!(
        run.tool_calls[1].result.output,
        "Unknown tool: no_such_tool"
    );
    let listed = listed(&log);
    assert_eq!(listed[0], [SEARCH_TOOL]);
    assert_eq!(listed[1], [SEARCH_TOOL, "track_parcel"]);
    assert_eq!(listed[2], [SEARCH_TOOL, "track_parcel"]);
}

#[tokio::test]
async fn a_small_toolkit_is_listed_whole_and_bad_searches_are_errors_the_model_reads() {
    let small: Toolkit = [tool("a", "A.", "a"), tool("b", "B.", "b")]
        .into_iter()
        .collect();
    let (model, log) = Recording::new([Reply::text("ok")]);
    let run = Client::new(model)
        .tool_search(ToolSearch::above(2))
        .run("hi", &small)
        .await;
    assert!(run.is_done());
    assert_eq!(listed(&log)[0], ["a", "b"]);

    let (model, _) = Recording::new([
        Reply::call("s1", SEARCH_TOOL, "{}"),
        Reply::call("s2", SEARCH_TOOL, r#"{"query": "x", "limit": 0}"#),
        search("s3", "zzzz qqqq"),
        Reply::text("none"),
    ]);
    let run = Client::new(model)
        .tool_search(ToolSearch::new())
        .run("hi", &shop())
        .await;
    let outputs: Vec<(&str, bool)> = run
        .tool_calls
        .iter()
        .map(|c| (c.result.output.as_str(), c.result.is_error))
        .collect();
    assert_eq!(
        outputs,
        [
            ("search_tools: `query` must be a non-empty string", true),
            (
                "search_tools: `limit` must be an integer from 1 to 10",
                true
            ),
            (
                "No tool matches \"zzzz qqqq\". Search again with other words.",
                false
            ),
        ]
    );
}

#[tokio::test]
async fn a_halted_run_resumed_from_its_json_keeps_the_tools_it_found() {
    let toolkit = shop();
    let (model, log) = Recording::new([
        search("s1", "approve a refund"),
        Reply::call("c1", "approve_refund", "{}"),
        Reply::call("c2", "refund_order", "{}"),
        Reply::text("Done."),
    ]);
    let client = Client::new(model).tool_search(ToolSearch::above(30).results(2));
    let halted = client.run("Refund 900 EUR", &toolkit).await;
    assert_eq!(halted.status, RunStatus::Pending);
    let request = halted.pending.clone().expect("halted on the approval");

    // Another process: the run comes back from its JSON, with a fresh client.
    let json = serde_json::to_string(&halted).unwrap();
    let halted: RunResult = serde_json::from_str(&json).unwrap();
    let resumed = client
        .resume(halted.messages, Answer::accept(&request.id), &toolkit)
        .await
        .unwrap();
    assert!(resumed.is_done(), "{resumed:?}");
    assert_eq!(resumed.tool_calls[0].result.output, "approved");
    assert_eq!(resumed.tool_calls[1].result.output, "refunded");

    let listed = listed(&log);
    assert_eq!(listed.len(), 4);
    assert_eq!(listed[1][..2], [SEARCH_TOOL, "approve_refund"]);
    // After the resume, the found set is what it was, and what was called joined it.
    assert_eq!(listed[2][..2], listed[1][..2]);
    assert!(
        listed[3].contains(&"refund_order".to_owned()),
        "{:?}",
        listed[3]
    );
}

#[tokio::test]
async fn a_given_index_is_what_search_uses() {
    let toolkit = shop();
    // An index over other tools: what it finds is what the model sees.
    let other: Toolkit = [tool("refund_order", "Refund.", "x")].into_iter().collect();
    let given = Arc::new(ToolIndex::new(&other));
    let (model, _) = Recording::new([search("s1", "anything: refund"), Reply::text("ok")]);
    let run = Client::new(model)
        .tool_search(ToolSearch::new().index(given))
        .run("hi", &toolkit)
        .await;
    assert_eq!(
        run.tool_calls[0].result.output,
        "1 tool found; it can be called now:\n- refund_order: Refund."
    );
}

/// The same loop over the tools of two MCP servers, pooled with local filler tools.
#[tokio::test]
async fn search_then_call_over_mcp_tools_from_two_servers() {
    let rust = McpClient::stdio(mcp_peer::example_server(), Vec::<String>::new())
        .prefix("calc")
        .connect()
        .await
        .expect("the example server starts");
    let python = McpClient::stdio(mcp_peer::python(), [mcp_peer::python_server()])
        .quiet()
        .timeout(Duration::from_secs(5))
        .connect()
        .await
        .expect("the Python server starts");
    let mut toolkit = shop();
    toolkit.extend(rust.tools().await.unwrap());
    toolkit.extend(python.tools().await.unwrap());
    assert!(toolkit.len() > 210);

    let (model, log) = Recording::new([
        search("s1", "add two numbers"),
        Reply::call("c1", "calc_add", r#"{"a": 2, "b": 3}"#),
        search("s2", "weather in a city"),
        Reply::call("c2", "weather", r#"{"city": "Oslo"}"#),
        Reply::text("5, and 21.5 °C in Oslo."),
    ]);
    let client = Client::new(model).tool_search(ToolSearch::above(30));
    let run = client
        .run("Add 2 and 3, then the weather in Oslo", &toolkit)
        .await;
    assert!(run.is_done(), "{run:?}");
    let first_line = |text: &str| text.lines().nth(1).unwrap_or_default().to_owned();
    assert_eq!(
        first_line(&run.tool_calls[0].result.output),
        "- calc_add: Add two numbers."
    );
    assert_eq!(run.tool_calls[1].result.output, "5");
    assert!(
        first_line(&run.tool_calls[2].result.output).starts_with("- weather:"),
        "{:?}",
        run.tool_calls[2]
    );
    assert!(
        run.tool_calls[3].result.output.contains("21.5"),
        "{:?}",
        run.tool_calls[3]
    );

    let listed = listed(&log);
    assert!(
        listed.iter().all(|names| names.len() <= 1 + 5 + 5),
        "{listed:?}"
    );
    assert!(listed[1].contains(&"calc_add".to_owned()));
    assert!(listed[3].contains(&"weather".to_owned()));
    drop((rust, python));
}

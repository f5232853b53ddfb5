//! An orchestrator with two specialists, each an agent of its own run as one tool:
//! `research` (with a `search` tool) and `publish` (whose `post` tool asks for approval).
//! The approval, asked two levels down, is answered at the top, and the post goes out once.
//! Models are scripted, so this runs offline: `cargo run --example sub_agents`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolnexus::{
    Client, Context, Event, Reply, Request, ScriptedModel, State, Suspend, Tool, ToolResult,
    Toolkit, tool,
};

fn researcher() -> Tool {
    let search = Tool::new_sync(
        "search",
        "Searches the web.",
        json!({"type": "object"}),
        |args, _| {
            let query = args["query"].as_str().unwrap_or_default();
            ToolResult::ok(format!("3 articles about {query}"))
        },
    );
    let model = ScriptedModel::new([
        Reply::call("s1", "search", r#"{"query": "rust async"}"#),
        Reply::text("Rust async is mature: 3 good articles."),
    ]);
    Client::new(model)
        .system("You research topics and summarise what you find.")
        .as_tool(
            "research",
            "Researches a topic.",
            Toolkit::new().with(search),
        )
}

/// Posts to the blog, once a human approves.
#[tool]
async fn post(
    /// The post's title.
    title: String,
    posts: State<Arc<AtomicUsize>>,
    ctx: &Context,
) -> Result<String, Suspend> {
    if ctx.answer().is_none() {
        let ask = Request::approval("Publish the post?").with_id("publish");
        return Err(Suspend(ask));
    }
    posts.fetch_add(1, Ordering::SeqCst);
    let slug = title.to_lowercase().replace(' ', "-");
    Ok(format!("published at /blog/{slug}"))
}

fn publisher(posts: Arc<AtomicUsize>) -> Tool {
    let model = ScriptedModel::new([
        Reply::call("p1", "post", r#"{"title": "Rust async"}"#),
        Reply::text("Published."),
    ]);
    Client::new(model).system("You publish posts.").as_tool(
        "publish",
        "Publishes a post.",
        Toolkit::new().with_state(posts).with(post::tool()),
    )
}

#[tokio::main]
async fn main() {
    let posts = Arc::new(AtomicUsize::new(0));
    let toolkit = Toolkit::new()
        .with(researcher())
        .with(publisher(Arc::clone(&posts)));
    let orchestrator = Client::new(ScriptedModel::new([
        Reply::call("c1", "research", r#"{"prompt": "rust async"}"#),
        Reply::call("c2", "publish", r#"{"prompt": "a post on rust async"}"#),
        Reply::text("Researched and published."),
    ]))
    .on_event(|event| {
        if let Event::Agent { path, event } = event
            && let Event::ToolCallStarted { call, .. } = &**event
        {
            println!("[{}] runs {}", path.join("/"), call.name);
        }
    })
    .wait_for(|request: Request| async move {
        println!("approval asked: {} ({})", request.prompt, request.id);
        request.answer(true)
    });
    let run = orchestrator.run("Write about Rust async.", &toolkit).await;
    for call in &run.tool_calls {
        println!("{} -> {}", call.call.name, call.result.output);
    }
    println!("answer: {}", run.text);
    println!("posts: {}", posts.load(Ordering::SeqCst));
    println!("tokens: {:?}, turns: {}", run.usage, run.turns);
}

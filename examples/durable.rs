//! A durable run that outlives its process: the first invocation starts a deploy that
//! asks for approval, parks it in a SQLite file and exits; the second lists what waits
//! in the store and answers it, resuming the run where it stopped.
//!
//! ```text
//! cargo run --example durable --features durable              # parks the run, exits
//! cargo run --example durable --features durable -- --answer  # approves it, run finishes
//! ```
//!
//! The store file is `toolnexus-durable-example.db` in the temp directory (or the path
//! after `--db`). The model is a stand-in that reads only the transcript, so the second
//! process can continue what the first began.

use std::error::Error;

use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Answer, Client, Context, Message, Reply, Suspend, Toolkit, tool};

/// Deploy the service to production, once a human approves.
#[tool]
async fn deploy(ctx: &Context) -> Result<String, Suspend> {
    match ctx.answer() {
        Some(answer) => Ok(format!(
            "deployed build 42 (approved by {})",
            answer.text().unwrap_or("someone")
        )),
        None => Err(Suspend::approval("Deploy build 42 to production?")),
    }
}

fn model() -> FnModel {
    FnModel::new_sync(|transcript, _| {
        Ok(match transcript.last() {
            Some(Message::Tool { content, .. }) => Reply::text(format!("Done: {content}")),
            _ => Reply::call("call_deploy", "deploy", "{}"),
        })
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let db = match args.iter().position(|a| a == "--db") {
        Some(i) => args.get(i + 1).cloned().ok_or("--db needs a path")?,
        None => std::env::temp_dir()
            .join("toolnexus-durable-example.db")
            .display()
            .to_string(),
    };
    let store = RunStore::sqlite(&db).await?;
    let client = Client::new(model()).store(store.clone());
    let toolkit = Toolkit::new().with(deploy::tool());

    if !args.iter().any(|a| a == "--answer") {
        let run = client.run("Deploy the service", &toolkit).await;
        let id = run.id.as_deref().unwrap_or("?");
        println!("run {id} parked: {}", run.text);
        println!("answer it with: cargo run --example durable --features durable -- --answer");
        return Ok(());
    }
    let waiting = store.pending().await?;
    if waiting.is_empty() {
        println!("nothing is waiting in {db}; run without --answer first");
    }
    for request in waiting {
        println!(
            "run {} waits on {} ({}s): {}",
            request.run_id,
            request.tool,
            request.age.as_secs(),
            request.prompt
        );
        let answer = Answer::accept(&request.request.id).with_data("ana");
        let run = client.answer(answer, &toolkit).await?;
        println!("run {} resumed: {}", request.run_id, run.text);
    }
    Ok(())
}

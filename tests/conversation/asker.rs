//! One `Client::ask` in a process of its own, on a SQLite run store (tests/loop_conversation.rs):
//! `asker DB MODE ID PROMPT`, MODE `durable` (`store`: the store's session, a durable
//! run) or `store` (`conversations(store)`: the store as a `ConversationStore`). The model
//! answers with the user turns it is shown, so the answer says what the conversation
//! held. Prints the run as JSON.

use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Client, Message, Reply, Toolkit};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, db, mode, id, prompt] = &args[..] else {
        eprintln!("usage: asker DB durable|store ID PROMPT");
        std::process::exit(2);
    };
    let model = FnModel::new_sync(|transcript, _| {
        let asked: Vec<&str> = transcript
            .iter()
            .filter_map(|m| match m {
                Message::User { content } => content.as_text(),
                _ => None,
            })
            .collect();
        Ok(Reply::text(asked.join(" | ")))
    });
    let store = RunStore::sqlite(db).await.expect("SQLite store");
    let client = Client::new(model).system("You remember.");
    let client = match mode.as_str() {
        "durable" => client.store(store),
        "store" => client.conversations(store),
        other => panic!("unknown mode {other}"),
    };
    let run = client
        .ask(id, prompt.as_str(), &Toolkit::new())
        .await
        .expect("the conversation continues");
    println!("{}", serde_json::to_string(&run).unwrap());
}

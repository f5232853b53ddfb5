//! `RunRequest::conversation`: a prompt run in a conversation kept by id, with every
//! finisher (await, stream), in memory and on a SQLite run store, continued by
//! `Client::ask` as the same conversation.

use futures_util::StreamExt as _;
use toolnexus::model::FnModel;
use toolnexus::store::RunStore;
use toolnexus::{Client, Message, Reply, RunStatus, Toolkit};

/// Answers how many user messages its transcript holds, and the last one.
fn counter() -> FnModel {
    FnModel::new_sync(|transcript, _| {
        let users: Vec<&str> = transcript
            .iter()
            .filter(|m| matches!(m, Message::User { .. }))
            .filter_map(Message::text)
            .collect();
        Ok(Reply::text(format!(
            "{} user messages, last: {}",
            users.len(),
            users.last().unwrap_or(&"-")
        )))
    })
}

#[tokio::test]
async fn in_memory_a_conversation_continues_by_id_whatever_the_finisher() {
    let client = Client::new(counter());
    let toolkit = Toolkit::new();
    let first = client.run("one", &toolkit).conversation("c1").await;
    assert_eq!(first.text, "1 user messages, last: one");
    assert!(
        first
            .id
            .as_deref()
            .is_some_and(|id| id.starts_with("session:c1/run_")),
        "{:?}",
        first.id
    );
    // Another id is another conversation.
    let other = client.run("elsewhere", &toolkit).conversation("c2").await;
    assert_eq!(other.text, "1 user messages, last: elsewhere");
    // Streamed, the same conversation goes on, and holds what the stream's run added.
    let events: Vec<_> = client
        .run("two", &toolkit)
        .conversation("c1")
        .stream()
        .collect()
        .await;
    assert!(events.len() >= 3, "{events:?}");
    let third = client.ask("c1", "three", &toolkit).await.unwrap();
    assert_eq!(third.text, "3 user messages, last: three");
    assert_eq!(third.messages.len(), 6);
    // After `history`, `conversation` wins (the last call does).
    let fourth = client
        .run("four", &toolkit)
        .history(vec![Message::user("ignored")])
        .conversation("c1")
        .await;
    assert_eq!(fourth.text, "4 user messages, last: four");
}

#[tokio::test]
async fn on_a_store_a_conversation_is_the_sessions_and_its_stream_names_the_run() {
    let path = std::env::temp_dir().join(format!(
        "toolnexus-conversation-request-{}.db",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let store = RunStore::sqlite(path.to_str().unwrap()).await.unwrap();
    let client = Client::new(counter()).store(store);
    let toolkit = Toolkit::new();

    let stream = client.run("one", &toolkit).conversation("c9").stream();
    let run_id = stream
        .run_id()
        .expect("a run id, chosen at once")
        .to_owned();
    assert!(run_id.starts_with("session:c9/run_"), "{run_id}");
    let events: Vec<_> = stream.collect().await;
    assert!(!events.is_empty());
    let kept = client.session("c9").messages().await.unwrap();
    assert_eq!(kept.len(), 2, "{kept:?}");

    let second = client.run("two", &toolkit).conversation("c9").await;
    assert_eq!(second.status, RunStatus::Done, "{second:?}");
    assert_eq!(second.text, "2 user messages, last: two");
    let id = second.id.as_deref().unwrap();
    assert!(id.starts_with("session:c9/run_") && id != run_id, "{id}");
    assert_eq!(client.session("c9").messages().await.unwrap().len(), 4);
    let _ = std::fs::remove_file(path);
}

//! Conversations by id across processes: two processes, one after the other, each
//! `Client::ask` on the same SQLite run store (the `conversation_asker` example), continue
//! one conversation; another id stays apart. Once as the store's durable session
//! (`store`), once with the store as a plain `ConversationStore`.

use std::process::Command;

#[path = "support/example.rs"]
mod example;

use serde_json::Value;

fn ask(db: &str, mode: &str, id: &str, prompt: &str) -> Value {
    let out = Command::new(example::example("conversation_asker"))
        .args([db, mode, id, prompt])
        .output()
        .expect("the asker starts");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn continues(mode: &str) {
    let dir = std::env::temp_dir().join(format!(
        "toolnexus-conversation-{mode}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("runs.db");
    let db = path.to_str().unwrap();
    let first = ask(db, mode, "chat-42", "Weather today?");
    assert_eq!(first["status"], "done", "{first}");
    assert_eq!(first["text"], "Weather today?");
    let other = ask(db, mode, "chat-7", "Hello?");
    assert_eq!(other["text"], "Hello?");
    let second = ask(db, mode, "chat-42", "and tomorrow?");
    assert_eq!(second["text"], "Weather today? | and tomorrow?");
    let transcript = second["messages"].as_array().unwrap();
    // The system prompt, both questions, both answers.
    assert_eq!(transcript.len(), 5, "{second}");
    assert_eq!(transcript[0]["content"], "You remember.");
    let third = ask(db, mode, "chat-42", "and after?");
    assert_eq!(third["text"], "Weather today? | and tomorrow? | and after?");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_processes_continue_one_durable_conversation() {
    continues("durable");
}

#[test]
fn two_processes_continue_one_conversation_in_a_store() {
    continues("store");
}

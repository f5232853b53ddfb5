//! The context budget in the loop (`Client::compaction`, SPEC §7F) over a long run: 300
//! tool turns of 4 KB results each, budget 20k tokens. Every request the model gets stays
//! under the budget, no tool result is cut off from its call in any provider's request
//! (the OpenAI, Anthropic and Gemini bodies built from each request, checked pair by pair
//! and, every tenth, by the official SDKs' request types), and the answer comes back.
//! Then the compaction's event, span attribute and rewind on a halted turn; the usage
//! caps; and conversations by id in memory.

#[allow(dead_code)]
#[path = "support/providers.rs"]
mod harness;
#[allow(dead_code)]
#[path = "providers/server.rs"]
mod server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::agent::{SUMMARY_PREFIX, StopReason, UsageLimits, estimate_tokens};
use toolnexus::model::FnModel;
use toolnexus::providers::{Anthropic, Gemini, OpenAi, Wire};
use toolnexus::{
    Client, Compaction, Context, Event, Message, Reply, RunStatus, ScriptedModel, Suspend, Tool,
    ToolCall, ToolResult, Toolkit, Usage,
};

const TURNS: usize = 300;
const BUDGET: usize = 20_000;

fn fetch() -> Tool {
    Tool::new_sync(
        "fetch",
        "Fetches a page.",
        json!({"type": "object"}),
        |_, _| ToolResult::ok("x".repeat(4096)),
    )
}

/// What a long run's model was shown: each transcript (when kept), and the bytes of the
/// OpenAI request body of each turn.
#[derive(Default)]
struct Seen {
    keep: bool,
    transcripts: Vec<Vec<Message>>,
    bytes: Vec<usize>,
}

/// A model that calls `fetch` `TURNS` times, then answers, noting what it is shown.
fn scripted(seen: Arc<Mutex<Seen>>) -> FnModel {
    let turn = AtomicUsize::new(0);
    let openai = OpenAi::new("k", "gpt-4.1-mini");
    FnModel::new_sync(move |transcript, toolkit| {
        let bytes = openai
            .request_body(transcript, toolkit, false)
            .unwrap()
            .len();
        let mut seen = seen.lock().unwrap();
        seen.bytes.push(bytes);
        if seen.keep {
            seen.transcripts.push(transcript.to_vec());
        }
        drop(seen);
        let n = turn.fetch_add(1, Ordering::SeqCst);
        Ok(if n < TURNS {
            let mut reply = Reply::calls(vec![ToolCall::new(format!("call_{n}"), "fetch", "{}")]);
            reply.usage = Usage::default();
            reply
        } else {
            Reply::text("all fetched")
        })
    })
}

/// Every tool result in `transcript` follows the assistant turn that called it.
fn paired(transcript: &[Message]) -> bool {
    transcript
        .iter()
        .enumerate()
        .all(|(i, m)| match m.tool_call_id() {
            None => true,
            Some(id) => transcript[..i]
                .iter()
                .rev()
                .find(|m| matches!(m, Message::Assistant { .. }))
                .is_some_and(|a| a.calls().iter().any(|c| c.id == id)),
        })
}

/// The provider bodies of one request pair each result with a call of the turn before.
fn bodies_paired(openai: &Value, anthropic: &Value, gemini: &Value) {
    let messages = openai["messages"].as_array().unwrap();
    for (i, m) in messages.iter().enumerate() {
        if m["role"] == "tool" {
            let call = messages[..i]
                .iter()
                .rev()
                .find(|m| m["role"] == "assistant")
                .unwrap();
            let ids: Vec<&Value> = call["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| &c["id"])
                .collect();
            assert!(ids.contains(&&m["tool_call_id"]));
        }
    }
    let messages = anthropic["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "user");
    for (i, m) in messages.iter().enumerate() {
        for block in m["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                let before = &messages[i - 1];
                assert_eq!(before["role"], "assistant");
                assert!(
                    before["content"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|b| b["id"] == block["tool_use_id"])
                );
            }
        }
    }
    let contents = gemini["contents"].as_array().unwrap();
    assert_eq!(contents[0]["role"], "user");
    for (i, c) in contents.iter().enumerate() {
        for part in c["parts"].as_array().unwrap() {
            if let Some(response) = part.get("functionResponse") {
                let before = &contents[i - 1];
                assert_eq!(before["role"], "model");
                assert!(
                    before["parts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|p| p["functionCall"]["name"] == response["name"])
                );
            }
        }
    }
}

/// What one run of `TURNS` tool turns sends, with or without compaction.
async fn long_run(compaction: Option<Compaction>, keep: bool) -> (Seen, toolnexus::RunResult) {
    let seen = Arc::new(Mutex::new(Seen {
        keep,
        ..Seen::default()
    }));
    let mut client = Client::new(scripted(seen.clone()))
        .system("You fetch pages.")
        .max_turns(TURNS as u32 + 1);
    if let Some(compaction) = compaction {
        client = client.compaction(compaction);
    }
    let run = client
        .run("Fetch every page.", &Toolkit::new().with(fetch()))
        .await;
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    (seen, run)
}

#[tokio::test]
async fn a_300_turn_run_stays_under_its_budget() {
    let compacted = Arc::new(AtomicUsize::new(0));
    let counter = compacted.clone();
    let (seen, run) = long_run(Some(Compaction::new(BUDGET)), true).await;
    let seen = seen.transcripts;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.text, "all fetched");
    assert_eq!(run.tool_calls.len(), TURNS);
    // The run keeps its whole transcript; the model was shown a compacted one.
    assert_eq!(run.messages.len(), 2 + 2 * TURNS + 1);
    assert!(run.compacted.is_some());
    assert_eq!(seen.len(), TURNS + 1);
    let toolkit = Toolkit::new().with(fetch());
    let openai = OpenAi::new("k", "gpt-4.1-mini");
    let anthropic = Anthropic::new("k", "claude-sonnet-4-5");
    let gemini = Gemini::new("k", "gemini-2.5-flash");
    let mut sampled: [Vec<Value>; 3] = Default::default();
    for (turn, shown) in seen.iter().enumerate() {
        let tokens = estimate_tokens(shown);
        assert!(tokens <= BUDGET, "turn {turn}: {tokens} tokens");
        assert!(paired(shown), "turn {turn}");
        assert_eq!(shown[0], Message::system("You fetch pages."));
        if shown
            .iter()
            .any(|m| m.text().is_some_and(|t| t.starts_with(SUMMARY_PREFIX)))
        {
            counter.fetch_add(1, Ordering::SeqCst);
        }
        let body = |b: Vec<u8>| serde_json::from_slice::<Value>(&b).unwrap();
        let bodies = [
            body(openai.request_body(shown, &toolkit, false).unwrap()),
            body(anthropic.request_body(shown, &toolkit, false).unwrap()),
            body(gemini.request_body(shown, &toolkit, false).unwrap()),
        ];
        bodies_paired(&bodies[0], &bodies[1], &bodies[2]);
        if turn % 10 == 0 || turn == TURNS {
            for (sample, body) in sampled.iter_mut().zip(bodies) {
                sample.push(body);
            }
        }
    }
    // Compaction kept every later request small; the early ones went as they were.
    assert!(compacted.load(Ordering::SeqCst) > TURNS - 30);
    assert_eq!(seen[3], run.messages[..seen[3].len()]);
    for (kind, bodies) in ["openai", "anthropic", "gemini"].into_iter().zip(&sampled) {
        harness::validate(kind, bodies);
    }
}

/// Request bytes per turn (the OpenAI body), with and without compaction: flat with it,
/// growing without (the figures in BENCHMARKS.md).
#[tokio::test]
async fn request_bytes_per_turn_with_and_without_compaction() {
    let (with, _) = long_run(Some(Compaction::new(BUDGET)), false).await;
    let (without, run) = long_run(None, false).await;
    assert!(run.is_done());
    let (with, without) = (with.bytes, without.bytes);
    let mut rows = vec![];
    for turn in [1, 10, 50, 100, 200, 301] {
        rows.push((turn, with[turn - 1], without[turn - 1]));
    }
    for (turn, with, without) in &rows {
        println!("turn {turn}: {with} bytes with compaction, {without} without");
    }
    let (min_with, max_with) = (with[30..].iter().min().unwrap(), with.iter().max().unwrap());
    println!("turns 31-301 with compaction: {min_with} to {max_with} bytes");
    assert!(*max_with < BUDGET * 4 + 4096, "{max_with}");
    assert!(rows[5].2 > 1_200_000, "{:?}", rows[5]);
    assert!(rows[5].1 < rows[5].2 / 10);
}

/// A compaction is an event before its model turn, and a turn that compacted and then
/// halted is rewound whole: the halted run's compaction is the one before it.
#[tokio::test]
async fn compaction_is_an_event_and_a_halted_turn_rewinds_it() {
    let ask = Tool::new(
        "ask",
        "Asks.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            match ctx.answer().and_then(|a| a.text()) {
                Some(said) => ToolResult::ok(format!("said {said}")),
                None => Suspend::input("Go on?").0.into(),
            }
        },
    );
    let toolkit = Toolkit::new().with(fetch()).with(ask);
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let model = ScriptedModel::new([
        Reply::call("c1", "fetch", "{}"),
        Reply::call("c2", "fetch", "{}"),
        Reply::call("c3", "ask", "{}"),
        Reply::text("done"),
    ]);
    let client = Client::new(model)
        .system("sys")
        .compaction(Compaction::new(1_500).summarize(|older| format!("{} older", older.len())))
        .on_event(move |event: &Event<'_>| {
            if let Event::Compacted {
                turn,
                summarized,
                tokens_before,
                tokens_after,
            } = event
            {
                sink.lock()
                    .unwrap()
                    .push((*turn, *summarized, *tokens_before, *tokens_after));
            }
        });
    let run = client.run("go", &toolkit).await;
    assert!(run.is_pending(), "{:?}", run.status);
    let seen = events.lock().unwrap().clone();
    assert!(!seen.is_empty());
    for (_, summarized, before, after) in &seen {
        assert!(*summarized > 0 && before > &1_500 && after < before);
    }
    // Turn 3 compacted (two 4 KB results), then halted: the run is rewound to before it.
    assert_eq!(seen.last().unwrap().0, 3);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(run.compacted, None);
    let request = run.pending.clone().unwrap();
    let resumed = client
        .resume(run, request.answer("yes"), &toolkit)
        .await
        .unwrap();
    assert!(resumed.is_done());
    assert_eq!(resumed.text, "done");
    assert!(resumed.compacted.is_some());
    // The resumed run compacted again, before its next model turn.
    assert_eq!(events.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn usage_limits_stop_the_run_naming_the_cap() {
    let toolkit = Toolkit::new().with(fetch());
    let calls = || {
        let mut reply = Reply::calls(vec![
            ToolCall::new("a", "fetch", "{}"),
            ToolCall::new("b", "fetch", "{}"),
        ]);
        reply.usage = Usage {
            prompt_tokens: 60,
            completion_tokens: 40,
            ..Usage::default()
        };
        reply
    };
    let model = || ScriptedModel::new((0..10).map(|_| calls()));
    let cases = [
        (UsageLimits::new().requests(3), "3 model requests"),
        (UsageLimits::new().total_tokens(250), "250 tokens"),
        (UsageLimits::new().tool_calls(5), "5 tool calls"),
    ];
    for (limits, says) in cases {
        let run = Client::new(model())
            .usage_limits(limits)
            .run("go", &toolkit)
            .await;
        let RunStatus::Incomplete { reason } = &run.status else {
            panic!("{:?}", run.status);
        };
        assert!(reason.to_string().contains(says), "{reason}");
        match reason {
            StopReason::RequestLimit { limit } => assert_eq!((run.turns, *limit), (3, 3)),
            StopReason::TokenLimit { .. } => assert_eq!(run.usage.total_tokens(), 300),
            StopReason::ToolCallLimit { .. } => {
                assert_eq!(
                    run.tool_calls
                        .iter()
                        .filter(|c| c.result.output.len() == 4096)
                        .count(),
                    4
                );
                assert!(paired(&run.messages));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn a_conversation_by_id_in_memory() {
    let model = FnModel::new_sync(|transcript, _| {
        let users = transcript
            .iter()
            .filter(|m| matches!(m, Message::User { .. }))
            .count();
        Ok(Reply::text(format!("{users} questions so far")))
    });
    let client = Client::new(model).system("sys");
    let toolkit = Toolkit::new();
    let first = client
        .ask("chat-42", "Weather today?", &toolkit)
        .await
        .unwrap();
    assert_eq!(first.text, "1 questions so far");
    let other = client.ask("chat-7", "Hello?", &toolkit).await.unwrap();
    assert_eq!(other.text, "1 questions so far");
    let run = client
        .clone()
        .ask("chat-42", "and tomorrow?", &toolkit)
        .await
        .unwrap();
    assert_eq!(run.text, "2 questions so far");
    assert_eq!(run.messages.len(), 5);
    assert_eq!(run.messages[0], Message::system("sys"));
    assert!(run.id.unwrap().starts_with("session:chat-42/run_"));
}

/// A durable run keeps its whole transcript in the store, and the compaction with its
/// result; a summarizing model's tokens count in the run's usage.
#[tokio::test]
async fn the_run_store_keeps_the_full_transcript_and_the_compaction() {
    let dir = std::env::temp_dir().join(format!("toolnexus-compaction-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("runs.db");
    let store = toolnexus::store::RunStore::sqlite(path.to_str().unwrap())
        .await
        .unwrap();
    let mut summary = Reply::text("fetched three pages of x");
    summary.usage = Usage {
        prompt_tokens: 900,
        completion_tokens: 10,
        ..Usage::default()
    };
    let summarizer = ScriptedModel::new([summary.clone(), summary]);
    let model = ScriptedModel::new([
        Reply::call("c1", "fetch", "{}"),
        Reply::call("c2", "fetch", "{}"),
        Reply::call("c3", "fetch", "{}"),
        Reply::text("done"),
    ]);
    let client = Client::new(model)
        .system("sys")
        .compaction(Compaction::new(1_500).summarize_with(summarizer))
        .store(store.clone());
    let run = client.run("go", &Toolkit::new().with(fetch())).await;
    assert!(run.is_done(), "{:?}", run.status);
    assert_eq!(run.messages.len(), 2 + 6 + 1);
    assert!(run.usage.total_tokens() >= 910);
    let compacted = run.compacted.clone().unwrap();
    assert_eq!(compacted.summary(), Some("fetched three pages of x"));
    let stored = store
        .result(run.id.as_deref().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.messages, run.messages);
    assert_eq!(stored.compacted, Some(compacted));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A conversation with compaction keeps the compacted transcript from one `ask` to the
/// next: the next run starts from the summary, under the budget.
#[tokio::test]
async fn a_compacted_conversation_stays_compacted() {
    let shown = Arc::new(Mutex::new(Vec::new()));
    let sink = shown.clone();
    let model = FnModel::new_sync(move |transcript, _| {
        sink.lock().unwrap().push(estimate_tokens(transcript));
        Ok(match transcript.last() {
            Some(Message::User { .. }) => Reply::call("c", "fetch", "{}"),
            _ => Reply::text("ok"),
        })
    });
    let client = Client::new(model)
        .system("sys")
        .compaction(Compaction::new(1_500).summarize(|older| format!("{} older", older.len())));
    let toolkit = Toolkit::new().with(fetch());
    for (i, prompt) in ["one", "two", "three", "four"].into_iter().enumerate() {
        let run = client.ask("long", prompt, &toolkit).await.unwrap();
        assert!(run.is_done(), "{:?}", run.status);
        assert_eq!(run.messages[0], Message::system("sys"));
        if i > 1 {
            // The second ask compacted; the conversation it left starts with the summary.
            assert!(
                run.messages[1].text().unwrap().starts_with(SUMMARY_PREFIX),
                "ask {i}"
            );
        }
    }
    let shown = shown.lock().unwrap();
    assert_eq!(shown.len(), 8);
    for tokens in shown.iter() {
        assert!(*tokens <= 1_500, "{tokens}");
    }
}

/// An `ask` that halts keeps its halted turn in the conversation: resuming it brings the
/// conversation up to date, and a new `ask` abandons a halted turn with an explicit
/// result, as a conversation in a run store does.
#[tokio::test]
async fn halted_turns_of_a_conversation_in_memory() {
    let ask = Tool::new(
        "ask",
        "Asks.",
        json!({"type": "object"}),
        |_, ctx: Context| async move {
            match ctx.answer().and_then(|a| a.text()) {
                Some(said) => ToolResult::ok(format!("said {said}")),
                None => Suspend::input("Go on?").0.into(),
            }
        },
    );
    let toolkit = Toolkit::new().with(ask);
    let model = FnModel::new_sync(|transcript, _| {
        Ok(match transcript.last() {
            Some(Message::User { .. }) => Reply::calls(vec![ToolCall::new(
                format!("c{}", transcript.len()),
                "ask",
                "{}",
            )]),
            Some(Message::Tool { content, .. }) => Reply::text(format!("got: {content}")),
            _ => Reply::text("?"),
        })
    });
    let client = Client::new(model);
    let halted = client.ask("c", "first", &toolkit).await.unwrap();
    assert!(halted.is_pending());
    let request = halted.pending.clone().unwrap();
    let resumed = client
        .resume(halted, request.answer("yes"), &toolkit)
        .await
        .unwrap();
    assert_eq!(resumed.text, "got: said yes");
    // The next ask sees the finished turn, then halts again; the one after abandons it.
    let second = client.ask("c", "second", &toolkit).await.unwrap();
    assert!(second.is_pending());
    assert!(
        second
            .messages
            .iter()
            .any(|m| m.text() == Some("got: said yes"))
    );
    let third = client.ask("c", "third", &toolkit).await.unwrap();
    let abandoned = third
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Tool { content, .. } if content.contains("unanswered") => Some(content),
            _ => None,
        })
        .expect("the halted call gets an explicit result");
    assert_eq!(abandoned, "unanswered: Go on?");
    assert!(third.is_pending());
}

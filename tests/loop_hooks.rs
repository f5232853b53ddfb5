//! Hooks around tool calls and model turns: deny, rewrite, redact, account; in order,
//! async, and never able to crash a run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;
use toolnexus::agent::{CallStatus, HookFuture, Hooks, StopReason, ToolDecision};
use toolnexus::agent::{TurnDecision, TurnStart};
use toolnexus::{
    Client, Model, Reply, Request, RunStatus, ScriptedModel, Tool, ToolCall, ToolResult, Toolkit,
    Usage,
};

#[path = "support/agent.rs"]
#[allow(dead_code)]
mod agent;
use agent::{assert_balanced, call, kit, tool_outputs};

/// A tool that must never run without permission; counts its runs.
fn delete(runs: Arc<AtomicUsize>) -> Tool {
    Tool::new_sync(
        "delete",
        "Deletes a file.",
        json!({"type": "object"}),
        move |_, _| {
            runs.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok("deleted")
        },
    )
}

#[tokio::test]
async fn a_before_tool_hook_denies_one_call_and_rewrites_another() {
    let runs = Arc::new(AtomicUsize::new(0));
    let deletes = Arc::new(AtomicUsize::new(0));
    let toolkit = kit(&runs).with(delete(deletes.clone()));
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "delete", r#"{"path":"/etc/passwd"}"#),
            call("c2", "add", r#"{"a":1,"b":2}"#),
        ]),
        Reply::text("ok"),
    ]));
    let client = Client::new(model.clone()).before_tool(|call: &ToolCall| {
        let decision = match call.name.as_str() {
            "delete" => ToolDecision::deny("deleting files needs a human; ask the user"),
            // Clamp: every addition is done on tens.
            "add" => ToolDecision::rewrite(&json!({"a": 10, "b": 20})),
            _ => ToolDecision::Allow,
        };
        async move { decision }
    });
    let run = client.run("clean up", &toolkit).await;

    assert!(run.is_done());
    assert_eq!(
        deletes.load(Ordering::SeqCst),
        0,
        "the denied tool never ran"
    );
    let shown = tool_outputs(&model.transcripts()[1]);
    assert_eq!(
        shown["c1"],
        "denied: deleting files needs a human; ask the user"
    );
    assert_eq!(
        shown["c2"], "30",
        "the tool ran with the rewritten arguments"
    );
    assert_eq!(run.tool_calls[0].status, CallStatus::Denied);
    assert!(run.tool_calls[0].result.is_error);
    assert_eq!(run.tool_calls[1].status, CallStatus::Ok);
    assert_eq!(run.tool_errors().count(), 0, "a denial is not a tool error");
    // The transcript keeps what the model said.
    assert_eq!(run.messages[1].calls()[1].arguments, r#"{"a":1,"b":2}"#);
    assert_balanced(&run.messages);
}

/// Records what it sees under `name`, and acts as configured.
struct Recorder {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
    rewrite_b: Option<i64>,
    redact: bool,
}

impl Hooks for Recorder {
    fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        HookFuture::new(async move {
            self.log.lock().unwrap().push(format!(
                "{} before {} {}",
                self.name, call.name, call.arguments
            ));
            match self.rewrite_b {
                Some(b) => {
                    let mut args: serde_json::Value =
                        serde_json::from_str(&call.arguments).unwrap();
                    args["b"] = json!(b);
                    ToolDecision::rewrite(&args)
                }
                None => ToolDecision::Allow,
            }
        })
    }

    fn after_tool<'a>(
        &'a self,
        call: &'a ToolCall,
        result: &'a mut ToolResult,
    ) -> HookFuture<'a, ()> {
        HookFuture::new(async move {
            self.log.lock().unwrap().push(format!(
                "{} after {} {} -> {}",
                self.name, call.name, call.arguments, result.output
            ));
            if self.redact {
                result.output = result.output.replace('5', "[redacted]");
            }
        })
    }

    fn before_turn<'a>(&'a self, start: TurnStart<'a>) -> HookFuture<'a, TurnDecision> {
        // A boxed future converts too.
        Box::pin(async move {
            self.log.lock().unwrap().push(format!(
                "{} before turn {} ({} messages)",
                self.name,
                start.turn,
                start.messages.len()
            ));
            TurnDecision::Continue
        })
        .into()
    }

    fn after_turn<'a>(&'a self, turn: u32, reply: &'a Reply) -> HookFuture<'a, ()> {
        HookFuture::new(async move {
            self.log.lock().unwrap().push(format!(
                "{} after turn {turn} ({} tokens)",
                self.name,
                reply.usage.total_tokens()
            ));
        })
    }
}

#[tokio::test]
async fn hooks_compose_in_the_order_they_were_added() {
    let runs = Arc::new(AtomicUsize::new(0));
    let log = Arc::new(Mutex::new(Vec::new()));
    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "add", r#"{"a":2,"b":0}"#).with_usage(Usage::new(10, 1)),
        Reply::text("done").with_usage(Usage::new(20, 2)),
    ]));
    let client = Client::new(model.clone())
        .hooks(Recorder {
            name: "first",
            log: log.clone(),
            rewrite_b: Some(3),
            redact: true,
        })
        .hooks(Arc::new(Recorder {
            name: "second",
            log: log.clone(),
            rewrite_b: None,
            redact: false,
        }));
    let run = client.run("add", &kit(&runs)).await;

    assert!(run.is_done());
    assert_eq!(tool_outputs(&model.transcripts()[1])["c1"], "[redacted]");
    assert_eq!(
        *log.lock().unwrap(),
        [
            "first before turn 1 (1 messages)",
            "second before turn 1 (1 messages)",
            "first after turn 1 (11 tokens)",
            "second after turn 1 (11 tokens)",
            r#"first before add {"a":2,"b":0}"#,
            r#"second before add {"a":2,"b":3}"#,
            r#"first after add {"a":2,"b":3} -> 5"#,
            r#"second after add {"a":2,"b":3} -> [redacted]"#,
            "first before turn 2 (3 messages)",
            "second before turn 2 (3 messages)",
            "first after turn 2 (22 tokens)",
            "second after turn 2 (22 tokens)",
        ]
    );
}

#[tokio::test]
async fn turn_hooks_account_for_usage() {
    let runs = Arc::new(AtomicUsize::new(0));
    let spent = Arc::new(Mutex::new(Usage::default()));
    let model = ScriptedModel::new([
        Reply::call("c1", "add", r#"{"a":1,"b":1}"#).with_usage(Usage::new(100, 10)),
        Reply::text("2").with_usage(Usage::new(150, 5)),
    ]);
    let client = Client::new(model).after_turn({
        let spent = spent.clone();
        move |_, reply: &Reply| {
            *spent.lock().unwrap() += reply.usage;
            async {}
        }
    });
    let run = client.run("add", &kit(&runs)).await;
    assert_eq!(*spent.lock().unwrap(), run.usage);
    assert_eq!(run.usage, Usage::new(250, 15));
}

#[tokio::test(start_paused = true)]
async fn async_hooks_of_one_turn_wait_concurrently() {
    // Two calls, each held for 300 ms by an approval hook: the holds overlap.
    let runs = Arc::new(AtomicUsize::new(0));
    let client = Client::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "add", r#"{"a":1,"b":1}"#),
            call("c2", "add", r#"{"a":2,"b":2}"#),
        ]),
        Reply::text("done"),
    ]))
    .before_tool(|_| async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        ToolDecision::Allow
    });
    let started = Instant::now();
    let run = client.run("add", &kit(&runs)).await;
    assert!(run.is_done());
    assert_eq!(started.elapsed(), Duration::from_millis(300));
}

#[tokio::test]
async fn before_tool_runs_again_on_the_re_run_after_an_answer() {
    let runs = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(AtomicUsize::new(0));
    let client = Client::new(ScriptedModel::new([
        Reply::call("c1", "login", r#"{"user":"ann"}"#),
        Reply::text("in"),
    ]))
    .wait_for(|request: Request| async move { request.answer("ann") })
    .before_tool({
        let seen = seen.clone();
        move |_| {
            seen.fetch_add(1, Ordering::SeqCst);
            async { ToolDecision::Allow }
        }
    });
    let run = client.run("log in", &kit(&runs)).await;
    assert_eq!(run.tool_calls[0].result.output, "logged in as ann");
    assert_eq!(seen.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_panicking_hook_never_crashes_the_run() {
    let runs = Arc::new(AtomicUsize::new(0));
    let deletes = Arc::new(AtomicUsize::new(0));
    let toolkit = kit(&runs).with(delete(deletes.clone()));

    // Before a tool: the call is denied (fail closed).
    let model = Arc::new(ScriptedModel::new([
        Reply::call("c1", "delete", "{}"),
        Reply::text("ok"),
    ]));
    let run = Client::new(model.clone())
        .before_tool(|_| async { panic!("policy bug") })
        .run("delete", &toolkit)
        .await;
    assert!(run.is_done());
    assert_eq!(deletes.load(Ordering::SeqCst), 0);
    assert_eq!(
        run.tool_calls[0].result.output,
        "denied: a before-tool hook panicked"
    );

    // After a tool: the result is withheld.
    let run = Client::new(ScriptedModel::new([
        Reply::call("c1", "add", r#"{"a":1,"b":1}"#),
        Reply::text("ok"),
    ]))
    .after_tool(|_, _| async { panic!("redaction bug") })
    .run("add", &toolkit)
    .await;
    assert!(run.is_done());
    assert_eq!(
        run.tool_calls[0].result.output,
        "add: an after-tool hook panicked; the result was withheld"
    );

    // Around a turn: the run stops, saying which hook.
    let run = Client::new(ScriptedModel::new([Reply::text("hi")]))
        .after_turn(|_, _| -> std::future::Ready<()> { panic!("accounting bug") })
        .run("hi", &toolkit)
        .await;
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Hook {
                message: "the after-turn hook of turn 1 panicked".into()
            }
        }
    );
}

#[tokio::test]
async fn sync_tool_hooks_deny_rewrite_redact_and_compose_with_async_ones_in_order() {
    let runs = Arc::new(AtomicUsize::new(0));
    let deletes = Arc::new(AtomicUsize::new(0));
    let toolkit = kit(&runs).with(delete(deletes.clone()));
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "delete", r#"{"path":"/etc/passwd"}"#),
            call("c2", "add", r#"{"a":1,"b":2}"#),
        ]),
        Reply::text("ok"),
    ]));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let client = Client::new(model.clone())
        .before_tool_sync(|call: &ToolCall| match call.name.as_str() {
            "delete" => ToolDecision::deny("not without a human"),
            "add" => ToolDecision::rewrite(&json!({"a": 10, "b": 20})),
            _ => ToolDecision::Allow,
        })
        // An async hook added after the sync one sees the rewritten arguments.
        .before_tool(move |call: &ToolCall| {
            log.lock().unwrap().push(call.arguments.clone());
            async { ToolDecision::Allow }
        })
        .after_tool_sync(|_call: &ToolCall, result: &mut ToolResult| {
            result.output = format!("[checked] {}", result.output);
        });
    let run = client.run("go", &toolkit).await;

    assert!(run.is_done());
    assert_eq!(deletes.load(Ordering::SeqCst), 0);
    let shown = tool_outputs(&model.transcripts()[1]);
    assert_eq!(shown["c1"], "denied: not without a human");
    assert_eq!(shown["c2"], "[checked] 30");
    assert_eq!(*seen.lock().unwrap(), [r#"{"a":10,"b":20}"#]);
    assert_balanced(&run.messages);
}

#[tokio::test]
async fn a_panicking_sync_hook_denies_the_call_or_withholds_the_result() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit(&runs);
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([call("c1", "add", r#"{"a":1,"b":2}"#)]),
        Reply::calls([call("c2", "add", r#"{"a":3,"b":4}"#)]),
        Reply::text("ok"),
    ]));
    let client = Client::new(model.clone())
        .before_tool_sync(|call: &ToolCall| {
            assert_ne!(call.id, "c1", "a before-tool hook that panics");
            ToolDecision::Allow
        })
        .after_tool_sync(|call: &ToolCall, _result: &mut ToolResult| {
            assert_ne!(call.id, "c2", "an after-tool hook that panics");
        });
    let run = client.run("go", &toolkit).await;

    assert!(run.is_done());
    let first = tool_outputs(&model.transcripts()[1]);
    assert_eq!(first["c1"], "denied: a before-tool hook panicked");
    let second = tool_outputs(&model.transcripts()[2]);
    assert_eq!(
        second["c2"],
        "add: an after-tool hook panicked; the result was withheld"
    );
    assert_balanced(&run.messages);
}

/// An after-tool hook implemented on the trait, editing in place.
struct Suffix(&'static str);

impl Hooks for Suffix {
    fn after_tool<'a>(
        &'a self,
        _call: &'a ToolCall,
        result: &'a mut ToolResult,
    ) -> HookFuture<'a, ()> {
        // Decided at once: no future to box.
        result.output.push_str(self.0);
        HookFuture::ready(())
    }
}

#[tokio::test]
async fn after_tool_hooks_of_every_kind_each_see_the_result_the_one_before_left() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolkit = kit(&runs);
    let model = Arc::new(ScriptedModel::new([
        Reply::calls([call("c1", "add", r#"{"a":1,"b":2}"#)]),
        Reply::text("ok"),
    ]));
    let client = Client::new(model.clone())
        .after_tool_sync(|_call: &ToolCall, result: &mut ToolResult| {
            result.output = format!("<{}>", result.output);
        })
        // A closure replaces the whole result it is given.
        .after_tool(|_call: &ToolCall, result: ToolResult| async move {
            ToolResult::ok(format!("{}|async", result.output))
        })
        .hooks(Suffix("|trait"))
        .after_tool_sync(|_call: &ToolCall, result: &mut ToolResult| {
            result.output.push_str("|sync");
        });
    let run = client.run("go", &toolkit).await;

    assert!(run.is_done());
    let shown = tool_outputs(&model.transcripts()[1]);
    assert_eq!(shown["c1"], "<3>|async|trait|sync");
    assert_eq!(run.tool_calls[0].result.output, "<3>|async|trait|sync");
}

/// What a recording model was shown, turn by turn: the transcript's length and the tools
/// listed.
type Shown = Arc<Mutex<Vec<(usize, Vec<String>)>>>;

/// A model that records what it was shown each turn.
fn recording(replies: impl IntoIterator<Item = Reply>) -> (toolnexus::model::FnModel, Shown) {
    let script = Arc::new(ScriptedModel::new(replies));
    let shown = Arc::new(Mutex::new(Vec::new()));
    let seen = shown.clone();
    let model = toolnexus::model::FnModel::new(
        move |transcript: Vec<toolnexus::Message>, toolkit: Toolkit| {
            let names = toolkit
                .tools()
                .iter()
                .map(|t| t.name().to_owned())
                .collect();
            seen.lock().unwrap().push((transcript.len(), names));
            let script = script.clone();
            async move {
                script
                    .complete(toolnexus::model::ModelRequest::new(&transcript, &toolkit))
                    .await
            }
        },
    );
    (model, shown)
}

#[tokio::test]
async fn a_before_turn_hook_replaces_the_transcript_and_the_tools() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (model, shown) = recording([
        Reply::call("c1", "add", r#"{"a":2,"b":3}"#),
        Reply::text("5"),
    ]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let client = Client::new(model).before_turn({
        let seen = seen.clone();
        move |start: TurnStart<'_>| {
            seen.lock()
                .unwrap()
                .push((start.turn, start.messages.len(), start.tools.len()));
            let decision = match start.turn {
                // Keep only the prompt's last message, and offer `add` alone.
                1 => TurnDecision::Replace {
                    messages: Some(vec![toolnexus::Message::user("What is 2 + 3?")]),
                    tools: Some(Box::new(Toolkit::new().with(agent::add()))),
                },
                _ => TurnDecision::Continue,
            };
            std::future::ready(decision)
        }
    });
    let run = client
        .run_from(
            vec![
                toolnexus::Message::user("old question"),
                toolnexus::Message::assistant("old answer"),
                toolnexus::Message::user("What is 2 + 3?"),
            ],
            &kit(&runs),
        )
        .await;

    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.text, "5");
    // The hook saw the whole transcript and toolkit first, then what it put in place.
    assert_eq!(*seen.lock().unwrap(), [(1, 3, 3), (2, 3, 1)]);
    // The model was shown the replaced transcript and tools, on both turns.
    let add = vec!["add".to_owned()];
    assert_eq!(*shown.lock().unwrap(), [(1, add.clone()), (3, add)]);
    // The replaced transcript is the run's.
    assert_eq!(run.messages.len(), 4);
    assert_eq!(run.tool_calls[0].result.output, "5");
}

#[tokio::test]
async fn a_before_turn_hook_aborts_the_run_with_a_reason() {
    let (model, shown) = recording([Reply::call("c1", "add", "{}"), Reply::text("never")]);
    let client = Client::new(model).before_turn(|start: TurnStart<'_>| {
        std::future::ready(if start.turn == 2 {
            TurnDecision::abort("budget spent")
        } else {
            TurnDecision::Continue
        })
    });
    let runs = Arc::new(AtomicUsize::new(0));
    let run = client.run("add", &kit(&runs)).await;

    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Aborted {
                reason: "budget spent".into()
            }
        }
    );
    assert_eq!(run.limit(), Some("aborted"));
    assert_eq!(shown.lock().unwrap().len(), 1, "turn 2 was never asked");
    assert_eq!(run.turns, 2);
    assert_balanced(&run.messages);
}

#[tokio::test]
async fn a_before_tool_hook_answers_a_call_and_the_tool_never_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let after = Arc::new(AtomicUsize::new(0));
    let client = Client::new(ScriptedModel::new([
        Reply::calls([
            call("c1", "login", r#"{"user":"ann"}"#),
            call("c2", "add", r#"{"a":1,"b":1}"#),
        ]),
        Reply::text("ok"),
    ]))
    .before_tool(|call: &ToolCall| {
        std::future::ready(if call.name == "login" {
            ToolDecision::answer(ToolResult::ok("cached: logged in"))
        } else {
            ToolDecision::Allow
        })
    })
    .after_tool({
        let after = after.clone();
        move |_, result| {
            after.fetch_add(1, Ordering::SeqCst);
            std::future::ready(result)
        }
    });
    let run = client.run("go", &kit(&runs)).await;

    assert!(run.is_done(), "{run:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "login never ran");
    assert_eq!(run.tool_calls[0].result.output, "cached: logged in");
    assert_eq!(run.tool_calls[0].status, CallStatus::Ok);
    assert_eq!(run.tool_calls[1].result.output, "2");
    // Only the call that ran went through the after-tool hook.
    assert_eq!(after.load(Ordering::SeqCst), 1);
    assert_eq!(tool_outputs(&run.messages)["c1"], "cached: logged in");
}

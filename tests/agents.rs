//! Agents run as tools (`Client::as_tool`): the inner run's text, usage and events, its
//! limits, and a suspension three agents down answered at the top, by `wait_for`, by
//! `resume` after a halt, and by `resume` in another process; over MCP (agents/mcp.rs),
//! the official Python SDK's client answers a sub-agent's approval.

#[path = "support/example.rs"]
mod example;
#[path = "agents/mcp.rs"]
mod mcp;
#[path = "agents/stack.rs"]
mod stack;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::json;
use stack::{APPROVAL, APPROVED, Effects, PROMPT};
use toolnexus::agent::{AGENT_STATE_KEY, CallStatus, DEFAULT_MAX_DEPTH, StopReason};
use toolnexus::model::FnModel;
use toolnexus::{
    Answer, Client, Context, Event, Reply, Request, RunResult, RunStatus, ScriptedModel, Tool,
    ToolResult, Toolkit, Usage,
};

fn sorted(mut effects: Vec<String>) -> Vec<String> {
    effects.sort();
    effects
}

fn once_each() -> Vec<String> {
    vec!["deploy".into(), "lookup".into(), "note".into()]
}

#[tokio::test]
async fn an_agent_tool_gives_the_inner_text_usage_and_turns() {
    let inner = Client::new(ScriptedModel::new([
        Reply::call("a1", "add", r#"{"a": 2, "b": 3}"#).with_usage(Usage::new(7, 2)),
        Reply::text("it is 5").with_usage(Usage::new(9, 3)),
    ]));
    let add = Tool::new_sync("add", "Adds.", json!({"type": "object"}), |args, _| {
        ToolResult::ok((args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap()).to_string())
    });
    let math = inner.as_tool("math", "Does sums.", Toolkit::new().with(add));
    assert_eq!(math.name(), "math");
    assert_eq!(math.input_schema()["required"], json!(["prompt"]));
    let outer = Client::new(ScriptedModel::new([
        Reply::call("c1", "math", r#"{"prompt": "2 + 3?"}"#).with_usage(Usage::new(100, 10)),
        Reply::text("5").with_usage(Usage::new(200, 20)),
    ]));
    let run = outer.run("sum", &Toolkit::new().with(math)).await;
    assert!(run.is_done(), "{run:?}");
    let result = &run.tool_calls[0].result;
    assert_eq!(result.output, "it is 5");
    let meta = result.metadata.as_ref().unwrap();
    assert_eq!(
        (&meta["agent"], &meta["turns"], &meta["totalTokens"]),
        (&json!("math"), &json!(2), &json!(21)),
        "the contract's {{agent, turns, totalTokens}}"
    );
    assert_eq!(
        meta["usage"],
        json!({"prompt_tokens": 16, "completion_tokens": 5, "total_tokens": 21})
    );
    assert_eq!(run.usage, Usage::new(316, 35));
    assert_eq!(run.turns, 2);

    // Cache and reasoning tokens are summed across agents too.
    let inner =
        Client::new(ScriptedModel::new([Reply::text("it is 5")
            .with_usage(Usage::new(50, 9).with_cache(40, 8).with_reasoning(6))]));
    let math = inner.as_tool("math", "Does sums.", Toolkit::new());
    let outer = Client::new(ScriptedModel::new([
        Reply::call("c1", "math", r#"{"prompt": "2 + 3?"}"#)
            .with_usage(Usage::new(100, 10).with_cache(90, 0)),
        Reply::text("5").with_usage(Usage::new(200, 20).with_reasoning(4)),
    ]));
    let run = outer.run("sum", &Toolkit::new().with(math)).await;
    assert_eq!(
        run.tool_calls[0].result.metadata.as_ref().unwrap()["usage"],
        json!({"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59, "cache_read_tokens": 40,
               "cache_write_tokens": 8, "reasoning_tokens": 6})
    );
    assert_eq!(
        run.usage,
        Usage::new(350, 39).with_cache(130, 8).with_reasoning(10)
    );

    // A call without a string `input` is an error the model reads.
    let outer = Client::new(ScriptedModel::new([
        Reply::call("c1", "math", r#"{"task": 1}"#),
        Reply::text("ok"),
    ]));
    let inner = Client::new(ScriptedModel::default());
    let run = outer
        .run(
            "x",
            &Toolkit::new().with(inner.as_tool("math", "m", Toolkit::new())),
        )
        .await;
    assert_eq!(run.tool_calls[0].status, CallStatus::Error);
    assert!(
        run.tool_calls[0].result.output.contains("`prompt`"),
        "{run:?}"
    );
}

#[tokio::test]
async fn an_approval_three_agents_down_is_answered_at_the_top_and_runs_once() {
    let effects = Effects::default();
    let (client, toolkit) = stack::lead(&effects);
    let asked = Arc::new(Mutex::new(Vec::<Request>::new()));
    let log = Arc::clone(&asked);
    let client = client.wait_for(move |request: Request| {
        log.lock().unwrap().push(request.clone());
        async move { request.answer(true) }
    });
    let run = client.run("ship v2", &toolkit).await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.text, APPROVED);
    assert_eq!(sorted(effects.seen()), once_each());
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        (
            asked[0].id.as_str(),
            asked[0].kind.as_str(),
            asked[0].prompt.as_str()
        ),
        (APPROVAL, "approval", PROMPT)
    );
    // Three agents of two turns each, 10 + 1 tokens a turn.
    assert_eq!(run.usage, Usage::new(60, 6));
}

#[tokio::test]
async fn a_decline_three_agents_down_reaches_the_deepest_model_as_declined() {
    let effects = Effects::default();
    let (client, toolkit) = stack::lead(&effects);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let client = client
        .wait_for(|request: Request| async move { request.decline("not today") })
        .on_event(move |event| {
            if let Event::Agent { path, event } = event
                && let Event::ToolCallFinished { call, status, .. } = &**event
            {
                log.lock()
                    .unwrap()
                    .push((path.join("/"), call.name.clone(), *status));
            }
        });
    let run = client.run("ship v2", &toolkit).await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(
        run.text,
        format!("lead[noted; platform[v2; ops[declined/expired: {PROMPT}]]]")
    );
    assert_eq!(sorted(effects.seen()), vec!["lookup", "note"]);
    let seen = seen.lock().unwrap();
    assert!(
        seen.contains(&("platform/ops".into(), "deploy".into(), CallStatus::Declined)),
        "{seen:?}"
    );
    assert!(
        seen.contains(&("platform".into(), "lookup".into(), CallStatus::Ok)),
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_run_halted_three_agents_down_resumes_from_its_serialized_result() {
    let effects = Effects::default();
    let (client, toolkit) = stack::lead(&effects);
    let halted = client.run("ship v2", &toolkit).await;
    assert!(halted.is_pending(), "{halted:?}");
    let request = halted.pending.clone().unwrap();
    assert_eq!(
        (request.id.as_str(), request.prompt.as_str()),
        (APPROVAL, PROMPT)
    );
    assert_eq!(request.kind, "approval");
    // The inner runs' state rides in the request (in its wire form, in `data`), and the
    // request's own data is the tool's (an approval's: none).
    let wire = serde_json::to_value(&request).unwrap();
    assert!(wire["data"].get(AGENT_STATE_KEY).is_some(), "{wire}");
    assert_eq!(request.data, None);
    assert_eq!(sorted(effects.seen()), vec!["lookup", "note"]);

    let text = serde_json::to_string(&halted).unwrap();
    let read: RunResult = serde_json::from_str(&text).unwrap();
    let answer = read.pending.as_ref().unwrap().answer(true);
    let done = client
        .resume(read.messages, answer, &toolkit)
        .await
        .unwrap();
    assert!(done.is_done(), "{done:?}");
    assert_eq!(done.text, APPROVED);
    assert_eq!(sorted(effects.seen()), once_each());
    assert_eq!(halted.usage + done.usage, Usage::new(60, 6));

    // Answering the wrong request is refused, and nothing runs.
    let (client, toolkit) = stack::lead(&effects);
    let wrong = client
        .resume(halted.messages, Answer::accept("other"), &toolkit)
        .await;
    assert!(wrong.is_err());
    assert_eq!(sorted(effects.seen()), once_each());
}

/// Runs `agents_resume` with `args` in a process of its own, bounded in time, and reads
/// the finished run it prints.
async fn resume_in_child(args: &[&str]) -> RunResult {
    let child = tokio::process::Command::new(example::example("agents_resume"))
        .args(args)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), child)
        .await
        .expect("the resume finishes in time")
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Halts the stack in this process, resumes it with `verdict` in a new one: the finished
/// run and the effects of both processes.
async fn halt_here_resume_there(verdict: &str) -> (RunResult, RunResult, Vec<String>) {
    let dir =
        std::env::temp_dir().join(format!("toolnexus-agents-{}-{verdict}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let effects_file = dir.join("effects");
    let run_file = dir.join("run.json");
    let _ = std::fs::remove_file(&effects_file);
    let (client, toolkit) = stack::lead(&Effects::to_file(effects_file.clone()));
    let halted = client.run("ship v2", &toolkit).await;
    assert!(halted.is_pending(), "{halted:?}");
    std::fs::write(&run_file, serde_json::to_vec(&halted).unwrap()).unwrap();
    drop((client, toolkit));

    let done = resume_in_child(&[
        run_file.to_str().unwrap(),
        effects_file.to_str().unwrap(),
        verdict,
    ])
    .await;
    let effects = std::fs::read_to_string(&effects_file).unwrap();
    let effects = sorted(effects.lines().map(str::to_owned).collect());
    let _ = std::fs::remove_dir_all(&dir);
    (halted, done, effects)
}

#[tokio::test]
async fn a_run_halted_three_agents_down_resumes_in_a_new_process() {
    let (halted, done, effects) = halt_here_resume_there("accept").await;
    assert!(done.is_done(), "{done:?}");
    assert_eq!(done.text, APPROVED);
    assert_eq!(effects, once_each());
    assert_eq!(halted.usage + done.usage, Usage::new(60, 6));
}

#[tokio::test]
async fn a_durable_run_halted_three_agents_down_resumes_from_sqlite_in_a_new_process() {
    use toolnexus::store::RunStore;
    let dir = std::env::temp_dir().join(format!("toolnexus-agents-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (db, effects_file) = (dir.join("runs.db"), dir.join("effects"));
    let store = RunStore::sqlite(db.to_str().unwrap()).await.unwrap();
    let (client, toolkit) = stack::lead(&Effects::to_file(effects_file.clone()));
    let halted = client.store(store.clone()).run("ship v2", &toolkit).await;
    assert!(halted.is_pending(), "{halted:?}");
    let id = halted.id.clone().expect("a durable run");
    let waiting = store.pending().await.unwrap();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(
        (waiting[0].request.id.as_str(), waiting[0].tool.as_str()),
        (APPROVAL, "platform")
    );
    drop((store, toolkit));

    let done = resume_in_child(&[
        "--store",
        db.to_str().unwrap(),
        effects_file.to_str().unwrap(),
        "accept",
    ])
    .await;
    assert!(done.is_done(), "{done:?}");
    assert_eq!(done.text, APPROVED);
    assert_eq!(done.id.as_deref(), Some(id.as_str()));
    // One effect per tool, across both processes and three agents.
    let effects = std::fs::read_to_string(&effects_file).unwrap();
    assert_eq!(
        sorted(effects.lines().map(str::to_owned).collect()),
        once_each()
    );
    // The store holds the finished run and nothing waits any more.
    let store = RunStore::sqlite(db.to_str().unwrap()).await.unwrap();
    assert!(store.pending().await.unwrap().is_empty());
    assert_eq!(
        store.result(&id).await.unwrap().map(|r| r.text),
        Some(APPROVED.to_owned())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_decline_in_a_new_process_reaches_the_deepest_model() {
    let (_, done, effects) = halt_here_resume_there("decline").await;
    assert!(done.is_done(), "{done:?}");
    assert_eq!(
        done.text,
        format!("lead[noted; platform[v2; ops[declined/expired: {PROMPT}]]]")
    );
    assert_eq!(effects, vec!["lookup", "note"]);
}

#[tokio::test]
async fn inner_events_reach_the_outer_listener_tagged_with_the_agent_path() {
    let effects = Effects::default();
    let (client, toolkit) = stack::lead(&effects);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let client = client
        .wait_for(|request: Request| async move { request.answer(true) })
        .on_event(move |event| {
            let tag = match event {
                Event::Agent { path, event } => {
                    let kind = match &**event {
                        Event::ModelTurnStarted { .. } => "turn",
                        Event::Pending { .. } => "pending",
                        Event::RunFinished { .. } => "finished",
                        _ => return,
                    };
                    format!("{}:{kind}", path.join("/"))
                }
                Event::RunFinished { .. } => "finished".into(),
                _ => return,
            };
            log.lock().unwrap().push(tag);
        });
    let run = client.run("ship v2", &toolkit).await;
    assert!(run.is_done(), "{run:?}");
    let seen = seen.lock().unwrap().clone();
    for tag in [
        "platform:turn",
        "platform/ops:turn",
        "platform/ops:pending",
        "platform/ops:finished",
        "platform:finished",
    ] {
        assert!(
            seen.contains(&tag.to_owned()),
            "{tag} missing from {seen:?}"
        );
    }
    assert_eq!(seen.last().map(String::as_str), Some("finished"));
    // ops halts once (pending) and finishes after the answer: two runs end down there.
    let ops_ends = seen
        .iter()
        .filter(|t| *t == "platform/ops:finished")
        .count();
    assert_eq!(ops_ends, 2, "{seen:?}");
}

#[tokio::test]
async fn an_inner_run_out_of_turns_is_an_error_the_outer_model_reads() {
    let looping = FnModel::new_sync(|_, _| Ok(Reply::call("x", "echo", "{}")));
    let echo = Tool::new_sync("echo", "Echo.", json!({"type": "object"}), |_, _| {
        ToolResult::ok("again")
    });
    let inner =
        Client::new(looping)
            .max_turns(2)
            .as_tool("spinner", "Spins.", Toolkit::new().with(echo));
    let outer = Client::new(ScriptedModel::new([
        Reply::call("c1", "spinner", r#"{"prompt": "go"}"#),
        Reply::text("it gave up"),
    ]));
    let run = outer.run("go", &Toolkit::new().with(inner)).await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.tool_calls[0].status, CallStatus::Error);
    assert!(
        run.tool_calls[0]
            .result
            .output
            .starts_with("agent `spinner` stopped: stopped after 2 model turns"),
        "{}",
        run.tool_calls[0].result.output
    );
}

#[tokio::test]
async fn a_panic_inside_an_agent_is_an_error_result() {
    let panicking = FnModel::new_sync(|_, _| panic!("the inner model broke"));
    let inner = Client::new(panicking).as_tool("broken", "Breaks.", Toolkit::new());
    let outer = Client::new(ScriptedModel::new([
        Reply::call("c1", "broken", r#"{"prompt": "go"}"#),
        Reply::text("recovered"),
    ]));
    let run = outer.run("go", &Toolkit::new().with(inner)).await;
    assert!(run.is_done(), "{run:?}");
    assert_eq!(run.text, "recovered");
    assert_eq!(run.tool_calls[0].status, CallStatus::Error);
    assert!(
        run.tool_calls[0].result.output.contains("panicked"),
        "{run:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_outer_deadline_and_cancellation_reach_the_inner_run() {
    let saw_token = Arc::new(AtomicBool::new(false));
    let saw = Arc::clone(&saw_token);
    let slow = Tool::new(
        "slow",
        "Sleeps.",
        json!({"type": "object"}),
        move |_, ctx: Context| {
            let saw = Arc::clone(&saw);
            async move {
                saw.store(ctx.cancellation().is_some(), Ordering::SeqCst);
                ctx.cancelled().await;
                ToolResult::ok("never")
            }
        },
    );
    let inner = Client::new(ScriptedModel::new([Reply::call("s1", "slow", "{}")])).as_tool(
        "worker",
        "Works.",
        Toolkit::new().with(slow),
    );
    let outer = Client::new(ScriptedModel::new([Reply::call(
        "c1",
        "worker",
        r#"{"prompt": "go"}"#,
    )]))
    .run_timeout(Duration::from_secs(5));
    let run = outer.run("go", &Toolkit::new().with(inner)).await;
    assert_eq!(
        run.status,
        RunStatus::Incomplete {
            reason: StopReason::Deadline { limit_ms: 5000 }
        }
    );
    assert!(
        saw_token.load(Ordering::SeqCst),
        "the inner tool had no token"
    );
    assert_eq!(run.tool_calls[0].status, CallStatus::Cancelled);
}

#[tokio::test]
async fn an_agent_that_reaches_itself_stops_at_the_depth_limit() {
    // `loop` delegates to a toolkit that holds `loop` itself.
    let toolkit: Arc<OnceLock<Toolkit>> = Arc::default();
    let slot = Arc::clone(&toolkit);
    let delegate = Tool::new(
        "delegate",
        "Delegates.",
        json!({"type": "object"}),
        move |_, ctx| {
            let slot = Arc::clone(&slot);
            async move {
                let kit = slot.get().unwrap();
                kit.execute_json("loop", r#"{"prompt": "again"}"#, ctx)
                    .await
            }
        },
    );
    let model = FnModel::new_sync(|transcript, _| match transcript.last() {
        Some(toolnexus::Message::User { .. }) => Ok(Reply::call("d", "delegate", "{}")),
        _ => Ok(Reply::text(
            transcript.last().unwrap().text().unwrap_or("").to_owned(),
        )),
    });
    let agent = Client::new(model).as_tool("loop", "Loops.", Toolkit::new().with(delegate));
    toolkit.set(Toolkit::new().with(agent)).ok().unwrap();
    let result = toolkit
        .get()
        .unwrap()
        .execute_json("loop", r#"{"prompt": "go"}"#, Context::new())
        .await;
    let expected = format!("agents run as tools nest at most {DEFAULT_MAX_DEPTH} deep");
    assert!(result.output.contains(&expected), "{}", result.output);
    assert!(
        result.output.contains("loop > loop > loop"),
        "{}",
        result.output
    );
}

#[tokio::test]
async fn a_resume_without_the_inner_state_is_an_error() {
    let inner = Client::new(ScriptedModel::default()).as_tool("a", "A.", Toolkit::new());
    let request = Request::approval("ok?").with_id("r1");
    let ctx = Context::new()
        .with_answer(request.answer(true))
        .with_request(
            request
                .clone()
                .with_data(json!({AGENT_STATE_KEY: {"transcript": 3}})),
        );
    let result = inner.execute_json(r#"{"prompt": "x"}"#, ctx).await;
    assert!(result.is_error);
    assert!(result.output.contains("malformed"), "{}", result.output);
    let ctx = Context::new()
        .with_answer(request.answer(true))
        .with_request(request);
    let result = inner.execute_json(r#"{"prompt": "x"}"#, ctx).await;
    assert!(result.output.contains("carries no"), "{}", result.output);
}

/// A topic to research.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Topic {
    /// What to look into.
    subject: String,
    /// How many sources to read.
    sources: u8,
}

/// Research a topic.
#[toolnexus::tool]
fn research_by_hand(#[args] topic: Topic) -> Result<String, std::convert::Infallible> {
    Ok(topic.subject)
}

#[tokio::test]
async fn an_agent_with_typed_input_has_its_structs_schema_and_checks_the_arguments() {
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&prompts);
    let model = FnModel::new_sync(move |transcript: &[toolnexus::Message], _| {
        if let Some(toolnexus::Message::User { .. }) = transcript.last() {
            seen.lock().unwrap().push(
                transcript
                    .last()
                    .unwrap()
                    .text()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
        Ok(Reply::text("3 sources on Rust"))
    });
    let researcher = Client::new(model).as_typed_tool(
        "research",
        "Research a topic.",
        Toolkit::new(),
        |t: Topic| format!("Research {} in {} sources.", t.subject, t.sources),
    );
    // The schema is the struct's own, exactly as `#[args]` derives it.
    assert_eq!(
        researcher.input_schema(),
        research_by_hand::tool().input_schema()
    );
    assert_eq!(
        researcher.input_schema()["required"],
        json!(["subject", "sources"])
    );

    let lead = Client::new(ScriptedModel::new([
        Reply::calls([
            toolnexus::ToolCall::new("c1", "research", r#"{"subject": "Rust", "sources": 300}"#),
            toolnexus::ToolCall::new("c2", "research", r#"{"subject": "Rust"}"#),
            toolnexus::ToolCall::new("c3", "research", r#"{"subject": "Rust", "sources": 3}"#),
        ]),
        Reply::text("Done."),
    ]));
    let run = lead
        .run("Look into Rust.", &Toolkit::new().with(researcher))
        .await;
    assert!(run.is_done(), "{run:?}");
    let [too_many, missing, fine] = &run.tool_calls[..] else {
        panic!("{:?}", run.tool_calls)
    };
    // Arguments that do not fit are the tool's error, naming the field; the agent never ran.
    assert!(too_many.result.is_error);
    assert!(
        too_many.result.output.contains("research") && too_many.result.output.contains("sources"),
        "{}",
        too_many.result.output
    );
    assert!(missing.result.is_error);
    assert!(
        missing.result.output.contains("sources"),
        "{}",
        missing.result.output
    );
    assert_eq!(fine.result.output, "3 sources on Rust");
    assert_eq!(*prompts.lock().unwrap(), ["Research Rust in 3 sources."]);
}

//! Code mode (`toolnexus::code`): a script's calls are the toolkit's calls, its errors
//! name their line, hostile scripts are stopped by the limits, and a call that suspends
//! suspends the script, which the answer replays without running earlier calls again.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::agent::{HookFuture, Hooks, ToolDecision};
use toolnexus::code::{CODE_KEY, CODE_STATE_KEY, CodeMode, Limits};
use toolnexus::{Client, Context, Reply, ScriptedModel, Tool, ToolCall, ToolResult, Toolkit, tool};

type Log = Arc<Mutex<Vec<String>>>;

/// `count({n})`: logs `count n`, says `n`.
fn count(log: Log) -> Tool {
    Tool::new_sync(
        "count",
        "Counts one.",
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        move |args, _| {
            let n = args["n"].as_i64().unwrap_or(-1);
            log.lock().unwrap().push(format!("count {n}"));
            ToolResult::ok(n.to_string())
        },
    )
}

/// `send({to})`: asks for approval first; logs `send TO` when it runs.
fn send(log: Log) -> Tool {
    Tool::new_sync(
        "send",
        "Sends the report.",
        json!({"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}),
        move |args, _| {
            let to = args["to"].as_str().unwrap_or_default().to_owned();
            log.lock().unwrap().push(format!("send {to}"));
            ToolResult::ok(format!("sent to {to}"))
        },
    )
    .with_approval()
}

/// `lookup({id})`: a record, with an output schema.
fn lookup() -> Tool {
    Tool::new_sync(
        "lookup",
        "Looks up a record.",
        json!({
            "type": "object",
            "properties": {"id": {"type": "integer", "description": "The record's id."}},
            "required": ["id"],
            "additionalProperties": false
        }),
        |args, _| {
            let id = args["id"].as_i64().unwrap_or(0);
            let record = json!({"id": id, "score": id * 10});
            ToolResult::ok(record.to_string()).with_structured(record)
        },
    )
    .with_output_schema(json!({
        "type": "object",
        "properties": {"id": {"type": "integer"}, "score": {"type": "integer"}},
        "required": ["id", "score"]
    }))
}

/// Doubles a number (a `#[tool]` function: its arguments are checked against its types).
#[tool]
fn double(
    /// The number.
    n: i64,
) -> Result<i64, std::convert::Infallible> {
    Ok(n * 2)
}

fn toolkit(log: &Log) -> Toolkit {
    Toolkit::new()
        .with(count(log.clone()))
        .with(send(log.clone()))
        .with(lookup())
        .with(double::tool())
}

fn log() -> Log {
    Arc::default()
}

async fn run(code: &CodeMode, script: &str) -> ToolResult {
    tokio::time::timeout(
        Duration::from_secs(30),
        code.run(script, Context::default()),
    )
    .await
    .expect("the script ends")
}

#[tokio::test]
async fn the_description_lists_the_tools_as_typed_declarations() {
    let code = CodeMode::new(toolkit(&log()));
    let stubs = code.declarations();
    assert!(
        stubs.contains("count(args: {\n    n: number;\n  }): Promise<unknown>;"),
        "{stubs}"
    );
    assert!(
        stubs.contains("/** The record's id. */")
            && stubs.contains("Promise<{\n    id: number;\n    score: number;\n  }>"),
        "{stubs}"
    );
    let tool = code.tool();
    assert_eq!(tool.name(), "run_code");
    assert!(tool.description().contains(&stubs));
    assert_eq!(code.toolkit().len(), 1);
}

#[tokio::test]
async fn a_script_calls_tools_in_its_order_and_its_output_comes_back() {
    let log = log();
    let code = CodeMode::new(toolkit(&log));
    let script = "const a = await tools.count({n: 1});\n\
                  const r = await tools.lookup({id: 4});\n\
                  const b = await tools.count({n: a + r.score});\n\
                  print('total', b);\n\
                  return {a, b, r};";
    let result = run(&code, script).await;
    assert!(!result.is_error, "{}", result.output);
    assert_eq!(
        result.output,
        "total 41\n{\"a\":1,\"b\":41,\"r\":{\"id\":4,\"score\":40}}"
    );
    assert_eq!(*log.lock().unwrap(), ["count 1", "count 41"]);
    let meta = &result.metadata.as_ref().unwrap()[CODE_KEY];
    assert_eq!(meta["calls"], 3);
}

#[tokio::test]
async fn calls_the_script_gathers_run_concurrently() {
    // Each call waits for the other: run one after the other, they would never end.
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let meet = Tool::new(
        "meet",
        "Waits for the other.",
        json!({"type": "object"}),
        move |_, _| {
            let barrier = Arc::clone(&barrier);
            async move {
                barrier.wait().await;
                ToolResult::ok("met")
            }
        },
    );
    let code = CodeMode::new(Toolkit::new().with(meet));
    let result = run(
        &code,
        "const both = await Promise.all([tools.meet(), tools.meet()]);\nreturn both;",
    )
    .await;
    assert_eq!(result.output, r#"["met","met"]"#, "{result:?}");
}

#[tokio::test]
async fn errors_name_their_line() {
    let code = CodeMode::new(toolkit(&log()));
    let cases = [
        ("const a = 1;\nconst b = ;\n", "line 2: SyntaxError"),
        (
            "const a = 1;\n\nawait tools.nope({});\n",
            "line 3: TypeError: there is no tool `nope`; the tools are: count, send, lookup, double",
        ),
        (
            "await tools.double({n: 1});\nawait tools.double({n: 'one'});\n",
            "line 2: Error: tools.double (line 2): ",
        ),
        ("\nnull.x;\n", "line 2: TypeError"),
        ("throw 'no';\n", "uncaught no"),
    ];
    for (script, expected) in cases {
        let result = run(&code, script).await;
        assert!(result.is_error, "{script}: {result:?}");
        assert!(
            result.output.starts_with(expected),
            "{script}: {}",
            result.output
        );
    }
    // A tool's error can be caught by the script.
    let caught = run(
        &code,
        "try { await tools.double({}); } catch (e) { return 'caught: ' + e.message; }",
    )
    .await;
    assert!(!caught.is_error, "{caught:?}");
    assert!(
        caught
            .output
            .starts_with("\"caught: tools.double (line 1): "),
        "{}",
        caught.output
    );
}

#[tokio::test]
async fn hostile_scripts_are_stopped_by_the_limits() {
    let limits = Limits::default()
        .time(Duration::from_millis(300))
        .memory(8 << 20)
        .stack(128 << 10)
        .steps(u64::MAX);
    let code = CodeMode::new(toolkit(&log())).limits(limits);
    let cases = [
        (
            "let i = 0;\nwhile (true) {\n  i = i + 1;\n}",
            "the script ran past its time limit (300 ms of interpreter time)",
        ),
        (
            "for (;;) { try { while (true) {} } catch (e) {} }",
            "time limit",
        ),
        (
            "const a = [];\nwhile (true) a.push('x'.repeat(1 << 16) + a.length);",
            "out of memory",
        ),
        ("let s = 'x';\nwhile (true) s = s + s;", "string too long"),
        (
            "const a = [];\nwhile (true) a.push(new Array(1e5).fill(a.length));",
            "out of memory",
        ),
        (
            "function f(n) { return f(n + 1) + 1; }\nreturn f(0);",
            "stack limit",
        ),
        ("import fs from 'fs';", "no modules to import"),
        (
            "const m = await import('os');\nreturn m;",
            "could not load module 'os'",
        ),
        (
            "return require('fs').readFileSync('/etc/passwd');",
            "require is not defined",
        ),
        ("return std.open('/etc/passwd', 'r');", "std is not defined"),
        ("return os.open('/etc/passwd');", "os is not defined"),
        ("return fetch('http://127.0.0.1/');", "fetch is not defined"),
        ("return await new Promise(() => {});", "nothing settles"),
        (
            "for (let i = 0; i < 1000; i++) tools.count({n: i});",
            "tool calls",
        ),
    ];
    for (script, expected) in cases {
        let result = run(&code, script).await;
        assert!(result.is_error, "{script}: {result:?}");
        assert!(
            result.output.contains(expected),
            "{script}: {}",
            result.output
        );
    }
    // Nesting deep enough to exhaust the parser's stack, and a regular expression that
    // backtracks for ever.
    let nested = format!("return {}1{};", "[".repeat(100_000), "]".repeat(100_000));
    let parsed = run(&code, &nested).await;
    assert!(
        parsed.is_error && parsed.output.contains("stack"),
        "{}",
        parsed.output
    );
    let regex = run(&code, "return /^(a+)+$/.test('a'.repeat(40) + 'b');").await;
    assert!(regex.output.contains("time limit"), "{}", regex.output);
    // A flood of output is cut at its limit.
    let quiet = CodeMode::new(Toolkit::new()).limits(Limits::default().output(1024));
    let flood = run(
        &quiet,
        "for (let i = 0; i < 100000; i++) console.log('x'.repeat(100));\nreturn 'done';",
    )
    .await;
    assert!(!flood.is_error, "{}", flood.output);
    assert!(flood.output.len() < 1200, "{}", flood.output.len());
    assert!(
        flood
            .output
            .ends_with("[output cut at 1024 bytes]\n\"done\""),
        "{}",
        flood.output
    );
    let steps = CodeMode::new(Toolkit::new()).limits(Limits::default().steps(1_000_000));
    let stopped = run(&steps, "let i = 0;\nwhile (true) i++;").await;
    assert!(stopped.output.contains("step limit"), "{}", stopped.output);
    // The host is unharmed: the same code mode runs the next script.
    let fine = run(&code, "return (await tools.count({n: 2})) * 2;").await;
    assert_eq!(fine.output, "4");
}

/// A scripted model that runs `script` once, then answers with the script's result.
fn model(script: &str) -> ScriptedModel {
    ScriptedModel::new([
        Reply::call("call_1", "run_code", json!({"code": script}).to_string()),
        Reply::text("done"),
    ])
}

const THIRD_NEEDS_APPROVAL: &str = "const a = await tools.count({n: 1});\n\
     const b = await tools.count({n: 2});\n\
     const sent = await tools.send({to: 'ana'});\n\
     const c = await tools.count({n: a + b});\n\
     return [a, b, sent, c];";

#[tokio::test]
async fn a_suspended_script_resumes_without_running_its_earlier_calls_again() {
    let log = log();
    let code = CodeMode::new(toolkit(&log));
    let client = Client::new(model(THIRD_NEEDS_APPROVAL));
    let halted = client.run("report", &code.toolkit()).await;
    assert!(halted.is_pending(), "{:?}", halted.status);
    let request = halted.pending.clone().unwrap();
    // The approval the tool itself asked, with the script's state beside its data.
    assert_eq!(request.kind, "approval");
    assert_eq!(request.data.as_ref().unwrap()["tool"], "send");
    assert!(request.data.as_ref().unwrap().get(CODE_STATE_KEY).is_some());
    assert_eq!(*log.lock().unwrap(), ["count 1", "count 2"]);

    // Saved and read back, as another process would.
    let saved = serde_json::to_string(&halted).unwrap();
    let halted: toolnexus::RunResult = serde_json::from_str(&saved).unwrap();
    let answer = request.answer(true);
    let done = client
        .resume(halted, answer, &code.toolkit())
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    let result = &done.tool_calls.last().unwrap().result;
    assert_eq!(result.output, r#"[1,2,"sent to ana",3]"#, "{result:?}");
    assert_eq!(result.metadata.as_ref().unwrap()[CODE_KEY]["replayed"], 2);
    assert_eq!(
        *log.lock().unwrap(),
        ["count 1", "count 2", "send ana", "count 3"]
    );
}

#[tokio::test]
async fn a_wait_for_slot_answers_a_script_in_the_same_run() {
    let log = log();
    let code = CodeMode::new(toolkit(&log));
    let lines = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&lines);
    let client = Client::new(model(THIRD_NEEDS_APPROVAL))
        .wait_for(|request: toolnexus::Request| async move { request.answer(true) })
        .on_event(move |event| {
            if let toolnexus::Event::Log {
                call_id, message, ..
            } = event
            {
                seen.lock().unwrap().push(format!("{call_id} {message}"));
            }
        });
    let done = client.run("report", &code.toolkit()).await;
    // Each call of the script, reported to the run's listener as it settles (the
    // replay's calls served from the record are not run, so not reported again).
    assert_eq!(
        *lines.lock().unwrap(),
        [
            "call_1 tools.count #1 (line 1): ok",
            "call_1 tools.count #2 (line 2): ok",
            "call_1 tools.send #3 (line 3): suspended",
            "call_1 tools.send #3 (line 3): ok",
            "call_1 tools.count #4 (line 4): ok",
        ]
    );
    assert!(done.is_done(), "{:?}", done.status);
    assert_eq!(done.tool_calls[0].result.output, r#"[1,2,"sent to ana",3]"#);
    assert_eq!(
        *log.lock().unwrap(),
        ["count 1", "count 2", "send ana", "count 3"]
    );
}

#[tokio::test]
async fn a_replay_that_makes_other_calls_is_an_error() {
    let log = log();
    let code = CodeMode::new(toolkit(&log));
    let script = "await tools.count({n: Math.random()});\nawait tools.send({to: 'ana'});";
    let client = Client::new(model(script));
    let halted = client.run("report", &code.toolkit()).await;
    let answer = halted.pending.clone().unwrap().answer(true);
    let done = client
        .resume(halted, answer, &code.toolkit())
        .await
        .unwrap();
    let result = &done.tool_calls[0].result;
    assert!(result.is_error);
    assert!(
        result.output.contains("diverged at call 1 (line 1)"),
        "{}",
        result.output
    );
    assert_eq!(
        log.lock().unwrap().len(),
        1,
        "nothing ran after the divergence"
    );
}

struct NoSending;

impl Hooks for NoSending {
    fn before_tool<'a>(&'a self, call: &'a ToolCall) -> HookFuture<'a, ToolDecision> {
        HookFuture::ready(if call.name == "send" {
            ToolDecision::deny("sending is off today")
        } else {
            ToolDecision::Allow
        })
    }
}

#[tokio::test]
async fn the_hooks_see_every_call_of_a_script() {
    let log = log();
    let code = CodeMode::new(toolkit(&log)).hooks(NoSending);
    let result = run(
        &code,
        "await tools.count({n: 1});\ntry { await tools.send({to: 'x'}); } catch (e) { return e.message; }",
    )
    .await;
    assert_eq!(
        serde_json::from_str::<Value>(&result.output).unwrap(),
        "tools.send (line 2): denied: sending is off today"
    );
    assert_eq!(*log.lock().unwrap(), ["count 1"]);
}

const TWO_APPROVALS: &str = "const a = await tools.count({n: 1});\n\
     const first = await tools.send({to: 'ana'});\n\
     let second;\n\
     try { second = await tools.send({to: 'bob'}); } catch (e) { second = e.message; }\n\
     const b = await tools.count({n: 2});\n\
     return [a, first, second, b];";

#[tokio::test]
async fn a_script_suspends_again_on_its_next_request_and_a_decline_reaches_it() {
    let log = log();
    let code = CodeMode::new(toolkit(&log));
    let client = Client::new(model(TWO_APPROVALS));
    let halted = client.run("report", &code.toolkit()).await;
    let first = halted.pending.clone().unwrap();
    assert_eq!(first.data.as_ref().unwrap()["arguments"]["to"], "ana");

    // Approved: the script goes on to the second approval and parks there.
    let again = client
        .resume(halted, first.answer(true), &code.toolkit())
        .await
        .unwrap();
    assert!(again.is_pending(), "{:?}", again.status);
    let second = again.pending.clone().unwrap();
    assert_ne!(second.id, first.id);
    assert_eq!(second.data.as_ref().unwrap()["arguments"]["to"], "bob");
    assert_eq!(*log.lock().unwrap(), ["count 1", "send ana"]);

    // Declined: the script gets the decline as the call's error, and finishes.
    let done = client
        .resume(again, second.decline("not bob"), &code.toolkit())
        .await
        .unwrap();
    assert!(done.is_done(), "{:?}", done.status);
    let result = &done.tool_calls.last().unwrap().result;
    assert!(!result.is_error, "{result:?}");
    let value: Value = serde_json::from_str(&result.output).unwrap();
    assert_eq!(value[1], "sent to ana");
    assert_eq!(
        value[2],
        "tools.send (line 4): declined/expired: Allow `send` to run with {\"to\":\"bob\"}? (not bob)"
    );
    assert_eq!(result.metadata.as_ref().unwrap()[CODE_KEY]["replayed"], 2);
    assert_eq!(
        *log.lock().unwrap(),
        ["count 1", "send ana", "count 2"],
        "every call ran once; the declined one never"
    );
}

#[tokio::test]
async fn wait_for_answers_each_request_of_a_script_in_turn() {
    let log = log();
    let code = CodeMode::new(toolkit(&log));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let client = Client::new(model(TWO_APPROVALS)).wait_for(move |request: toolnexus::Request| {
        seen.lock().unwrap().push(request.id.clone());
        async move { request.answer(true) }
    });
    let done = client.run("report", &code.toolkit()).await;
    assert!(done.is_done(), "{:?}", done.status);
    assert_eq!(
        done.tool_calls[0].result.output,
        r#"[1,"sent to ana","sent to bob",2]"#
    );
    assert_eq!(asked.lock().unwrap().len(), 2);
    assert_eq!(
        *log.lock().unwrap(),
        ["count 1", "send ana", "send bob", "count 2"]
    );
}

//! Context compaction (SPEC §7F) against its judges: the contract's shared fixture
//! (`tests/contract/examples/compaction/fixture.json`, copied unchanged), and the toolnexus
//! Python port's compactor (`toolnexus` 0.21.0, pinned in `.ci/test`, run as a child
//! process by `tests/compaction/port.py`) on the same input transcripts, which must give
//! the same compacted transcripts byte for byte, in either provider dialect.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use toolnexus::agent::{FLUSH_REMINDER, SUMMARY_PREFIX, contract_json, estimate_tokens};
use toolnexus::{Compaction, Message};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture() -> Value {
    let path = root().join("tests/contract/examples/compaction/fixture.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The fixture's transcript, built by its generator (`<i>` and `<repeat 'pad ' 40 times>`).
fn fixture_transcript(fixture: &Value) -> Vec<Value> {
    let input = &fixture["input"];
    let mut messages = vec![json!({"role": "system", "content": input["systemPrompt"]})];
    let turns = input["generator"]["userTurns"].as_u64().unwrap();
    for i in 0..turns {
        for template in input["generator"]["group"].as_array().unwrap() {
            messages.push(expand(template, i));
        }
    }
    messages
}

/// `template` with `<i>` and `<repeat 'x' N times>` expanded in every string.
fn expand(template: &Value, i: u64) -> Value {
    match template {
        Value::String(s) => {
            let mut s = s.replace("<i>", &i.to_string());
            while let Some(at) = s.find("<repeat '") {
                let rest = &s[at + "<repeat '".len()..];
                let (unit, rest) = rest.split_once("' ").unwrap();
                let (times, rest) = rest.split_once(" times>").unwrap();
                let expanded = unit.repeat(times.parse().unwrap());
                s = format!("{}{expanded}{rest}", &s[..at]);
            }
            Value::String(s)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| expand(v, i)).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), expand(v, i))).collect())
        }
        other => other.clone(),
    }
}

fn summarize(older: &[Message]) -> String {
    format!("summarized {} messages", older.len())
}

fn messages(json: &[Value]) -> Vec<Message> {
    json.iter()
        .map(|m| serde_json::from_value(m.clone()).unwrap())
        .collect()
}

/// The crate's compactor on contract-form messages, back in contract form.
fn compact(json: &[Value], max: usize, tail: usize, flush: bool) -> Option<Vec<Value>> {
    let compaction = Compaction::new(max)
        .keep_tail(tail)
        .flush_to_memory(flush)
        .summarize(summarize);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let out = rt.block_on(compaction.compact(&messages(json))).unwrap()?;
    Some(out.iter().map(contract_json).collect())
}

/// Every tool result follows (earlier in `messages`) the call it answers, in either dialect.
fn tool_pair_safe(messages: &[Value]) -> bool {
    messages.iter().enumerate().all(|(i, m)| {
        let answered: Vec<&str> = if m["role"] == "tool" {
            vec![m["tool_call_id"].as_str().unwrap()]
        } else {
            (m["content"].as_array().into_iter().flatten())
                .filter(|b| b["type"] == "tool_result")
                .map(|b| b["tool_use_id"].as_str().unwrap())
                .collect()
        };
        answered.iter().all(|id| {
            messages[..i].iter().any(|a| {
                let openai =
                    (a["tool_calls"].as_array().into_iter().flatten()).any(|c| c["id"] == *id);
                let anthropic = (a["content"].as_array().into_iter().flatten())
                    .any(|b| b["type"] == "tool_use" && b["id"] == *id);
                a["role"] == "assistant" && (openai || anthropic)
            })
        })
    })
}

#[test]
fn the_contract_fixture() {
    let fixture = fixture();
    let input = fixture_transcript(&fixture);
    assert_eq!(input.len(), 121);
    // The crate's form of each message is the contract's, byte for byte.
    for (message, json) in messages(&input).iter().zip(&input) {
        assert_eq!(contract_json(message).to_string(), json.to_string());
    }
    let estimate: usize = input.iter().map(|m| m.to_string().len().div_ceil(4)).sum();
    assert_eq!(estimate_tokens(&messages(&input)), estimate);

    let options = &fixture["options"];
    let max = options["maxTokens"].as_u64().unwrap() as usize;
    let tail = options["keepTail"].as_u64().unwrap() as usize;
    let expect = &fixture["expect"];
    let out = compact(&input, max, tail, false).expect("the fixture compacts");
    assert_eq!(expect["compacts"], true);
    assert!(out.len() < input.len());
    assert!(out.iter().map(|m| m.to_string().len()).sum::<usize>() < estimate * 4);
    assert_eq!(
        out[0], input[0],
        "the system prompt is kept verbatim and first"
    );
    assert!(out[0]["content"].as_str().unwrap().contains("SOUL"));
    let summary = out[1]["content"].as_str().unwrap();
    let prefix = expect["summaryContentPrefix"].as_str().unwrap();
    assert_eq!(prefix, SUMMARY_PREFIX);
    assert_eq!(out[1]["role"], "system");
    assert!(summary.starts_with(prefix), "{summary}");
    let first = out.iter().find(|m| m["role"] != "system").unwrap();
    assert_eq!(first["role"], expect["firstNonSystemMessageRole"]);
    assert!(tool_pair_safe(&out));
    // The summary counts everything between the system prompt and the tail.
    let kept = out.len() - 2;
    assert_eq!(
        summary,
        format!("{prefix}summarized {} messages", input.len() - 1 - kept)
    );
    assert_eq!(out[2..], input[input.len() - kept..]);
    let tail_tokens: usize = out[2..]
        .iter()
        .map(|m| m.to_string().len().div_ceil(4))
        .sum();
    assert!(tail_tokens <= tail);

    // flushToMemory: a system reminder before the retained tail.
    let flushed = compact(&input, max, tail, true).unwrap();
    assert_eq!(
        flushed[2],
        json!({"role": "system", "content": FLUSH_REMINDER})
    );
    assert_eq!(flushed[3..], out[2..]);

    // C1: at or under the budget, nothing happens.
    let short = &input[..9];
    assert!(compact(short, max, tail, false).is_none());
    let exact: usize = input.iter().map(|m| m.to_string().len().div_ceil(4)).sum();
    assert!(compact(&input, exact, tail, false).is_none());
    assert!(compact(&input, exact - 1, tail, false).is_some());
}

/// A deterministic generator of varied transcripts: sizes, unicode, turns with several
/// calls, turns with text and calls, a missing system prompt.
fn varied(seed: u64) -> Vec<Value> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut messages = Vec::new();
    if next(4) != 0 {
        messages.push(json!({"role": "system", "content": "Be brief. é ✓"}));
    }
    let mut call = 0;
    for turn in 0..(3 + next(25)) {
        let words = "word ".repeat(next(60) as usize);
        messages.push(json!({"role": "user", "content": format!("ask {turn} ü {words}")}));
        for _ in 0..next(4) {
            let calls: Vec<Value> = (0..1 + next(3))
                .map(|_| {
                    call += 1;
                    json!({"id": format!("call_{call}"), "type": "function",
                           "function": {"name": "lookup", "arguments": format!("{{\"q\":{call}}}")}})
                })
                .collect();
            let text = if next(3) == 0 {
                Value::String("let me look 🔎".into())
            } else {
                Value::Null
            };
            messages.push(json!({"role": "assistant", "content": text, "tool_calls": calls}));
            for c in &calls {
                let body = "data ✓ ".repeat(next(80) as usize);
                messages.push(json!({"role": "tool", "tool_call_id": c["id"], "content": body}));
            }
        }
        messages.push(json!({"role": "assistant", "content": format!("answer {turn}")}));
    }
    messages
}

/// The fixture's generator with Anthropic's dialect: tool results ride in `user` turns.
fn anthropic(turns: u64) -> Vec<Value> {
    let mut messages = vec![json!({"role": "system", "content": "You are Ava. SOUL."})];
    for i in 0..turns {
        messages.push(
            json!({"role": "user", "content": format!("question {i} {}", "pad ".repeat(40))}),
        );
        messages.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": format!("tu_{i}"), "name": "lookup", "input": {}}]}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("tu_{i}"), "content": format!("result {i} {}", "data ".repeat(40))}]}));
        messages.push(json!({"role": "assistant", "content": format!("answer {i}")}));
    }
    messages
}

struct Case {
    messages: Vec<Value>,
    max: usize,
    tail: usize,
    flush: bool,
    /// Anthropic's dialect: compacted with `compact_json`.
    json_only: bool,
}

/// What the port gives on `cases`: the estimate and the compacted messages' bytes.
fn port(cases: &[Case]) -> Vec<(usize, Option<String>)> {
    let python = std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS").unwrap_or_else(|_| {
        panic!(
            "TOOLNEXUS_PYTHON_TOOLNEXUS is not set: this test compares with the toolnexus Python \
             port (pip toolnexus==0.21.0) and does not skip. Run it through .ci/test"
        )
    });
    let input: Vec<Value> = cases
        .iter()
        .map(|c| json!({"messages": c.messages, "max_tokens": c.max, "keep_tail": c.tail, "flush": c.flush}))
        .collect();
    let mut child = Command::new(python)
        .arg(root().join("tests/compaction/port.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&input).unwrap().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the port failed");
    let out: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    out.into_iter()
        .map(|r| {
            let estimate = r["estimate"].as_u64().unwrap() as usize;
            let messages = (!r["messages"].is_null()).then(|| r["messages"].to_string());
            (estimate, messages)
        })
        .collect()
}

#[test]
fn the_python_port_compacts_the_same_transcripts_the_same_way() {
    let mut cases = vec![];
    let fixture = fixture_transcript(&fixture());
    for (max, tail) in [
        (2000, 800),
        (2000, 0),
        (100, 50),
        (5000, 4000),
        (1_000_000, 10),
    ] {
        for flush in [false, true] {
            cases.push(Case {
                messages: fixture.clone(),
                max,
                tail,
                flush,
                json_only: false,
            });
        }
    }
    for seed in 0..40 {
        let messages = varied(seed);
        let size: usize = messages
            .iter()
            .map(|m| m.to_string().chars().count().div_ceil(4))
            .sum();
        for (max, tail) in [
            (size / 2, size / 6),
            (size / 3, size / 3),
            (size, 1),
            (size - 1, 0),
        ] {
            cases.push(Case {
                messages: messages.clone(),
                max,
                tail,
                flush: seed % 2 == 0,
                json_only: false,
            });
        }
    }
    // The Anthropic-dialect boundary case: the tail may not start at a tool-result turn.
    for (max, tail) in [(2000, 800), (1500, 300), (300, 60)] {
        cases.push(Case {
            messages: anthropic(30),
            max,
            tail,
            flush: false,
            json_only: true,
        });
    }
    // The same transcripts in the OpenAI dialect, through `compact_json` too.
    for seed in 0..10 {
        let messages = varied(100 + seed);
        cases.push(Case {
            messages,
            max: 400,
            tail: 150,
            flush: false,
            json_only: true,
        });
    }
    let expected = port(&cases);
    let mut compacted = 0;
    for (i, (case, (estimate, want))) in cases.iter().zip(expected).enumerate() {
        let got = if case.json_only {
            let compaction = Compaction::new(case.max)
                .keep_tail(case.tail)
                .flush_to_memory(case.flush);
            compaction.compact_json(&case.messages, |older| {
                format!("summarized {} messages", older.len())
            })
        } else {
            assert_eq!(
                estimate_tokens(&messages(&case.messages)),
                estimate,
                "case {i}"
            );
            compact(&case.messages, case.max, case.tail, case.flush)
        };
        let got = got.map(|m| serde_json::to_string(&m).unwrap());
        assert_eq!(got, want, "case {i}: max {} tail {}", case.max, case.tail);
        if let Some(got) = got {
            compacted += 1;
            let out: Vec<Value> = serde_json::from_str(&got).unwrap();
            assert!(tool_pair_safe(&out), "case {i}");
        }
    }
    assert!(
        compacted > 60,
        "{compacted} of {} cases compacted",
        cases.len()
    );
}

/// The loop applies the same rule: a run continued from the fixture's transcript, ten
/// tool turns under the fixture's budget. At each model turn the working transcript (the
/// last compaction, then what the run added since) goes through the Python port's
/// compactor; what the model is shown must be its result (or, under the budget, the
/// working transcript itself), with the `CONTINUE` user turn the crate adds after the
/// summary when the tail does not start with one.
#[test]
fn the_loop_compacts_as_the_python_port_does() {
    use std::sync::{Arc, Mutex};
    use toolnexus::agent::CONTINUE;
    use toolnexus::model::FnModel;
    use toolnexus::{Client, Reply, Tool, ToolCall, ToolResult, Toolkit};

    let mut start = messages(&fixture_transcript(&fixture()));
    start.push(Message::user("and look up ten more"));
    let seen = Arc::new(Mutex::new(Vec::<Vec<Message>>::new()));
    let sink = seen.clone();
    let model = FnModel::new_sync(move |transcript, _| {
        let mut seen = sink.lock().unwrap();
        seen.push(transcript.to_vec());
        Ok(if seen.len() <= 10 {
            Reply::calls(vec![ToolCall::new(
                format!("n{}", seen.len()),
                "lookup",
                "{}",
            )])
        } else {
            Reply::text("done")
        })
    });
    let lookup = Tool::new_sync("lookup", "Looks up.", json!({"type": "object"}), |_, _| {
        ToolResult::ok(format!("result {}", "data ".repeat(200)))
    });
    let client = Client::new(model)
        .max_turns(11)
        .compaction(Compaction::new(2000).keep_tail(800).summarize(summarize));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let run = rt.block_on(client.run_from(start.clone(), &Toolkit::new().with(lookup)));
    assert!(run.is_done(), "{:?}", run.status);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 11);

    // What each turn started from, and what the model was shown (less `CONTINUE`).
    let mut working = Vec::new();
    let mut shown = Vec::new();
    // The last compaction the model was shown, and the length of the full transcript then.
    let mut previous: Option<(Vec<Message>, usize)> = None;
    for (k, view) in seen.iter().enumerate() {
        let full = &run.messages[..start.len() + 2 * k];
        let work = match &previous {
            None => full.to_vec(),
            Some((applied, then)) => [applied.as_slice(), &full[*then..]].concat(),
        };
        let view: Vec<Message> = view
            .iter()
            .filter(|m| **m != Message::user(CONTINUE))
            .cloned()
            .collect();
        if view != work {
            previous = Some((view.clone(), full.len()));
        }
        working.push(work);
        shown.push(view);
    }
    let cases: Vec<Case> = working
        .iter()
        .map(|w| Case {
            messages: w.iter().map(contract_json).collect(),
            max: 2000,
            tail: 800,
            flush: false,
            json_only: false,
        })
        .collect();
    let mut compactions = 0;
    for (k, (_, want)) in port(&cases).into_iter().enumerate() {
        let shown: Vec<Value> = shown[k].iter().map(contract_json).collect();
        match want {
            Some(want) => {
                compactions += 1;
                assert_eq!(
                    serde_json::to_string(&shown).unwrap(),
                    want,
                    "turn {}",
                    k + 1
                );
            }
            None => assert_eq!(shown, cases[k].messages, "turn {}", k + 1),
        }
    }
    assert!(compactions >= 3, "{compactions} compactions");
}

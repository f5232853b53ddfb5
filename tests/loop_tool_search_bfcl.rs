//! Tool search judged on data nobody here wrote: the Berkeley Function Calling
//! Leaderboard's `live_simple` and `live_multiple` categories (pip `bfcl-eval`, its
//! `data/` folder; `.ci/test` installs it and sets `TOOLNEXUS_BFCL_DATA`).
//!
//! Every function of both categories goes into one toolkit of hand-written `Tool`s, from
//! the functions' own JSON schemas. For each question, `search_tools` is asked with the
//! user's words: recall@1 and recall@5 say how often the ground-truth function comes
//! first, or in the five results. Then the size of the `tools` array per turn with and
//! without search, and the loop with search on a scripted model that searches, then calls
//! what it found. Figures are printed (BENCHMARKS.md, "Many tools"); the assertions are
//! floors well below them, and the ≥ 20× request-size target.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde_json::{Map, Value, json};
use toolnexus::model::FnModel;
use toolnexus::search::{SEARCH_TOOL, ToolIndex, ToolSearch};
use toolnexus::{Client, Reply, Tool, ToolResult, Toolkit};

struct Question {
    text: String,
    answers: Vec<String>,
}

fn data_dir() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("TOOLNEXUS_BFCL_DATA") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "TOOLNEXUS_BFCL_DATA is not set"
        );
        eprintln!("NOTICE: TOOLNEXUS_BFCL_DATA not set; run .ci/test");
        return None;
    };
    Some(PathBuf::from(dir))
}

fn lines(path: PathBuf) -> Vec<Value> {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

/// BFCL's Python-flavoured types (`dict`, `float`, `tuple`, `any`) in JSON Schema terms.
fn json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(node) => {
            let mut out = Map::new();
            for (key, value) in node {
                match (key.as_str(), value.as_str()) {
                    ("type", Some("dict")) => out.insert(key.clone(), json!("object")),
                    ("type", Some("float")) => out.insert(key.clone(), json!("number")),
                    ("type", Some("tuple")) => out.insert(key.clone(), json!("array")),
                    ("type", Some("any")) => None,
                    ("properties", _) => {
                        let props = value.as_object().into_iter().flatten();
                        let props = props.map(|(k, v)| (k.clone(), json_schema(v))).collect();
                        out.insert(key.clone(), Value::Object(props))
                    }
                    _ => out.insert(key.clone(), json_schema(value)),
                };
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(json_schema).collect()),
        other => other.clone(),
    }
}

/// Every function of both categories, one tool per name, and every question.
fn pool(dir: &std::path::Path) -> (Toolkit, Vec<Question>) {
    let mut toolkit = Toolkit::new();
    let mut questions = Vec::new();
    for category in ["live_simple", "live_multiple"] {
        let asked = lines(dir.join(format!("BFCL_v4_{category}.json")));
        let answers: HashMap<String, Value> =
            lines(dir.join(format!("possible_answer/BFCL_v4_{category}.json")))
                .into_iter()
                .map(|a| {
                    (
                        a["id"].as_str().unwrap().to_owned(),
                        a["ground_truth"].clone(),
                    )
                })
                .collect();
        for entry in &asked {
            for function in entry["function"].as_array().unwrap() {
                let name = toolnexus::dispatch::sanitize_name(function["name"].as_str().unwrap());
                if toolkit.get(&name).is_some() {
                    continue;
                }
                let description = function["description"].as_str().unwrap_or_default();
                let schema = json_schema(&function["parameters"]);
                let called = format!("called {name}");
                toolkit.extend([Tool::new_sync(name, description, schema, move |_, _| {
                    ToolResult::ok(called.clone())
                })]);
            }
            let text = entry["question"][0]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "user")
                .filter_map(|m| m["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let truth = &answers[entry["id"].as_str().unwrap()];
            let answers = truth
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|call| call.as_object()?.keys().next().cloned())
                .map(|name| toolnexus::dispatch::sanitize_name(&name))
                .collect();
            questions.push(Question { text, answers });
        }
    }
    (toolkit, questions)
}

#[test]
fn bfcl_live_recall_request_size_and_the_loop() {
    let Some(dir) = data_dir() else { return };
    let (toolkit, questions) = pool(&dir);
    println!("{} tools, {} questions", toolkit.len(), questions.len());
    assert!(toolkit.len() > 500, "{} tools", toolkit.len());

    let started = Instant::now();
    let index = ToolIndex::new(&toolkit);
    let built = started.elapsed();

    let (mut at1, mut at5) = (0usize, 0usize);
    let started = Instant::now();
    for question in &questions {
        let hits = index.search(&question.text, 5);
        let found = |tool: &&Tool| question.answers.iter().any(|a| a == tool.name());
        at1 += usize::from(hits.first().is_some_and(&found));
        at5 += usize::from(hits.iter().any(found));
    }
    let searched = started.elapsed();
    let n = questions.len() as f64;
    let (r1, r5) = (at1 as f64 / n, at5 as f64 / n);
    println!(
        "recall@1 {r1:.3}, recall@5 {r5:.3}; index built in {built:?}, {} searches in {searched:?}",
        questions.len()
    );
    assert!(r1 > 0.5, "recall@1 {r1}");
    assert!(r5 > 0.7, "recall@5 {r5}");

    // Request size at 1,000 tools: the whole `tools` array against a turn with search
    // (search_tools and the five tools a search found). The two categories have 513
    // distinct function names; the pool is taken again, each name suffixed `_2` (those that
    // stay within 64 characters), up to 1,000 tools.
    let short = toolkit
        .tools()
        .iter()
        .filter(|tool| tool.name().len() <= 62);
    let copies = short.take(1000 - toolkit.len()).map(|tool| {
        let name = format!("{}_2", tool.name());
        let description = tool.description().to_owned();
        Tool::new_sync(name, description, tool.input_schema().clone(), |_, _| {
            ToolResult::ok("copy")
        })
    });
    let thousand: Toolkit = toolkit.tools().iter().cloned().chain(copies).collect();
    assert_eq!(thousand.len(), 1000);
    let all = thousand.to_openai().to_string().len();
    let seen: Arc<Mutex<Vec<usize>>> = Arc::default();
    let record = Arc::clone(&seen);
    let text = questions[0].text.clone();
    let model = FnModel::new_sync(move |transcript, offered| {
        record
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(offered.to_openai().to_string().len());
        let last = transcript.last().and_then(|m| m.text()).unwrap_or_default();
        Ok(match transcript.len() {
            1 => Reply::call("s1", SEARCH_TOOL, json!({"query": text}).to_string()),
            3 => {
                // Call the first tool the search named.
                let name = last
                    .lines()
                    .find_map(|l| l.strip_prefix("- ")?.split_once(':'))
                    .map(|(name, _)| name.to_owned())
                    .unwrap_or_default();
                Reply::call("c1", name, "{}")
            }
            _ => Reply::text("done"),
        })
    });
    let client = Client::new(model).tool_search(ToolSearch::above(30));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let run = rt.block_on(client.run(questions[0].text.clone(), &thousand));
    assert!(run.is_done(), "{run:?}");
    assert!(
        run.tool_calls[1].result.output.starts_with("called "),
        "{:?}",
        run.tool_calls[1]
    );
    let seen = seen.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let largest = *seen.iter().max().unwrap();
    println!(
        "tools array at 1,000 tools: {all} bytes without search; with search, per turn: {seen:?} \
         ({:.0}x smaller at the largest)",
        all as f64 / largest as f64
    );
    assert_eq!(seen.len(), 3);
    assert!(all >= 20 * largest, "{all} vs {largest}");
}

//! Code mode against direct tool calls, on one multi-step task: look up 20 records,
//! keep the paid EU orders, total them, find the three largest, and write one report.
//! See `BENCHMARKS.md`.
//!
//! ```text
//! cargo bench -p toolnexus-suite --bench code_mode -- --warm-up-time 1 --measurement-time 3
//! python3 benches/ratios.py
//! ```
//!
//! Three scripted models do the same work and write the same report (checked):
//!
//! - `direct_sequential`: one `get_record` call per turn, then `write_report`, then the
//!   answer (22 model turns);
//! - `direct_parallel`: the 20 lookups in one turn, then `write_report`, then the
//!   answer (3 model turns);
//! - `code`: one `run_code` script that makes the 21 calls (the lookups gathered with
//!   `Promise.all`), then the answer (2 model turns, one of them for the work).
//!
//! Before criterion's wall times, the bench prints for each: the model turns and the
//! request bytes, the JSON text of what each turn would send a provider (the
//! transcript and the tool listing in OpenAI's form), summed over the run, and the
//! ratios of the direct runs to code mode. A record is what a lookup API returns: the
//! fields the task needs and a note of about 300 bytes it does not.

#![allow(missing_docs)]

use std::convert::Infallible;
use std::hint::black_box;
use std::sync::{Arc, Mutex};

use criterion::{BatchSize, Criterion, criterion_group};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolnexus::code::CodeMode;
use toolnexus::model::FnModel;
use toolnexus::{Client, Json, Message, Reply, Tool, ToolCall, Toolkit, tool};

const RECORDS: i64 = 20;

/// An order, as the lookup returns it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Record {
    /// The order's id.
    id: i64,
    /// `eu`, `us` or `apac`.
    region: String,
    /// `paid`, `open` or `refunded`.
    status: String,
    /// The amount, in cents.
    amount: i64,
    /// Free text kept with the order.
    note: String,
}

fn record(id: i64) -> Record {
    Record {
        id,
        region: ["eu", "us", "eu", "apac"][(id % 4) as usize].to_owned(),
        status: ["paid", "open", "paid", "refunded", "paid"][(id % 5) as usize].to_owned(),
        amount: (id * 7919) % 1000 + 100,
        note: format!(
            "Order {id} was placed through the web shop and shipped from the central \
             warehouse. The customer asked for the invoice to be sent by mail, and for \
             the delivery to be left with the neighbour when nobody is home. Support \
             ticket history: none. Loyalty tier: silver. Internal reference ORD-{id:05}."
        ),
    }
}

/// Look up an order by id.
#[tool]
fn get_record(
    /// The order's id.
    id: i64,
) -> Result<Json<Record>, Infallible> {
    Ok(Json(record(id)))
}

/// The report the task writes: the same text from every model.
fn report(records: &[Record]) -> String {
    let mut paid: Vec<&Record> = records
        .iter()
        .filter(|r| r.status == "paid" && r.region == "eu")
        .collect();
    let total: i64 = paid.iter().map(|r| r.amount).sum();
    paid.sort_by_key(|r| std::cmp::Reverse(r.amount));
    let top: Vec<String> = paid.iter().take(3).map(|r| r.id.to_string()).collect();
    format!(
        "{} paid EU orders, total {total}; largest: {}",
        paid.len(),
        top.join(", ")
    )
}

const SCRIPT: &str = r#"const records = await Promise.all(
  Array.from({length: 20}, (_, i) => tools.get_record({id: i + 1})));
const paid = records.filter(r => r.status === "paid" && r.region === "eu");
const total = paid.reduce((sum, r) => sum + r.amount, 0);
const top = [...paid].sort((a, b) => b.amount - a.amount).slice(0, 3).map(r => r.id);
const body = `${paid.length} paid EU orders, total ${total}; largest: ${top.join(", ")}`;
return await tools.write_report({title: "EU paid orders", body});"#;

type Saved = Arc<Mutex<Vec<String>>>;

fn toolkit(saved: &Saved) -> Toolkit {
    let saved = Arc::clone(saved);
    let write = Tool::new_sync(
        "write_report",
        "Saves a report.",
        json!({
            "type": "object",
            "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
            "required": ["title", "body"]
        }),
        move |args, _| {
            let body = args["body"].as_str().unwrap_or_default().to_owned();
            saved.lock().unwrap().push(body);
            toolnexus::ToolResult::ok("saved as report-1")
        },
    );
    Toolkit::new().with(get_record::tool()).with(write)
}

/// The records the transcript's tool messages hold.
fn seen(transcript: &[Message]) -> Vec<Record> {
    transcript
        .iter()
        .filter_map(|m| match m {
            Message::Tool { content, .. } => serde_json::from_str(content).ok(),
            _ => None,
        })
        .collect()
}

fn tool_messages(transcript: &[Message]) -> usize {
    transcript
        .iter()
        .filter(|m| matches!(m, Message::Tool { .. }))
        .count()
}

fn write_call(records: &[Record]) -> Reply {
    let args = json!({"title": "EU paid orders", "body": report(records)});
    Reply::call("write", "write_report", args.to_string())
}

fn lookup(id: i64) -> ToolCall {
    ToolCall::new(
        format!("get_{id}"),
        "get_record",
        json!({"id": id}).to_string(),
    )
}

/// The models; each turn adds the bytes of its request to `bytes`.
fn model(kind: &str, bytes: Arc<Mutex<(usize, usize)>>) -> FnModel {
    let kind = kind.to_owned();
    FnModel::new_sync(move |transcript, tools| {
        let request = serde_json::to_vec(transcript).unwrap().len()
            + serde_json::to_vec(&tools.to_openai()).unwrap().len();
        let mut counted = bytes.lock().unwrap();
        counted.0 += 1;
        counted.1 += request;
        let done = tool_messages(transcript);
        Ok(match kind.as_str() {
            "direct_sequential" if done < RECORDS as usize => lookup(done as i64 + 1).into_reply(),
            "direct_sequential" if done == RECORDS as usize => write_call(&seen(transcript)),
            "direct_parallel" if done == 0 => Reply::calls((1..=RECORDS).map(lookup)),
            "direct_parallel" if done == RECORDS as usize => write_call(&seen(transcript)),
            "code" if done == 0 => {
                Reply::call("code", "run_code", json!({"code": SCRIPT}).to_string())
            }
            _ => Reply::text("The report is saved."),
        })
    })
}

trait IntoReply {
    fn into_reply(self) -> Reply;
}

impl IntoReply for ToolCall {
    fn into_reply(self) -> Reply {
        Reply::calls([self])
    }
}

const KINDS: [&str; 3] = ["direct_sequential", "direct_parallel", "code"];

/// One run of `kind`: the client, and the toolkit the model sees.
fn setup(kind: &str, saved: &Saved, bytes: Arc<Mutex<(usize, usize)>>) -> (Client, Toolkit) {
    let client = Client::new(model(kind, bytes)).max_turns(30);
    let toolkit = toolkit(saved);
    let toolkit = if kind == "code" {
        CodeMode::new(toolkit).toolkit()
    } else {
        toolkit
    };
    (client, toolkit)
}

/// Runs each kind once: prints turns and request bytes, and checks the reports agree.
fn figures(rt: &tokio::runtime::Runtime) {
    let expected = report(&(1..=RECORDS).map(record).collect::<Vec<_>>());
    let mut rows = Vec::new();
    for kind in KINDS {
        let saved = Saved::default();
        let bytes = Arc::new(Mutex::new((0, 0)));
        let (client, toolkit) = setup(kind, &saved, Arc::clone(&bytes));
        let run = rt.block_on(client.run("Write the EU paid-orders report.", &toolkit));
        assert!(run.is_done(), "{kind}: {:?}", run.status);
        assert_eq!(
            *saved.lock().unwrap(),
            std::slice::from_ref(&expected),
            "{kind}"
        );
        let (turns, total) = *bytes.lock().unwrap();
        rows.push((kind, turns, total));
    }
    let (_, code_turns, code_bytes) = rows[2];
    println!("code_mode figures (the report: {expected})");
    println!("| run | model turns | request bytes | turns / code | bytes / code |");
    println!("| --- | --- | --- | --- | --- |");
    for (kind, turns, total) in rows {
        println!(
            "| {kind} | {turns} | {total} | {:.1} | {:.1} |",
            turns as f64 / code_turns as f64,
            total as f64 / code_bytes as f64
        );
    }
}

fn code_mode(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    figures(&rt);
    let mut group = c.benchmark_group("code_mode");
    for kind in KINDS {
        group.bench_function(kind, |b| {
            b.iter_batched(
                || setup(kind, &Saved::default(), Arc::default()),
                |(client, toolkit)| black_box(rt.block_on(client.run("go", &toolkit))),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, code_mode);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}

//! Dispatch and listing cost, each beside its floor in the same benchmark group.
//!
//! ```text
//! cargo bench --bench dispatch
//! ```
//!
//! - `dispatch/*`: `Toolkit::execute(name, args, ctx)` against the floor: the function called
//!   directly after `serde_json::from_value` of a typed argument struct, plus `to_string()`
//!   of the result.
//! - `text_args/*`: `Toolkit::execute_json` with raw JSON text against `serde_json::from_str`
//!   into the typed struct and the same call.
//! - `listing/*`: the provider listings of 50 tools, first call and repeated.

#![allow(missing_docs)]

use std::convert::Infallible;
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context as TaskContext, Poll, Waker};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::{Context, Tool, Toolkit, tool};

/// Polls a future that finishes at once (every tool here is synchronous).
fn now<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut TaskContext::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => unreachable!("synchronous tools finish on the first poll"),
    }
}

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> Result<i64, Infallible> {
    Ok(a + b)
}

/// Greet someone.
#[tool]
fn greet(name: String) -> Result<String, Infallible> {
    Ok(format!("hello {name}"))
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Address {
    street: String,
    city: String,
    zip: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Speed {
    Standard,
    Express,
}

/// Ship an order.
#[tool]
fn ship(order: u64, to: Address, note: Option<String>, speed: Speed) -> Result<String, Infallible> {
    let speed = match speed {
        Speed::Standard => "standard",
        Speed::Express => "express",
    };
    Ok(format!(
        "order {order} to {}, {} {} ({speed}{})",
        to.street,
        to.city,
        to.zip.unwrap_or_default(),
        note.map(|n| format!(", {n}")).unwrap_or_default()
    ))
}

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}
#[derive(Deserialize)]
struct GreetArgs {
    name: String,
}
#[derive(Deserialize)]
struct ShipArgs {
    order: u64,
    to: Address,
    note: Option<String>,
    speed: Speed,
}

fn floor_add(args: Value) -> String {
    let a: AddArgs = serde_json::from_value(args).unwrap();
    add(a.a, a.b).unwrap().to_string()
}
fn floor_greet(args: Value) -> String {
    let a: GreetArgs = serde_json::from_value(args).unwrap();
    greet(a.name).unwrap().to_string()
}
fn floor_ship(args: Value) -> String {
    let a: ShipArgs = serde_json::from_value(args).unwrap();
    ship(a.order, a.to, a.note, a.speed).unwrap().to_string()
}

fn ship_args() -> Value {
    json!({"order": 42, "to": {"street": "1 Main St", "city": "Springfield", "zip": "12345"},
           "note": "leave at door", "speed": "express"})
}

/// 49 more tools beside `add`, so lookup happens among 50.
fn fifty() -> Toolkit {
    let mut toolkit = Toolkit::new().with(add::tool());
    for i in 0..49 {
        toolkit
            .register(Tool::new_sync(
                format!("filler_{i:02}"),
                format!("Filler tool number {i}."),
                json!({"type": "object", "properties": {"x": {"type": "integer", "description": "A number."}},
                       "required": ["x"], "additionalProperties": false}),
                |args, _| toolnexus::ToolResult::ok(args["x"].to_string()),
            ))
            .unwrap();
    }
    toolkit
}

fn dispatch(c: &mut Criterion) {
    let small = Toolkit::new()
        .with(add::tool())
        .with(greet::tool())
        .with(ship::tool());
    let big = fifty();
    let mut group = c.benchmark_group("dispatch");
    type Case = (&'static str, fn() -> Value, fn(Value) -> String);
    let cases: [Case; 3] = [
        ("a_two_ints", || json!({"a": 20, "b": 22}), floor_add),
        (
            "b_one_string",
            || json!({"name": "Ada Lovelace"}),
            floor_greet,
        ),
        ("c_nested", ship_args, floor_ship),
    ];
    for ((label, args, floor), tool) in cases.into_iter().zip(["add", "greet", "ship"]) {
        group.bench_function(format!("{label}/floor"), |b| {
            b.iter_batched(args, |v| black_box(floor(v)), BatchSize::SmallInput)
        });
        group.bench_function(format!("{label}/toolnexus"), |b| {
            b.iter_batched(
                args,
                |v| black_box(now(small.execute(tool, v, Context::default()))),
                BatchSize::SmallInput,
            )
        });
    }
    group.bench_function("d_among_50/floor", |b| {
        b.iter_batched(
            || json!({"a": 20, "b": 22}),
            |v| black_box(floor_add(v)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("d_among_50/toolnexus", |b| {
        b.iter_batched(
            || json!({"a": 20, "b": 22}),
            |v| black_box(now(big.execute("add", v, Context::default()))),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn text_args(c: &mut Criterion) {
    let toolkit = Toolkit::new().with(add::tool()).with(ship::tool());
    let mut group = c.benchmark_group("text_args");
    let ship_text = ship_args().to_string();
    let add_text = r#"{"a":20,"b":22}"#;
    group.bench_function("add/floor", |b| {
        b.iter(|| {
            let a: AddArgs = serde_json::from_str(black_box(add_text)).unwrap();
            black_box(add(a.a, a.b).unwrap().to_string())
        })
    });
    group.bench_function("add/toolnexus", |b| {
        b.iter(|| {
            black_box(now(toolkit.execute_json(
                "add",
                black_box(add_text),
                Context::default(),
            )))
        })
    });
    group.bench_function("ship/floor", |b| {
        b.iter(|| {
            let a: ShipArgs = serde_json::from_str(black_box(&ship_text)).unwrap();
            black_box(ship(a.order, a.to, a.note, a.speed).unwrap().to_string())
        })
    });
    group.bench_function("ship/toolnexus", |b| {
        b.iter(|| {
            black_box(now(toolkit.execute_json(
                "ship",
                black_box(&ship_text),
                Context::default(),
            )))
        })
    });
    group.finish();
}

fn listing(c: &mut Criterion) {
    let mut group = c.benchmark_group("listing_50");
    type List = fn(&Toolkit) -> Value;
    let adapters: [(&str, List); 4] = [
        ("openai", Toolkit::to_openai),
        ("anthropic", Toolkit::to_anthropic),
        ("gemini", Toolkit::to_gemini),
        ("mcp", Toolkit::to_mcp),
    ];
    for (name, list) in adapters {
        group.bench_function(format!("{name}/first"), |b| {
            b.iter_batched(fifty, |kit| black_box(list(&kit)), BatchSize::SmallInput)
        });
        let kit = fifty();
        group.bench_function(format!("{name}/repeated"), |b| {
            b.iter(|| black_box(list(&kit)))
        });
    }
    group.finish();
}

criterion_group!(benches, dispatch, text_args, listing);
criterion_main!(benches);

//! Dispatch allocates nothing beyond what deserializing the arguments and formatting the
//! output need: counted with a counting global allocator, against the floor of calling the
//! function directly after `serde_json` deserialization.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::convert::Infallible;

use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::{Context, ToolResult, Toolkit, tool};

#[path = "support/poll.rs"]
mod poll;
use poll::now;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only counts calls on the current thread.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let value = f();
    (value, ALLOCATIONS.with(Cell::get) - before)
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

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
struct GreetArgs {
    name: String,
}

fn floor_add(args: Value) -> String {
    let args: AddArgs = serde_json::from_value(args).unwrap();
    add(args.a, args.b).unwrap().to_string()
}

fn floor_greet(args: Value) -> String {
    let args: GreetArgs = serde_json::from_value(args).unwrap();
    greet(args.name).unwrap().to_string()
}

#[test]
fn dispatch_allocates_no_more_than_the_floor_plus_argument_copies() {
    let toolkit = Toolkit::new().with(add::tool()).with(greet::tool());
    // Warm up: the tools and their schemas are built once, outside the measurement.
    let _ = now(toolkit.execute("add", json!({"a": 1, "b": 2}), Context::default()));
    let _ = now(toolkit.execute("greet", json!({"name": "x"}), Context::default()));

    let args = json!({"a": 1, "b": 2});
    let (floor, floor_allocs) = count(|| floor_add(args));
    let args = json!({"a": 1, "b": 2});
    let (result, allocs) = count(|| now(toolkit.execute("add", args, Context::default())));
    assert_eq!(result, ToolResult::ok(floor));
    // Two integers in, one string out: exactly the output's allocation, like the floor.
    assert_eq!(
        allocs, floor_allocs,
        "add: toolnexus {allocs}, floor {floor_allocs}"
    );

    // From raw JSON text, as a provider sends it.
    let (result, allocs) =
        count(|| now(toolkit.execute_json("add", r#"{"a":1,"b":2}"#, Context::default())));
    assert_eq!(result.output, "3");
    assert_eq!(allocs, floor_allocs, "add from text: {allocs}");

    let args = json!({"name": "ada"});
    let (floor, floor_allocs) = count(|| floor_greet(args));
    let args = json!({"name": "ada"});
    let (result, allocs) = count(|| now(toolkit.execute("greet", args, Context::default())));
    assert_eq!(result.output, floor);
    // The one extra allocation is the copy of the string argument: arguments are read from
    // a borrowed value so that a failed read can be re-run to name the offending field.
    assert_eq!(
        allocs,
        floor_allocs + 1,
        "greet: toolnexus {allocs}, floor {floor_allocs}"
    );
}

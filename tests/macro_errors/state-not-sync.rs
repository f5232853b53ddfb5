use std::cell::Cell;

use toolnexus::{tool, State};

/// Count the calls.
#[tool]
fn hits(counter: State<Cell<u64>>) -> Result<u64, String> {
    counter.set(counter.get() + 1);
    Ok(counter.get())
}

fn main() {}

use toolnexus::tool;

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> Option<i64> {
    a.checked_add(b)
}

fn main() {}

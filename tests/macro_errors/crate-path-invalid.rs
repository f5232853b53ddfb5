use toolnexus::tool;

/// Add two numbers.
#[tool(crate = "my tools")]
fn add(a: i64, b: i64) -> Result<i64, std::convert::Infallible> {
    Ok(a + b)
}

fn main() {}

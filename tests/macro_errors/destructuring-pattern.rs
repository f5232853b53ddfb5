use toolnexus::tool;

/// Add the two halves of a pair.
#[tool]
fn add((a, b): (i64, i64)) -> Result<i64, std::convert::Infallible> {
    Ok(a + b)
}

fn main() {}

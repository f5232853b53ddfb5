use toolnexus::tool;

/// List the numbers up to `n`.
#[tool]
fn range(n: u32) -> Result<Vec<u32>, String> {
    Ok((0..n).collect())
}

fn main() {}

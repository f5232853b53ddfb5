use toolnexus::tool;

/// Has a space.
#[tool(name = "add numbers")]
fn spaced() -> Result<i64, std::convert::Infallible> {
    Ok(0)
}

/// Longer than 64 characters.
#[tool(name = "add_two_numbers_together_and_then_return_the_sum_of_them_to_the_model")]
fn long() -> Result<i64, std::convert::Infallible> {
    Ok(0)
}

/// Empty.
#[tool(name = "")]
fn empty() -> Result<i64, std::convert::Infallible> {
    Ok(0)
}

fn main() {}

// The attribute has an error, yet the function is still emitted unchanged: the calls
// below compile, so the build shows only the one error, on the attribute key.
use toolnexus::tool;

/// Add two numbers.
#[tool(nmae = "add_numbers")]
fn add(a: i64, b: i64) -> Result<i64, std::convert::Infallible> {
    Ok(a + b)
}

fn main() {
    assert_eq!(add(2, 3).unwrap(), 5);
    let _tool: toolnexus::Tool = add::tool();
}

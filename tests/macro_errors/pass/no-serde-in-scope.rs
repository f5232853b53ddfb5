// A crate that depends on `toolnexus` alone: the expansion reaches serde and schemars
// through toolnexus, so nothing here names them and primitive parameters need no import.
use toolnexus::tool;

/// Add two numbers.
#[tool]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<i64, std::convert::Infallible> {
    Ok(a + b)
}

fn main() {
    assert_eq!(add(2, 3).unwrap(), 5);
    let tool = add::tool();
    assert_eq!(tool.name(), "add");
    assert_eq!(tool.input_schema()["required"].as_array().unwrap().len(), 2);
}

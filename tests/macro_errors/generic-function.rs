use toolnexus::tool;

/// Echo any value.
#[tool]
fn echo<T: std::fmt::Display>(value: T) -> Result<String, std::convert::Infallible> {
    Ok(value.to_string())
}

fn main() {}

use toolnexus::tool;

/// Greet someone.
#[tool]
fn greet(name: impl std::fmt::Display) -> Result<String, std::convert::Infallible> {
    Ok(format!("hello {name}"))
}

fn main() {}

use toolnexus::tool;

/// Shout a text.
#[tool]
fn shout(text: &str) -> Result<String, std::convert::Infallible> {
    Ok(text.to_uppercase())
}

fn main() {}

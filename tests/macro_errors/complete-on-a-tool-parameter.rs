use toolnexus::tool;

/// Say hello.
#[tool]
fn greet(#[complete(values = ["Ada"])] name: String) -> Result<String, std::convert::Infallible> {
    Ok(format!("hello {name}"))
}

fn main() {}

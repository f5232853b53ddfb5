use toolnexus::tool;

struct Query {
    text: String,
}

/// Search.
#[tool]
fn search(#[args] query: Query) -> Result<String, std::convert::Infallible> {
    Ok(query.text)
}

fn main() {}

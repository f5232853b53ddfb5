use toolnexus::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    text: String,
}

/// Search.
#[tool]
fn search(#[args] query: Query, limit: u32) -> Result<String, std::convert::Infallible> {
    Ok(format!("{} {limit}", query.text))
}

fn main() {}

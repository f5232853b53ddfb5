use toolnexus::tool;

mod search {
    pub fn index() -> Vec<&'static str> {
        vec!["a", "b"]
    }
}

/// Search the index.
#[tool]
fn search(query: String) -> Result<String, String> {
    Ok(search::index().join(&query))
}

fn main() {}

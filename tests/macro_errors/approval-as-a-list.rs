use toolnexus::tool;

/// Delete a repository.
#[tool(approval(prompt = "Delete it?"))]
fn delete_repo(name: String) -> Result<String, String> {
    Ok(name)
}

fn main() {}

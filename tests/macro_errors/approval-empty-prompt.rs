use toolnexus::tool;

/// Delete a repository.
#[tool(approval = "  ")]
fn delete_repo(name: String) -> Result<String, String> {
    Ok(name)
}

fn main() {}

use toolnexus::tool;

/// Build the project.
#[tool(task = true)]
fn build(target: String) -> Result<String, String> {
    Ok(target)
}

fn main() {}

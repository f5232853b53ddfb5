use toolnexus::{prompt, resource};

/// The project's README.
#[resource(uri = "docs://readme")]
#[prompt]
fn readme() -> &'static str {
    "# Readme"
}

fn main() {}

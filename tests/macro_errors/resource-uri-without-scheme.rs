use toolnexus::resource;

/// The project's README.
#[resource(uri = "README.md")]
fn readme() -> &'static str {
    "# Readme"
}

fn main() {}

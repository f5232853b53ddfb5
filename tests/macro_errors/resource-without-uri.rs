use toolnexus::resource;

/// The project's README.
#[resource]
fn readme() -> &'static str {
    "# Readme"
}

fn main() {}

use toolnexus::resource;

/// The project's README.
#[resource(uri = "docs://readme", mime_type = "markdown")]
fn readme() -> &'static str {
    "# Readme"
}

fn main() {}

use toolnexus::resource;

/// The project's README.
#[resource(uri = "docs://readme", mimetype = "text/markdown")]
fn readme() -> &'static str {
    "# Readme"
}

fn main() {}

use toolnexus::resource;

struct Docs;

impl Docs {
    /// The project's README.
    #[resource(uri = "docs://readme")]
    fn readme(&self) -> &'static str {
        "# Readme"
    }
}

fn main() {}

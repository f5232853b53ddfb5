use toolnexus::resource;

/// A file of the project.
#[resource(uri = "files://{+path}")]
fn file(path: String) -> String {
    path
}

fn main() {}

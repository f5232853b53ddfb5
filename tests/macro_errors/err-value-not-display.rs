use toolnexus::tool;

#[derive(Debug)]
struct Oops;

/// Fail.
#[tool]
fn fail() -> Result<String, Oops> {
    Err(Oops)
}

fn main() {}

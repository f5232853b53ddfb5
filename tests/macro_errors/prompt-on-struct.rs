use toolnexus::prompt;

/// Review code.
#[prompt]
struct Review {
    code: String,
}

fn main() {}

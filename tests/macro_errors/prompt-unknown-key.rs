use toolnexus::prompt;

/// Review code.
#[prompt(nmae = "code_review")]
fn review(code: String) -> String {
    format!("Review this: {code}")
}

fn main() {}

use toolnexus::prompt;

struct Language(String);

/// Review code.
#[prompt]
fn review(code: String, language: Language) -> String {
    format!("Review this {}: {code}", language.0)
}

fn main() {}

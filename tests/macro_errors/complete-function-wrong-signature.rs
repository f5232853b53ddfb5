use toolnexus::prompt;

fn languages() -> Vec<String> {
    vec!["en".into(), "fr".into()]
}

/// Say hello in a language.
#[prompt]
fn greet(#[complete(with = languages)] language: String) -> String {
    format!("Say hello in {language}.")
}

fn main() {}

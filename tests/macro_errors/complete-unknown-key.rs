use toolnexus::prompt;

/// Say hello in a language.
#[prompt]
fn greet(#[complete(value = ["en", "fr"])] language: String) -> String {
    format!("Say hello in {language}.")
}

fn main() {}

use toolnexus::prompt;

/// Suggest names.
#[prompt]
fn names(topic: String) -> Vec<String> {
    vec![format!("Name ideas for {topic}")]
}

fn main() {}

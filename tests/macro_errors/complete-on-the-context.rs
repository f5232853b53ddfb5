use toolnexus::{prompt, Context};

/// Say hello.
#[prompt]
fn greet(name: String, #[complete(values = ["en"])] ctx: &Context) -> String {
    let _ = ctx;
    format!("Say hello to {name}.")
}

fn main() {}

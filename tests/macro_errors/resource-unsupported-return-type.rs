use toolnexus::resource;

/// How many users there are.
#[resource(uri = "stats://users")]
fn user_count() -> u64 {
    42
}

fn main() {}

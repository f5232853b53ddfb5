use toolnexus::resource;

/// One user's profile: three mistakes, three errors in one build.
#[resource(uri = "users://{id}", mime_type = "json", nmae = "profile")]
fn profile(user: u64) -> String {
    format!("user {user}")
}

fn main() {}

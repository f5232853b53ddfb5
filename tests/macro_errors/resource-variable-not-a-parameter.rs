use toolnexus::resource;

/// One user's profile.
#[resource(uri = "users://{id}/profile")]
fn profile(user: u64) -> String {
    format!("user {user}")
}

fn main() {}

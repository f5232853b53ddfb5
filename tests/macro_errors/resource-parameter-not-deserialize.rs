use toolnexus::resource;

struct UserId(u64);

/// One user's profile.
#[resource(uri = "users://{id}")]
fn profile(id: UserId) -> String {
    format!("user {}", id.0)
}

fn main() {}

use toolnexus::{toolset, tool};

struct Mailer;

struct Address {
    to: String,
}

#[toolset]
impl Mailer {
    /// Send a mail.
    #[tool]
    async fn send(&self, address: Address) -> Result<String, String> {
        Ok(address.to)
    }
}

fn main() {}

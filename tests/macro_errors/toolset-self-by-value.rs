use toolnexus::{toolset, tool};

struct Ticket {
    id: u64,
}

#[toolset]
impl Ticket {
    /// Close the ticket.
    #[tool]
    fn close(self, reason: String) -> Result<String, String> {
        Ok(format!("closed {} ({reason})", self.id))
    }
}

fn main() {}

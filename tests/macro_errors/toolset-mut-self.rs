use toolnexus::{toolset, tool};

struct Counter {
    count: u64,
}

#[toolset]
impl Counter {
    /// Count one more.
    #[tool]
    fn bump(&mut self) -> Result<u64, String> {
        self.count += 1;
        Ok(self.count)
    }
}

fn main() {}

use toolnexus::tool;

struct Counter {
    count: u64,
}

impl Counter {
    /// Read the counter.
    #[tool]
    fn read(&self) -> Result<u64, std::convert::Infallible> {
        Ok(self.count)
    }
}

fn main() {
    let _ = Counter { count: 0 }.read();
}

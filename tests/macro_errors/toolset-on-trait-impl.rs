use toolnexus::{toolset, tool};

struct Clock;

trait Now {
    fn now(&self) -> Result<String, String>;
}

#[toolset]
impl Now for Clock {
    /// The time.
    #[tool]
    fn now(&self) -> Result<String, String> {
        Ok("noon".into())
    }
}

fn main() {}

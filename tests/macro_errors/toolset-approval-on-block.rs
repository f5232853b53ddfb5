use toolnexus::{toolset, tool};

struct Repos;

#[toolset(approval)]
impl Repos {
    /// Delete a repository.
    #[tool]
    fn delete(&self, name: String) -> Result<String, String> {
        Ok(name)
    }
}

fn main() {}

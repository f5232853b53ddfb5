use toolnexus::{toolset, tool};

struct Files;

#[toolset(name = "files")]
impl Files {
    /// Read a file.
    #[tool]
    fn read(&self, path: String) -> Result<String, String> {
        Ok(path)
    }
}

fn main() {}

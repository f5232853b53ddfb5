use toolnexus::{toolset, tool};

struct Files;

#[toolset]
impl Files {
    /// Read a file.
    #[tool(name = "read")]
    fn read_text(&self, path: String) -> Result<String, String> {
        Ok(path)
    }

    /// Read a file's bytes.
    #[tool(name = "read")]
    fn read_bytes(&self, path: String) -> Result<String, String> {
        Ok(path)
    }
}

fn main() {}

use toolnexus::tool;

struct Github;

impl Github {
    const API: &'static str = "https://api.github.com";

    /// Open an issue.
    #[tool]
    fn open_issue(title: String) -> Result<String, String> {
        Ok(format!("{}: {title}", Self::API))
    }
}

fn main() {}

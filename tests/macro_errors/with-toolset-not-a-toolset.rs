use std::sync::Arc;

use toolnexus::{tool, toolset, Toolkit};

struct Github {
    token: String,
}

#[toolset]
impl Github {
    /// Who am I?
    #[tool]
    fn whoami(&self) -> Result<String, String> {
        Ok(self.token.clone())
    }
}

struct Plain;

fn main() {
    let github = Github { token: "t".into() };
    let _ = Toolkit::new().with_toolset(&github);
    let _ = Toolkit::new().with_toolset(Arc::new(Plain));
}

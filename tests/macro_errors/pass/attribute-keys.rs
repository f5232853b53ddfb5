// `name`, `description` and `crate` (toolnexus reached through a re-export).
mod vendored {
    pub use toolnexus as tn;
}

/// The doc comment, replaced by `description`.
#[toolnexus::tool(name = "deploy_service", description = "Deploy the service.")]
fn deploy(env: String) -> Result<String, String> {
    Ok(format!("deployed to {env}"))
}

/// Built through the re-export.
#[vendored::tn::tool(crate = "crate::vendored::tn")]
fn through_reexport(n: u32) -> Result<u32, String> {
    Ok(n)
}

fn main() {
    let tool = deploy::tool();
    assert_eq!(tool.name(), "deploy_service");
    assert_eq!(tool.description(), "Deploy the service.");
    assert_eq!(deploy("prod".into()), Ok("deployed to prod".into()));

    let tool = through_reexport::tool();
    assert_eq!(tool.name(), "through_reexport");
    assert_eq!(tool.description(), "Built through the re-export.");
}

// `task` on a function and on a toolset method, beside other keys: the tools are marked
// long-running, run as before when executed directly, and the functions stay callable.
use std::sync::Arc;

use toolnexus::{Context, Toolset, tool, toolset};

/// Build a target.
#[tool(task)]
fn build(target: String) -> Result<String, String> {
    Ok(format!("built {target}"))
}

/// Migrate the database.
#[tool(name = "migrate", task, approval)]
async fn run_migration(step: u32) -> Result<String, String> {
    Ok(format!("step {step}"))
}

/// Not long-running.
#[tool]
fn quick() -> Result<String, String> {
    Ok("quick".into())
}

struct Reports;

#[toolset]
impl Reports {
    /// Render the yearly report.
    #[tool(task)]
    fn render(&self, year: u32) -> Result<String, String> {
        Ok(format!("report {year}"))
    }
}

fn main() {
    assert!(build::tool().is_task());
    assert!(run_migration::tool().is_task() && run_migration::tool().requires_approval());
    assert!(!quick::tool().is_task());
    assert_eq!(build("x".into()), Ok("built x".into()));
    let tools = <Reports as Toolset>::tools(Arc::new(Reports));
    assert!(tools[0].is_task());

    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        let done = build::tool()
            .execute(serde_json::json!({"target": "app"}), Context::new())
            .await;
        assert_eq!(done.output, "built app");
    });
}

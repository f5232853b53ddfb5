// `approval` alone and `approval = "…"`, on a function and on a toolset method: each tool
// asks before it runs, and the functions stay callable as written.
use std::sync::Arc;

use toolnexus::{Context, Toolset, tool, toolset};

/// Delete a repository.
#[tool(approval)]
fn delete_repo(name: String) -> Result<String, String> {
    Ok(format!("deleted {name}"))
}

/// Drop a table.
#[tool(approval = "Drop the table for good?", name = "drop_table")]
async fn drop(table: String) -> Result<String, String> {
    Ok(format!("dropped {table}"))
}

struct Repos;

#[toolset]
impl Repos {
    /// Archive a repository.
    #[tool(approval)]
    fn archive(&self, name: String) -> Result<String, String> {
        Ok(format!("archived {name}"))
    }
}

fn main() {
    assert!(delete_repo::tool().requires_approval());
    assert!(drop::tool().requires_approval());
    assert_eq!(delete_repo("x".into()), Ok("deleted x".into()));
    let tools = <Repos as Toolset>::tools(Arc::new(Repos));
    assert!(tools[0].requires_approval());

    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        let args = serde_json::json!({"table": "users"});
        let ctx = Context::new().with_call_id("c1");
        let asked = drop::tool().execute(args.clone(), ctx.clone()).await;
        let request = asked.pending_request().expect("asks first");
        assert_eq!(request.prompt, "Drop the table for good?");
        let done = drop::tool()
            .execute(args, ctx.with_answer(request.answer(true)))
            .await;
        assert_eq!(done.output, "dropped users");
    });
}

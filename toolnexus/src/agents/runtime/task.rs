//! The `task {agent, prompt}` tool: spawn, wake, wait and close fused, for a model to
//! delegate to its team; a re-invoked call reattaches to its child by task key.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::tool::context::Context;
use crate::tool::def::Tool;
use crate::tool::result::ToolResult;

use super::{Inner, Runtime};
use crate::agents::types::{Handle, TaskStatus};

/// The name of the delegating tool.
pub const TASK_TOOL: &str = "task";

/// `parent`'s `task` tool: its description lists `team` (sorted, each with what it
/// does); a target outside the team is an error naming the team.
pub(crate) fn tool(rt: &Arc<Inner>, parent: &Arc<str>, team: &[String]) -> Tool {
    let listed: Vec<String> = team
        .iter()
        .filter_map(|name| rt.registry.get(name).map(|d| format!("{name}: {}", d.does)))
        .collect();
    let description = format!(
        "Delegate a subtask to an isolated subagent. Available agents — {}",
        listed.join("; ")
    );
    let schema = json!({
        "type": "object",
        "properties": {"agent": {"type": "string"}, "prompt": {"type": "string"}},
        "required": ["agent", "prompt"],
    });
    let runtime = Runtime {
        inner: Arc::clone(rt),
    };
    let parent = Handle(Arc::clone(parent));
    let team: Arc<[String]> = team.into();
    Tool::new(
        TASK_TOOL,
        description,
        schema,
        move |args: Value, _ctx: Context| {
            let (runtime, parent, team) = (runtime.clone(), parent.clone(), Arc::clone(&team));
            async move { delegate(&runtime, &parent, &team, &args).await }
        },
    )
}

async fn delegate(rt: &Runtime, parent: &Handle, team: &[String], args: &Value) -> ToolResult {
    let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_owned);
    let (Some(agent), Some(prompt)) = (text("agent"), text("prompt")) else {
        return ToolResult::error(format!(
            "task: `agent` and `prompt` must both be strings (team: {})",
            team_names(team)
        ));
    };
    if !team.contains(&agent) {
        return ToolResult::error(format!(
            "agent \"{agent}\" not in this agent's team ({})",
            team_names(team)
        ));
    }
    let key = format!("{agent}:{prompt}");
    let existing = {
        let t = rt.inner.table();
        t.get(parent.id()).and_then(|p| {
            p.children
                .iter()
                .find(|c| {
                    t.get(c)
                        .is_some_and(|n| n.task_key.as_deref() == Some(&key))
                })
                .cloned()
        })
    };
    let child = match existing {
        Some(id) => {
            rt.inner
                .note(format!("{parent}: task replay → REATTACH to {id}"));
            Handle(id)
        }
        None => {
            let child = match rt.spawn(parent, &agent, None) {
                Ok(child) => child,
                Err(refused) => {
                    let mut r = ToolResult::error(refused.message);
                    if let Some(limit) = refused.limit {
                        r = r.with_metadata("limit", limit.as_str());
                    }
                    return r;
                }
            };
            if let Some(node) = rt.inner.table().get_mut(child.id()) {
                node.task_key = Some(key);
            }
            if let Err(refused) = rt.wake(&child, Some(prompt)) {
                return ToolResult::error(refused.to_string());
            }
            child
        }
    };
    let r = rt.wait(&child, None).await;
    if r.status == TaskStatus::Pending
        && let Some(request) = r.pending
    {
        return ToolResult::pending(request);
    }
    rt.close(&child, false).await;
    let output = match r.status {
        TaskStatus::Done => r.text.clone(),
        status => format!("[{status}] {}", r.text),
    };
    let mut result = if r.is_error {
        ToolResult::error(output)
    } else {
        ToolResult::ok(output)
    }
    .with_metadata("agent", agent)
    .with_metadata("turns", r.turns)
    .with_metadata("totalTokens", r.total_tokens)
    .with_metadata("status", r.status.to_string());
    if let Some(limit) = r.limit {
        result = result.with_metadata("limit", limit.as_str());
    }
    result
}

fn team_names(team: &[String]) -> String {
    if team.is_empty() {
        "none".to_owned()
    } else {
        team.join(", ")
    }
}

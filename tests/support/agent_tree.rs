//! What the agent-runtime tests share: a scripted model for one agent of a tree, which
//! reads only its transcript.

use serde_json::Value;
use toolnexus::model::FnModel;
use toolnexus::{Message, Reply, ToolCall, Usage};

/// A model for `agent`: its k-th turn makes `calls[k]`, then it answers `<agent> done`;
/// each turn is told to `note` as `turn <agent> <k>`, and spends 10 tokens.
pub(crate) fn scripted(
    agent: &'static str,
    calls: Vec<(&'static str, Value)>,
    note: impl Fn(String) + Send + Sync + 'static,
) -> FnModel {
    FnModel::new_sync(move |transcript, _| {
        let k = transcript
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        note(format!("turn {agent} {k}"));
        let reply = match calls.get(k) {
            Some((tool, args)) => Reply::calls([ToolCall::new(
                format!("{agent}_call_{k}"),
                *tool,
                args.to_string(),
            )]),
            None => Reply::text(format!("{agent} done")),
        };
        Ok(reply.with_usage(Usage::new(6, 4)))
    })
}

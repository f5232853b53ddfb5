//! What a turn lists when tool search is on: the built-in search tool, the always-visible
//! tools, and the tools found so far, read from the transcript.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Value, json};

use crate::agent::message::Message;
use crate::search::index::ToolIndex;
use crate::search::options::{SEARCH_TOOL, ToolSearch};
use crate::tool::Tool;
use crate::tool::result::ToolResult;
use crate::tool::toolkit::Toolkit;

/// The marker of a result line that names a tool: `- NAME: description`.
const LINE: &str = "- ";

/// Longest one-line description in a search result, in characters.
const SUMMARY: usize = 160;

/// Tool search for one run over one toolkit.
pub(crate) struct Scope {
    tool: Tool,
    visible: Vec<String>,
}

impl Scope {
    /// The search of `options` over `toolkit`, or `None` when the toolkit is small enough
    /// to be listed whole.
    pub(crate) fn new(options: &ToolSearch, toolkit: &Toolkit) -> Option<Scope> {
        if toolkit.len() <= options.above {
            return None;
        }
        let (_, tool) = options.index_for(toolkit);
        Some(Scope {
            tool,
            visible: options.visible.clone(),
        })
    }

    /// The built-in search tool, which the loop runs itself.
    pub(crate) fn tool(&self) -> &Tool {
        &self.tool
    }

    /// The tools the next turn lists: the search tool, the visible ones, then every tool
    /// found so far in `transcript` (named by a search result, or called), in the order
    /// they were found.
    pub(crate) fn listing(&self, transcript: &[Message], toolkit: &Toolkit) -> Toolkit {
        let mut listed = Toolkit::new().with(self.tool.clone());
        let mut seen = FxHashSet::default();
        seen.insert(SEARCH_TOOL);
        let mut add = |name: &str, listed: &mut Toolkit| {
            if let Some(tool) = toolkit.get(name)
                && seen.insert(tool.name())
            {
                listed.extend([tool.clone()]);
            }
        };
        for name in &self.visible {
            add(name, &mut listed);
        }
        for name in found(transcript) {
            add(name, &mut listed);
        }
        listed
    }
}

/// The tools found in `transcript`, in order, with repeats: those named by a successful
/// `search_tools` result, and those the model called.
fn found(transcript: &[Message]) -> Vec<&str> {
    let results: FxHashMap<&str, &str> = transcript
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                tool_call_id,
                content,
                is_error: false,
                ..
            } => Some((tool_call_id.as_str(), content.as_str())),
            _ => None,
        })
        .collect();
    let mut names = Vec::new();
    for call in transcript.iter().flat_map(Message::calls) {
        if call.name != SEARCH_TOOL {
            names.push(call.name.as_str());
        } else if let Some(text) = results.get(call.id.as_str()) {
            names.extend(named(text));
        }
    }
    names
}

/// The tool names in a search result's text.
fn named(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter_map(|line| line.strip_prefix(LINE)?.split_once(':'))
        .map(|(name, _)| name)
}

/// The built-in `search_tools` tool over `index`, giving `results` tools by default.
pub(crate) fn search_tool(index: Arc<ToolIndex>, results: usize) -> Tool {
    let most = results * 2;
    let description = format!(
        "Search the {} available tools by what they do. Returns the best matches (name and \
         one-line description); the tools found can be called from then on. Search again \
         with other words when none fits.",
        index.len()
    );
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What the tool should do, in a few words."},
            "limit": {
                "type": "integer", "minimum": 1, "maximum": most,
                "description": format!("How many tools to return (default {results}).")
            }
        },
        "required": ["query"],
        "additionalProperties": false
    });
    Tool::new_sync(SEARCH_TOOL, description, schema, move |args, _| {
        let Some(query) = args
            .get("query")
            .and_then(Value::as_str)
            .filter(|q| !q.trim().is_empty())
        else {
            return ToolResult::error(format!("{SEARCH_TOOL}: `query` must be a non-empty string"));
        };
        let limit = match args.get("limit") {
            None | Some(Value::Null) => results,
            Some(limit) => match limit.as_u64() {
                Some(n @ 1..) => usize::try_from(n).unwrap_or(most).min(most),
                _ => {
                    return ToolResult::error(format!(
                        "{SEARCH_TOOL}: `limit` must be an integer from 1 to {most}"
                    ));
                }
            },
        };
        ToolResult::ok(answer(&index, query, limit))
    })
}

/// The text of a search result: one line per tool found.
fn answer(index: &ToolIndex, query: &str, limit: usize) -> String {
    let hits = index.search(query, limit);
    if hits.is_empty() {
        return format!("No tool matches \"{query}\". Search again with other words.");
    }
    let mut text = match hits.len() {
        1 => "1 tool found; it can be called now:".to_owned(),
        n => format!("{n} tools found; they can be called now:"),
    };
    for tool in hits {
        text.push('\n');
        text.push_str(LINE);
        text.push_str(tool.name());
        text.push_str(": ");
        text.push_str(&summary(tool.description()));
    }
    text
}

/// The first line of a description, at most [`SUMMARY`] characters.
fn summary(description: &str) -> String {
    let line = description
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let line = line.trim();
    match line.char_indices().nth(SUMMARY) {
        None => line.to_owned(),
        Some((cut, _)) => format!("{}…", &line[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_name_tools() {
        let text = "2 tools found; they can be called now:\n- a_b: does a: b\n- c: d\nnot - e: f";
        assert_eq!(named(text).collect::<Vec<_>>(), ["a_b", "c"]);
    }

    #[test]
    fn summaries_are_one_short_line() {
        assert_eq!(summary("\n  First line.  \nSecond."), "First line.");
        let long = "x".repeat(200);
        assert_eq!(summary(&long).chars().count(), SUMMARY + 1);
    }
}

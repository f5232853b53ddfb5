//! The built-in `search_tools` tool: what it lists for a query, and how its results name
//! the tools they found (which the loop reads back to list them; see `agent/listed.rs`).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::search::index::ToolIndex;
use crate::tool::Tool;
use crate::tool::result::ToolResult;

/// The name of the built-in tool the model searches with.
pub const SEARCH_TOOL: &str = "search_tools";

/// The marker of a result line that names a tool: `- NAME: description`.
const LINE: &str = "- ";

/// Longest one-line description in a search result, in characters.
const SUMMARY: usize = 160;

/// The tool names in a search result's text.
pub(crate) fn named(text: &str) -> impl Iterator<Item = &str> {
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

//! [`ToolIndex`]: a toolkit's tools, ranked for a query by a [`Ranker`].

use std::fmt;

use serde_json::Value;

use crate::search::bm25::{Bm25, split_identifiers};
use crate::search::rank::Ranker;
use crate::tool::Tool;
use crate::tool::kit::Toolkit;

/// One search result: the tool and its score (higher is better; the scale is the ranker's).
#[derive(Debug, Clone, Copy)]
pub struct Hit<'a> {
    /// The tool found.
    pub tool: &'a Tool,
    /// How well it matched, on the ranker's scale.
    pub score: f32,
}

/// The tools of a toolkit, ranked for a query. Built once (the tools are cheap handles,
/// cloned in), searched as often as needed; local, with no model and no network.
///
/// See the [module](crate::search) for an example.
pub struct ToolIndex {
    tools: Vec<Tool>,
    ranker: Box<dyn Ranker>,
}

impl ToolIndex {
    /// The index of `toolkit`'s tools, ranked by [`Bm25`] over their [`document`]s.
    pub fn new(toolkit: &Toolkit) -> ToolIndex {
        let documents: Vec<String> = toolkit.tools().iter().map(document).collect();
        ToolIndex::with_ranker(toolkit, Bm25::new(&documents))
    }

    /// The index of `toolkit`'s tools, ranked by `ranker`, which was built over them in
    /// the order of [`Toolkit::tools`] (see [`Ranker`]).
    pub fn with_ranker(toolkit: &Toolkit, ranker: impl Ranker + 'static) -> ToolIndex {
        ToolIndex {
            tools: toolkit.tools().to_vec(),
            ranker: Box::new(ranker),
        }
    }

    /// The `n` tools that match `query` best, best first (fewer when fewer match).
    pub fn search(&self, query: &str, n: usize) -> Vec<&Tool> {
        self.hits(query, n)
            .into_iter()
            .map(|hit| hit.tool)
            .collect()
    }

    /// As [`ToolIndex::search`], with each tool's score. Positions the ranker gives
    /// outside the index, and repeated ones, are skipped.
    pub fn hits(&self, query: &str, n: usize) -> Vec<Hit<'_>> {
        let mut seen = vec![false; self.tools.len()];
        self.ranker
            .rank(query, n)
            .into_iter()
            .filter(|&(at, _)| at < seen.len() && !std::mem::replace(&mut seen[at], true))
            .take(n)
            .map(|(at, score)| Hit {
                tool: &self.tools[at],
                score,
            })
            .collect()
    }

    /// The tools indexed, in the toolkit's order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Whether this index was built over exactly these tools (the same handles, in the
    /// same order), so that it can serve `tools` without being built again.
    pub(crate) fn covers(&self, tools: &[Tool]) -> bool {
        self.tools.len() == tools.len()
            && self
                .tools
                .iter()
                .zip(tools)
                .all(|(a, b)| std::ptr::eq(a.input_schema(), b.input_schema()))
    }
}

impl fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolIndex")
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

/// How deep [`document`] reads nested parameters.
const DEPTH: usize = 4;

/// The text a tool is indexed by: its name (twice: a word of the name says more than a
/// word of a description), its description, and the names, descriptions and enumerated
/// values of its parameters (nested ones too, a few levels down), identifiers split into
/// words. Use it to build a [`Ranker`] over the same text.
///
/// ```
/// use serde_json::json;
/// use toolnexus::{search::document, Tool, ToolResult};
///
/// let tool = Tool::new_sync(
///     "get_weather",
///     "Current weather.",
///     json!({"type": "object", "properties": {"cityName": {"type": "string", "description": "The city."}}}),
///     |_, _| ToolResult::ok(""),
/// );
/// assert_eq!(document(&tool), "get weather get weather\nCurrent weather.\ncity Name The city.");
/// ```
pub fn document(tool: &Tool) -> String {
    let name = split_identifiers(tool.name());
    let mut text = format!("{name} {name}\n{}", tool.description());
    parameters(tool.input_schema(), DEPTH, &mut text);
    text
}

fn parameters(schema: &Value, depth: usize, text: &mut String) {
    if depth == 0 {
        return;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            text.push('\n');
            text.push_str(&split_identifiers(name));
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                text.push(' ');
                text.push_str(description);
            }
            if let Some(values) = property.get("enum").and_then(Value::as_array) {
                for value in values.iter().filter_map(Value::as_str) {
                    text.push(' ');
                    text.push_str(value);
                }
            }
            parameters(property, depth - 1, text);
        }
    }
    if let Some(items) = schema.get("items") {
        parameters(items, depth - 1, text);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            parameters(branch, depth - 1, text);
        }
    }
}

//! [`ToolSearch`]: the options of tool search in the loop.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use crate::search::builtin::search_tool;
use crate::search::index::ToolIndex;
use crate::tool::Tool;
use crate::tool::kit::Toolkit;

/// How many tools one search gives by default ([`ToolSearch::results`]).
pub const DEFAULT_RESULTS: usize = 5;

/// Tool search in the loop, for [`Client::tool_search`](crate::Client::tool_search).
///
/// With it, a run no longer lists every tool of the toolkit on every turn. Each turn
/// lists:
///
/// 1. the built-in [`search_tools`](crate::search::SEARCH_TOOL) tool (a query in, the best matches out,
///    each with a one-line description);
/// 2. the always-visible tools ([`ToolSearch::visible`]);
/// 3. every tool found so far in the run: each tool a `search_tools` result named, and
///    each tool the model called.
///
/// The found set is read from the transcript, so a run that halts and is resumed (or
/// continued, or picked up with [`run_from`](crate::Client::run_from)) keeps it. A call
/// to a toolkit tool that is not listed yet still runs. Ranking is local ([`ToolIndex`],
/// BM25 unless [`ToolSearch::index`] gives another), and the index is built once per
/// toolkit, on the first run that needs it, not per turn.
///
/// The built-in tool takes precedence over a toolkit tool of the same name while search
/// is on.
///
/// ```
/// use toolnexus::search::ToolSearch;
/// use toolnexus::{Client, ScriptedModel};
///
/// // Search once the toolkit has more than 30 tools; always list `get_time`.
/// let client = Client::new(ScriptedModel::default())
///     .tool_search(ToolSearch::above(30).visible(["get_time"]).results(8));
/// ```
#[derive(Clone)]
pub struct ToolSearch {
    pub(crate) visible: Vec<String>,
    pub(crate) above: usize,
    pub(crate) results: usize,
    given: Option<Arc<ToolIndex>>,
    /// The index (and the search tool over it) of the last toolkit searched.
    built: Arc<Mutex<Option<Built>>>,
}

/// An index and the search tool over it.
type Built = (Arc<ToolIndex>, Tool);

impl ToolSearch {
    /// Search on every run, whatever the size of the toolkit; no always-visible tool,
    /// [`DEFAULT_RESULTS`] per search.
    pub fn new() -> ToolSearch {
        ToolSearch::above(0)
    }

    /// Search only in runs whose toolkit has more than `n` tools; a smaller toolkit is
    /// listed whole, as without search.
    pub fn above(n: usize) -> ToolSearch {
        ToolSearch {
            visible: Vec::new(),
            above: n,
            results: DEFAULT_RESULTS,
            given: None,
            built: Arc::default(),
        }
    }

    /// Tools listed on every turn, by name (names the toolkit lacks are skipped).
    #[must_use]
    pub fn visible<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.visible.extend(names.into_iter().map(Into::into));
        self
    }

    /// How many tools one search gives at most (default [`DEFAULT_RESULTS`]; at least 1).
    /// The model may ask for fewer, or for up to twice as many.
    #[must_use]
    pub fn results(mut self, n: usize) -> Self {
        self.results = n.max(1);
        self
    }

    /// Searches with this index rather than building a BM25 one, e.g. one with an
    /// embedding [`Ranker`](crate::search::Ranker). It must be built over the toolkit the
    /// runs use ([`ToolIndex::with_ranker`]).
    #[must_use]
    pub fn index(mut self, index: Arc<ToolIndex>) -> Self {
        self.given = Some(index);
        self
    }

    /// The index for `toolkit` and the search tool over it: the given one, or the one
    /// built for this toolkit before, or a new one.
    pub(crate) fn index_for(&self, toolkit: &Toolkit) -> (Arc<ToolIndex>, Tool) {
        let mut built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((index, tool)) = built.as_ref() {
            let fits = match &self.given {
                Some(given) => Arc::ptr_eq(given, index),
                None => index.covers(toolkit.tools()),
            };
            if fits {
                return (Arc::clone(index), tool.clone());
            }
        }
        let index = match &self.given {
            Some(given) => Arc::clone(given),
            None => Arc::new(ToolIndex::new(toolkit)),
        };
        let tool = search_tool(Arc::clone(&index), self.results);
        *built = Some((Arc::clone(&index), tool.clone()));
        (index, tool)
    }
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch::new()
    }
}

impl fmt::Debug for ToolSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSearch")
            .field("visible", &self.visible)
            .field("above", &self.above)
            .field("results", &self.results)
            .field("index", &self.given.as_ref().map(|i| i.len()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tool::result::ToolResult;

    fn toolkit(names: &[&str]) -> Toolkit {
        names
            .iter()
            .map(|n| Tool::new_sync(*n, "", json!({"type": "object"}), |_, _| ToolResult::ok("")))
            .collect()
    }

    #[test]
    fn the_index_is_built_once_per_toolkit() {
        let search = ToolSearch::new();
        let one = toolkit(&["a", "b"]);
        let (first, _) = search.index_for(&one);
        let (again, _) = search.index_for(&one.clone());
        assert!(Arc::ptr_eq(&first, &again), "a clone holds the same tools");
        // Same names, other tools: built again.
        let (other, _) = search.index_for(&toolkit(&["a", "b"]));
        assert!(!Arc::ptr_eq(&first, &other));
        let given = Arc::new(ToolIndex::new(&one));
        let search = ToolSearch::new().index(Arc::clone(&given));
        assert!(Arc::ptr_eq(&search.index_for(&toolkit(&["z"])).0, &given));
    }
}

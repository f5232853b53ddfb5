//! [`Ranker`]: how a [`ToolIndex`](crate::search::ToolIndex) orders the tools for a query.

/// Ranks a fixed list of documents for a query. [`Bm25`](crate::search::Bm25) is the one toolnexus ships; an
/// embedding ranker plugs in the same way.
///
/// `rank` gives at most `n` pairs `(position, score)`, best first, where `position` is
/// the document's index in the list the ranker was built over (for a [`ToolIndex`](crate::search::ToolIndex), the
/// tool's index in [`Toolkit::tools`](crate::Toolkit::tools)), and a higher score is a better match. Leave out
/// documents that do not match at all.
///
/// An embedding ranker, sketched with a toy embedding (hashed words) where a real one
/// would call a model once per document when it is built, and once per query:
///
/// ```
/// use serde_json::json;
/// use toolnexus::search::{document, Ranker, ToolIndex};
/// use toolnexus::{Tool, ToolResult, Toolkit};
///
/// fn embed(text: &str) -> Vec<f32> {
///     let mut v = vec![0.0; 64];
///     for word in text.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
///         let slot = word.bytes().fold(7usize, |h, b| h.wrapping_mul(31).wrapping_add(usize::from(b)));
///         v[slot % 64] += 1.0;
///     }
///     let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
///     v.iter().map(|x| x / norm).collect()
/// }
///
/// struct Embeddings(Vec<Vec<f32>>);
///
/// impl Ranker for Embeddings {
///     fn rank(&self, query: &str, n: usize) -> Vec<(usize, f32)> {
///         let q = embed(query);
///         let mut hits: Vec<(usize, f32)> = self.0.iter().enumerate()
///             .map(|(i, d)| (i, d.iter().zip(&q).map(|(a, b)| a * b).sum()))
///             .collect();
///         hits.sort_by(|a, b| b.1.total_cmp(&a.1));
///         hits.truncate(n);
///         hits
///     }
/// }
///
/// let tool = |name: &str, description: &str| {
///     Tool::new_sync(name, description, json!({"type": "object"}), |_, _| ToolResult::ok(""))
/// };
/// let toolkit = Toolkit::new()
///     .with(tool("zip_files", "Zip files into an archive."))
///     .with(tool("weather", "Weather forecast."));
/// let ranker = Embeddings(toolkit.tools().iter().map(|t| embed(&document(t))).collect());
/// let index = ToolIndex::with_ranker(&toolkit, ranker);
/// assert_eq!(index.search("archive these files", 1)[0].name(), "zip_files");
/// ```
pub trait Ranker: Send + Sync {
    /// At most `n` `(position, score)` pairs for `query`, best first.
    fn rank(&self, query: &str, n: usize) -> Vec<(usize, f32)>;
}

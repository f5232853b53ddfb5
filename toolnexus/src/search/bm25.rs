//! [`Bm25`]: the default [`Ranker`], Okapi BM25 over the tools' documents.

use std::fmt;

use bm25::{DefaultTokenizer, Embedder, EmbedderBuilder, Embedding, Language, Scorer, Tokenizer};

use crate::search::rank::Ranker;

/// Okapi BM25 (k1 = 1.2, b = 0.75) over a fixed set of documents, with the `bm25` crate's
/// English tokenizer (Unicode word splitting, stop words, Snowball stemming), after
/// identifiers are split into words: `get_current_weather`, `getCurrentWeather` and
/// `get-current-weather` all read as "get current weather".
///
/// [`ToolIndex::new`](crate::search::ToolIndex::new) builds one over the tools'
/// [`document`](crate::search::document)s; build one yourself to rank other texts.
///
/// ```
/// use toolnexus::search::{Bm25, Ranker};
///
/// let bm25 = Bm25::new(&["book a flight to Paris", "cancel a hotel booking", "weather today"]);
/// let hits = bm25.rank("booking flights", 3);
/// assert_eq!(hits[0].0, 0); // "flight" and "book" both match the first
/// assert_eq!(hits.len(), 2); // the weather has no word in common
/// ```
pub struct Bm25 {
    embedder: Embedder<u32, Words>,
    scorer: Scorer<usize, u32>,
    len: usize,
}

impl Bm25 {
    /// The ranker of `documents`; a hit's position is the document's index here.
    pub fn new<S: AsRef<str>>(documents: &[S]) -> Bm25 {
        let texts: Vec<&str> = documents.iter().map(AsRef::as_ref).collect();
        let embedder =
            EmbedderBuilder::<u32, Words>::with_tokenizer_and_fit_to_corpus(Words::new(), &texts)
                .build();
        let mut scorer = Scorer::new();
        for (position, text) in texts.iter().enumerate() {
            scorer.upsert(&position, embedder.embed(text));
        }
        Bm25 {
            embedder,
            scorer,
            len: texts.len(),
        }
    }
}

impl Ranker for Bm25 {
    fn rank(&self, query: &str, n: usize) -> Vec<(usize, f32)> {
        let query: Embedding<u32> = self.embedder.embed(query);
        let mut scored: Vec<(usize, f32)> = self
            .scorer
            .matches(&query)
            .into_iter()
            .map(|doc| (doc.id, doc.score))
            .collect();
        // The scorer sorts by score only; ties go to the earlier document, so that the
        // same query always gives the same order.
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(n);
        scored
    }
}

impl fmt::Debug for Bm25 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bm25")
            .field("documents", &self.len)
            .field("avgdl", &self.embedder.avgdl())
            .finish()
    }
}

/// The English tokenizer, after identifiers are split into words.
struct Words(DefaultTokenizer);

impl Words {
    fn new() -> Words {
        Words(DefaultTokenizer::new(Language::English))
    }
}

impl Tokenizer for Words {
    fn tokenize(&self, text: &str) -> Vec<String> {
        self.0.tokenize(&split_identifiers(text))
    }
}

/// `get_userID.v2` → `get user ID v2`: separators become spaces, and a lower-case letter
/// or digit followed by an upper-case one starts a new word.
pub(crate) fn split_identifiers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut previous: Option<char> = None;
    for c in text.chars() {
        match c {
            '_' | '-' | '.' | '/' | ':' => out.push(' '),
            c if c.is_uppercase()
                && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) =>
            {
                out.push(' ');
                out.push(c);
            }
            c => out.push(c),
        }
        previous = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_words() {
        assert_eq!(split_identifiers("get_userID.v2"), "get user ID v2");
        assert_eq!(
            split_identifiers("getCurrentWeather"),
            "get Current Weather"
        );
        assert_eq!(split_identifiers("a-b/c:d"), "a b c d");
    }

    #[test]
    fn stems_match_and_ties_keep_document_order() {
        let bm25 = Bm25::new(&["ordering drinks", "orders of drinks", "unrelated"]);
        let hits = bm25.rank("order drink", 5);
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1]);
        assert!(bm25.rank("zebra", 5).is_empty());
        assert_eq!(bm25.rank("order", 1).len(), 1);
    }
}

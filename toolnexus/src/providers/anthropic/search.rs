//! [`DeferLoading`]: Anthropic's own tool search, and the turns that carry its blocks.
//!
//! With it, the `Anthropic` provider lists the toolkit's tools with `defer_loading: true`
//! (all but the always-visible ones) next to the tool-search server tool. Anthropic runs
//! the search; its response holds a `server_tool_use` block (the query) and a
//! `tool_search_tool_result` block whose `tool_reference`s load the tools found. Those
//! blocks are kept in the transcript ([`NativeTurn`]) and sent back as they came. So are
//! extended thinking's `thinking` and `redacted_thinking` blocks, with their signatures.

use serde_json::{Value, json};

use crate::model::message::{NativeTurn, ToolCall};
use crate::providers::common::wire::PartialCall;
use crate::schema::profile::Profile;
use crate::tool::kit::Toolkit;

/// The name [`NativeTurn::provider`] has for Anthropic's turns.
pub(crate) const NATIVE: &str = "anthropic";

/// Which search Anthropic runs over the deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bm25,
    Regex,
}

/// Anthropic's provider-native tool search, for
/// [`Anthropic::defer_loading`](crate::providers::Anthropic::defer_loading).
///
/// Once the toolkit has more than [`DeferLoading::above`] tools (by default, always),
/// each request lists the tool-search server tool (`tool_search_tool_bm25_20251119`, or
/// `tool_search_tool_regex_20251119`) and every tool of the toolkit with
/// `"defer_loading": true`, but those named in [`DeferLoading::visible`]. Anthropic keeps
/// the deferred definitions out of the model's context until its search returns them.
/// The options mirror [`ToolSearch`](https://docs.rs/toolnexus/latest/toolnexus/search/struct.ToolSearch.html)'s
/// (`above`, `visible`), which does the same locally for any provider.
///
/// ```
/// use toolnexus::providers::DeferLoading;
/// use toolnexus::{Tool, ToolResult, Toolkit};
///
/// let toolkit = Toolkit::new()
///     .with(Tool::new_sync("get_time", "The time.", serde_json::json!({"type": "object"}), |_, _| ToolResult::ok("12:00")))
///     .with(Tool::new_sync("get_weather", "The weather.", serde_json::json!({"type": "object"}), |_, _| ToolResult::ok("sun")));
/// let tools = DeferLoading::bm25().visible(["get_time"]).tools(&toolkit);
/// assert_eq!(tools[0]["type"], "tool_search_tool_bm25_20251119");
/// assert_eq!(tools[1]["name"], "get_time");
/// assert!(tools[1].get("defer_loading").is_none());
/// assert_eq!(tools[2]["defer_loading"], true);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeferLoading {
    kind: Kind,
    visible: Vec<String>,
    above: usize,
}

impl DeferLoading {
    /// Anthropic's BM25 search (the model searches in natural language).
    pub fn bm25() -> Self {
        DeferLoading {
            kind: Kind::Bm25,
            visible: Vec::new(),
            above: 0,
        }
    }

    /// Anthropic's regex search (the model writes Python `re.search` patterns).
    pub fn regex() -> Self {
        DeferLoading {
            kind: Kind::Regex,
            ..DeferLoading::bm25()
        }
    }

    /// Tools always listed in full (not deferred), by name.
    #[must_use]
    pub fn visible<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.visible.extend(names.into_iter().map(Into::into));
        self
    }

    /// Defers only when the toolkit has more than `n` tools; smaller toolkits are listed
    /// as they are, with no search tool.
    #[must_use]
    pub fn above(mut self, n: usize) -> Self {
        self.above = n;
        self
    }

    /// The `tools` array a Messages API request carries for `toolkit`: the search tool,
    /// then the toolkit's [`to_anthropic()`](Toolkit::to_anthropic) entries, deferred but
    /// for the visible ones.
    pub fn tools(&self, toolkit: &Toolkit) -> Value {
        self.listing(toolkit, Profile::Anthropic)
    }

    /// [`DeferLoading::tools`] for `profile`'s listing.
    pub(crate) fn listing(&self, toolkit: &Toolkit, profile: Profile) -> Value {
        let listing = toolkit.listing(profile);
        let Some(entries) = listing.as_array() else {
            return Value::clone(&listing);
        };
        if toolkit.len() <= self.above {
            return Value::clone(&listing);
        }
        let (kind, name) = match self.kind {
            Kind::Bm25 => ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
            Kind::Regex => ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
        };
        let mut tools = Vec::with_capacity(entries.len() + 1);
        tools.push(json!({"type": kind, "name": name}));
        for entry in entries {
            let mut entry = entry.clone();
            let name = entry.get("name").and_then(Value::as_str).unwrap_or("");
            if !self.visible.iter().any(|v| v == name)
                && let Some(object) = entry.as_object_mut()
            {
                object.insert("defer_loading".to_owned(), Value::Bool(true));
            }
            tools.push(entry);
        }
        Value::Array(tools)
    }
}

/// Whether a response block is one the transcript's shape cannot hold.
pub(crate) fn is_native(kind: &str) -> bool {
    !matches!(kind, "text" | "tool_use")
}

/// The blocks of an Anthropic turn to send back, when the turn kept its own form: each
/// block as it came, but `tool_use` blocks, which are the turn's calls (in order, with
/// the ids the loop gave them).
pub(crate) fn replay<'a>(
    native: Option<&'a NativeTurn>,
    calls: &'a [ToolCall],
) -> Option<Vec<Replayed<'a>>> {
    let blocks = native
        .filter(|n| n.provider == NATIVE)?
        .content
        .as_array()?;
    let mut calls = calls.iter();
    let mut out: Vec<Replayed<'a>> = Vec::with_capacity(blocks.len());
    for block in blocks {
        if block.get("type").and_then(Value::as_str) == Some("tool_use") {
            out.extend(calls.next().map(Replayed::Call));
        } else {
            out.push(Replayed::Block(block));
        }
    }
    out.extend(calls.map(Replayed::Call));
    Some(out)
}

/// One block of a replayed turn.
pub(crate) enum Replayed<'a> {
    /// A block sent back as it came.
    Block(&'a Value),
    /// A tool call of the turn.
    Call(&'a ToolCall),
}

/// The blocks of a streamed turn, by index, kept to rebuild its native form.
#[derive(Default)]
pub(crate) struct Streamed {
    blocks: Vec<(usize, Piece)>,
    native: bool,
}

enum Piece {
    Text(String),
    Call(usize),
    Other { block: Value, input: String },
}

impl Streamed {
    /// A block starts: text, the call at `position`, or another kind kept whole.
    pub(crate) fn start(&mut self, index: usize, block: &Value, call: Option<usize>) {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let piece = match (kind, call) {
            (_, Some(position)) => Piece::Call(position),
            ("text", None) => Piece::Text(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            ),
            _ => {
                self.native = true;
                Piece::Other {
                    block: block.clone(),
                    input: String::new(),
                }
            }
        };
        self.blocks.push((index, piece));
    }

    /// More text of block `index`.
    pub(crate) fn text(&mut self, index: usize, piece: &str) {
        if let Some(Piece::Text(text)) = self.piece(index) {
            text.push_str(piece);
        }
    }

    /// More input JSON of block `index`, when it is a server block.
    pub(crate) fn input(&mut self, index: usize, piece: &str) {
        if let Some(Piece::Other { input, .. }) = self.piece(index) {
            input.push_str(piece);
        }
    }

    /// More thinking text of block `index`, when it is a `thinking` block.
    pub(crate) fn thinking(&mut self, index: usize, piece: &str) {
        self.append(index, "thinking", piece);
    }

    /// More of the signature of block `index`, when it is a `thinking` block.
    pub(crate) fn signature(&mut self, index: usize, piece: &str) {
        self.append(index, "signature", piece);
    }

    fn append(&mut self, index: usize, key: &str, piece: &str) {
        if let Some(Piece::Other { block, .. }) = self.piece(index)
            && let Some(object) = block.as_object_mut()
        {
            let field = object
                .entry(key.to_owned())
                .or_insert_with(|| Value::String(String::new()));
            if let Value::String(text) = field {
                text.push_str(piece);
            }
        }
    }

    fn piece(&mut self, index: usize) -> Option<&mut Piece> {
        self.blocks
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, p)| p)
    }

    /// The turn's native form, if it had a block the transcript cannot hold.
    pub(crate) fn finish(self, calls: &[PartialCall]) -> Option<Box<NativeTurn>> {
        if !self.native {
            return None;
        }
        let blocks = self.blocks.into_iter().map(|(_, piece)| match piece {
            Piece::Text(text) => json!({"type": "text", "text": text}),
            Piece::Call(position) => {
                let call = calls.get(position);
                let input = call
                    .and_then(|c| serde_json::from_str::<Value>(&c.arguments).ok())
                    .unwrap_or_else(|| json!({}));
                json!({"type": "tool_use", "id": call.map(|c| c.id.as_str()),
                       "name": call.map(|c| c.name.as_str()), "input": input})
            }
            Piece::Other { mut block, input } => {
                if !input.trim().is_empty()
                    && let (Ok(parsed), Some(object)) =
                        (serde_json::from_str::<Value>(&input), block.as_object_mut())
                {
                    object.insert("input".to_owned(), parsed);
                }
                block
            }
        });
        Some(Box::new(NativeTurn::new(
            NATIVE,
            Value::Array(blocks.collect()),
        )))
    }
}

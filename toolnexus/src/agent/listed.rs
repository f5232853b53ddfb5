//! Which tools a turn lists: the hook point of tool search ([`Client::tool_search`]).
//! Without it, every turn lists the whole toolkit; with it, a turn lists the built-in
//! search tool, the always-visible tools, and the tools found so far, read from the
//! transcript.

use std::ops::Deref;

use crate::agent::client::Client;
use crate::model::message::Message;
use crate::tool::Tool;
use crate::tool::kit::Toolkit;

/// The tools of one run: the toolkit the calls run against, what each turn lists, and the
/// loop's own tools (run before the toolkit's).
pub(crate) struct Listed<'a> {
    toolkit: &'a Toolkit,
    #[cfg(feature = "search")]
    search: Option<searching::Searching>,
}

impl<'a> Listed<'a> {
    pub(crate) fn new(client: &Client, toolkit: &'a Toolkit) -> Listed<'a> {
        #[cfg(not(feature = "search"))]
        let _ = client;
        Listed {
            toolkit,
            #[cfg(feature = "search")]
            search: client
                .search
                .as_ref()
                .and_then(|options| searching::Searching::new(options, toolkit)),
        }
    }

    /// The tool the loop runs itself for calls of its name, if any.
    pub(crate) fn builtin(&self) -> Option<&Tool> {
        #[cfg(feature = "search")]
        if let Some(search) = &self.search {
            return Some(search.tool());
        }
        None
    }

    /// The toolkit the next turn lists, given the transcript so far.
    pub(crate) fn for_turn(&self, transcript: &[Message]) -> Offered<'a> {
        #[cfg(feature = "search")]
        if let Some(search) = &self.search {
            return Offered::Chosen(Box::new(search.listing(transcript, self.toolkit)));
        }
        let _ = transcript;
        Offered::Whole(self.toolkit)
    }
}

/// The toolkit one turn lists: the run's own, or one chosen for the turn (tool search),
/// boxed: the loop's future holds this across the model's turn, and a `Toolkit` by value
/// would make it that much larger for every run.
pub(crate) enum Offered<'a> {
    /// The run's toolkit.
    Whole(&'a Toolkit),
    /// A toolkit made for this turn.
    #[cfg(feature = "search")]
    Chosen(Box<Toolkit>),
}

impl Deref for Offered<'_> {
    type Target = Toolkit;

    fn deref(&self) -> &Toolkit {
        match self {
            Offered::Whole(toolkit) => toolkit,
            #[cfg(feature = "search")]
            Offered::Chosen(toolkit) => toolkit,
        }
    }
}

#[cfg(feature = "search")]
mod searching {
    use rustc_hash::{FxHashMap, FxHashSet};

    use crate::model::message::Message;
    use crate::search::{SEARCH_TOOL, ToolSearch, named};
    use crate::tool::Tool;
    use crate::tool::kit::Toolkit;

    /// Tool search for one run over one toolkit.
    pub(crate) struct Searching {
        tool: Tool,
        visible: Vec<String>,
    }

    impl Searching {
        /// The search of `options` over `toolkit`, or `None` when the toolkit is small
        /// enough to be listed whole.
        pub(crate) fn new(options: &ToolSearch, toolkit: &Toolkit) -> Option<Searching> {
            if toolkit.len() <= options.above {
                return None;
            }
            let (_, tool) = options.index_for(toolkit);
            Some(Searching {
                tool,
                visible: options.visible.clone(),
            })
        }

        /// The built-in search tool, which the loop runs itself.
        pub(crate) fn tool(&self) -> &Tool {
            &self.tool
        }

        /// The tools the next turn lists: the search tool, the visible ones, then every
        /// tool found so far in `transcript` (named by a search result, or called), in
        /// the order they were found.
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

    /// The tools found in `transcript`, in order, with repeats: those named by a
    /// successful `search_tools` result, and those the model called.
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
}

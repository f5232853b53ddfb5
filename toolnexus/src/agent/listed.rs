//! Which tools a turn lists: the hook point of tool search ([`Client::tool_search`]).
//! Without it, every turn lists the whole toolkit.

use std::ops::Deref;

use crate::agent::client::Client;
use crate::agent::message::Message;
use crate::tool::Tool;
use crate::tool::toolkit::Toolkit;

/// The tools of one run: the toolkit the calls run against, what each turn lists, and the
/// loop's own tools (run before the toolkit's).
pub(crate) struct Listed<'a> {
    toolkit: &'a Toolkit,
    #[cfg(feature = "search")]
    search: Option<crate::search::Scope>,
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
                .and_then(|options| crate::search::Scope::new(options, toolkit)),
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

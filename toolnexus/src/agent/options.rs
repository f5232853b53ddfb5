//! What a [`Client`](crate::Client) runs with beyond its model, tools and hooks: the
//! context budget, usage caps, the typed output a run must end with, and where
//! conversations by id are kept. One field of the client, so that each addition stays
//! in its own module.

use std::sync::Arc;

use crate::agent::compaction::Compaction;
use crate::agent::conversation::{ConversationStore, InMemoryConversations};
use crate::agent::guardrail::Guardrail;
use crate::agent::limits::UsageLimits;
use crate::agent::spend::Ledger;
use crate::agent::typed::{OutputMode, OutputSpec};
use crate::model::price::PriceTable;

/// The default for [`Client::output_retries`](crate::Client::output_retries).
pub const DEFAULT_OUTPUT_RETRIES: u32 = 1;

/// A client's run options (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct RunOptions {
    /// The token budget of what the model is shown ([`Client::compaction`](crate::Client::compaction)).
    pub(crate) compaction: Option<Arc<Compaction>>,
    /// Caps per run ([`Client::usage_limits`](crate::Client::usage_limits)).
    pub(crate) limits: UsageLimits,
    /// The output a typed run must end with ([`RunRequest::typed`](crate::agent::RunRequest::typed)).
    pub(crate) output: Option<Arc<OutputSpec>>,
    /// How often invalid output goes back to the model.
    pub(crate) output_retries: u32,
    /// How a typed run asks for its output ([`Client::output_mode`](crate::Client::output_mode)).
    pub(crate) mode: OutputMode,
    /// Where [`Client::ask`](crate::Client::ask) keeps conversations without a run store.
    pub(crate) conversations: Arc<dyn ConversationStore>,
    /// The prices turns are costed with ([`Client::prices`](crate::Client::prices)).
    pub(crate) prices: Option<Arc<PriceTable>>,
    /// What each conversation by id spent, for its cap.
    pub(crate) ledger: Ledger,
    /// The guardrails every run goes through ([`Client::guardrail`](crate::Client::guardrail)).
    pub(crate) guardrails: Vec<Guardrail>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            compaction: None,
            limits: UsageLimits::default(),
            output: None,
            output_retries: DEFAULT_OUTPUT_RETRIES,
            mode: OutputMode::Auto,
            conversations: Arc::new(InMemoryConversations::default()),
            prices: None,
            ledger: Ledger::default(),
            guardrails: Vec::new(),
        }
    }
}

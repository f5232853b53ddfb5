//! What a [`Client`](crate::Client) runs with beyond its model, tools and hooks: the
//! context budget, usage caps, the typed output a run must end with, and where
//! conversations by id are kept. One field of the client, so that each addition stays
//! in its own module.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::agent::compaction::Compaction;
use crate::agent::conversation::{ConversationStore, InMemoryConversations};
use crate::agent::events::{Events, Listener, events};
use crate::agent::guardrail::Guardrail;
use crate::agent::hooks::HookChain;
use crate::agent::journal::record::RunRecord;
use crate::agent::limits::UsageLimits;
use crate::agent::metrics::Meter;
use crate::agent::spend::Ledger;
use crate::agent::typed::{OutputMode, OutputSpec};
use crate::model::price::PriceTable;
use crate::tool::Tool;
use crate::tool::context::{Caller, CancellationToken};
use crate::tool::kit::Toolkit;
use crate::tool::request::{Answer, Request};

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
    /// The lease of a kept run ([`Client::lease`](crate::Client::lease)), kept whether or
    /// not a store is set yet.
    pub(crate) lease: std::time::Duration,
    /// The id of the next kept run ([`Client::run_id`](crate::Client::run_id)), likewise.
    pub(crate) run_id: Option<String>,
}

impl RunOptions {
    /// Puts the turn's cost on `reply.usage`, when the client prices turns: by its
    /// [`prices`](crate::Client::prices), or by the list prices when a cost is capped.
    pub(crate) fn price(&self, reply: &mut crate::model::Reply) {
        let limits = &self.limits;
        let table = match &self.prices {
            Some(table) => table,
            None if limits.cost.is_some() || limits.conversation_cost.is_some() => {
                static LIST: std::sync::OnceLock<Arc<PriceTable>> = std::sync::OnceLock::new();
                LIST.get_or_init(|| Arc::new(PriceTable::list_prices()))
            }
            None => return,
        };
        let Some(model) = reply.model.as_deref() else {
            return;
        };
        match table.cost(model, &reply.usage) {
            Some(cost) => reply.usage.cost = Some(cost),
            None => tracing::warn!(
                target: "toolnexus",
                model,
                "the price table has no price for this model; its turns count nothing \
                 toward spend caps"
            ),
        }
    }
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
            lease: crate::agent::journal::DEFAULT_LEASE,
            run_id: None,
        }
    }
}

/// The host slot that answers a [`Request`](crate::tool::request::Request) while the run waits; `Err` ends the run.
pub(crate) type WaitFor =
    dyn Fn(Request) -> BoxFuture<'static, Result<Answer, String>> + Send + Sync;

/// How the calls of a turn are run.
#[derive(Clone, Default)]
pub(crate) struct ToolOptions {
    pub(crate) wait_for: Option<Arc<WaitFor>>,
    pub(crate) wait_timeout: Option<Duration>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) sequential: bool,
    pub(crate) hooks: HookChain,
    pub(crate) listener: Option<Arc<Listener>>,
    /// Where the tools' progress, log lines and sampling requests go (see `talk.rs`).
    pub(crate) caller: Option<Arc<dyn Caller>>,
    /// The client's metrics (see `metrics.rs`).
    pub(crate) meter: Meter,
}

/// What the calls of one turn run with.
#[derive(Clone, Copy)]
pub(crate) struct Env<'a> {
    pub(crate) toolkit: &'a Toolkit,
    pub(crate) opts: &'a ToolOptions,
    /// The run's cancellation token, handed to every tool's [`Context`](crate::tool::context::Context).
    pub(crate) cancel: Option<&'a CancellationToken>,
    /// A tool the loop provides itself (tool search's), run for calls of its name.
    pub(crate) builtin: Option<&'a Tool>,
    /// Where a durable run records its calls; `None` without a store.
    pub(crate) record: Option<&'a RunRecord>,
}

impl Env<'_> {
    pub(crate) fn events(&self) -> Events<'_> {
        events(&self.opts.listener)
    }
}

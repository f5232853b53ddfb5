//! The agent loop: a [`Client`] drives a [`Model`](crate::Model) through turns, runs the
//! tool calls it asks for, and returns a [`RunResult`]. What a model is, and what it is
//! given and answers, is [`crate::model`].
//!
//! The crate root re-exports what a first program needs ([`Client`], [`RunResult`],
//! [`RunStatus`], [`Event`], [`Compaction`]); the rest of the loop is here:
//!
//! - guardrails that pass, rewrite or trip: [`Guardrail`], its [`Check`] and [`Stage`];
//! - steering a run: [`Hooks`], [`ToolDecision`], [`TurnStart`] and [`TurnDecision`]
//!   (with [`HookFuture`]), and
//!   [`IntoWaitOutcome`] for what a `wait_for` slot gives;
//! - what a run reports: [`CallRecord`] and [`CallStatus`] per call, [`StopReason`] for a
//!   run that stopped early;
//! - resuming: [`Halted`] (what [`Client::resume`] takes) and [`ResumeError`];
//! - agents run as tools ([`Client::as_tool`]): [`DEFAULT_MAX_DEPTH`], [`AGENT_KEY`],
//!   [`AGENT_STATE_KEY`];
//! - durable runs: the [`Journal`] a run store implements (features `sqlite`,
//!   `postgres`; see `toolnexus::store`), and [`Session`]s;
//! - a run's typed output ([`RunRequest::typed`](crate::agent::RunRequest::typed)): [`Typed`], [`TypedError`],
//!   [`OutputMode`], [`OUTPUT_TOOL`];
//! - the context budget ([`Compaction`], also at the crate root):
//!   [`Compacted`], [`estimate_tokens`], [`contract_json`], [`SUMMARY_PREFIX`],
//!   [`FLUSH_REMINDER`], [`CONTINUE`];
//! - caps per run: [`UsageLimits`];
//! - metrics ([`Client::on_metric`], [`Client::metrics`]): [`MetricRecord`],
//!   [`MetricsRegistry`];
//! - spend caps: [`SpendScope`] (prices are [`crate::model::PriceTable`]);
//! - a conversation in memory ([`Client::conversation`]): [`Conversation`];
//! - conversations by id ([`Client::ask`]): [`ConversationStore`],
//!   [`InMemoryConversations`], and the [`StoreError`] its methods give.

pub(crate) mod as_tool;
pub(crate) mod before_turn;
pub(crate) mod chat;
pub(crate) mod client;
pub(crate) mod compaction;
pub(crate) mod conversation;
pub(crate) mod drive;
pub(crate) mod entry;
pub(crate) mod events;
pub(crate) mod going_on;
pub(crate) mod guarded;
pub(crate) mod guardrail;
pub(crate) mod hooks;
pub(crate) mod in_order;
pub(crate) mod journal;
pub(crate) mod limits;
pub(crate) mod listed;
pub(crate) mod metrics;
pub(crate) mod options;
pub(crate) mod recent;
pub(crate) mod request;
pub(crate) mod resume;
pub(crate) mod run;
pub(crate) mod setters;
pub(crate) mod spend;
pub(crate) mod stream;
pub(crate) mod talk;
pub(crate) mod trace;
pub(crate) mod turn;
pub(crate) mod turn_hook;
pub(crate) mod typed;
pub(crate) mod wait;

pub use as_tool::{AGENT_KEY, AGENT_STATE_KEY, DEFAULT_MAX_DEPTH};
pub use chat::Conversation;
pub use client::{Client, DEFAULT_MAX_TURNS, IntoWaitOutcome};
pub use compaction::{
    CONTINUE, Compacted, Compaction, FLUSH_REMINDER, SUMMARY_PREFIX, contract_json, estimate_tokens,
};
pub use conversation::{ConversationStore, InMemoryConversations};
pub use events::{Event, OwnedEvent};
pub use going_on::{AnswerRequest, ResumeRequest};
pub use guardrail::{Check, Guardrail, Stage};
pub use hooks::{HookFuture, Hooks, ToolDecision, TurnDecision, TurnStart};
pub use journal::StoreError;
pub use journal::session::Session;
pub use journal::{Answered, Journal, Loaded, Parked, Stored};
pub use limits::UsageLimits;
pub use metrics::{MetricRecord, MetricsRegistry};
pub use options::DEFAULT_OUTPUT_RETRIES;
pub use request::RunRequest;
pub use resume::{Halted, ResumeError};
pub use run::{CallRecord, CallStatus, RunResult, RunStatus, SpendScope, StopReason};
pub use stream::{EventStream, STREAM_BUFFER};
pub use typed::{OUTPUT_TOOL, OutputMode, Typed, TypedError};

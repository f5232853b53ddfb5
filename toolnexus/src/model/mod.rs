//! The model contract: what the loop and every provider share. A [`Model`] takes the
//! [`Message`]s of a conversation and the tools it may call, and answers with a [`Reply`]
//! (text, tool calls, [`Usage`]); [`ModelSettings`] say how it is asked; a [`ModelError`]
//! says what went wrong, of which [`ModelErrorKind`]. [`FallbackModel`] and [`Router`] are
//! models made of models, [`FnModel`] a closure as one and [`ScriptedModel`] a scripted
//! one for tests; a [`PriceTable`] prices a turn's usage. Streamed turns come as
//! [`Delta`]s to a [`DeltaSink`]; a provider's own form of a turn is a [`NativeTurn`].
//!
//! This layer sits between the tools ([`crate::tool`](mod@crate::tool)) and the loop
//! ([`crate::agent`]):
//! providers implement it, and the loop calls it, without either importing the other.

pub(crate) mod cost;
pub(crate) mod error;
pub(crate) mod message;
pub(crate) mod price;
pub(crate) mod request;
pub(crate) mod routing;
pub(crate) mod seam;
pub(crate) mod settings;
pub(crate) mod usage;

pub use cost::Cost;
pub use error::{ModelError, ModelErrorKind};
pub use message::{Message, NativeTurn, ToolCall, UserContent};
pub use price::{LIST_PRICES_DATE, Price, PriceTable};
pub use request::{Delta, DeltaSink, ModelInfo, ModelRequest};
pub use routing::{FallbackModel, Router};
pub(crate) use seam::shared;
pub use seam::{FinishReason, FnModel, Model, ModelFuture, Reply, ScriptedModel};
pub use settings::{ModelSettings, OutputFormat, Reasoning, ToolChoice};
pub use usage::Usage;

//! The agent loop: a [`Client`](crate::Client) drives a [`Model`](crate::Model) through
//! turns, runs the tool calls it asks for, and returns a [`RunResult`](crate::RunResult).

pub(crate) mod as_tool;
pub(crate) mod client;
pub(crate) mod drive;
pub(crate) mod events;
pub(crate) mod hooks;
pub(crate) mod journal;
pub(crate) mod listed;
pub(crate) mod message;
pub(crate) mod model;
pub(crate) mod resume;
pub(crate) mod run;
pub(crate) mod settings;
pub(crate) mod talk;
pub(crate) mod trace;
pub(crate) mod turn;
pub(crate) mod usage;
